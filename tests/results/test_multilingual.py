"""One delivery, many target languages (issue 29): real TICO-19 files, en -> es / ru / fr.

The fixtures are slices of the corpus (../shared, through the `corpus` fixture) written to a temporary
folder: one TMX per target language, and the per-language glossaries as delivered (CSV, each numbering
its rows from 1), each saved as `<lang>/terms.csv` so that their file names collide as well as their ids.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from termqa.config import Settings
from termqa.glossaryscope import applicable, glossary_labels
from termqa.pipeline.check import check

UNITS = 400
PAIRS = {  # target -> (corpus folder, memory, glossary)
    "es": ("tico19-multi", "all.en-es-LA.tmx", "g_en_es-419.csv"),
    "ru": ("tico19-multi", "all.en-ru.tmx", "g_en_ru.csv"),
    "fr": ("tico19-enfr", "all.en-fr.tmx", "g_en_fr-FR.csv"),
}


def _slice_tmx(src: Path, out: Path, n: int) -> None:
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    tree = etree.parse(str(src), parser)
    body = tree.getroot().find("body")
    for tu in list(body)[n:]:
        body.remove(tu)
    out.parent.mkdir(parents=True, exist_ok=True)
    tree.write(str(out), xml_declaration=True, encoding="UTF-8")


@pytest.fixture(scope="module")
def delivery(tmp_path_factory):
    from tests.conftest import CORPUS

    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    base = tmp_path_factory.mktemp("delivery")
    files, glossaries = {}, {}
    for lang, (folder, memory, glossary) in PAIRS.items():
        data = CORPUS / "eval" / folder / "data"
        files[lang] = base / "files" / f"{lang}.tmx"
        _slice_tmx(data / "TM" / memory, files[lang], UNITS)
        glossaries[lang] = base / "gl" / lang / "terms.csv"
        glossaries[lang].parent.mkdir(parents=True, exist_ok=True)
        glossaries[lang].write_bytes((data / "terminologies" / glossary).read_bytes())
    return base, files, glossaries


def _occurrences(data: dict, doc_id: str) -> list[dict]:
    """A document's occurrences, concept ids without the glossary label a several-glossary run adds."""
    return [{**o, "concept_id": re.sub(r"^.*:", "", o["concept_id"])}
            for o in data["occurrences"] if o["doc_id"] == doc_id]


def test_labels_tell_equal_file_names_apart():
    from termqa.model import Glossary

    def g(path):
        return Glossary(path=path, format="csv", concepts=(), content_hash="")

    assert glossary_labels([g("a/terms.tbx"), g("b/other.tbx")]) == ["terms", "other"]
    assert glossary_labels([g("de/terms.tbx"), g("ru/terms.tbx")]) == ["de/terms", "ru/terms"]
    assert glossary_labels([g("terms.tbx"), g("terms.tbx")]) == ["terms#1", "terms#2"]


def test_per_language_glossaries_with_colliding_ids_match_single_runs(delivery):
    base, files, glossaries = delivery
    langs = list(PAIRS)
    multi = check([str(files[lang]) for lang in langs], [str(glossaries[lang]) for lang in langs]).to_dict()
    # ids collide across the three glossaries, and so do their file names: each concept keeps its glossary
    ids = {o["concept_id"] for o in multi["occurrences"]}
    assert all(re.match(r"^(es|ru|fr)/terms:", cid) for cid in ids), sorted(ids)[:5]
    for lang in langs:
        single = check([str(files[lang])], [str(glossaries[lang])]).to_dict()
        doc = single["documents"][0]["doc_id"]
        assert single["occurrences"], lang
        assert _occurrences(multi, doc) == _occurrences(single, doc), lang
        # every concept found in a document comes from that document's own glossary
        assert {o["concept_id"].split(":")[0] for o in multi["occurrences"] if o["doc_id"] == doc} == {f"{lang}/terms"}
    # the glossaries that do not apply are said once per language, not once per occurrence
    notes = [w for w in multi["warnings"] if "not applied to" in w]
    assert len(notes) == len(langs)
    assert not any("no reference" in w for w in multi["warnings"])


def test_glossary_without_the_target_language_does_not_apply(delivery):
    from termqa import formats

    _base, _files, glossaries = delivery
    gl = [formats.read_glossary(str(glossaries[lang])) for lang in PAIRS]
    assert applicable(gl, "ru") == (1,)
    assert applicable(gl, "es-419") == (0,)
    assert applicable(gl, "de") == (0, 1, 2)  # none has German: all apply (consistency only)


