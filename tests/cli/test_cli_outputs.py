"""Outputs never trip over ordinary use: a re-run reads what the first run read, every output path is
checked before the work starts, a folder named for an output gets its file, no hint that would do the
wrong thing, and documents named by their file when their `original` is shared (issue #34)."""
from __future__ import annotations

import csv
import json
import os
import shutil

import pytest
from click.testing import CliRunner

import termqa.cli.check as check_cli
from termqa.cli.main import main
from termqa.errors import UsageError
from termqa.outputs import ANNOTATED_MARK, plan
from tests.conftest import SAMPLES

GLOSSARY = SAMPLES / "pump-terms.tbx"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def project(tmp_path):
    """A project folder with the two sample files, as a translator gets it."""
    proj = tmp_path / "proj"
    proj.mkdir()
    for name in ("pump-manual.xlf", "pump-service.xlf"):
        shutil.copy(SAMPLES / name, proj / name)
    return proj


def error_lines(r) -> list[str]:
    return [line for line in r.stderr.splitlines() if line.startswith("termqa: error:")]


def test_a_rerun_into_an_annotate_folder_inside_the_inputs_reads_the_same_documents(project):
    args = ("check", project, "-g", GLOSSARY, "--annotate", project / "annotated",
            "--report", project / "report.html", "--json", project / "result.json", "--csv", project / "all.csv")
    written = ["report.html", "result.json", "all.csv", "annotated/pump-manual.xlf", "annotated/pump-service.xlf"]
    first = invoke(*args)
    first_json = json.loads((project / "result.json").read_text(encoding="utf-8"))
    first_bytes = [(project / name).read_bytes() for name in written]
    second = invoke(*args)
    second_json = json.loads((project / "result.json").read_text(encoding="utf-8"))
    assert [(project / name).read_bytes() for name in written] == first_bytes  # the same outputs, byte for byte
    assert first.exit_code == second.exit_code == 0, second.stderr
    assert [d["doc_id"] for d in second_json["documents"]] == [d["doc_id"] for d in first_json["documents"]]
    assert len(second_json["documents"]) == 2
    assert second_json["summary"] == first_json["summary"]
    assert second.stdout == first.stdout and second.stdout  # the console summary, not an error
    assert "in-place" not in second.stderr
    copies = sorted(p.name for p in (project / "annotated").iterdir())
    assert copies == [ANNOTATED_MARK, "pump-manual.xlf", "pump-service.xlf"]


def test_copies_an_earlier_run_wrote_under_another_name_are_not_read(project):
    assert invoke("check", project, "-g", GLOSSARY, "--annotate", project / "notes-monday").exit_code == 0
    r = invoke("check", project, "-g", GLOSSARY, "--annotate", project / "notes-tuesday",
               "--json", project / "result.json")
    assert r.exit_code == 0, r.stderr
    assert len(json.loads((project / "result.json").read_text(encoding="utf-8"))["documents"]) == 2
    assert "not read: 2 annotated copies" in r.stderr and "notes-monday" in r.stderr
    # a folder holding only copies, named itself, is read: the user asked for it
    r = invoke("check", project / "notes-monday", "-g", GLOSSARY, "--json", project / "copies.json")
    assert r.exit_code == 0 and len(json.loads((project / "copies.json").read_text())["documents"]) == 2


def test_a_single_annotated_copy_beside_its_input_is_not_read_again(project):
    manual = project / "pump-manual.xlf"
    (project / "pump-service.xlf").unlink()
    args = ("check", project, "-g", GLOSSARY, "--annotate", project / "manual-notes.xlf")
    assert invoke(*args).exit_code == 0
    r = invoke(*args)  # without the list of copies, this would be two inputs for one --annotate file
    assert r.exit_code == 0, r.stderr
    assert "1 document(s)" in r.stdout and manual.read_bytes() == (SAMPLES / "pump-manual.xlf").read_bytes()


@pytest.mark.parametrize("option, name", [("--report", "report.html"), ("--json", "result.json"),
                                          ("--csv", "occurrences.csv"), ("--xlsx", "issues.xlsx")])
