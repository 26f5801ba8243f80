"""The report's first screen and its grouping: the verdict, every warning, one headline figure, the
action panel (what to fix, what to add to the glossary), identical flags as one folded row, short
document names. Rendered from the hand-made result (tests/fixtures_result.py) and from a real run
on samples/."""
from __future__ import annotations

import copy
import json
import re

import pytest

from termqa.errors import UsageError
from termqa.pipeline.check import check
from termqa.reports.html import build_view, render_html
from termqa.reports.issues import display_names, group_flags, units_text

from tests.fixtures_result import build_result
from tests.conftest import SAMPLES


def _pos(page: str, needle: str) -> int:
    i = page.find(needle)
    assert i >= 0, needle
    return i


def _repeat_flag(result: dict, times: int) -> dict:
    """The error 'filtre d'huile' repeated in `times` more units: one problem, many occurrences."""
    r = copy.deepcopy(result)
    o = next(o for o in r["occurrences"] if o["outcome"] == "error" and o["target_text"] == "filtre d'huile")
    for i in range(times):
        r["occurrences"].append(dict(o, unit_id=f"rep{i}", segment_id=None, segment_index=1000 + i))
    r["summary"]["outcomes"]["error"] += times
    r["summary"]["occurrences"] += times
    return r


def test_sections_in_reading_order(result_page):
    page = result_page
    order = [_pos(page, f'<section id="{s}"') for s in
             ("verdict", "concepts", "documents", "problems", "unjudged", "overview", "run")]
    assert order == sorted(order)
    # the signature and the research metrics come after the concepts, never on the first screen
    concepts = _pos(page, '<section id="concepts"')
    body = _pos(page, "<body>")
    assert page.find("termqa:0.1.0|gloss:3f2a9c1d", body) > concepts
    assert page.find("TCR-PR") > concepts
    head = page[:_pos(page, '<section id="verdict"')]
    assert "samples/" not in head.split("<body>")[1]  # no folder names in the masthead


def test_gate_pass_fail_and_plain_state():
    r = build_result()
    failed = build_view(r, fail_on=["error>3"])["gate"]
    assert (failed["state"], failed["word"]) == ("fail", "FAIL")
    assert failed["failed"] == ["error>3 (found 5)"] and failed["conditions"] == "error>3"
    # the gate holds no condition, but 3 occurrences were not decided: REVIEW, never PASS (#34)
    passed = build_view(r, fail_on=["error>10,coverage<0.5"])["gate"]
    assert (passed["state"], passed["word"], passed["failed"]) == ("review", "REVIEW", [])
    assert passed["found"].startswith("6 errors, 3 to review; ")
    decided = copy.deepcopy(r)
    for o in decided["occurrences"]:
        if o["outcome"] == "unjudged":
            o["outcome"] = "conforming"
    decided["summary"]["outcomes"]["conforming"] += decided["summary"]["outcomes"]["unjudged"]
    decided["summary"]["outcomes"]["unjudged"] = 0
    clean = build_view(decided, fail_on=["error>10"])["gate"]
    assert (clean["state"], clean["word"], clean["failed"]) == ("pass", "PASS", [])
    plain = build_view(r)["gate"]
    assert (plain["state"], plain["word"]) == ("errors", "ERRORS")
    assert plain["found"].startswith("6 errors, 3 to review; ")
    page = render_html(r, fail_on=["error>3"])
    assert '<div class="banner g-fail" role="status">' in page
    assert "<title>FAIL · Terminology QA · manual.xlf, service guide (v2).xlf, legacy.tmx</title>" in page
    assert "failed on <b>error&gt;3 (found 5)</b>" in page
    with pytest.raises(UsageError):
        build_view(r, fail_on=["nonsense>1"])


def test_every_warning_is_on_the_first_screen(result_page):
    warnings = result_page[_pos(result_page, 'id="warnings"'):_pos(result_page, '<section id="concepts"')]
    assert "2 warnings" in warnings
    assert "memories/legacy.tmx: 2 translation units have no target and were skipped" in warnings
    assert "glossary entry &lt;script&gt;alert(1)&lt;/script&gt; has no French term" in warnings


def test_headline_figure_with_a_plain_reading():
    r = build_result()
    h = build_view(r, source_words=2000)["headline"]
    # 5 errors + 1 unjustified in 2,000 words; 8 conforming + 2 justified of 19 occurrences
    assert (h["issues"], h["per_k"], h["ok"], h["total"], h["ok_share"]) == (6, "3.0", 10, 19, "53%")
    page = render_html(r, source_words=2000)
    assert "terminology issues per 1,000 source words" in page and "2,000 words" in page
    assert build_view(r)["headline"]["per_k"] is None  # no word count: no invented figure
    assert "per 1,000 source words" not in render_html(r)


