"""CSV and spreadsheet exports for people: human columns first, the translator's reply columns,
issues only on request, no signature on every row; the .xlsx read back with openpyxl."""
from __future__ import annotations

import csv
import zipfile

import pytest

from termqa.reports.csvout import CSV_COLUMNS, write_csv
from termqa.reports.xlsx import ISSUE_COLUMNS, write_xlsx

from tests.fixtures_result import build_empty_result, build_result


def _read(path):
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def test_csv_human_columns_first_and_no_signature(tmp_path):
    assert CSV_COLUMNS[:10] == ("document", "unit_id", "source_text", "target_text", "expected", "outcome",
                                "label", "what_to_do", "status", "comment")
    assert "run_signature" not in CSV_COLUMNS
    rows = _read(write_csv(build_result(), tmp_path / "all.csv"))
    sig = build_result()["signature"]["string"]
    assert all(sig not in v for r in rows for v in r.values())
    err = next(r for r in rows if r["unit_id"] == "u2")
    assert (err["document"], err["source_text"], err["target_text"], err["expected"], err["outcome"]) == (
        "manual.xlf", "oil filter", "filtre d'huile", "filtre à huile", "error")
    assert err["what_to_do"] == "Replace “filtre d'huile” with “filtre à huile” (glossary)"
    assert err["status"] == err["comment"] == ""
    assert err["doc_id"] == "samples/manual.xlf"  # the machine id is still there, further right
    missing = next(r for r in rows if r["unit_id"] == "t-6")
    # a question termqa could not decide is a question, with what to compare it with (#34)
    assert missing["what_to_do"].startswith("Check how “") and "was not found" in missing["what_to_do"]
    assert all(r["what_to_do"] == "" for r in rows if r["outcome"] in ("conforming", "justified"))


def test_csv_issues_only(tmp_path):
    rows = _read(write_csv(build_result(), tmp_path / "issues.csv", issues_only=True))
    assert sorted({r["outcome"] for r in rows}) == ["error", "unjudged", "unjustified"]
    assert len(rows) == 5 + 1 + 3


@pytest.fixture
def openpyxl():
    """The reader of the written workbook (the test extra installs it); only these tests skip without it."""
    return pytest.importorskip("openpyxl")


def test_xlsx_issues_sheet(tmp_path, openpyxl):
    r = build_result()
    hostile = next(o for o in r["occurrences"] if o["outcome"] == "error")
    hostile["reason"] = '=HYPERLINK("http://x","y")'  # text from files never becomes a formula
    path = write_xlsx(r, tmp_path / "qa.xlsx")
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == ["Summary", "Issues", "Problems", "Concepts", "Run"]
    ws = wb["Issues"]
    header = [c.value for c in ws[1]]
    assert header == [t for _k, t, _w in ISSUE_COLUMNS]
    assert header[:10] == ["Document", "Unit", "Source term", "Found", "Expected", "Verdict", "Label",
                           "What to do", "Status", "Comment"]
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref and ws.auto_filter.ref.startswith("A1:")
    body = [[c.value for c in row] for row in ws.iter_rows(min_row=2)]
    flagged = [o for o in r["occurrences"] if o["outcome"] != "conforming"]
    assert len(body) == len(flagged) == 11
    verdicts = [row[5] for row in body]
    assert verdicts == sorted(verdicts, key=["Error", "Unjustified", "Not judged", "Justified"].index)
    assert ws.cell(row=2, column=6).fill.fgColor.rgb.endswith("FFE6E4")  # the error colour
    # worst first: in the order of the Problems sheet, one problem's rows together
    problems = [row[0].value for row in wb["Problems"].iter_rows(min_row=2)]
    order = [row[18] for row in body if row[18] in problems]
    assert order == sorted(order, key=problems.index)
    # the reply columns are empty and offer a list of answers
    assert all(row[8] is None and row[9] is None for row in body)
    assert any("fixed" in (dv.formula1 or "") for dv in ws.data_validations.dataValidation)
    reasons = [row[10] for row in body]
    assert '=HYPERLINK("http://x","y")' in reasons
    with zipfile.ZipFile(path) as z:
        sheet = z.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet  # no formula cell at all


