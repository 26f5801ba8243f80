"""Nothing checked is never a pass: a file whose targets are missing or untranslated checks no occurrence;
the run says so first, exits 2 ("nothing checked") with or without a gate, and the report, the JSON and the
console say the same. `coverage<X` counts occurrences in untranslated segments as not scored."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.cli import main
from termqa.pipeline.check import check
from termqa.results.gate import coverage, failures, nothing_checked

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
GLOSSARY = str(SAMPLES / "pump-terms.tbx")
_TARGET = re.compile(r"\s*<target[^>]*>.*?</target>", re.S)


def _without_targets(tmp_path, keep: int = 0) -> str:
    """The sample manual with the targets of every unit after the first `keep` dropped."""
    text = (SAMPLES / "pump-manual.xlf").read_text(encoding="utf-8")
    n = iter(range(10 ** 6))
    text = _TARGET.sub(lambda m: m.group(0) if next(n) < keep else "", text)
    out = tmp_path / "manual-untranslated.xlf"
    out.write_text(text, encoding="utf-8")
    return str(out)


def _cli(tmp_path, *args):
    return CliRunner().invoke(main, ["check", *args, "-g", GLOSSARY, "--lemmatiser", "lookup", "--no-index-cache",
                                     "-q"])


@pytest.mark.parametrize("gate", [[], ["--fail-on", "error"], ["--fail-on", "coverage<0.9"]])
def test_a_file_without_targets_is_never_a_pass(tmp_path, gate):
    x = _without_targets(tmp_path)
    out = {k: tmp_path / f"r.{k}" for k in ("json", "html", "csv", "xlsx")}
    r = _cli(tmp_path, x, *gate, "--json", str(out["json"]), "--report", str(out["html"]),
             "--csv", str(out["csv"]), "--xlsx", str(out["xlsx"]))
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("termqa: warning: nothing checked:")  # said first
    assert lines[-1].startswith("termqa: error: nothing checked:")  # and the reason for the exit code
    assert "QA gate passed" not in r.output
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert data["alerts"][0].startswith("nothing checked:") and data["warnings"][0] == data["alerts"][0]
    assert data["summary"]["occurrences"] == 0 and data["summary"]["occurrences_in_untranslated_segments"] > 0
    page = out["html"].read_text(encoding="utf-8")
    assert "NOT CHECKED" in page and "PASS" not in page.replace("PASS/FAIL", "")
    assert "No problems found" not in page and "no terminology problem found" not in page
    assert "terminology issues per 1,000 source words" not in page
    assert "Nothing to fix" not in page
    if gate:
        assert "failed on <b>nothing checked" in page


def test_the_library_gate_fails_a_run_that_checked_nothing(tmp_path):
    r = check([_without_targets(tmp_path)], [GLOSSARY], Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    assert nothing_checked(r).startswith("nothing checked:")
    assert failures(r, ["error"])[0].startswith("nothing checked")
    assert failures(r, [])  # no condition given: still not a pass
    assert coverage(r) == 0.0


def test_a_file_with_no_translated_segment_and_no_term_is_not_checked(tmp_path):
    from tests.helpers import write_csv, write_xliff

    x = write_xliff(tmp_path / "d.xlf", [("The valve is closed.", None), ("Open the door.", "")])
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "impeller", "roue"]])
    r = check([x], [g], Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    assert r["alerts"][0].startswith("nothing checked: 0 of the 2 segments have a translation")


def test_coverage_counts_untranslated_occurrences_as_not_scored(tmp_path):
    x = _without_targets(tmp_path, keep=20)  # about half the units translated
    r = check([x], [GLOSSARY], Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    s = r["scores"]
    skipped = r["summary"]["occurrences_in_untranslated_segments"]
    assert s["scored"] and skipped and not nothing_checked(r)
    share = s["scored"] / (s["scored"] + s["unjudged"] + skipped)
    assert coverage(r) == pytest.approx(share) and share < 0.9
    assert failures(r, ["coverage<0.9"]) == [f"coverage<0.9 (found {share:g})"]
    assert failures(r, [f"coverage<{share - 0.01:.2f}"]) == []
    cli = _cli(tmp_path, x, "--fail-on", "coverage<0.9")
    assert cli.exit_code == 1, cli.output
    assert "QA failed: coverage<0.9" in cli.stderr
    cli = _cli(tmp_path, x, "--fail-on", "coverage<0.1")
    assert cli.exit_code == 0, cli.output


def test_a_translated_file_is_checked_as_before():
    r = check([str(SAMPLES / "pump-manual.xlf")], [GLOSSARY],
              Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    assert not nothing_checked(r)
    assert not any(a.startswith("nothing checked") for a in r["alerts"])



def test_a_gate_on_a_hand_made_result_without_the_alert_still_fails():
    result = {"summary": {"occurrences": 0, "segments": 3, "outcomes": {}, "labels": {},
                          "occurrences_in_untranslated_segments": 4}, "alerts": [], "scores": {}}
    assert nothing_checked(result).startswith("nothing checked: the 4 term occurrences")
    assert failures(result, ["error"])[0] == "nothing checked (4 occurrences in untranslated segments)"


def test_units_not_translated_yet_by_their_state_are_not_a_pass(tmp_path):
    # what a CAT tool exports before translation: every target a copy of its source, state "new"
    from xml.sax.saxutils import escape

    from termqa import formats

    f = formats.read_bilingual(str(SAMPLES / "pump-manual.xlf"))
    units = "".join(f'<trans-unit id="u{i}"><source>{escape(s.source)}</source>'
                    f'<target state="new">{escape(s.source)}</target></trans-unit>' for i, s in enumerate(f.segments))
    x = tmp_path / "new.xlf"
    x.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
                 'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="m" datatype="plaintext" '
                 f'source-language="en" target-language="fr"><body>{units}</body></file></xliff>', encoding="utf-8")
    r = _cli(tmp_path, str(x), "--fail-on", "error")
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines()[0].startswith("termqa: warning: nothing checked:")
