"""HTML report and CSV export, rendered from hand-made result dicts (tests/fixtures_result.py)."""
from __future__ import annotations

import base64
import copy
import csv
import hashlib
import json
import html
import re

import pytest

from termqa.config import Settings
from termqa.errors import UsageError
from termqa.labels import CODE_DESCRIPTIONS
from termqa.reports import CSV_COLUMNS, render_html, write_csv, write_html
from termqa.reports.csvout import unescape_cell
from termqa.reports.html import _Ids, build_view, json_for_script, label_info, slug, split_at_span

from tests.fixtures_result import IMG_ONERROR, SCRIPT_TAG, build_empty_result, build_result


@pytest.fixture(scope="module")
def result():
    return build_result()


@pytest.fixture(scope="module")
def page(result):
    return render_html(result)


def _script_blocks(html):
    return re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.S)


# ---------------------------------------------------------------------------- sections

def test_every_section_is_present(page, result):
    for section in ("verdict", "overview", "documents", "problems", "unjudged", "run", "concepts"):
        assert f'<section id="{section}"' in page
    assert "termqa:0.1.0|gloss:3f2a9c1d|lem:en=spacy-3.8.18 blank:en+lookups" in page
    assert "gpt-4o-mini-2024-07-18" in page and "error_judge@1+ab12cd" in page
    for path in ("samples/manual.xlf", "samples/service guide (v2).xlf", "memories/legacy.tmx",
                 "samples/terms.tbx", "glossaries/extra &lt;terms&gt;.csv"):
        assert path in page
    # Scores (2 decimals), coverage, counting metrics with their coverage.
    for text in ("0.66", "0.84", "1.01", "1.11", "84%", "16 scored, 3 not judged",
                 "EM term accuracy", "TCR-PR consistency", "19 of 19", "16 of 19"):
        assert text in page
    # Problems: every label with its meaning; error descriptions come from labels.py.
    for code in ("A2", "A4", "A5", "A7", "F"):
        assert CODE_DESCRIPTIONS[code] in page
    assert "follows a usage the document itself establishes" in page
    # What was not judged, with counts, and accounting.
    assert "divergent rendering, needs the judge</td><td class=\"num strong\">2</td>" in page
    assert "no rendering found (missing or paraphrased)</td><td class=\"num strong\">1</td>" in page
    assert "A judge was configured" in page
    assert "<tr><th scope=\"row\">LLM calls made</th><td class=\"num\">12</td></tr>" in page
    assert "<tr><th scope=\"row\">Estimated cost</th><td class=\"num\">$0.0123</td></tr>" in page
    assert "memories/legacy.tmx: 2 translation units have no target and were skipped" in page


def test_verdict_chart_is_inline_svg_with_text_legend(page):
    svg = re.search(r"<svg class=\"chart\".*?</svg>", page, flags=re.S).group(0)
    assert 'aria-label="Verdicts: Conforming: 8, Justified: 2, Unjustified: 1, Error: 5, Not judged: 3"' in svg
    assert svg.count("<rect ") == 5
    # Colour never alone: every outcome also has its word and count in the legend.
    for word, n, pct in (("Conforming", 8, "42%"), ("Error", 5, "26%"), ("Not judged", 3, "16%")):
        assert re.search(rf"{word}</span></td>\s*<td class=\"num\">{n}</td>\s*<td class=\"num muted\">{pct}</td>", page)


def test_counting_mode_explains_how_to_configure_a_judge():
    r = build_result(judge=False, accounting=False)
    page = render_html(r)
    assert "How to judge them:" in page and "<code>--judge-model</code>" in page and "OPENAI_BASE_URL" in page
    assert "A judge was configured" not in page
    assert "none — counting mode" in page
    assert "Judge accounting" not in page


def test_empty_result_renders():
    page = render_html(build_empty_result())
    assert "No glossary concept was found in the source text." in page
    assert "No error or consistency labels were given." in page
    assert "Every occurrence was settled." in page
    assert "<svg" not in page and "No term occurrences were found." in page
    assert page.count("<tr data-occ") == page.count('<div class="occ') == 0


def test_rejects_other_objects():
    with pytest.raises(UsageError, match="version 1"):
        render_html({"termqa_result": 2})
    with pytest.raises(UsageError):
        render_html([])


