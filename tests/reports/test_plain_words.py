"""Plain words: every --help lists every exit code the command can give, --html points at --report, each
label has one name everywhere, the report explains its abbreviations and shows settings in words."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.cli import main
from termqa.labels import ERROR_CODES, LABEL_NAMES, label_info, label_name

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _help(*cmd):
    r = CliRunner().invoke(main, [*cmd, "--help"], terminal_width=200)
    assert r.exit_code == 0, r.output
    return r.output.split("Exit codes", 1)[1]


@pytest.mark.parametrize("cmd, codes", [
    (("check",), ("0", "1", "2", "3", "130")),
    (("compare",), ("0", "2", "3", "130")),
    (("inspect",), ("0", "2", "130")),
    (("rescore",), ("0", "2", "130")),
    (("decide", "add"), ("0", "2", "130")),
    ((), ("0", "1", "2", "3", "130")),
])
def test_every_help_lists_its_exit_codes(cmd, codes):
    text = _help(*cmd)
    listed = {line.split()[0] for line in text.splitlines() if line.strip()[:1].isdigit()}
    assert set(codes) <= listed, (cmd, listed)


@pytest.mark.parametrize("cmd", ["check", "compare"])
def test_html_is_answered_with_report(cmd):
    r = CliRunner().invoke(main, [cmd, "x.xlf", "--html", "r.html"])
    assert r.exit_code == 2
    assert "Did you mean '--report'?" in r.output


def test_one_name_per_label():
    for code in ERROR_CODES:
        assert label_info(code)["name"] == label_name(code) == LABEL_NAMES[code]
    assert "spelling" in label_name("F")  # the spelling rule scores as F: its name covers it


def test_the_report_uses_one_name_and_explains_its_words(tmp_path):
    from termqa.pipeline.check import check
    from termqa.reports.html import build_view, render_html

    r = check([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")],
              Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    view = build_view(r)
    filter_names = {l["code"]: l["name"] for l in view["problems"]}
    assert filter_names["F"] == label_name("F") and filter_names["A1"] == label_name("A1")
    page = render_html(r)
    # the rule-settled spelling error: its label's one name, the rule's name beside it
    assert f"<code>F</code> {label_name('F')} · spelling (diacritics)" in page
    assert f"<code>A1</code> {label_name('A1')} · deprecated term" in page
    assert '<abbr title="exact match' in page and "chain of" in page and "Words used in this report" in page
    assert "Setting exhaustive" not in page and "(--exhaustive)</th><td class=\"brk\">no" in page
    assert "CTV variation preservation" in page


def test_the_console_names_rule_settled_errors():
    r = CliRunner().invoke(main, ["check", str(SAMPLES), "-g", str(SAMPLES / "pump-terms.tbx"), "--lemmatiser",
                                  "lookup", "--no-index-cache"])
    assert r.exit_code == 0, r.output
    assert f"A1 x1: {label_name('A1')}" in r.stdout
    assert "settled by a rule:" in r.stdout and "deprecated term x1" in r.stdout
    assert "a real term, but for a neighbouring concept" not in r.stdout
