"""What the command line says while and after it works: "wrote FILE" lines, progress lines in a
CI log, a quiet end when `| head` closes the pipe, inputs that are not bilingual files named for
what they are, rescore before/after, examples and exit codes in every --help, the --fail-on conditions
quoted in the README and docs/."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from termqa.cli.main import main
from tests.conftest import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
MANUAL, SERVICE, TERMS = SAMPLES / "pump-manual.xlf", SAMPLES / "pump-service.xlf", SAMPLES / "pump-terms.tbx"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli")
    r = run("check", MANUAL, "-g", TERMS, "--json", out / "r.json", "--csv", out / "r.csv",
            "--xlsx", out / "r.xlsx", "--report", out / "r.html", "--fail-on", "error,score>0.5")
    return r, out


def test_wrote_lines_and_progress_on_stderr(checked):
    r, out = checked
    assert r.exit_code == 1  # the sample has errors
    for name in ("r.json", "r.csv", "r.xlsx", "r.html"):
        assert f"termqa: wrote {out / name}\n" in r.stderr
        assert (out / name).stat().st_size > 0
    # not a terminal: plain progress lines, not a carriage-return bar
    assert re.search(r"^termqa: documents 1/1 \(\d+ s\)$", r.stderr, re.M)
    assert "\r" not in r.stderr
    assert "wrote" not in r.stdout
    assert "termqa: QA failed: error>0 (found 4)" in r.stderr


def test_report_shows_the_gate_of_the_run(checked):
    _, out = checked
    page = (out / "r.html").read_text(encoding="utf-8")
    assert '<span class="word">FAIL</span>' in page and "--fail-on error,score&gt;0.5" in page
    assert "source words" in page


def test_quiet_says_nothing_but_the_gate(tmp_path):
    r = run("check", MANUAL, "-g", TERMS, "-q", "--csv", tmp_path / "x.csv", "--fail-on", "error")
    assert r.exit_code == 1
    assert r.stdout == "" and r.stderr == "termqa: QA failed: error>0 (found 4)\n"


def test_csv_issues_only_from_the_command(tmp_path):
    r = run("check", MANUAL, "-g", TERMS, "-q", "--csv", tmp_path / "x.csv", "--issues-only")
    assert r.exit_code == 0
    lines = (tmp_path / "x.csv").read_text(encoding="utf-8-sig").splitlines()
    assert lines[0].startswith("document,unit_id,source_text,target_text,expected,outcome")
    assert len(lines) - 1 == 4 + 9  # 4 errors and 9 not judged, no conforming row


@pytest.mark.parametrize("text, what", [("Just some notes about the pump.\n", "is plain text"),
                                        ("en,fr\npump,pompe\n", "is a table (CSV/TSV), perhaps a glossary")])
def test_non_xml_input_is_named(tmp_path, text, what):
    f = tmp_path / "notes.xlf"
    f.write_text(text, encoding="utf-8")
    r = run("check", f, "-g", TERMS)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert f"{f}: {what}, not a bilingual file: termqa checks XLIFF 1.2/2.x and TMX" in r.stderr
    assert "is a glossary (csv)" not in r.stderr


def test_several_inputs_into_one_annotated_file_is_refused_before_the_run(tmp_path):
    out = tmp_path / "r.json"
    r = run("check", MANUAL, SERVICE, "-g", TERMS, "--annotate", tmp_path / "out.xlf", "--json", out)
    assert r.exit_code == 2 and "must name a folder" in r.stderr
    assert not out.exists()  # refused before any work


def test_json_into_a_closed_pipe_ends_quietly(tmp_path):
    # a real process and a real pipe: the reader stops after a few bytes, like `| head -c 100`
    p = subprocess.Popen([sys.executable, "-m", "termqa", "check", str(MANUAL), str(SERVICE), "-g", str(TERMS),
                          "--json", "-", "--report", str(tmp_path / "r.html")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    head = p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait(timeout=300)
    assert head.startswith(b"{")
    assert "Broken pipe" not in err and "Traceback" not in err and "BrokenPipeError" not in err, err
    assert p.returncode == 0
    assert (tmp_path / "r.html").exists()  # the other outputs are still written


def test_rescore_prints_before_and_after(checked, tmp_path):
    _, out = checked
    pen = tmp_path / "strict.json"
    pen.write_text(json.dumps({"F": 4, "A1": 4}), encoding="utf-8")
    r = run("rescore", out / "r.json", "--penalties", pen, "--json", tmp_path / "s.json")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["TermJudge", "score", "before", "after", "change"]
    system = next(l for l in lines if l.startswith("system score")).split()
    before = json.loads((out / "r.json").read_text())["scores"]["system"]
    after = json.loads((tmp_path / "s.json").read_text())["scores"]["system"]
    assert system[2:] == [f"{before:.3f}", f"{after:.3f}", f"{after - before:+.3f}"] and after > before
    assert f"termqa: wrote {tmp_path / 's.json'}" in r.stderr


def _commands(group, prefix=()):
    """Every command and sub-command of the group, as the words that call it."""
    for name, cmd in group.commands.items():
        yield (*prefix, name)
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, (*prefix, name))


@pytest.mark.parametrize("words", sorted(_commands(main)), ids=" ".join)
def test_every_help_has_examples_and_exit_codes(words):
    r = run(*words, "--help")
    assert r.exit_code == 0
    assert re.search(r"^  Examples:\n    termqa ", r.output, re.M), r.output
    assert re.search(r"^  Exit codes:\n    0 ", r.output, re.M), r.output


def test_readme_and_docs_quote_fail_on_conditions():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = 0
    for page in pages:
        for m in re.finditer(r"--fail-on\s+(\S+)", page.read_text(encoding="utf-8")):
            arg = m.group(1)
            if ">" in arg or "<" in arg:
                found += 1
                assert arg[0] in "'\"", f"{page.name}: unquoted --fail-on {arg}: the shell would redirect"
    assert found >= 3  # the README's CI line, the check options, the several-languages example
