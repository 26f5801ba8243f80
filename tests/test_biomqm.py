"""The bio-MQM loader: real EN-FR data when the corpus is present, small datasets of our own otherwise."""
from __future__ import annotations

import json

import pytest

from termqa.errors import InputError, UsageError
from termqa.formats import biomqm, read_bilingual


def _bio(corpus):
    p = corpus / "eval" / "bio-mqm"
    if not p.is_dir():
        pytest.skip("bio-MQM is not in the corpus")
    return p


def _row(doc, seg, target, errors=(), annotator="A", engine="sysA", source="The source."):
    return {"Annotator_ID": annotator, "DOC_ID": doc, "MT_Engine": engine, "SEG_ID": seg, "filename": "x",
            "source": source, "target": target, "source_errors": [], "source_locale": "enus",
            "target_locale": "frfr", "target_errors": [
                {"startIndex": s, "endIndex": e, "term": t, "error_category": c, "error_subcategory": "",
                 "severity": sev} for s, e, t, c, sev in errors]}


def _dataset(tmp_path, systems):
    folder = tmp_path / "bio" / "data" / "v2" / "target" / "main_phase" / "round_two" / "en2fr"
    folder.mkdir(parents=True)
    for name, rows in systems.items():
        (folder / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
    return tmp_path / "bio"


# --- real data ------------------------------------------------------------------------------------

def test_real_en_fr_data(corpus):
    root = _bio(corpus)
    names = biomqm.system_names(root)
    assert len(names) == 10 and "reference" in names and "reference_r1" in names
    s = biomqm.load(root, systems=["LISN_run1"])["LISN_run1"]
    assert (s.src_lang, s.tgt_lang) == ("en-US", "fr-FR")
    assert len(s.documents) == 50 and sum(len(g) for _, g in s.documents) == 384
    assert [d for d, _ in s.documents][:3] == ["doc2", "doc7", "doc9"]
    first = s.document("doc56")[0]
    assert first.seg_id == "1" and first.target.startswith("Evolution de la prise en charge")
    (err,) = first.annotations[0].errors
    # endIndex 8 is inclusive: the span is [0, 9) = "Evolution"
    assert (err.start, err.end, err.severity, err.weight, err.category) == (0, 9, "minor", 1.0, "Linguistic_conventions")
    assert first.target[err.start:err.end] == err.text
    # 39 segments were seen by two annotators
    assert sum(1 for _, g in s.documents for x in g if len(x.annotations) == 2) == 39
    # every error span cuts out its own text once re-located
    for _, g in s.documents:
        for x in g:
            for a in x.annotations:
                for e in a.errors:
                    if e.text and e.text in x.target:
                        assert x.target[e.start:e.end] == e.text


def test_export_real_data_reads_back(corpus, tmp_path):
    root = _bio(corpus)
    m = biomqm.export(root, tmp_path, systems=["TMT_run1", "reference"], docs=3)
    assert set(m["systems"]) == {"TMT_run1", "reference"}
    assert m["systems"]["TMT_run1"]["documents"] == ["doc2", "doc7", "doc9"]
    assert json.loads((tmp_path / biomqm.MANIFEST).read_text())["pair"] == "en2fr"
    f = read_bilingual(tmp_path / "TMT_run1.xlf")
    assert f.format == "xliff-1.2" and not f.problems and not f.warnings
    assert [d.original for d in f.documents] == ["doc2", "doc7", "doc9"]
    orig = biomqm.load(root, systems=["TMT_run1"], docs=3)["TMT_run1"]
    for d in f.documents:
        segs = orig.document(d.original)
        assert [s.unit_id for s in d.segments] == [s.seg_id for s in segs]
        # byte-for-byte texts: MQM offsets stay valid
        assert [s.target for s in d.segments] == [s.target for s in segs]
        assert [s.source for s in d.segments] == [s.source for s in segs]


# --- own small datasets ---------------------------------------------------------------------------

def test_locate_error_spans():
    t = "Evolution de la prise"
    assert biomqm._locate(t, 0, 8, "Evolution") == (0, 9, False)  # inclusive end
    assert biomqm._locate(t, 0, 9, "Evolution") == (0, 9, False)  # exclusive end
    assert biomqm._locate(t, 12, 14, "la") == (13, 15, True)  # shifted: nearest occurrence
    assert biomqm._locate(t, 3, 5, "absent") == (3, 6, True)  # not found: indices as given
    assert biomqm._locate(t, 19, 40, "") == (19, 21, True)  # clipped to the text


def test_load_small_dataset(tmp_path):
    rows = [_row("doc10", "2", "Deuxième phrase."), _row("doc10", "1", "La pompe tourne.",
                                                           [(3, 7, "pompe", "Terminology", "Major")]),
            _row("doc10", "1", "La pompe tourne.", annotator="B"), _row("doc9", "1", "Autre.")]
    root = _dataset(tmp_path, {"sysA": rows, "sysB": [dict(r, MT_Engine="sysB") for r in rows]})
    data = biomqm.load(root)
    assert list(data) == ["sysA", "sysB"]
    s = data["sysA"]
    assert [d for d, _ in s.documents] == ["doc9", "doc10"]  # natural order
    segs = s.document("doc10")
    assert [x.seg_id for x in segs] == ["1", "2"]
    assert [a.annotator for a in segs[0].annotations] == ["A", "B"]
    e = segs[0].annotations[0].errors[0]
    assert (e.start, e.end, e.weight) == (3, 8, 5.0)
    assert list(biomqm.load(root, docs=1)["sysA"].documents)[0][0] == "doc9"
    assert [d for d, _ in biomqm.load(root, docs=["doc10"])["sysB"].documents] == ["doc10"]
    # the pair folder itself is accepted too
    assert biomqm.pair_dir(root / "data" / "v2" / "target" / "main_phase" / "round_two" / "en2fr").name == "en2fr"


def test_load_refuses_bad_input(tmp_path):
    root = _dataset(tmp_path, {"sysA": [_row("doc1", "1", "Un."), _row("doc1", "1", "Deux.", annotator="B")]})
    with pytest.raises(InputError, match="different texts"):
        biomqm.load(root)
    with pytest.raises(UsageError, match="unknown bio-MQM systems"):
        biomqm.load(root, systems=["nope"])
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.json").write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="not a bio-MQM system file"):
        biomqm.read_system(other / "x.json")
    with pytest.raises(InputError, match="has no bio-MQM 'de2en' folder"):
        biomqm.pair_dir(tmp_path / "bio" / "data" / "v2" / "target", "de2en")


def test_unknown_document_is_refused(tmp_path):
    root = _dataset(tmp_path, {"sysA": [_row("doc1", "1", "Un.")]})
    with pytest.raises(UsageError, match="unknown bio-MQM documents: doc5"):
        biomqm.load(root, docs=["doc5"])


def test_export_command(tmp_path):
    from click.testing import CliRunner

    from termqa.cli.evaluate import biomqm_export_cmd

    root = _dataset(tmp_path, {"sysA": [_row("doc1", "1", "Un & <deux>."), _row("doc2", "1", "Trois.")]})
    out = tmp_path / "out"
    r = CliRunner().invoke(biomqm_export_cmd, [str(root), str(out), "--docs", "doc2,doc1"])
    assert r.exit_code == 0, r.output
    assert "sysA.xlf: 2 documents, 2 segments" in r.output
    f = read_bilingual(out / "sysA.xlf")
    assert [d.original for d in f.documents] == ["doc1", "doc2"]
    assert f.documents[0].segments[0].target == "Un & <deux>."
    assert (f.src_lang, f.tgt_lang) == ("en-US", "fr-FR")