def test_a_folder_named_for_an_output_gets_its_file(tmp_path, option, name):
    new = tmp_path / "out"  # does not exist yet: the trailing slash says it is a folder
    r = invoke("check", SAMPLES / "pump-manual.xlf", "-g", GLOSSARY, option, f"{new}/")
    assert r.exit_code == 0, r.stderr
    assert new.is_dir() and (new / name).is_file() and f"wrote {new}/{name}" in r.stderr
    existing = tmp_path / "existing"
    existing.mkdir()
    r = invoke("check", SAMPLES / "pump-manual.xlf", "-g", GLOSSARY, option, existing)
    assert r.exit_code == 0 and (existing / name).is_file(), r.stderr
    assert "is a directory" not in r.output


def test_a_missing_output_folder_fails_before_anything_is_read(tmp_path, monkeypatch):
    """'Under a second' is the run not starting: nothing is read, no progress, one line, exit code 2
    (the wall time is measured on the command line, not in a unit test)."""
    monkeypatch.setattr(check_cli.run, "check", lambda *a, **k: pytest.fail("the run started"))
    for args in (["--report", tmp_path / "nowhere" / "report.html"], ["--json", tmp_path / "nowhere" / "deeper/"],
                 ["--csv", tmp_path / "no" / "x.csv"], ["--annotate", SAMPLES / "pump-terms.tbx" / "notes"]):
        r = invoke("check", SAMPLES, "-g", GLOSSARY, *args)
        assert r.exit_code == 2 and r.stdout == "", r.output
        assert r.stderr.count("\n") == 1 and len(error_lines(r)) == 1, r.stderr
        assert "does not exist" in r.stderr or "is a file, not a folder" in r.stderr
        assert "documents" not in r.stderr and "Traceback" not in r.output
    assert not (tmp_path / "nowhere").exists()


def test_an_output_on_an_input_or_on_another_output_is_refused(project, monkeypatch):
    monkeypatch.setattr(check_cli.run, "check", lambda *a, **k: pytest.fail("the run started"))
    manual = project / "pump-manual.xlf"
    before = manual.read_bytes()
    for args, said in [
        (["--report", manual], "is an input file this run reads"),  # in the folder scanned: never left out, never lost
        (["--csv", project.parent / "x.csv", "--json", project.parent / "x.csv"], "both write"),
        (["--report", f"{project.parent}/r/", "--json", project.parent / "r" / "report.html"], "both write"),
        (["--annotate", project], "would write the annotated copy over the input"),
        (["--csv", GLOSSARY], "is the glossary this run reads"),
    ]:
        r = invoke("check", project, "-g", GLOSSARY, *args)
        assert r.exit_code == 2 and len(error_lines(r)) == 1, (args, r.stderr)
        assert said in r.stderr, (args, r.stderr)
    assert manual.read_bytes() == before
    service = project / "pump-service.xlf"  # not an input of the runs below, but a translator's file
    r = invoke("check", manual, "-g", GLOSSARY, "--xlsx", service)
    assert r.exit_code == 2 and "is a translation file" in r.stderr
    r = invoke("check", manual, "-g", GLOSSARY, "--annotate", service)
    assert r.exit_code == 2 and "a translation file termqa did not write" in r.stderr
    other = project.parent / "de"
    other.mkdir()
    shutil.copy(manual, other / "pump-manual.xlf")  # another language's file of the same name
    r = invoke("check", project, "-g", GLOSSARY, "--annotate", other)
    assert r.exit_code == 2 and "a translation file termqa did not write" in r.stderr
    assert service.read_bytes() == (SAMPLES / "pump-service.xlf").read_bytes()


OUTPUTS = ("--json", "--report", "--csv", "--xlsx", "--annotate")