def test_action_panel_lists_problems_as_copyable_text():
    r = _repeat_flag(build_result(), 14)
    v = build_view(r)
    first = v["todo"][0]
    assert (first["name"], first["found"], first["expected"], first["count"]) == (
        "oil filter", "filtre d'huile", "filtre à huile", 15)
    assert first["line"].startswith("oil filter: found “filtre d'huile”, expected “filtre à huile”, ×15, "
                                    "in units manual.xlf: u2, rep0, rep1")
    assert first["line"].endswith(", rep10 (+3 more)")
    assert v["todo_total"] == 6  # 5 errors + 1 unjustified, all distinct otherwise
    page = render_html(r)
    text = re.search(r'<textarea readonly rows="6" id="todo-text"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    # the errors first, then the problems termqa could not decide, each saying so
    assert v["review_total"] == 3 and text.count("\n") == 5 + 3 and "×15" in text
    lines = text.splitlines()
    assert not any("[to review:" in line for line in lines[:6]) and all("[to review:" in line for line in lines[6:])


def test_glossary_backlog_is_inline():
    r = build_result()
    for o in r["occurrences"]:  # "bougie" found by lemma, not as a glossary term: a candidate
        if o["label"] == "document_usage" and o["target_text"] == "bougie":
            o["align_method"] = "lemma"
    v = build_view(r)
    cands = v["backlog"]["candidates"]
    # the judge justified "bougie" as the document's own usage for spark plug
    assert any(c["rendering"] == "bougie" and c["concept_id"] == "c40" for c in cands)
    page = render_html(r)
    assert "What to add to the glossary" in page and "<q lang=\"fr\">bougie</q>" in page


def test_identical_flags_are_one_folded_group():
    base = build_result()
    r = _repeat_flag(base, 9)
    page, base_page = render_html(r), render_html(base)
    # ten occurrences of one problem: still one group, and its occurrences are inside it, folded
    assert page.count('<details class="grp') == base_page.count('<details class="grp') == 11
    assert re.search(r'<details class="grp b-error" data-group data-cards="g\d+" data-outcome="error"', page)
    assert not re.search(r'<details class="grp[^>]* open', page)
    cards = json.loads(re.search(r'id="termqa-data">(.*?)</script>', page, re.S).group(1))["folded"]["cards"]
    base_cards = json.loads(re.search(r'id="termqa-data">(.*?)</script>', base_page, re.S).group(1))["folded"]["cards"]
    assert sum(len(c["rows"]) for c in cards.values()) == sum(len(c["rows"]) for c in base_cards.values()) + 9
    groups = [g for g in group_flags(r) if g["found"] == "filtre d'huile"]
    assert len(groups) == 1 and groups[0]["count"] == 10 and len(groups[0]["units"]) == 10


def test_documents_go_by_their_original_or_base_name():
    docs = [{"doc_id": "/abs/path/file.xlf#1", "path": "/abs/path/file.xlf", "original": "C:\\work\\Manual A.docx"},
            {"doc_id": "/abs/path/file.xlf#2", "path": "/abs/path/file.xlf", "original": "guide.docx"},
            {"doc_id": "/abs/other.tmx", "path": "/abs/other.tmx", "original": None},
            {"doc_id": "/x/a.xlf", "path": "/x/a.xlf", "original": "same.docx"},
            {"doc_id": "/y/b.xlf", "path": "/y/b.xlf", "original": "same.docx"}]
    assert display_names(docs) == {
        "/abs/path/file.xlf#1": "Manual A.docx", "/abs/path/file.xlf#2": "guide.docx",
        "/abs/other.tmx": "other.tmx", "/x/a.xlf": "a.xlf", "/y/b.xlf": "b.xlf"}  # an original two files share
    assert units_text([("a", "1"), ("a", "2"), ("b", "9")]) == "a: 1, 2; b: 9"
    assert units_text([("a", str(i)) for i in range(5)], limit=2) == "a: 0, 1 (+3 more)"


def test_real_run_names_documents_by_original(tmp_path):
    res = check([str(SAMPLES / "pump-manual.xlf")], [str(SAMPLES / "pump-terms.tbx")])
    page = render_html(res.to_dict(), fail_on=["error"], source_words=648)
    assert "CP-200_maintenance_manual.docx" in page
    assert '<span class="word">FAIL</span>' in page
    text = re.sub(r"<[^>]+>", " ", page.split('<section id="run"')[0].split("<body>")[1])
    assert str(SAMPLES) not in text  # no absolute path shown before the run details (titles may keep it)


@pytest.fixture(scope="module")
def result_page():
    return render_html(build_result())
