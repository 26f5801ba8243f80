"""A reader message names its file once, wherever it is shown (check warnings, inspect, inspect's error)."""
from __future__ import annotations

from click.testing import CliRunner

from termqa.config import Settings
from termqa.cli.main import main
from termqa.shownpath import with_path, without_path
from termqa.pipeline.check import check

from tests.helpers import write_csv

# a problem the XLIFF 1.2 reader words with the document id, which is the file's path
DUP_MID = ('<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
           '<file source-language="en" target-language="fr" datatype="plaintext" original="a.txt"><body>'
           '<trans-unit id="1"><source>The pump</source><seg-source><mrk mtype="seg" mid="1">The pump</mrk>'
           '<mrk mtype="seg" mid="1">runs</mrk></seg-source><target><mrk mtype="seg" mid="1">La pompe</mrk>'
           '</target></trans-unit></body></file></xliff>')


def test_check_inspect_and_its_error_name_the_file_once(tmp_path):
    x = tmp_path / "dup.xlf"
    x.write_text(DUP_MID, encoding="utf-8")
    g = write_csv(tmp_path / "g.csv", ["en", "fr"], [["pump", "pompe"]])
    warnings = check([str(x)], [g], Settings(lemmatiser="lookup")).warnings
    mid = [w for w in warnings if "mid '1' is used more than once" in w]
    assert mid and all(w.count(str(x)) == 1 for w in mid)
    r = CliRunner().invoke(main, ["inspect", str(x)])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if "more than once" in ln]
    assert lines and all(ln.count("dup.xlf") <= 1 for ln in lines)
    assert any(ln.count("dup.xlf") == 1 for ln in lines)  # named, once


def test_with_and_without_path():
    assert with_path("a.xlf", "a.xlf: x") == "a.xlf: x"
    assert with_path("a.xlf", "a.xlf#2: x") == "a.xlf#2: x"
    assert with_path("a.xlf", "unit 'u': x") == "a.xlf: unit 'u': x"
    assert without_path("a.xlf", "a.xlf: x") == "x"
    assert without_path("a.xlf", "a.xlf#2: x") == "<file> #2: x"