def _snapshot(folder) -> dict:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def every_role(tmp_path):
    """A run's every input role, each a file of its own in tmp_path: (role, extra args, the file, said)."""
    proj = tmp_path / "proj"
    proj.mkdir()
    for name in ("pump-manual.xlf", "pump-service.xlf"):
        shutil.copy(SAMPLES / name, proj / name)
    shutil.copy(GLOSSARY, tmp_path / "terms.tbx")
    (tmp_path / "d.json").write_text('{"termqa_decisions": 1, "decisions": []}\n', encoding="utf-8")
    (tmp_path / "p.toml").write_text("", encoding="utf-8")
    (tmp_path / "termqa.toml").write_text("", encoding="utf-8")
    (tmp_path / "c.sqlite").write_bytes(b"")
    manual = proj / "pump-manual.xlf"
    return tmp_path, [
        ("named input", [manual], manual, "input"),
        ("input in a folder scanned", [proj], proj / "pump-service.xlf", "pump-service.xlf"),
        ("glossary", [manual], tmp_path / "terms.tbx", "the glossary"),
        ("decisions file", [manual, "--decisions", tmp_path / "d.json"], tmp_path / "d.json", "the decisions file"),
        ("penalties file", [manual, "--penalties", tmp_path / "p.toml"], tmp_path / "p.toml", "the penalties file"),
        ("config file", [manual, "--config", tmp_path / "termqa.toml"], tmp_path / "termqa.toml", "the config file"),
        ("judge cache", [manual, "--cache", tmp_path / "c.sqlite"], tmp_path / "c.sqlite", "the judge cache"),
    ]


def test_every_output_option_on_every_input_role_is_refused_before_the_run(every_role, monkeypatch):
    """Issue #36: 5 outputs x 7 input roles, each exit 2 with one line naming the output and what the file is
    to the run, the run never started, every file byte-identical."""
    monkeypatch.setattr(check_cli.run, "check", lambda *a, **k: pytest.fail("the run started"))
    root, roles = every_role
    before = _snapshot(root)
    for option in OUTPUTS:
        for role, args, target, said in roles:
            r = invoke("check", *args, "-g", root / "terms.tbx", option, target)
            case = (option, role, r.stderr)
            assert r.exit_code == 2 and len(error_lines(r)) == 1 and r.stderr.count("\n") == 1, case
            assert option in r.stderr and said in r.stderr and "Traceback" not in r.output, case
            assert _snapshot(root) == before, case
    # compared resolved: another spelling of the glossary's path, and a link to it
    (root / "link.tbx").symlink_to(root / "terms.tbx")
    before = _snapshot(root)
    for path in (root / "proj" / ".." / "terms.tbx", root / "link.tbx"):
        for option in OUTPUTS:
            r = invoke("check", roles[0][2], "-g", root / "terms.tbx", option, path)
            assert r.exit_code == 2 and "the glossary this run reads" in r.stderr, (option, path, r.stderr)
            assert _snapshot(root) == before and (root / "link.tbx").is_symlink()


@pytest.mark.parametrize("first", OUTPUTS)
def test_every_pair_of_outputs_on_one_path_is_refused(every_role, monkeypatch, first):
    monkeypatch.setattr(check_cli.run, "check", lambda *a, **k: pytest.fail("the run started"))
    root, roles = every_role
    manual = roles[0][1][0]
    for second in OUTPUTS:
        if second == first:
            continue
        for path in (root / "out.x", root / "out.x"):  # new, then existing (an earlier run's)
            before = _snapshot(root)
            r = invoke("check", manual, "-g", root / "terms.tbx", first, path, second, path)
            case = (first, second, r.stderr)
            assert r.exit_code == 2 and len(error_lines(r)) == 1 and "both write" in r.stderr, case
            assert first in r.stderr and second in r.stderr, case
            assert _snapshot(root) == before, case
            path.write_text("an earlier run's output\n", encoding="utf-8")


def test_backlog_and_meta_eval_outputs_never_replace_what_they_read(every_role):
    root, roles = every_role
    result = root / "r.json"
    r = invoke("check", roles[0][2], "-g", root / "terms.tbx", "--lemmatiser", "lookup", "-q", "--json", result)
    assert r.exit_code == 0, r.output
    before = _snapshot(root)
    for args, said in [
        (["--out", result], "--out {} is the result".format(result)),
        (["--json", result], "--json {} is the result".format(result)),
        (["-g", root / "terms.tbx", "--out", root / "terms.tbx"], "is the glossary"),
        (["-g", root / "terms.tbx", "--json", root / "terms.tbx"], "is the glossary"),
        (["--out", root / "x.csv", "--json", root / "x.csv"], "--out and --json both write"),
        (["--out", roles[0][2]], "is a translation file"),
    ]:
        r = invoke("backlog", result, *args)
        assert r.exit_code == 2 and len(error_lines(r)) == 1 and said in r.stderr, (args, r.stderr)
        assert _snapshot(root) == before, args
    r = invoke("meta-eval", result, "--human", root / "p.toml", "--json", result)
    assert r.exit_code == 2 and "--json {} is a result this run reads".format(result) in r.stderr, r.stderr
    assert _snapshot(root) == before