def test_xlsx_concepts_and_run_sheets(tmp_path, openpyxl):
    r = build_result()
    wb = openpyxl.load_workbook(write_xlsx(r, tmp_path / "qa.xlsx"))
    cs = wb["Concepts"]
    rows = [[c.value for c in row] for row in cs.iter_rows(min_row=2)]
    assert len(rows) == len(r["concepts"])
    first = rows[0]
    assert first[1] == 'c99"><x' and first[3] == 2  # worst first, hostile id as plain text
    assert cs.cell(row=1, column=3).value == "Language" and {row[2] for row in rows} == {"fr"}
    assert cs.freeze_panes == "B2"
    run = {row[0].value: row[1].value for row in wb["Run"].iter_rows()}
    assert run["Signature"] == r["signature"]["string"]


def test_xlsx_of_an_empty_result(tmp_path, openpyxl):
    wb = openpyxl.load_workbook(write_xlsx(build_empty_result(), tmp_path / "empty.xlsx"))
    assert wb["Issues"].max_row == 1


def test_xlsx_without_xlsxwriter_says_how_to_install(monkeypatch, tmp_path):
    import sys

    from termqa.errors import UsageError

    monkeypatch.setitem(sys.modules, "xlsxwriter", None)  # as if it were not installed
    with pytest.raises(UsageError) as err:
        write_xlsx(build_result(), tmp_path / "x.xlsx")
    assert "pip install XlsxWriter" in str(err.value) and not (tmp_path / "x.xlsx").exists()


def test_xlsx_summary_sheet_says_the_verdict_first(tmp_path, openpyxl):
    """A vendor who gets only the spreadsheet reads whether the delivery passed: the Summary sheet comes
    first, with the verdict in the words of every other output (#34)."""
    from termqa.results.verdict import run_verdict

    r = build_result()
    wb = openpyxl.load_workbook(write_xlsx(r, tmp_path / "qa.xlsx"))
    summary = {row[0].value: row[1].value for row in wb["Summary"].iter_rows() if row[0].value}
    v = run_verdict(r)
    assert wb.sheetnames[0] == "Summary"
    assert summary["Verdict"] == v["word"] == "ERRORS" and summary["In words"] == v["line"]
    assert summary["Errors (to fix)"] == 6 and summary["Not decided (to review)"] == 3
    assert summary["  Not judged"] == r["summary"]["outcomes"]["unjudged"]
    assert summary["Quality gate"].startswith("none set")


def test_xlsx_problems_sheet_is_fix_first_then_review_first(tmp_path, openpyxl):
    """The Problems sheet lists exactly the report's Fix first and Review first: the same problems, the
    same counts, the same order, with an instruction in "What to do" (#34)."""
    from termqa.reports.html import build_view

    r = build_result()
    v = build_view(r)
    wb = openpyxl.load_workbook(write_xlsx(r, tmp_path / "qa.xlsx"))
    ws = wb["Problems"]
    head = [c.value for c in ws[1]]
    rows = [dict(zip(head, (c.value for c in row))) for row in ws.iter_rows(min_row=2)]
    shown = v["todo"] + v["review"]
    assert v["todo_total"] + v["review_total"] == len(rows) == len(shown)
    assert [(x["Problem"], x["Occurrences"]) for x in rows] == [(g["problem"], g["count"]) for g in shown]
    fixes, questions = rows[:v["todo_total"]], rows[v["todo_total"]:]
    assert all(x["What to do"].startswith(("Replace", "Translate", "Keep", "Fix")) for x in fixes)
    assert all(x["What to do"].startswith("Check") and x["Why to review"] for x in questions)