def test_template_fails_loudly_on_missing_fields():
    import jinja2

    r = build_result()
    del r["signature"]["tool"]
    with pytest.raises(jinja2.UndefinedError):
        render_html(r)


def test_write_html_writes_the_same_page(tmp_path, result, page):
    out = write_html(result, tmp_path / "report.html")
    assert out.read_text(encoding="utf-8") == page


# ---------------------------------------------------------------------------- security

def test_hostile_text_is_escaped_everywhere(page):
    # (the occurrences' cards are made by the page's script, as text: test_report_browser.py reads them)
    assert SCRIPT_TAG not in page
    assert "<img" not in page
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in page  # IMG_ONERROR as text
    assert "window.__pwned=1</script>" not in page
    assert "<b>de</b>" not in page
    assert "units manual.xlf: u9&#34;&gt;&lt;b&gt;x&lt;/b&gt;&amp;amp;" in page  # hostile unit id shown verbatim
    # Exactly our two script elements: the JSON data and the hashed inline script.
    blocks = _script_blocks(page)
    assert [attrs for attrs, _ in blocks] == [' type="application/json" id="termqa-data"', ""]
    # No attribute value can be broken out of: every `"` inside text is an entity.
    assert 'c99"' not in page


def test_json_block_escapes_markup_characters(page):
    (_, data), _ = _script_blocks(page)
    assert not set(data) & set("<>&")
    parsed = json.loads(data)
    assert [c["id"] for c in parsed["concepts"]][0] == 'c99"><x'
    # documents go by their short name (no folders), the full id stays in a title
    assert [d["name"] for d in parsed["documents"]] == [
        "manual.xlf", "service guide (v2).xlf", "legacy.tmx"]
    assert parsed["total"] == 19


def test_json_for_script_round_trips_hostile_strings():
    data = {"a": "</script><!-- <script>", "b": "x & y > z", "c": "\u2028\u2029"}
    text = json_for_script(data)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert "\\u003c/script\\u003e" in text
    assert json.loads(text) == data


def test_csp_allows_only_the_hashed_inline_script(page):
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    csp = html.unescape(csp)
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["style-src"] == "'unsafe-inline'"
    _, (_, script) = _script_blocks(page)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"
    assert "unsafe-inline" not in directives["script-src"]


def test_page_is_self_contained(page):
    assert not re.search(r"(src|href|action)=\"(https?:)?//", page)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert "@font-face" not in page


def test_works_without_javascript(page):
    # Controls are hidden until the script shows them; no content starts hidden.
    for m in re.finditer(r"<[^>]*\shidden[\s>][^>]*>?", page):
        tag = m.group(0)
        assert "js-only" in tag or 'id="selftest-out"' in tag, tag
    assert 'class="filtered-out"' not in page


# ---------------------------------------------------------------------------- grouping and order

def test_concepts_are_ordered_worst_first(result, page):
    view = build_view(result)
    assert [c["c"]["id"] for c in view["concepts"]] == ['c99"><x', "c3", "c7", "c12", "c21", "c40"]
    assert [c["total_penalty"] for c in view["concepts"]] == [5.0, 4.0, 3.0, 1.0, 0.5, 0.0]
    # Same order on the page.
    anchors = re.findall(r'<article class="concept" id="([^"]+)"', page)
    assert anchors == ["concept-c99-x", "concept-c3", "concept-c7", "concept-c12", "concept-c21", "concept-c40"]


def test_ties_are_broken_by_unjudged_count():
    r = build_result()
    for o in r["occurrences"]:
        if o["penalty"] is not None:
            o["penalty"] = 0.0
    order = [c["c"]["id"] for c in build_view(r)["concepts"]]
    # Every total is 0: concepts with an unjudged occurrence first (then size, then id).
    assert order == ["c12", "c21", "c7", "c40", 'c99"><x', "c3"]


