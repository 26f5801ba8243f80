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
    names = biomqm.system_names(root, "en2fr")
    assert len(names) == 10 and "reference" in names and "reference_r1" in names
    s = biomqm.load(root, "en2fr", systems=["LISN_run1"])["LISN_run1"]
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
    # every error kept cuts out its own text; what the loader did, counted
    _assert_spans_cut_out_their_text(s)
    assert s.spans == biomqm.SpanRepairs(as_given=480, relocated=11, moved=18, dropped=0)
    # doc46 has a segment 400, which continues segment 4
    tmt = biomqm.load(root, "en2fr", systems=["TMT_run1"], docs=["doc46"])["TMT_run1"]
    assert [x.seg_id for x in tmt.document("doc46")] \
        == ["1", "2", "3", "4", "400", "5", "6"]


def _assert_spans_cut_out_their_text(system):
    n = 0
    for _, g in system.documents:
        for x in g:
            for a in x.annotations:
                for e in a.errors:
                    assert x.target[e.start:e.end] == e.text, (x.doc_id, x.seg_id, e)
                    n += 1
    assert n == system.spans.total - system.spans.dropped


def test_every_kept_error_of_the_en_fr_data_cuts_out_its_text(corpus):
    data = biomqm.load(_bio(corpus), "en2fr")
    total = biomqm.SpanRepairs()
    for s in data.values():
        _assert_spans_cut_out_their_text(s)
        total += s.spans
    # 5,690 error spans: 286 do not cut out their text at their offsets; 178 of those sit at their
    # offsets (175) or nearby (3) in a neighbouring segment and move there, 107 are shifted within
    # their segment, 1 is found nowhere near and is dropped
    assert total == biomqm.SpanRepairs(as_given=5404, relocated=107, moved=178, dropped=1)


def test_export_real_data_reads_back(corpus, tmp_path):
    root = _bio(corpus)
    m = biomqm.export(root, tmp_path, "en2fr", systems=["TMT_run1", "reference"], docs=3)
    assert set(m["systems"]) == {"TMT_run1", "reference"}
    assert m["systems"]["TMT_run1"]["documents"] == ["doc2", "doc7", "doc9"]
    assert json.loads((tmp_path / biomqm.MANIFEST).read_text())["pair"] == "en2fr"
    f = read_bilingual(tmp_path / "TMT_run1.xlf")
    assert f.format == "xliff-1.2" and not f.problems and not f.warnings
    assert [d.original for d in f.documents] == ["doc2", "doc7", "doc9"]
    orig = biomqm.load(root, "en2fr", systems=["TMT_run1"], docs=3)["TMT_run1"]
    for d in f.documents:
        segs = orig.document(d.original)
        assert [s.unit_id for s in d.segments] == [s.seg_id for s in segs]
        # byte-for-byte texts: MQM offsets stay valid
        assert [s.target for s in d.segments] == [s.target for s in segs]
        assert [s.source for s in d.segments] == [s.source for s in segs]


# --- own small datasets ---------------------------------------------------------------------------

def test_place_error_spans():
    t = ["Le joint fuit.", "Evolution de la prise", "La pompe tourne."]
    place = biomqm._place
    assert place(t, 1, 0, 8, "Evolution") == (1, 0, 9, "as_given")  # inclusive end
    assert place(t, 1, 0, 9, "Evolution") == (1, 0, 9, "as_given")  # exclusive end
    assert place(t, 1, 12, 14, "la") == (1, 13, 15, "relocated")  # shifted: nearest occurrence
    # at its offsets in the previous segment: moved there
    assert place(t, 1, 3, 7, "joint") == (0, 3, 8, "moved")
    assert place(t, 1, 3, 7, "pompe") == (2, 3, 8, "moved")  # the next segment
    # offsets in a neighbour beat a search in the segment itself
    t2 = ["Le joint fuit.", "Neuf, le joint."]
    assert place(t2, 1, 3, 7, "joint") == (0, 3, 8, "moved")
    assert place(t, 1, 0, 2, "tourne") == (2, 9, 15, "moved")  # found by search in a neighbour
    assert place(t, 1, 3, 5, "absent") is None  # nowhere near: dropped
    assert place(t, 0, 3, 7, "prise") == (1, 16, 21, "moved")  # the first segment has no previous one
    assert place(t, 1, 19, 40, "") == (1, 19, 21, "unchecked")  # no text: clipped to the target


