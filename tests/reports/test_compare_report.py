"""The comparison report for many systems: warnings first, identical systems flagged and shown as one
column, rank clusters said once (not every tied name on every row), p-values as a heatmap with the
value in a tooltip, only the positions where systems differ side by side, a note for few documents."""
from __future__ import annotations

import copy
import re

import pytest

from termqa.config import Settings
from termqa.evaluate import compare as cmp
from termqa.reports.compare_html import _heat, build_compare_view, render_compare_html

from tests.evaluate.test_compare import EDITS_B, GLOSS, edited


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """Nine systems: A five times (one file under five names), B three times, and C."""
    d = tmp_path_factory.mktemp("many")
    files = []
    for i in range(5):
        files.append(edited(d / f"A{i}.xlf", ()))  # no edits: the sample as it is
    for i in range(3):
        files.append(edited(d / f"B{i}.xlf", EDITS_B))
    files.append(edited(d / "C.xlf", EDITS_B[:3]))
    return cmp.compare(files, [GLOSS], Settings(lemmatiser="lookup")).to_dict()


def test_identical_systems_are_flagged_and_merged(many):
    v = build_compare_view(many)
    groups = sorted(sorted(g) for g in v["identical"])
    assert groups == [["A0", "A1", "A2", "A3", "A4"], ["B0", "B1", "B2"]]
    # one column per distinct system, in ranking order, named after all its members
    assert sorted(sorted(c["members"]) for c in v["columns"]) == [
        ["A0", "A1", "A2", "A3", "A4"], ["B0", "B1", "B2"], ["C"]]
    order = [r["name"] for r in many["ranking"]]
    assert [c["name"] for c in v["columns"]] == sorted((c["name"] for c in v["columns"]), key=order.index)
    html = render_compare_html(many)
    warn = html[html.index('<section id="warnings"'):html.index('<section id="ranking"')]
    assert "Identical systems:" in warn and "A0, A1, A2, A3, A4" in warn
    assert "compared on paired segment scores" in warn  # the compare JSON's own warning, on top
    assert "identical to 4 others" in html
    # side-by-side tables have one column per distinct system
    sbs = re.search(r'<table class="data sbs">\s*<thead><tr>(.*?)</tr></thead>', html, re.S).group(1)
    assert sbs.count("<th") == 3 + 3 and "+4 identical" in sbs
    assert re.search(r'title="A\d = A\d = A\d = A\d = A\d"', sbs)


def test_tied_names_are_not_listed_on_every_row(many):
    html = render_compare_html(many)
    ranking = html[html.index('<section id="ranking"'):html.index('<section id="verdicts"')]
    assert ranking.count("9 systems the test cannot separate") == 1
    assert "Not distinguishable from" not in ranking
    assert ranking.count('class="cluster"') == 1


def test_p_values_are_a_heatmap_with_tooltips(many):
    html = render_compare_html(many)
    cells = re.findall(r'<td class="hm[^"]*" style="background:(#[0-9a-f]{6})" title="([^"]*)">', html)
    assert len(cells) == 9 * 8
    assert all(re.search(r"p [01]\.\d{3}", t) for _bg, t in cells)
    # identical systems cannot differ: their cells say p 1.000
    same = [t for _bg, t in cells if re.match(r"(A\d vs A\d|B\d vs B\d):", t)]
    assert len(same) == 26 and all(": p 1.000," in t for t in same)
    assert '<table class="pm compact">' in html  # more than 8 systems: colour only, values on hover
    assert "p 1.000<div" not in html
    # the scale: stronger colour for smaller p, green when better, red when worse
    assert _heat(1.0, False, False) != _heat(0.001, False, False)
    assert _heat(0.01, True, False).startswith("#") and _heat(0.01, True, False) != _heat(0.01, False, True)
    assert _heat(None, False, False) == "#f6f8fa"


def test_positions_where_all_agree_are_left_out(many):
    v = build_compare_view(many)
    total = sum(c["n_occurrences"] for c in v["concepts"])
    shown = sum(len(c["rows"]) for c in v["concepts"])
    assert v["agreeing_rows"] + shown == total and shown < total / 3
    # the page grows with distinct systems and differences, not with copies: nine systems with
    # three distinct ones cost little more than the three alone
    three = copy.deepcopy(many)
    keep = {"A0", "B0", "C"}
    three["systems"] = [s for s in three["systems"] if s["name"] in keep]
    three["ranking"] = [r for r in three["ranking"] if r["name"] in keep]
    three["pairwise"] = [p for p in three["pairwise"] if p["a"] in keep and p["b"] in keep]
    for d in three["documents"]:
        d["doc_ids"] = {k: x for k, x in d["doc_ids"].items() if k in keep}
        d["scores"] = {k: x for k, x in d["scores"].items() if k in keep}
    for c in three["concepts"]:
        for f in c["forms"]:
            f["systems"] = {k: x for k, x in f["systems"].items() if k in keep}
            f["references"] = {k: x for k, x in f["references"].items() if k in keep}
        for o in c["occurrences"]:
            o["systems"] = {k: x for k, x in o["systems"].items() if k in keep}
    assert len(render_compare_html(many)) < 1.5 * len(render_compare_html(three))


def test_a_system_named_in_a_warning_is_marked(many):
    data = copy.deepcopy(many)
    data["warnings"].append("system 'C': the target looks like German (de), not fr")
    html = render_compare_html(data)
    row = re.search(r"<th scope=\"row\">C(.*?)</th>", html, re.S).group(1)
    assert 'href="#warnings"' in row and "see warning" in row and "looks like German" in row
    assert html.index("looks like German") < html.index('<section id="ranking"')


def test_few_documents_note_when_the_json_has_none(many):
    data = copy.deepcopy(many)
    data["warnings"] = []
    html = render_compare_html(data)
    assert "Only 1 document:" in html and "smallest possible p-value is 1.000" in html
