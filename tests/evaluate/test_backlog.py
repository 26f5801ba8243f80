"""termqa backlog: candidates (counting and judge mode), forbidden terms used, glossary terms never found,
and the TBX/CSV it writes (the TBX is read back with termqa's own reader)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa import formats
from termqa.results.backlog import backlog, csv_text, render_text, tbx_bytes, write
from termqa.errors import UsageError
from termqa.inputs import merge_glossaries

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture(scope="module")
def sample_result():
    from termqa.pipeline.check import check

    return check([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup")).to_dict()


def test_counting_mode_on_the_sample_project(sample_result):
    b = backlog(sample_result)
    assert b["mode"] == "counting" and "counting mode" in b["note"]
    assert [(c["concept_id"], c["rendering"], c["count"], c["basis"]) for c in b["candidates"]] == [
        ("c13", "bague d'usure", 2, ["pseudo"])]
    cand = b["candidates"][0]
    assert cand["source_terms"] == ["wear ring"] and cand["glossary_terms"] == []
    assert cand["documents"] == [str(SAMPLES / "pump-manual.xlf")]
    assert cand["examples"][0]["target"].startswith("Remplacez la bague d'usure")
    assert [(f["concept_id"], f["rendering"], f["count"], f["glossary_terms"]) for f in b["forbidden"]] == [
        ("c03", "hélice", 1, ["roue", "roue à aubes"])]
    assert b["never_found"] is None


def test_never_found_needs_the_glossary(sample_result):
    gl = merge_glossaries([formats.read_glossary(SAMPLES / "pump-terms.tbx")])
    b = backlog(sample_result, gl)
    found = {o["concept_id"] for o in sample_result["occurrences"]}
    assert [r["concept_id"] for r in b["never_found"]] == [c.id for c in gl if c.id not in found]
    assert "glossary concept(s) never found" in render_text(b)


def test_tbx_is_valid_tbx_basic_and_reads_back(sample_result, tmp_path):
    b = backlog(sample_result)
    out = tmp_path / "candidates.tbx"
    assert write(b, out) == "tbx-v3"
    g = formats.read_glossary(out)
    assert g.format == "tbx-v3" and g.dialect == "TBX-Basic DCA"
    assert g.problems == () and g.warnings == ()
    (c,) = g.concepts
    assert c.id == "c-c13"
    assert [(t.text, t.lang, t.status) for t in c.terms] == [("wear ring", "en", "unknown"),
                                                             ("bague d'usure", "fr", "admitted")]


def test_csv_lists_everything(sample_result, tmp_path):
    gl = merge_glossaries([formats.read_glossary(SAMPLES / "pump-terms.tbx")])
    b = backlog(sample_result, gl)
    out = tmp_path / "backlog.csv"
    assert write(b, out) == "csv"
    rows = list(csv.DictReader(out.read_text(encoding="utf-8").splitlines()))
    kinds = [r["kind"] for r in rows]
    assert kinds.count("candidate") == 1 and kinds.count("forbidden") == 1
    assert kinds.count("never_found") == len(b["never_found"])
    assert rows[0]["rendering"] == "bague d'usure" and rows[0]["count"] == "2"
    tsv = tmp_path / "backlog.tsv"
    write(b, tsv)
    assert tsv.read_text(encoding="utf-8").splitlines()[0].split("\t")[:3] == ["kind", "concept_id", "source_terms"]
    with pytest.raises(UsageError, match="unknown output type"):
        write(b, tmp_path / "backlog.docx")


def _o(doc, unit, cid, text, outcome, label=None, prov=None, align="established", chain=2):
    return {"doc_id": doc, "unit_id": unit, "segment_id": "", "concept_id": cid, "source_form": "x",
            "source_text": "seal", "target_text": text, "target_span": [0, len(text)] if text else None,
            "outcome": outcome, "label": label, "penalty": 0.0, "align_method": align, "chain_size": chain,
            "judge": "m", "reference": {"text": "joint", "provenance": prov} if prov else None}


def _judged(occ):
    return {
        "termqa_result": 1,
        "signature": {"string": "sig", "judge": {"model": "m"}, "settings": {"mode": "judge"}},
        "documents": [{"doc_id": d, "src_lang": "en", "tgt_lang": "fr"} for d in ("d1", "d2")],
        "concepts": [{"id": "seal", "terms": [{"text": "seal", "lang": "en", "status": "preferred"},
                                              {"text": "garniture", "lang": "fr", "status": "preferred"}]},
                     {"id": "9:x", "terms": [{"text": "gasket", "lang": "en", "status": "preferred"}]}],
        "segments": [{"doc_id": "d1", "unit_id": "1", "segment_id": "", "source": "The seal.", "target": "Le joint."}],
        "occurrences": occ,
    }


def test_judge_mode_candidates():
    occ = [
        _o("d1", "1", "seal", "joint", "justified", "document_usage"),  # once, but justified: kept
        _o("d2", "4", "seal", "Joint", "justified", "document_usage"),
        _o("d1", "2", "seal", "bague", "justified", "explicitation"),  # contextual, not a term candidate
        _o("d1", "3", "seal", "garniture", "conforming", align="glossary"),  # in the glossary
        _o("d2", "1", "9:x", "joint plat", "conforming", prov="validated"),
        _o("d2", "2", "9:x", "joint plat", "conforming", prov="validated"),
        _o("d2", "3", "9:x", "rondelle", "conforming", prov="validated"),  # validated but used once
        _o("d1", "5", "9:x", "étanchéité", "conforming", prov="validated"),
        _o("d1", "6", "9:x", "étanchéité", "conforming", prov="validated"),
        _o("d2", "5", "9:x", "Étanchéité", "error", "A7"),  # an error verdict rules the rendering out
    ]
    b = backlog(_judged(occ))
    assert b["mode"] == "judge"
    got = [(c["concept_id"], c["rendering"], c["count"], c["documents"], c["basis"]) for c in b["candidates"]]
    assert got == [("seal", "joint", 2, ["d1", "d2"], ["document_usage"]),
                   ("9:x", "joint plat", 2, ["d2"], ["validated"])]
    assert b["candidates"][0]["glossary_terms"] == ["garniture"]
    assert b["candidates"][0]["examples"][0] == {"doc_id": "d1", "unit_id": "1", "source": "The seal.",
                                                  "target": "Le joint."}
    # ids that are not XML names get a prefix and a safe spelling in TBX
    tbx = tbx_bytes(b).decode("utf-8")
    assert 'id="c-seal"' in tbx and 'id="c-9_x"' in tbx
    assert "termqa concept id: 9:x" in tbx
    assert backlog(_judged(occ), min_count=1)["candidates"][-1]["rendering"] == "rondelle"


def test_not_a_result():
    with pytest.raises(UsageError):
        backlog({"documents": []})


def test_backlog_command(sample_result, tmp_path):
    from click.testing import CliRunner

    from termqa.cli.evaluate import backlog_cmd

    res = tmp_path / "r.json"
    res.write_text(json.dumps(sample_result), encoding="utf-8")
    out, js = tmp_path / "cand.tbx", tmp_path / "b.json"
    r = CliRunner().invoke(backlog_cmd, [str(res), "--out", str(out), "--json", str(js),
                                         "-g", str(SAMPLES / "pump-terms.tbx")])
    assert r.exit_code == 0, r.output
    assert "1 candidate term(s), 1 forbidden term(s) used" in r.output
    assert "c13: wear ring -> bague d'usure" in r.output
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["termqa_backlog"] == 1 and len(data["candidates"]) == 1
    assert formats.read_glossary(out).concepts[0].id == "c-c13"
    assert csv_text(data).count("\n") == 2 + len(data["never_found"]) + 1
