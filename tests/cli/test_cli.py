"""The command line as a user meets it: exit codes, one-line errors, inspect over the real corpus."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from termqa.cli.main import main
from tests.conftest import SAMPLES, corpus_files, is_invalid_name

# Named "bad" for its content (an HTML Dog page about deprecated tags) but valid XLIFF: it must read.
NOT_ACTUALLY_INVALID = {"okapi_BadTags_HTMLDog.sdlxliff"}
FORMAT_DIRS = ["xliff12", "xliff2", "sdlxliff", "mqxliff", "tmx", "tbx", "skos"]
ALL = [p for d in FORMAT_DIRS for p in corpus_files(f"formats/{d}")]
VALID = [p for p in ALL if not is_invalid_name(p) or p.name in NOT_ACTUALLY_INVALID]
INVALID = [p for p in ALL if is_invalid_name(p) and p.name not in NOT_ACTUALLY_INVALID]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_version():
    r = invoke("--version")
    assert r.exit_code == 0 and "0.1.0" in r.output


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_inspect_reads_every_valid_corpus_file(path):
    r = invoke("inspect", path, "--json")
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["format"]
    if info["kind"] == "bilingual":
        for key in ("dialect", "source_language", "target_language", "documents", "source_words", "target_words"):
            assert key in info
        assert set(info["segments"]) == {"total", "translated", "empty", "locked", "skipped", "not_translated",
                                        "not_translated_units",
                                        "not_translated_states"}
        assert info["documents"] >= 1 and "target_language" in info
    else:
        assert info["concepts"] > 0 and "dnt" in info and "warnings" in info
        assert all(set(v) == {"terms", "by_status"} for v in info["languages"].values())


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_inspect_refuses_every_invalid_corpus_file(path):
    r = CliRunner().invoke(main, ["inspect", str(path), "--tgt-lang", "fr"])
    assert r.exit_code == 2
    errors = [line for line in r.stderr.splitlines() if line.startswith("termqa: error:")]
    assert len(errors) == 1 and path.name in errors[0]
    assert "Traceback" not in r.output


def test_inspect_sample_counts():
    info = json.loads(invoke("inspect", SAMPLES / "pump-manual.xlf", "--json").stdout)
    assert info["format"] == "xliff-1.2" and info["source_language"] == "en" and info["target_language"] == "fr"
    assert info["segments"]["skipped"] == 1 and info["segments"]["empty"] == 1
    g = json.loads(invoke("inspect", SAMPLES / "pump-terms.tbx", "--json").stdout)
    assert g["format"] == "tbx-2008" and g["dnt"] == 1 and g["languages"]["fr"]["by_status"]["deprecated"] == 1


BAD_INPUTS = {
    "xxe.xlf": (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                b'<xliff version="1.2"><file source-language="en" target-language="fr"><body>'
                b'<trans-unit id="1"><source>&e;</source></trans-unit></body></file></xliff>', "entities"),
    "bomb.xlf": (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
                 b'<xliff version="1.2"><file source-language="en" target-language="fr"><body>'
                 b'<trans-unit id="1"><source>&b;</source></trans-unit></body></file></xliff>', "entities"),
    "truncated.xlf": (b'<?xml version="1.0"?><xliff version="1.2"><file source-language="en" '
                      b'target-language="fr"><body><trans-unit id="1"><source>Hel', "not well-formed"),
    "lying.xlf": (('<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2"><file source-language="en" '
                   'target-language="fr"><body><trans-unit id="1"><source>Caf\u00e9</source></trans-unit>'
                   '</body></file></xliff>').encode("latin-1"), "not well-formed"),
    "notarget.xlf": (b'<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file '
                     b'source-language="en" datatype="plaintext" original="x"><body><trans-unit id="1">'
                     b'<source>Hello</source></trans-unit></body></file></xliff>', "no target language"),
    "unknown.xml": (b"<html><body>hi</body></html>", "unknown format"),
    "empty.xlf": (b"", "empty"),
    "binary.xlf": (bytes(range(256)) * 8, "binary data"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, name):
    data, needle = BAD_INPUTS[name]
    f = tmp_path / name
    f.write_bytes(data)
    out = tmp_path / "out.json"
    r = CliRunner().invoke(main, ["check", str(f), "--glossary", str(SAMPLES / "pump-terms.tbx"),
                                  "--json", str(out)])
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("termqa: error: ") and needle in r.stderr
    assert str(f) in r.stderr
    assert not out.exists() and f.read_bytes() == data


def test_binary_glossary_is_refused(tmp_path):
    g = tmp_path / "g.csv"
    g.write_bytes(bytes(range(256)) * 8)
    r = CliRunner().invoke(main, ["check", str(SAMPLES / "pump-manual.xlf"), "--glossary", str(g)])
    assert r.exit_code == 2 and "binary data" in r.stderr


def test_empty_glossary_is_refused(tmp_path):
    g = tmp_path / "g.csv"
    g.write_text("en,fr\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["check", str(SAMPLES / "pump-manual.xlf"), "--glossary", str(g)])
    assert r.exit_code == 2 and "empty glossary" in r.stderr


def test_check_needs_a_glossary():
    r = CliRunner().invoke(main, ["check", str(SAMPLES / "pump-manual.xlf")])
    assert r.exit_code == 2 and "no glossary" in r.stderr


def test_real_process_has_no_traceback_on_bad_input(tmp_path):
    f = tmp_path / "x.xlf"
    f.write_bytes(BAD_INPUTS["truncated.xlf"][0])
    p = subprocess.run([sys.executable, "-m", "termqa", "inspect", str(f)], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.splitlines()) == 1


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_still_xml(tmp_path, encoding):
    from termqa.formats import read_bilingual

    x = ('<?xml version="1.0" encoding="UTF-16"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
         '<file original="a" datatype="plaintext" source-language="en" target-language="fr"><body>'
         '<trans-unit id="1"><source>Pump</source><target>Pompe</target></trans-unit></body></file></xliff>')
    f = tmp_path / "u16.xlf"
    f.write_bytes(x.encode(encoding))
    assert read_bilingual(str(f)).segments[0].target == "Pompe"