def _multilingual_tmx(files: dict, out: Path) -> Path:
    """One TMX holding every target of the per-language memories (their units share tuids and English)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    trees = {lang: etree.parse(str(p), parser) for lang, p in files.items()}
    first = next(iter(trees.values()))
    body = first.getroot().find("body")
    for lang, tree in list(trees.items())[1:]:
        others = {tu.get("tuid"): tu for tu in tree.getroot().find("body")}
        for tu in body:
            extra = others.get(tu.get("tuid"))
            if extra is not None:
                tu.append(extra.findall("tuv")[-1])
    first.write(str(out), xml_declaration=True, encoding="UTF-8")
    return out


def test_multilingual_tmx_checks_every_pair(delivery):
    base, files, glossaries = delivery
    tmx = _multilingual_tmx(files, base / "all.tmx")
    gl = [str(glossaries[lang]) for lang in PAIRS]
    res = check([str(tmx)], gl)
    assert [(d.doc_id, d.tgt_lang) for d in res.documents] == [
        (f"{tmx}#es-LA", "es-LA"), (f"{tmx}#ru", "ru"), (f"{tmx}#fr", "fr")]
    assert not res.alerts  # each pair's target text is read as its own language, not all as the first's
    multi = res.to_dict()
    for lang in PAIRS:
        single = check([str(files[lang])], [str(glossaries[lang])]).to_dict()
        pair = next(d["doc_id"] for d in multi["documents"] if d["tgt_lang"].startswith(lang))
        got = [{**o, "doc_id": None} for o in _occurrences(multi, pair)]
        want = [{**o, "doc_id": None} for o in _occurrences(single, single["documents"][0]["doc_id"])]
        assert got == want, lang
    # --tgt-lang narrows it to one pair
    only = check([str(tmx)], gl, Settings(tgt_lang="ru"))
    assert [d.tgt_lang for d in only.documents] == ["ru"]


@pytest.fixture(scope="module")
def termbase(delivery):
    """One multilingual glossary (en, es, ru, fr columns) joined from the three by their English term."""
    import csv

    base, _files, glossaries = delivery
    rows: dict = {}
    for lang in PAIRS:
        with open(glossaries[lang], encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh):
                rows.setdefault(r["sourceString"], {})[lang] = r["targetString"]
    out = base / "multilingual.csv"
    with open(out, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["en", *PAIRS])
        for en, t in rows.items():
            w.writerow([en, *(t.get(lang, "") for lang in PAIRS)])
    return out


@pytest.fixture(scope="module")
def termbase_tbx(delivery, termbase):
    """The same multilingual termbase as TBX (2008, one termEntry per concept, a langSet per language)."""
    import csv

    from xml.sax.saxutils import escape

    base = delivery[0]
    entries = []
    with open(termbase, encoding="utf-8", newline="") as fh:
        for n, row in enumerate(csv.DictReader(fh)):
            sets = "".join(f'<langSet xml:lang="{lang}"><tig><term>{escape(text)}</term></tig></langSet>'
                           for lang, text in row.items() if text)
            entries.append(f'<termEntry id="c{n}">{sets}</termEntry>')
    out = base / "termbase.tbx"
    out.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<martif type="TBX" xml:lang="en"><text><body>'
                   + "".join(entries) + "</body></text></martif>\n", encoding="utf-8")
    return out


def test_multilingual_tbx_languages_equal_single_runs(delivery, termbase_tbx):
    base, files, _glossaries = delivery
    multi = check([str(base / "files")], [str(termbase_tbx)]).to_dict()
    for lang in PAIRS:
        single = check([str(files[lang])], [str(termbase_tbx)]).to_dict()
        part = multi["languages"][single["documents"][0]["tgt_lang"]]
        assert single["occurrences"]
        assert _occurrences(multi, part["documents"][0]) == _occurrences(single, part["documents"][0])
        assert (part["summary"], part["scores"]) == (single["summary"], single["scores"]), lang


def test_languages_hold_what_single_language_runs_give(delivery, termbase):
    base, files, _glossaries = delivery
    multi = check([str(base / "files")], [str(termbase)]).to_dict()
    assert set(multi["languages"]) == {"es-LA", "ru", "fr"}
    # no averaged figure over several languages at the top: totals only
    assert multi["scores"]["system"] is None and multi["metrics"]["overall"] == {}
    assert multi["scores"]["scored"] == sum(p["scores"]["scored"] for p in multi["languages"].values())
    for lang in PAIRS:
        single = check([str(files[lang])], [str(termbase)]).to_dict()
        tag = single["documents"][0]["tgt_lang"]
        part = multi["languages"][tag]
        assert part["documents"] == [single["documents"][0]["doc_id"]]
        assert _occurrences(multi, part["documents"][0]) == _occurrences(single, part["documents"][0])
        for key in ("summary", "scores", "metrics"):
            assert part[key] == single[key], (lang, key)
        assert part["source_words"] == single["summary"]["source_words"]  # one word count (termqa.wordcount)
        assert "languages" not in single  # a single-language result keeps its shape
        # a backlog candidate of a language comes from that language's documents only
        for cand in part["backlog_candidates"]:
            assert set(cand["documents"]) <= set(part["documents"])


def test_gate_holds_per_language(delivery, termbase):
    from click.testing import CliRunner

    from termqa.cli.main import main as cli

    base, _files, _glossaries = delivery
    out = base / "gate.json"
    r = CliRunner().invoke(cli, ["check", str(base / "files"), "-g", str(termbase), "-q", "--fail-on", "unjudged>100",
                                 "--json", str(out)])
    import json

    data = json.loads(out.read_text(encoding="utf-8"))
    failed = sorted(lang for lang, part in data["languages"].items() if not part["gate"]["passed"])
    assert failed == [lang for lang, part in sorted(data["languages"].items())
                      if part["summary"]["outcomes"]["unjudged"] > 100]
    assert failed == ["ru"]  # the Russian slice leaves 144 of its 348 occurrences to the judge, the others 49 and 58
    assert r.exit_code == 1
    assert f"languages failed ({', '.join(failed)})" in r.stderr


def test_compare_and_meta_eval_take_one_pair(delivery, termbase, tmp_path):
    """compare and meta-eval stay one language pair per run: given several, exit 2 naming the fix."""
    import json

    from click.testing import CliRunner

    from termqa.cli.main import main as cli

    base, files, _glossaries = delivery
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for lang in ("es", "ru"):
        (mixed / files[lang].name).write_bytes(files[lang].read_bytes())
    other = tmp_path / "other"
    other.mkdir()
    for lang in ("es", "ru"):
        (other / files[lang].name).write_bytes(files[lang].read_bytes())
    r = CliRunner().invoke(cli, ["compare", str(mixed), str(other), "-g", str(termbase)])
    assert r.exit_code == 2, r.output
    assert "one language pair per system" in r.stderr and "Traceback" not in r.stderr
    # meta-eval refuses a result of several target languages
    res = check([str(mixed)], [str(termbase)]).to_dict()
    for name in ("a", "b"):
        (tmp_path / f"{name}.json").write_text(json.dumps(res), encoding="utf-8")
    r = CliRunner().invoke(cli, ["meta-eval", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
                                 "--human", str(tmp_path / "a.json")])
    assert r.exit_code == 2, r.output
    assert "one language pair per run" in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 2  # the message and its fix


def test_report_first_screen_and_backlog_per_language(delivery, termbase, tmp_path):
    import csv
    import io

    from lxml import etree as et

    from termqa.results.backlog import backlog, tbx_bytes
    from termqa.reports.csvout import rows as csv_rows
    from termqa.reports.html import build_view, render_html

    base, files, _glossaries = delivery
    multi = check([str(base / "files")], [str(termbase)]).to_dict()
    view = build_view(multi, fail_on=["unjudged>5"])
    rows = {lv["lang"]: lv for lv in view["languages"]}
    assert list(rows) == list(multi["languages"])
    for lang, lv in rows.items():
        part = multi["languages"][lang]
        oc = part["summary"]["outcomes"]
        assert lv["headline"]["total"] == part["summary"]["occurrences"]
        assert lv["headline"]["ok"] == oc["conforming"] + oc["justified"]
        assert lv["gate"]["word"] == ("FAIL" if oc["unjudged"] > 5 else "PASS")
        assert lv["headline"]["per_k"] is not None  # words per language are known
    assert view["gate"]["word"] == "FAIL" and any(f.startswith("ru: ") for f in view["gate"]["failed"])
    page = render_html(multi, fail_on=["unjudged>5"])
    first = page[page.index('id="verdict"'):page.index('id="concepts"')]
    for name in ("Spanish (es-LA)", "Russian", "French"):
        assert name in first
    assert "→ ?" not in page and "? →" not in page
    assert 'href="#filter?lang=ru"' in first
    # the CSV names each row's language
    from termqa.shownpath import shown_path

    lang_of = {shown_path(d["doc_id"]): d["tgt_lang"] for d in multi["documents"]}  # the CSV shows no local path
    assert len(lang_of) == len(multi["documents"])
    for r in csv_rows(multi):
        assert r["language"] == lang_of[r["doc_id"]]
    # no backlog candidate under a language whose documents do not hold it
    report = backlog(multi, min_count=1)
    assert report["candidates"]
    for c in report["candidates"]:
        assert set(c["documents"]) <= set(multi["languages"][c["language"]]["documents"])
    tree = et.fromstring(tbx_bytes(report))
    xml_lang = "{http://www.w3.org/XML/1998/namespace}lang"
    ns = {"t": "urn:iso:std:iso:30042:ed-2"}
    written = {(ls.get(xml_lang), t.text) for ls in tree.iterfind(".//t:langSec", ns)
               for t in ls.iterfind(".//t:term", ns)}
    for c in report["candidates"]:
        assert (c["language"], c["rendering"]) in written
    assert "language" in next(csv.reader(io.StringIO(__import__("termqa.results.backlog", fromlist=["x"]).csv_text(report))))


def test_bare_glossary_with_several_target_languages_is_refused(delivery, tmp_path):
    from termqa.errors import LanguageError

    base, files, _glossaries = delivery
    bare = tmp_path / "bare.csv"
    bare.write_text("contagious,contagioso\nfever,fiebre\n", encoding="utf-8")
    with pytest.raises(LanguageError, match="3 target languages"):
        check([str(base / "files")], [str(bare)])
    assert check([str(files["es"])], [str(bare)]).verdicts  # one language: the glossary takes its pair


def test_rescore_keeps_languages_apart(delivery, termbase):
    from termqa.evaluate.rescore import rescore_result

    base, files, _glossaries = delivery
    multi = rescore_result(check([str(base / "files")], [str(termbase)]).to_dict(), {"A4": 0.25})
    single = rescore_result(check([str(files["fr"])], [str(termbase)]).to_dict(), {"A4": 0.25})
    assert multi["languages"]["fr"]["scores"] == single["scores"]
    assert multi["scores"]["system"] is None


def test_language_filter_in_the_url(delivery, termbase, tmp_path):
    """`#filter?lang=ru` (what a language row links to) shows the Russian occurrences only."""
    from termqa.reports.html import render_html
    from tests.reports.test_report_browser import CHROMIUM, _run

    if CHROMIUM is None:
        pytest.skip("no Chromium/Chrome binary found")
    base, _files, _glossaries = delivery
    multi = check([str(base / "files")], [str(termbase)]).to_dict()
    page = tmp_path / "report.html"
    page.write_text(render_html(multi), encoding="utf-8")
    dom = _run(tmp_path, page.as_uri() + "#filter?lang=ru", "--dump-dom")
    status = re.search(r'id="f-status"[^>]*>([^<]*)<', dom).group(1)
    ru = multi["languages"]["ru"]["summary"]["occurrences"]
    assert status == f"Showing {ru} of {len(multi['occurrences'])} occurrences."


def test_the_console_prints_a_block_per_language_in_plain_words(delivery, termbase):
    from click.testing import CliRunner

    from termqa.cli.main import main as cli

    base, _files, _glossaries = delivery
    r = CliRunner().invoke(cli, ["check", str(base / "files"), "-g", str(termbase)])
    langs = [line.split("]")[0][1:] for line in r.stdout.splitlines() if line.startswith("[")]
    assert len(langs) == 3 and "ru" in langs
    metric_lines = [line for line in r.stdout.splitlines() if line.startswith("  counting metrics")]
    assert len(metric_lines) == 3
    for line in metric_lines:  # the metrics by their names, as in a single-language run, not their JSON keys
        assert "EM term accuracy" in line and "tcr_pr" not in line and " em " not in line
