"""One word count: `inspect`, the report, the JSON and every warning give the same number of source words
(termqa.wordcount); rates and shares are never shown as zero when something was found."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.cli import main
from termqa.reports.html import build_view, fmt_pct, fmt_rate
from termqa.wordcount import count_words

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_the_definition():
    assert count_words("Remplacez l'eau de la pompe CP-200 : state-of-the-art, 12 fois.") == 9
    assert count_words("<b>WARNING:</b> — !") == 3  # markup names are text here; punctuation is not a word
    assert count_words("") == 0 and count_words(None) == 0


def _counts(tmp_path, xliff, glossary, *extra):
    runner = CliRunner()
    ins = runner.invoke(main, ["inspect", "--json", xliff])
    assert ins.exit_code == 0, ins.output
    inspected = json.loads(ins.stdout)["source_words"]
    r = runner.invoke(main, ["check", xliff, "-g", glossary, "--no-index-cache", "-q", *extra,
                             "--json", str(tmp_path / "r.json"), "--report", str(tmp_path / "r.html")])
    assert r.exit_code in (0, 1), r.output
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    # "N words checked" is the other count of the one definition: the source words of translated segments
    shown = {int(n.replace(",", "")) for n in re.findall(r"(?<!per )(?<![\d,])([\d,]+) (?:source )?words(?! checked)",
                                                          page)}
    checked = {int(n.replace(",", "")) for n in re.findall(r"(?<![\d,])([\d,]+) words checked", page)}
    assert checked <= {data["summary"]["checked_words"]}
    return inspected, data, shown, r.output


def test_samples_one_count_everywhere(tmp_path):
    inspected, data, shown, _r = _counts(tmp_path, str(SAMPLES / "pump-manual.xlf"), str(SAMPLES / "pump-terms.tbx"),
                                         "--lemmatiser", "lookup")
    assert inspected == data["summary"]["source_words"] > 0
    assert shown == {inspected}


@pytest.mark.corpus
def test_a_real_memory_one_count_everywhere(tmp_path, corpus):
    base = corpus / "eval" / "tico19-enfr" / "data"
    inspected, data, shown, r = _counts(tmp_path, str(base / "TM" / "all.en-fr.tmx"),
                                        str(base / "terminologies" / "g_en_fr-FR.csv"))
    assert inspected == data["summary"]["source_words"] > 50_000
    assert shown == {inspected}
    # the warning that names a number of words uses the same one
    said = [w for w in data["warnings"] if "lookup lemmatiser" in w]
    assert said and said[0].startswith(f"{inspected:,} source words")


def test_rates_and_shares_are_never_zero_when_something_was_found():
    assert fmt_rate(0.0) == "0"
    assert fmt_rate(0.042) == "0.04"
    assert fmt_rate(0.004) == "< 0.01"
    assert fmt_rate(2.34) == "2.3"
    assert fmt_pct(1 / 3000) == "< 1%"
    assert fmt_pct(2999 / 3000) == "> 99%"
    assert fmt_pct(0.0) == "0%" and fmt_pct(1.0) == "100%"


def test_the_verdict_table_shows_no_zero_share_beside_a_count(tmp_path):
    from termqa.pipeline.check import check

    r = check([str(SAMPLES / "pump-manual.xlf")], [str(SAMPLES / "pump-terms.tbx")],
              Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    oc = r["summary"]["outcomes"]
    oc.update(conforming=2998, error=1)  # one error among ~3,000 occurrences (the WMT21 case)
    view = build_view(r)
    for bar in view["chart"]["bars"]:
        if bar["count"]:
            assert bar["pct"] != "0%", bar
    head = view["headline"]
    # the rate is over the words checked (#34), beside the one count of source words
    assert head["words"] == r["summary"]["checked_words"] and head["total_words"] == r["summary"]["source_words"]
    assert head["per_k"] not in ("0", "0.0")
