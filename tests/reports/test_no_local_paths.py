"""No local path in what people read: a run given absolute paths names its files by their names in the
console lines, the report, the spreadsheet, the CSV and the notes (the JSON keeps the paths given); a path
given relative is shown as given."""
from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.cli import main
from termqa.shownpath import scrub, shown_path, path_names

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_shown_path():
    assert shown_path("/home/ana/client/manual.xlf") == "manual.xlf"
    assert shown_path("/home/ana/client/manual.xlf#2") == "manual.xlf#2"
    assert shown_path("C:\\Users\\ana\\manual.xlf") == "manual.xlf"
    assert shown_path("project/manual.xlf") == "project/manual.xlf"  # relative: as given
    names = path_names(["/home/ana/client/manual.xlf"])
    assert scrub("/home/ana/client/manual.xlf: bad; see /home/ana/client/other.xlf", names) == \
        "manual.xlf: bad; see other.xlf"
    assert path_names(["/x.xlf"]) == {"/x.xlf": "x.xlf"}  # never "/" itself


def test_absolute_inputs_leave_no_trace_in_any_output(tmp_path, openpyxl):
    project = tmp_path / "client-secret-folder"
    project.mkdir()
    for name in ("pump-manual.xlf", "pump-service.xlf", "pump-terms.tbx"):
        shutil.copy(SAMPLES / name, project / name)
    out = tmp_path / "out"
    out.mkdir()
    args = ["check", str(project), "-g", str(project / "pump-terms.tbx"), "--lemmatiser", "lookup",
            "--no-index-cache", "--src-lang", "en", "--tgt-lang", "de", "--source-only-glossary",
            "--json", str(out / "r.json"), "--report", str(out / "r.html"), "--xlsx", str(out / "r.xlsx"),
            "--csv", str(out / "r.csv"), "--annotate", str(out / "annotated")]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    secret = str(project)  # the inputs' folder ("wrote" lines name the outputs as the user gave them)
    # the wrong target language gives alerts naming the files: they name them without their folder
    assert "pump-manual.xlf: the target text looks like French" in r.stderr
    assert secret not in r.output, [line for line in r.output.splitlines() if secret in line]
    for name in ("r.html", "r.csv"):
        assert secret not in (out / name).read_text(encoding="utf-8-sig"), name
    with zipfile.ZipFile(out / "r.xlsx") as z:
        for member in z.namelist():
            assert secret not in z.read(member).decode("utf-8", "replace"), member
    for f in (out / "annotated").iterdir():
        assert secret not in f.read_text(encoding="utf-8"), f.name
    # the JSON keeps the paths given (a tool joins on them)
    data = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert data["inputs"][0]["path"].startswith(secret)
    # the spreadsheet's Document id is the file name, and every row has its Segment
    ws = openpyxl.load_workbook(out / "r.xlsx")["Issues"]
    header = [c.value for c in ws[1]]
    rows = [[c.value for c in row] for row in ws.iter_rows(min_row=2)]
    assert rows
    doc_ids = {row[header.index("Document id")] for row in rows}
    assert doc_ids <= {"pump-manual.xlf", "pump-service.xlf"}
    assert all(row[header.index("Segment")] not in (None, "") for row in rows)
    assert "Run" in openpyxl.load_workbook(out / "r.xlsx").sheetnames


def test_relative_inputs_are_shown_as_given(tmp_path, monkeypatch):
    shutil.copytree(SAMPLES, tmp_path / "samples")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["check", "samples/pump-manual.xlf", "-g", "samples/pump-terms.tbx",
                                  "--lemmatiser", "lookup", "--no-index-cache"])
    assert r.exit_code == 0, r.output
    assert "read samples/pump-manual.xlf" in r.stdout
    assert str(tmp_path) not in r.output


@pytest.fixture
def openpyxl():
    return pytest.importorskip("openpyxl")


def test_compare_report_names_systems_without_their_folder(tmp_path):
    project = tmp_path / "client-secret-folder"
    project.mkdir()
    shutil.copy(SAMPLES / "pump-manual.xlf", project / "sysA.xlf")
    text = (SAMPLES / "pump-manual.xlf").read_text(encoding="utf-8")
    (project / "sysB.xlf").write_text(text.replace("pompe centrifuge", "pompe à centrifugation"), encoding="utf-8")
    r = CliRunner().invoke(main, ["compare", str(project / "sysA.xlf"), str(project / "sysB.xlf"), "-g",
                                  str(SAMPLES / "pump-terms.tbx"), "--lemmatiser", "lookup", "--no-index-cache",
                                  "--report", str(tmp_path / "cmp.html")])
    assert r.exit_code == 0, r.output
    assert str(project) not in r.output
    assert str(project) not in (tmp_path / "cmp.html").read_text(encoding="utf-8")
