"""Verdict words that say what was decided (#34): counting mode with undecided divergences never reads PASS
or "Nothing to fix" in any output, a glossary that never occurs is not a pass, the console's first line is
the verdict, and the problems to review are ranked by how likely they are wrong."""
from __future__ import annotations

import json
import zipfile

import pytest
from click.testing import CliRunner

from termqa.cli import main
from termqa.labels import R_DERIVED, R_DIVERGES_GLOSSARY, R_INFLECTED, R_MISSING
from termqa.reports.issues import fix_first
from termqa.results.verdict import run_verdict, with_verdicts
from tests.fixtures_result import build_result
from tests.helpers import write_csv, write_xliff

# A parliamentary project in small: the glossary says "ordres émanant du gouvernement", the translator wrote
# "Initiatives ministérielles" six times (a known wrong rendering nobody can settle without a judge), and
# "budget" is rendered right.
PAIRS = [("Government Orders", "Initiatives ministérielles")] * 6 + [
    ("The budget was tabled today.", "Le budget a été déposé aujourd'hui."),
    ("We debated the budget again.", "Nous avons de nouveau débattu du budget."),
]
GLOSS = [["c1", "Government Orders", "ordres émanant du gouvernement"], ["c2", "budget", "budget"]]


def _outputs(tmp_path, *extra, pairs=PAIRS, gloss=GLOSS):
    x = write_xliff(tmp_path / "debates.xlf", pairs)
    g = write_csv(tmp_path / "terms.csv", ["id", "en", "fr"], gloss)
    out = {k: tmp_path / f"r.{k}" for k in ("json", "html", "csv", "xlsx")}
    res = CliRunner().invoke(main, ["check", x, "-g", g, "--lemmatiser", "lookup", "--no-index-cache",
                                    "--json", str(out["json"]), "--report", str(out["html"]),
                                    "--csv", str(out["csv"]), "--xlsx", str(out["xlsx"]), *extra])
    return res, out


def _xlsx_text(path) -> str:
    with zipfile.ZipFile(path) as z:
        return z.read("xl/sharedStrings.xml").decode("utf-8")


@pytest.mark.parametrize("gate", [[], ["--fail-on", "error"]])
def test_undecided_divergences_never_read_pass_in_any_output(tmp_path, gate):
    res, out = _outputs(tmp_path, *gate)
    assert res.exit_code == 0, res.output  # the gate on errors holds no condition: it may pass...
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert data["summary"]["outcomes"]["unjudged"] == 6 and data["summary"]["outcomes"]["error"] == 0
    v = data["verdict"]
    # ...but its words say what is left
    assert (v["state"], v["word"], v["to_review"], v["gate"]) == ("review", "REVIEW", 6, ["error"] if gate else None)
    lines = res.stdout.splitlines()
    assert lines[0] == v["line"] and lines[0].startswith("REVIEW: 0 errors, 6 to review; 2 of 8 occurrences decided")
    if gate:
        assert f"termqa: QA gate passed ({v['line']})" in res.stderr
    page = out["html"].read_text(encoding="utf-8")
    sheet = _xlsx_text(out["xlsx"])
    for text in (res.output, page, sheet):
        assert "REVIEW" in text
        assert "PASS" not in text.replace("PASS/FAIL", "") and "Nothing to fix" not in text
        assert "No problems found" not in text and "no terminology problem found" not in text
    # the problem reaches the first screen, as a question with its class and units
    assert "Review first" in page and 'class="rclass r-not_found"' in page and "Government Orders" in page


def test_a_glossary_that_never_occurs_is_not_a_pass(tmp_path):
    res, out = _outputs(tmp_path, "--fail-on", "error", gloss=[["c9", "centrifugal pump", "pompe centrifuge"]])
    assert res.exit_code == 2  # nothing checked, as for a file without translations
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert data["verdict"]["state"] == "not_checked" and data["verdict"]["word"] == "NOT CHECKED"
    assert res.stdout.splitlines()[0].startswith("NOT CHECKED: no glossary term was found")
    page = out["html"].read_text(encoding="utf-8")
    for text in (res.output, page, _xlsx_text(out["xlsx"])):
        assert "NOT CHECKED" in text and "PASS" not in text.replace("PASS/FAIL", "")
        assert "Nothing to fix" not in text


def test_pass_only_when_every_occurrence_was_decided(tmp_path):
    decided = [p for p in PAIRS if "budget" in p[0]]
    res, out = _outputs(tmp_path, pairs=decided)
    assert res.exit_code == 0
    v = json.loads(out["json"].read_text(encoding="utf-8"))["verdict"]
    assert (v["state"], v["to_review"], v["errors"]) == ("pass", 0, 0)
    assert res.stdout.splitlines()[0] == "PASS: 0 errors, 0 to review; 2 of 2 occurrences decided (100%)"


def _row(concept, reason, found, unit):
    return {"doc_id": "d", "unit_id": unit, "segment_id": "1", "segment_index": 0, "concept_id": concept,
            "source_form": concept, "source_text": concept, "target_text": found, "outcome": "unjudged",
            "label": None, "rule": None, "reason": reason, "penalty": None}


def test_review_first_ranks_likely_wrong_before_likely_fine():
    """A different word, or no rendering found, comes before an inflected or derived form of the glossary
    term, whatever their counts; within a class, the most repeated first."""
    rows = [_row("budget", R_DERIVED, "budgétaire", f"a{i}") for i in range(9)]
    rows += [_row("space", R_INFLECTED, "Spaces", f"b{i}") for i in range(5)]
    rows += [_row("orders", R_DIVERGES_GLOSSARY, "initiatives", "c1")]
    rows += [_row("hearing", R_MISSING, None, f"d{i}") for i in range(2)]
    result = {"termqa_result": 1, "documents": [{"doc_id": "d", "tgt_lang": "fr", "src_lang": "en"}],
              "occurrences": rows, "references": [], "concepts": []}
    groups = fix_first(result)
    assert [(g["review_key"], g["count"], len(g["units"])) for g in groups] == [
        ("different_word", 1, 1), ("not_found", 2, 2), ("inflected", 5, 5), ("derived", 9, 9)]
    assert [g["likely"] for g in groups] == ["often wrong", "often wrong", "likely fine", "likely fine"]
    assert groups[0]["what_to_do"] == "Check whether “initiatives” is right for “orders”"


def test_several_languages_read_as_their_worst():
    """A language nothing was checked in is never hidden by the totals of the others."""
    r = build_result()
    r["languages"] = {"fr": {"summary": r["summary"], "scores": r["scores"]},
                      "de": {"summary": dict(r["summary"], occurrences=0, outcomes={}), "scores": {}}}
    v = with_verdicts(r)["verdict"]
    assert v["state"] == "not_checked" and v["line"].startswith("NOT CHECKED in de; ")
    assert r["languages"]["fr"]["verdict"]["state"] == run_verdict(r)["state"] == "errors"
