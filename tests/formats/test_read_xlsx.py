"""Excel glossaries (formats/xlsxgloss.py): the CSV header rules on a workbook's sheet, read-only.

No licensed public workbook at hand: the workbooks are written here with XlsxWriter (a dependency), which
can also store a formula's cached value and merge cells, as Excel does."""
from __future__ import annotations

import json
import zipfile

import pytest
import xlsxwriter
from click.testing import CliRunner

from termqa.config import Settings
from termqa.errors import InputError, UnknownFormatError
from termqa.formats import read_any, read_glossary
from tests.helpers import write_xliff

pytest.importorskip("openpyxl")

HEADER = ["id", "English Term", "French Term", "fr_status", "Definition", "dnt"]
ROWS = [
    [12, "impeller", "roue|turbine", "preferred|deprecated", "rotating part of a pump", False],
    [13, "seal", "joint", "preferred", "", False],
    ["c-14", "PumpCo", "PumpCo", "", "brand name", True],
    [15, "casing", "carter;corps de pompe", "", "the pump's housing", False],
]


def _csv_cell(v) -> str:
    return ("TRUE" if v else "FALSE") if isinstance(v, bool) else str(v)


def _write_csv(path, header, rows):
    import csv

    with open(path, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([header] + [[_csv_cell(v) for v in r] for r in rows])
    return str(path)


def _write_xlsx(path, sheets: dict, *, merge=None, formula=None):
    wb = xlsxwriter.Workbook(str(path))
    for name, rows in sheets.items():
        ws = wb.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, v in enumerate(row):
                if v is None:
                    continue
                if isinstance(v, bool):
                    ws.write_boolean(r, c, v)
                elif isinstance(v, str):
                    ws.write_string(r, c, v)  # "=..." typed in a cell as text stays text
                else:
                    ws.write(r, c, v)
        if merge and name in merge:
            ws.merge_range(*merge[name])
        if formula and name in formula:
            ws.write_formula(*formula[name])
    wb.close()
    return str(path)


def _concepts(g):
    return [(c.id, [(t.text, t.lang, t.status) for t in c.terms], c.definition, c.dnt, c.note) for c in g.concepts]


def test_a_workbook_gives_the_concepts_of_the_same_table_saved_as_csv(tmp_path):
    x = read_glossary(_write_xlsx(tmp_path / "terms.xlsx", {"Terms": [HEADER] + ROWS}))
    c = read_glossary(_write_csv(tmp_path / "terms.csv", HEADER, ROWS))
    assert (x.format, c.format) == ("xlsx", "csv")
    assert x.languages == c.languages == ("en", "fr")
    assert _concepts(x) == _concepts(c)
    assert [k.id for k in x.concepts] == ["12", "13", "c-14", "15"]  # numbers as written, not 12.0
    assert [t.text for t in x.concepts[3].terms] == ["casing", "carter", "corps de pompe"]
    assert x.concepts[2].dnt and not x.concepts[0].dnt
    assert x.warnings == c.warnings


def test_the_first_sheet_unless_one_is_named(tmp_path):
    path = _write_xlsx(tmp_path / "t.xlsx", {"Read me": [["en", "de"], ["pump", "Pumpe"]],
                                            "Sheet2": [["en", "fr"], ["pump", "pompe"]]})
    assert read_glossary(path).languages == ("en", "de")
    g = read_glossary(path + "#Sheet2")
    assert g.languages == ("en", "fr") and g.path == path + "#Sheet2"
    with pytest.raises(InputError) as err:
        read_glossary(path + "#Terms")
    assert "no sheet named 'Terms'" in str(err.value) and "'Read me', 'Sheet2'" in str(err.value)
    with pytest.raises(InputError, match="does not exist"):
        read_glossary(str(tmp_path / "missing.xlsx#Sheet2"))


def test_title_row_merged_and_empty_header_cells_and_formulas(tmp_path):
    rows = [
        ["Client glossary, version 3"],  # a title above the table, merged across it below
        ["English", "Spanish", None, "Note"],  # an empty header cell over a column of reviewer initials
        ["pump", "bomba", "AB", "=a note"],
        ["valve", None, "CD", "x"],
    ]
    path = _write_xlsx(tmp_path / "g.xlsx", {"G": rows}, merge={"G": (0, 0, 0, 3, "Client glossary, version 3")},
                       formula={"G": (3, 1, '=LOWER("VÁLVULA")', None, "válvula")})
    g = read_glossary(path)
    assert g.languages == ("en", "es")
    assert [[t.text for t in c.terms] for c in g.concepts] == [["pump", "bomba"], ["valve", "válvula"]]
    assert [c.note for c in g.concepts] == ["=a note", "x"]  # a string cell is text, a formula its value
    assert any(w.startswith("row 1 ('Client glossary, version 3')") for w in g.warnings)


def test_a_headerless_two_column_sheet_takes_the_run_languages(tmp_path):
    from termqa.pipeline.check import check

    path = _write_xlsx(tmp_path / "bare.xlsx", {"S": [["impeller", "roue"], ["seal", "joint"]]})
    x = write_xliff(tmp_path / "doc.xlf", [("Replace the impeller.", "Remplacez la roue.")], "en", "fr")
    r = check([x], [path], Settings(lemmatiser="lookup")).to_dict()
    assert [(o["source_text"], o["outcome"]) for o in r["occurrences"]] == [("impeller", "conforming")]


def test_cli_check_and_inspect_with_a_named_sheet(tmp_path):
    from termqa.cli.main import main

    path = _write_xlsx(tmp_path / "terms.xlsx", {"Info": [["made by", "us"]], "Terms": [HEADER] + ROWS})
    x = write_xliff(tmp_path / "doc.xlf", [("Replace the impeller.", "Remplacez la turbine.")], "en", "fr")
    out = tmp_path / "r.json"
    r = CliRunner().invoke(main, ["check", x, "-g", path + "#Terms", "--lemmatiser", "lookup", "--json", str(out),
                                  "-q"])
    assert r.exit_code == 0, r.output
    occ = json.loads(out.read_text(encoding="utf-8"))["occurrences"]
    assert [(o["source_text"], o["target_text"], o["label"]) for o in occ] == [("impeller", "turbine", "A1")]
    r = CliRunner().invoke(main, ["inspect", path + "#Terms", "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert (info["format"], info["concepts"], sorted(info["languages"])) == ("xlsx", 4, ["en", "fr"])


def test_without_openpyxl_one_line_names_the_extra(tmp_path, monkeypatch):
    import importlib

    from termqa.cli.main import main

    path = _write_xlsx(tmp_path / "t.xlsx", {"S": [["en", "fr"], ["pump", "pompe"]]})
    real = importlib.import_module

    def no_openpyxl(name, *a, **kw):
        if name == "openpyxl":
            raise ImportError(name)
        return real(name, *a, **kw)

    monkeypatch.setattr(importlib, "import_module", no_openpyxl)
    with pytest.raises(InputError) as err:
        read_glossary(path)
    assert 'pip install "termqa[xlsx]"' in str(err.value)
    r = CliRunner().invoke(main, ["inspect", path])
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1 and "termqa[xlsx]" in r.stderr


def test_a_zip_that_is_not_a_workbook_is_refused(tmp_path):
    p = tmp_path / "a.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("readme.txt", "hello")
    with pytest.raises(UnknownFormatError, match="zip archive"):
        read_any(str(p))