def test_load_small_dataset(tmp_path):
    rows = [_row("doc10", "2", "Deuxième phrase."), _row("doc10", "1", "La pompe tourne.",
                                                           [(3, 7, "pompe", "Terminology", "Major")]),
            _row("doc10", "1", "La pompe tourne.", annotator="B"), _row("doc9", "1", "Autre.")]
    root = _dataset(tmp_path, {"sysA": rows, "sysB": [dict(r, MT_Engine="sysB") for r in rows]})
    data = biomqm.load(root, "en2fr")
    assert list(data) == ["sysA", "sysB"]
    s = data["sysA"]
    assert [d for d, _ in s.documents] == ["doc9", "doc10"]  # natural order
    segs = s.document("doc10")
    assert [x.seg_id for x in segs] == ["1", "2"]
    assert [a.annotator for a in segs[0].annotations] == ["A", "B"]
    e = segs[0].annotations[0].errors[0]
    assert (e.start, e.end, e.weight) == (3, 8, 5.0)
    assert list(biomqm.load(root, "en2fr", docs=1)["sysA"].documents)[0][0] == "doc9"
    assert [d for d, _ in biomqm.load(root, "en2fr", docs=["doc10"])["sysB"].documents] == ["doc10"]
    # the pair folder itself is accepted too
    pair_folder = root / "data" / "v2" / "target" / "main_phase" / "round_two" / "en2fr"
    assert biomqm.pair_dir(pair_folder, "en2fr").name == "en2fr"


def test_misplaced_errors_move_or_are_dropped(tmp_path):
    rows = [_row("d1", "1", "Le joint fuit."),
            # saved one row late: its offsets cut "joint" out of segment 1
            _row("d1", "2", "La pompe tourne.", [(3, 7, "joint", "Terminology", "Major"),
                                                 (3, 7, "pompe", "Terminology", "Minor"),
                                                 (0, 3, "vanne", "Accuracy", "Minor")]),
            # annotator B did not see segment 1: an error of B that belongs there cannot follow
            _row("d1", "2", "La pompe tourne.", [(3, 7, "joint", "Terminology", "Major")], annotator="B")]
    s = biomqm.load(_dataset(tmp_path, {"sysA": rows}), "en2fr")["sysA"]
    one, two = s.document("d1")
    assert [(e.text, e.start, e.end) for e in one.annotations[0].errors] == [("joint", 3, 8)]
    assert [(a.annotator, [e.text for e in a.errors]) for a in two.annotations] == [("A", ["pompe"]), ("B", [])]
    assert s.spans == biomqm.SpanRepairs(as_given=1, moved=1, dropped=2)
    assert s.spans.as_dict() == {"total": 4, "as_given": 1, "relocated_in_segment": 0, "moved_to_neighbour": 1,
                                 "dropped": 2, "unchecked": 0}
    assert s.spans.describe() == ("4 error spans: 1 as given, 0 re-located in their segment, 1 moved to a "
                                  "neighbouring segment, 2 dropped")


def test_load_refuses_bad_input(tmp_path):
    root = _dataset(tmp_path, {"sysA": [_row("doc1", "1", "Un."), _row("doc1", "1", "Deux.", annotator="B")]})
    with pytest.raises(InputError, match="different texts"):
        biomqm.load(root, "en2fr")
    with pytest.raises(UsageError, match="unknown bio-MQM systems"):
        biomqm.load(root, "en2fr", systems=["nope"])
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
        biomqm.load(root, "en2fr", docs=["doc5"])


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
