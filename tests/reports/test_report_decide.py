"""Deciding in the HTML report: a reviewer clicks Accept / Reject in a real headless Chromium, downloads
`termqa-decisions.json`, and the next `termqa check` applies it, with the decisions the run already
used kept. Chromium is driven over the DevTools pipe (tests/browser_pipe.py); a screenshot goes to
tests/artifacts/report-decide.png for a person to look at.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa.formats.decisions import DecisionBook, decisions_from_result, read_decisions, to_json, write_decisions
from termqa.pipeline.check import check
from termqa.reports import write_html
from termqa.reports.decide_view import occurrence_rows
from termqa.reports.html import build_view

from tests.browser_pipe import Browser, find_chromium
from tests.helpers import write_csv, write_xliff

CHROMIUM = find_chromium()
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

PAIRS = [
    ("u1", "Clean the strainer before start-up.", "Nettoyez le strainer avant la mise en service."),
    ("u2", "Replace the impeller.", "Remplacez l'impeller."),
    ("u3", "Check the strainer.", "Contrôlez la crépine."),
    ("u4", "Open the drain valve.", "Ouvrez la vanne de vidange."),
    ("u5", "Clean the impeller and the strainer again.", "Nettoyez de nouveau l'impeller et le strainer."),
]
GLOSSARY = [["c1", "strainer", "crépine"], ["c2", "impeller", "roue"], ["c3", "drain valve", "vanne de vidange"]]


def _occ(data, source, target, unit=None):
    return [k for k, o in enumerate(data["occurrences"]) if o["source_text"] == source and o["target_text"] == target
            and (unit is None or o["unit_id"] == unit)]


def _page_occ(page_data: dict) -> dict:
    """The decide data per occurrence as report.js puts it back together from the page's cards and folded
    rows (each part the occurrences share written once: reports/compact.py)."""
    f = page_data["folded"]
    C, R = {n: i for i, n in enumerate(f["card_fields"])}, {n: i for i, n in enumerate(f["fields"])}
    occ = dict(page_data["decide"]["occ"])
    for cards in f["cards"].values():
        for row in cards["rows"]:
            part = cards["parts"][row[C["part"]]]
            occ[str(row[C["k"]])] = [part[0], part[1], row[C["source_text"]], part[2], row[C["segment_key"]],
                                     cards["docs"][str(row[C["doc"]])], row[C["unit"]], row[C["id_segment"]],
                                     row[C["id_document"]], part[3]]
    for renderings in f["concepts"].values():
        for r in renderings:
            for row in r["rows"]:
                doc = r["docs"][str(row[R["doc"]])]
                occ[str(row[R["k"]])] = [r["concept"], r["source_form"], row[R["source_text"]], r["target"],
                                         row[R["segment_key"]], doc[0], row[R["unit"]], row[R["id_segment"]],
                                         doc[1], r["id_project"]]
    return occ


@pytest.fixture()
def project(tmp_path):
    x = write_xliff(tmp_path / "doc.xlf", PAIRS)
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], GLOSSARY)
    first = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    # the decisions file the run uses: olga rejected "vanne de vidange" for the whole project
    olga = decisions_from_result(first, _occ(first, "drain valve", "vanne de vidange"), decision="reject",
                                 scope="project", label="A7", by="olga", at="2026-11-01T09:00:00Z",
                                 comment="bleed valve here")
    path = tmp_path / "termqa-decisions.json"
    write_decisions(DecisionBook(tuple(olga)), str(path))
    data = check([x], [g], Settings(lemmatiser="lookup"), decisions=str(path)).to_dict()
    return {"xliff": x, "glossary": g, "decisions": path, "data": data}


def test_the_page_gets_exact_ids_and_the_runs_decisions(project):
    data = project["data"]
    view = build_view(data)
    page_data = json.loads(view["filter_json"])
    dd = dict(page_data["decide"], occ=_page_occ(page_data))
    assert dd["sig"].startswith(data["signature"]["id"] + "-")  # plus a digest of the flags
    assert [d["by"] for d in dd["run"]["decisions"]] == ["olga"] and dd["run"]["name"] == "termqa-decisions.json"
    # the page's ids are the library's: a decision built by termqa decide has the same one
    k = _occ(data, "impeller", "impeller", "u2")[0]
    for scope, col in (("segment", 7), ("document", 8), ("project", 9)):
        [d] = decisions_from_result(data, [k], decision="accept", scope=scope)
        assert dd["occ"][str(k)][col] == d.id
        assert dd["occ"][str(k)][5] == d.document if scope != "project" else True
    assert dd["occ"][str(k)][4] == decisions_from_result(data, [k], decision="accept", scope="segment")[0].segment
    assert [l[0] for l in dd["labels"]] == ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "C", "D", "E", "F", "G", "H",
                                            "neutralisation", "synonym_inconsistency", "gratuitous_divergence"]
    assert dd["labels"][2][1] == "A3 – invented calque"  # the one name of the label (termqa.labels.LABEL_NAMES)
    # every occurrence, flagged or conforming, gets the row the library would give it, whatever the page shares
    rows = occurrence_rows(data)
    assert dd["occ"] == {str(k): [v or "" if i in (2, 6) else v for i, v in enumerate(rows(k))]
                         for k in range(len(data["occurrences"]))}


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium/Chrome binary found")
def test_decide_in_the_page_download_and_check_applies_it(project, tmp_path):
    data = project["data"]
    report = tmp_path / "report.html"
    write_html(data, report)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    mark = """(() => {
      const groups = [...document.querySelectorAll('details[data-group]')];
      const g = (t) => groups.find((x) => x.querySelector('.gtext').textContent.replace(/\\s+/g, ' ').includes(t));
      g('strainer → strainer').dataset.test = 'strainer';
      const imp = g('impeller → impeller');
      imp.dataset.test = 'impeller';
      return groups.length; })()"""
    with Browser(CHROMIUM, tmp_path / "profile", width=1366, height=1000) as b:
        b.allow_downloads(downloads)
        b.open(report.as_uri())
        assert b.eval(mark) >= 3
        b.eval("window.__csp = []; document.addEventListener('securitypolicyviolation',"
               " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI))")
        assert b.eval("document.getElementById('rv-count').textContent") == "0"
        b.click("#review > summary")
        b.type_into("#rv-by", "maria")
        b.click("#review > summary")  # closed again: it would cover the page under it
        # a grouped flag: Accept all, for the document (the default for a group)
        b.click("details[data-test=strainer] > summary")
        b.wait_for("details[data-test=strainer] > .decide")
        assert b.eval("document.querySelector('details[data-test=strainer] > .decide .d-scope').value") == "document"
        b.click("details[data-test=strainer] > .decide .d-accept")
        # one occurrence of another flag: reject as A3, for this segment (the default for one occurrence)
        b.click("details[data-test=impeller] > summary")
        b.wait_for("details[data-test=impeller] [data-occ] .decide")
        b.eval("""[...document.querySelectorAll('details[data-test=impeller] [data-occ]')]
                  .find((o) => o.querySelector('.uid').textContent === 'u2').dataset.test = 'imp-u2'""")
        assert b.eval("document.querySelector('[data-test=imp-u2] .d-scope').value") == "segment"
        # the flag's own label is preselected (A4); with none chosen, the page asks for one
        assert b.eval("document.querySelector('[data-test=imp-u2] .d-label').value") == "A4"
        b.choose("[data-test=imp-u2] .d-label", "")
        b.click("[data-test=imp-u2] .d-reject")
        assert "label" in b.eval("document.querySelector('[data-test=imp-u2] .dstate').textContent")
        b.choose("[data-test=imp-u2] .d-label", "A3")
        b.type_into("[data-test=imp-u2] .d-comment", "a calque of the English")
        b.click("[data-test=imp-u2] .d-reject")
        assert b.eval("document.getElementById('rv-count').textContent") == "2"
        assert b.eval("document.querySelector('details[data-test=strainer] .dmark').textContent") == "✓ accepted"
        # a conforming occurrence, folded into its rendering's count: no row in the page until the rendering
        # is opened, then Decide…, then reject as A1 for its segment
        assert b.eval("document.querySelectorAll('details.conf tr[data-occ]').length") == 0
        b.eval("""(() => { const f = [...document.querySelectorAll('details.conf details.fold')]
                  .find((x) => x.querySelector('summary').textContent.includes('crépine'));
                  f.dataset.test = 'fold'; f.closest('details.conf').dataset.test = 'confs'; })()""")
        b.click("details[data-test=confs] > summary")
        b.click("details[data-test=fold] > summary")
        b.wait_for("details[data-test=fold] tr[data-occ]")
        b.eval("""(() => { const r = [...document.querySelectorAll('details[data-test=fold] tr[data-occ]')]
                  .find((x) => x.textContent.includes('crépine'));
                  r.dataset.test = 'conf'; })()""")
        b.click("[data-test=conf] .d-open")
        b.choose("[data-test=conf] + tr.d-row .d-label", "A1")
        b.click("[data-test=conf] + tr.d-row .d-reject")
        assert b.eval("document.getElementById('rv-count').textContent") == "3"
        ARTIFACTS.mkdir(exist_ok=True)
        b.click("#review > summary")
        assert b.eval("document.getElementById('review').open") is True
        b.screenshot(ARTIFACTS / "report-decide-panel.png")
        b.click("#review > summary")  # closed, to see the controls of the flags
        b.eval("document.querySelector('[data-test=imp-u2]').scrollIntoView({block: 'end'})")
        b.screenshot(ARTIFACTS / "report-decide.png")
        b.click("#review > summary")
        page_text = b.eval("document.getElementById('rv-text').value")
        b.click("#rv-download")
        b.wait_download()
        errors = b.eval("document.getElementById('selftest-out').textContent")
        assert not errors  # the script never failed (its fatal trace would be there)
        assert b.eval("window.__csp") == []  # the strict CSP holds: the download needs nothing more

        # a reload keeps the page's decisions (localStorage, keyed by the run signature) and the name
        b.open(report.as_uri())
        assert b.eval("document.getElementById('rv-count').textContent") == "3"
        assert b.eval("document.getElementById('rv-by').value") == "maria"
        b.click("#review > summary")
        b.click("#rv-list li:first-child button")  # undo the latest (the conforming one rejected)
        assert b.eval("document.getElementById('rv-count').textContent") == "2"
        assert "crépine" not in b.eval("document.getElementById('rv-text').value")

    saved = downloads / "termqa-decisions.json"
    text = saved.read_text(encoding="utf-8")
    assert text == page_text
    book = read_decisions(str(saved))
    assert to_json(book) == text  # exactly what the library writes: keys, order, ids, layout
    assert len(book) == 4
    assert {(d.source, d.rendering, d.by) for d in book.decisions} == {
        ("drain valve", "vanne de vidange", "olga"), ("strainer", "strainer", "maria"),
        ("impeller", "impeller", "maria"), ("strainer", "crépine", "maria")}
    by = {(d.rendering, d.by): d for d in book.decisions}
    assert (by["strainer", "maria"].decision, by["strainer", "maria"].scope) == ("accept", "document")
    assert (by["crépine", "maria"].decision, by["crépine", "maria"].label, by["crépine", "maria"].unit) == \
        ("reject", "A1", "u3")
    rej = by["impeller", "maria"]
    assert (rej.decision, rej.label, rej.scope, rej.unit, rej.comment) == ("reject", "A3", "segment", "u2",
                                                                         "a calque of the English")

    again = check([project["xliff"]], [project["glossary"]],
                  Settings(lemmatiser="lookup"), decisions=str(saved)).to_dict()
    occ = again["occurrences"]
    for k in _occ(again, "strainer", "strainer"):  # both segments: the document decision covers them
        assert (occ[k]["outcome"], occ[k]["judge"], occ[k]["rule"]) == ("justified", "reviewer", "reviewer")
        assert "maria" in occ[k]["reason"]
    [k] = _occ(again, "impeller", "impeller", "u2")
    assert (occ[k]["outcome"], occ[k]["label"], occ[k]["judge"]) == ("error", "A3", "reviewer")
    [k] = _occ(again, "impeller", "impeller", "u5")
    assert occ[k]["judge"] != "reviewer"  # decided for segment u2 only
    [k] = _occ(again, "drain valve", "vanne de vidange")
    assert (occ[k]["label"], occ[k]["judge"]) == ("A7", "reviewer") and "olga" in occ[k]["reason"]
    [k] = _occ(again, "strainer", "crépine")
    assert (occ[k]["outcome"], occ[k]["label"], occ[k]["judge"]) == ("error", "A1", "reviewer")
    assert again["decisions"]["stale"] == [] and again["decisions"]["occurrences_decided"] == 5


def test_the_runs_file_is_read_again_and_its_state_said(project):
    data, path = project["data"], project["decisions"]

    def run_part(result):
        return json.loads(build_view(result)["filter_json"])["decide"]["run"]

    assert run_part(dict(data, decisions=None)) == {"name": "", "note": "", "decisions": []}
    # edited since the run: its current decisions are the ones merged, and the page says so
    book = read_decisions(str(path))
    extra = decisions_from_result(data, _occ(data, "strainer", "strainer"), decision="accept", scope="project",
                                  by="bo", at="2026-11-02T09:00:00Z")
    write_decisions(DecisionBook(book.decisions + tuple(extra)), str(path))
    run = run_part(data)
    assert len(run["decisions"]) == 2 and "changed since the run" in run["note"]
    path.unlink()
    run = run_part(data)
    assert run["decisions"] == [] and "could not be read again" in run["note"]