def test_concept_block_content(result):
    view = build_view(result)
    c12 = next(c for c in view["concepts"] if c["c"]["id"] == "c12")
    assert [(l["lang"], [(t["text"], t["status"]) for t in l["terms"]]) for l in c12["langs"]] == [
        ("en", [("oil filter", "preferred"), ("OF", "admitted")]),
        ("fr", [("filtre à huile", "preferred"), ("filtre d'huile", "deprecated")]),
    ]
    forms = {f["form"]: f for f in c12["forms"]}
    # forms are shown as written ("OF"), never as their lemma key ("of")
    assert forms["OF"]["surfaces"] == ["OF"] and forms["OF"]["variations"] == ["acronym"]
    assert [(d["doc_id"], d["text"], d["provenance"], d["count"]) for d in forms["oil filter"]["docs"]] == [
        ("samples/manual.xlf", "filtre à huile", "glossary", 3),
        ("samples/service guide (v2).xlf", "filtre à huile", "glossary", 2),
    ]
    assert [(r["form"], r["target"], r["count"]) for r in c12["renderings"]] == [
        ("oil filter", "filtre à huile", 3), ("OF", "filtre", 1),
        ("oil filter", "filtre d'huile", 1), ("oil filter", "élément filtrant", 1),
    ]
    # flags come grouped, worst verdict first: error, then not judged, then justified
    assert [o["o"]["outcome"] for o in c12["flagged"]] == ["error", "unjudged", "justified"]
    assert [(g["outcome"], g["found"], g["count"]) for g in c12["groups"]] == [
        ("error", "filtre d'huile", 1), ("unjudged", "élément filtrant", 1), ("justified", "filtre", 1)]
    # conforming occurrences are counts per rendering (source form, rendering); their rows are the page's data
    assert c12["conforming"] == 3
    assert [(r["form"], r["target"], r["count"], r["docs"]) for r in c12["folded"]] == [
        ("oil filter", "filtre à huile", 3, "manual.xlf, service guide (v2).xlf")]