def test_no_hint_advises_what_would_do_the_wrong_thing(project):
    """Writing the copies over the inputs: the first advice is another folder; --in-place is offered only
    as what it is (the notes go into the inputs, with a backup)."""
    r = invoke("check", project, "-g", GLOSSARY, "--annotate", project)
    line = error_lines(r)[0]
    assert r.exit_code == 2 and "name another folder for --annotate" in line
    assert "into the input itself" in line
    r = invoke("check", project / "pump-manual.xlf", "-g", GLOSSARY, "--annotate", project / "pump-manual.xlf")
    assert r.exit_code == 2 and "name another file for --annotate" in error_lines(r)[0]


def test_files_of_one_name_in_different_folders_keep_apart_when_annotated(tmp_path):
    for lang in ("de", "fr"):
        (tmp_path / "proj" / lang).mkdir(parents=True)
        shutil.copy(SAMPLES / "pump-manual.xlf", tmp_path / "proj" / lang / "strings.xlf")
    out = tmp_path / "notes"
    r = invoke("check", tmp_path / "proj", "-g", GLOSSARY, "--annotate", out)
    assert r.exit_code == 0, r.stderr
    assert (out / "de" / "strings.xlf").is_file() and (out / "fr" / "strings.xlf").is_file()
    assert (out / ANNOTATED_MARK).read_text().splitlines()[-2:] == ["de/strings.xlf", "fr/strings.xlf"]


def test_documents_sharing_an_original_are_named_by_their_files(tmp_path):
    """Three files whose <file original> is the same (a campaign or CAT tool writes one name into every
    file of a delivery): the report, the CSV and the console name them by file, never "(1)/(2)/(3)"."""
    names = ["en-de.xlf", "en-ru.xlf", "en-ja.xlf"]
    for n in names:
        shutil.copy(SAMPLES / "pump-manual.xlf", tmp_path / n)
    r = invoke("check", *(tmp_path / n for n in names), "-g", GLOSSARY, "--csv", tmp_path / "all.csv",
               "--report", tmp_path / "report.html")
    assert r.exit_code == 0, r.stderr
    with open(tmp_path / "all.csv", encoding="utf-8-sig", newline="") as fh:
        shown = {row["document"] for row in csv.DictReader(fh)}
    assert shown == set(names)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "CP-200_maintenance_manual.docx (1)" not in page and all(n in page for n in names)
    per_doc = r.stdout.split("per document:")[1]
    assert all(f"  {n}: score" in per_doc for n in names)


def test_plan_refuses_an_unwritable_folder(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(UsageError, match="not writable"):
            plan({"--report": str(locked / "r.html")})
    finally:
        locked.chmod(0o700)


def test_plan_names_the_file_and_makes_no_folder_before_it_is_asked(tmp_path):
    p = plan({"--report": f"{tmp_path}/new/", "--json": "-", "--csv": None})
    assert p.get("--report") == f"{tmp_path}/new/report.html" and p.get("--json") == "-" and p.get("--csv") is None
    assert not (tmp_path / "new").exists()
    p.make_folders()
    assert (tmp_path / "new").is_dir()
    with pytest.raises(UsageError, match="is a folder"):
        (tmp_path / "d" / "report.html").mkdir(parents=True)
        plan({"--report": str(tmp_path / "d")})


def test_an_annotated_copy_from_before_the_lists_may_be_written_again(tmp_path):
    """A copy holding termqa's notes is termqa's, listed or not (copies written by an older termqa)."""
    args = ("check", SAMPLES / "pump-manual.xlf", "-g", GLOSSARY, "--annotate", tmp_path / "notes.xlf")
    assert invoke(*args).exit_code == 0
    (tmp_path / ANNOTATED_MARK).unlink()
    r = invoke(*args)
    assert r.exit_code == 0 and "wrote" in r.stderr, r.stderr