def _page_data(page: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="termqa-data">(.*?)</script>', page, re.S).group(1))


def test_flagged_listed_and_conforming_folded(page, result):
    flagged = [o for o in result["occurrences"] if o["outcome"] != "conforming"]
    conforming = [k for k, o in enumerate(result["occurrences"]) if o["outcome"] == "conforming"]
    # each flag is in the page, its occurrences' cards in its data (report.js makes them when it is opened)
    assert '<div class="occ' not in page
    cards = _page_data(page)["folded"]["cards"]
    assert page.count("<details class=\"grp") == len(cards) == 11
    assert sorted(row[0] for c in cards.values() for row in c["rows"]) == \
        [k for k, o in enumerate(result["occurrences"]) if o["outcome"] != "conforming"] and len(flagged) == 11
    # conforming occurrences are counts per rendering in the page, rows in its data (report.js makes them)
    assert "<tr data-occ" not in page
    assert page.count('<details class="conf" data-fold-concept="') == 4  # c3 and c99 have no conforming one
    assert "<summary>3 conforming occurrences</summary>" in page
    assert "<summary>1 conforming occurrence</summary>" in page
    folded = _page_data(page)["folded"]
    assert folded["fields"][:2] == ["k", "doc"]
    rows = [row for renderings in folded["concepts"].values() for r in renderings for row in r["rows"]]
    assert sorted(row[0] for row in rows) == conforming and len(rows) == 8
    folds = re.findall(r'<details class="fold" data-fold="([^"]+)">\s*<summary>(.*?)</summary>', page, re.S)
    assert len(folds) == sum(len(r) for r in folded["concepts"].values())
    counts = {f: int(re.search(r"×(\d+)", s).group(1)) for f, s in folds}
    assert counts == {f"{c}.{i}": len(r["rows"]) for c, rs in folded["concepts"].items() for i, r in enumerate(rs)}
    # a reason is written once, however many rows give it
    assert len(folded["reasons"]) == len(set(folded["reasons"])) < len(rows)


def _cards(page: str) -> list[dict]:
    """Every card of the page's data as a dict of its fields, its segment's texts beside."""
    folded = _page_data(page)["folded"]
    out = []
    for c in folded["cards"].values():
        for row in c["rows"]:
            card = dict(zip(folded["card_fields"], row))
            card["texts"] = folded["segments"][card["seg"]] if card["seg"] >= 0 else None
            out.append(card)
    return out


def test_spans_are_highlighted_from_offsets(page, result):
    # the offsets travel as they are, in code points (report.js counts them so; test_report_browser.py
    # reads the highlighted text it makes), and only when they fit the segment
    cards = _cards(page)
    marked = {(c["texts"][0][c["source_span"][0]:c["source_span"][1]],
               c["texts"][1][c["target_span"][0]:c["target_span"][1]] if c["target_span"] else None)
              for c in cards if c["texts"]}
    assert ("oil filter", "filtre d'huile") in marked
    assert ("brake pad", "garniture") in marked  # after "🚗", outside the BMP
    # A missing rendering is said, not highlighted.
    [away] = [c for c in cards if c["texts"] and c["texts"][1].startswith("Rangez-la dans son étui.")]
    assert away["target_span"] is None and away["missing"] == 1
    # each segment's text is written once, however many of its occurrences are flagged
    segments = _page_data(page)["folded"]["segments"]
    assert len(segments) == len({tuple(s) for s in segments}) == len({c["seg"] for c in cards if c["seg"] >= 0})


def test_split_at_span():
    assert split_at_span("abcdef", [1, 3]) == [
        {"text": "a", "mark": False}, {"text": "bc", "mark": True}, {"text": "def", "mark": False}]
    assert split_at_span("abc", [0, 3]) == [{"text": "abc", "mark": True}]
    for bad in (None, [2, 1], [0, 9], [-1, 2], [1], ["0", "1"], [True, 2]):
        assert split_at_span("abc", bad) == [{"text": "abc", "mark": False}]
    assert split_at_span("", [0, 0]) == []


def test_segment_anchors_are_unique_and_resolve(page):
    # a segment's anchor is on the element made for its first occurrence, a flagged card rather than a
    # conforming row; both are made by the page's script (test_report_browser.py follows the links)
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    targets = set(re.findall(r'href="#([^"]+)"', page))
    assert targets <= set(ids)
    folded = _page_data(page)["folded"]
    rows = [(row[6], row[7], "row") for rs in folded["concepts"].values() for r in rs for row in r["rows"]]
    rows += [(c["anchor"], c["own_anchor"], "card") for c in _cards(page)]
    own = [a for a, o, _ in rows if o]
    assert len(own) == len(set(own)) and not set(own) & set(ids)
    assert {a for a, _, _ in rows} == set(own)  # every link made goes to an element made
    owner = {a: kind for a, o, kind in rows if o}
    assert owner["seg-samples-manual-xlf-u2-s1"] == owner["seg-samples-manual-xlf-u9-b-x-b-amp-seg-1"] == "card"
    assert owner["seg-samples-manual-xlf-u1"] == "row"  # a conforming-only segment, empty segment id
    # Two occurrences of the same segment share one anchor, on the flagged one; the conforming row links to it.
    assert sorted((o, kind) for a, o, kind in rows if a == "seg-samples-manual-xlf-u4") == [(0, "row"), (1, "card")]


def test_slugs_and_collisions():
    assert slug('u9"><b>x</b>&amp;') == "u9-b-x-b-amp"
    assert slug("Über Straße") == "uber-strae"
    assert slug("???") == "x"
    ids = _Ids("seg", [("d", "a b", ""), ("d", "a-b", ""), ("d", "c", "")])
    assert ids[("d", "c", "")] == "seg-d-c"
    assert ids[("d", "a b", "")] != ids[("d", "a-b", "")]
    assert ids[("d", "a b", "")].startswith("seg-d-a-b-") and len(ids[("d", "a b", "")]) == len("seg-d-a-b-") + 6
    again = _Ids("seg", [("d", "a-b", ""), ("d", "a b", "")])  # order does not matter
    assert again[("d", "a b", "")] == ids[("d", "a b", "")]


def test_label_info():
    assert label_info("A4") == {"code": "A4", "name": "left untranslated",
                                "description": CODE_DESCRIPTIONS["A4"], "kind": "error"}
    assert label_info("document_usage")["kind"] == "justified"
    assert label_info("gratuitous_divergence")["kind"] == "unjustified"
    assert label_info("made_up")["kind"] == "other"
    assert label_info(None) is None


def test_problems_sorted_by_count_then_penalty(result):
    r = copy.deepcopy(result)
    r["summary"]["labels"] = {"F": 3, "A4": 1, "A3": 1, "document_usage": 5}
    view = build_view(r)
    assert [(p["code"], p["count"], p["penalty"]) for p in view["problems"]] == [
        ("document_usage", 5, None), ("F", 3, 1.0), ("A4", 1, 4.0), ("A3", 1, 3.0)]


# ---------------------------------------------------------------------------- CSV

def test_csv_columns_bom_and_rows(tmp_path, result):
    path = write_csv(result, tmp_path / "out.csv")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = list(reader)
    assert tuple(header) == CSV_COLUMNS
    assert len(rows) == len(result["occurrences"]) == 19
    assert raw.count(b"\r\n") == 20  # Excel's line ends; none inside these texts


def test_csv_row_round_trip(tmp_path, result):
    path = write_csv(result, tmp_path / "out.csv")
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    by_unit = {r["unit_id"]: r for r in rows}
    row = by_unit['u9"><b>x</b>&amp;']
    o = next(o for o in result["occurrences"] if o["unit_id"] == 'u9"><b>x</b>&amp;')
    assert row["segment_id"] == 'seg<"1">' and int(row["segment_index"]) == o["segment_index"]
    assert row["source_segment"] == "Reset the control unit. " + SCRIPT_TAG
    s0, s1 = int(row["source_start"]), int(row["source_end"])
    assert row["source_segment"][s0:s1] == row["source_text"] == "control unit"
    t0, t1 = int(row["target_start"]), int(row["target_end"])
    assert row["target_segment"][t0:t1] == row["target_text"] == "boîtier"
    assert (row["outcome"], row["label"], float(row["penalty"])) == ("error", "A2", 1.0)
    assert row["reason"] == o["reason"]
    assert (row["reference_text"], row["reference_provenance"]) == ("unité <b>de</b> commande", "glossary")
    assert row["is_first_mention"] == "true" and row["chain_size"] == "2"
    assert row["judge"] == "gpt-4o-mini-2024-07-18" and row["prompt_version"] == "error_judge@1+ab12cd"
    # Nulls are empty cells: an unjudged occurrence with no rendering.
    missing = by_unit["t-6"]
    assert (missing["target_text"], missing["target_start"], missing["penalty"], missing["judge"]) == ("", "", "", "")
    assert missing["outcome"] == "unjudged"
    assert by_unit["u10"]["source_segment"].endswith(IMG_ONERROR + " is under the seat 🚗.")


def test_csv_guards_formula_cells(tmp_path):
    r = build_result()
    r["occurrences"][0]["reason"] = "=HYPERLINK(\"http://x\",\"y\")"
    r["occurrences"][0]["target_text"] = "-filtre"
    path = write_csv(r, tmp_path / "out.csv")
    with path.open(encoding="utf-8-sig", newline="") as fh:
        row = next(csv.DictReader(fh))
    assert row["reason"] == "'=HYPERLINK(\"http://x\",\"y\")"
    assert unescape_cell(row["reason"]) == "=HYPERLINK(\"http://x\",\"y\")"
    assert unescape_cell(row["target_text"]) == "-filtre"
    assert row["penalty"] == "0.0"  # numbers are never prefixed


def test_csv_of_empty_result_has_only_the_header(tmp_path):
    path = write_csv(build_empty_result(), tmp_path / "out.csv")
    assert path.read_bytes() == b"\xef\xbb\xbf" + ",".join(CSV_COLUMNS).encode() + b"\r\n"


def test_languages_fall_back_to_the_documents():
    r = build_result(judge=False)
    r["signature"]["settings"].update(src_lang=None, tgt_lang=None)  # auto-detected run
    view = build_view(r)
    assert (view["src_lang"], view["tgt_lang"]) == ("en", "fr")
    assert "<span><b>en → fr</b></span>" in render_html(r)


def test_rule_decided_errors_are_named_after_their_rule():
    from termqa.pipeline.check import check
    from termqa.reports.html import render_html
    from tests.conftest import SAMPLES

    data = check([str(SAMPLES / "pump-manual.xlf")], [str(SAMPLES / "pump-terms.tbx")],
                 Settings(lemmatiser="lookup")).to_dict()
    page = render_html(data)
    # hélice is A1 by the deprecated-term rule: the occurrence says so rather than "neighbouring concept"
    assert "deprecated term" in page and "spelling (diacritics)" in page
