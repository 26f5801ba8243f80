"""Big translation memories in bounded memory (issue 16): what keeps memory bounded, checked without timing.

- a TMX read streaming keeps its segments packed (compressed blocks), not as one record per unit, and the
  packed document behaves as the tuple of its segments;
- detection of a big document keeps no tokens: reductions ask only for the segments near a mention,
  acronym search only for segments with a bracket;
- alignment tokenises targets a chunk at a time and counts n-grams without keeping every target; the
  targets a chain's open occurrences stand in are tokenised again when pass 2 asks, not kept;
- the JSON result is written as its rows are made (`streamed_result`), byte for byte `result_dict`'s.
Results are the same as with everything held (the chunked runs are compared with whole ones).
"""
from __future__ import annotations

import json
import pickle
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.pipeline.detection import Detection
from termqa.config import Settings
from termqa import formats
from termqa.cli.main import main
from termqa.fileio import Rows, atomic_write
from termqa.formats import tmx
from termqa.model import InlineCode, Segment, segment_texts
from termqa.store.packed import PackedSegments, SegmentPacker
from termqa.pipeline import align as al, check as ck, detect as dt, established, occurrences as occ, passes, read
from termqa.pipeline import sourcevariants as sv
from termqa.pipeline.sourceindex import cached_source_index
from termqa.pipeline.check import check
from termqa.results.serialise import result_dict, streamed_result
from tests.conftest import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import generate as gen  # noqa: E402


@pytest.fixture(scope="module")
def memory(tmp_path_factory) -> Path:
    """A generated 30k-word TMX with its glossary (about 2,700 units)."""
    return gen.generate_tmx(30_000, 300, tmp_path_factory.mktemp("tm"), seed=11)


def _result(inputs, glossary, **kw) -> str:
    return json.dumps(check(inputs, [glossary], Settings(index_cache=False, **kw)).to_dict(), sort_keys=True,
                      ensure_ascii=False)


# --- the reader ---------------------------------------------------------------------------------------

def test_streamed_tmx_keeps_its_segments_packed(memory):
    path = str(memory / "tmx" / "memory.tmx")
    streamed = tmx.read_stream(path, sink=SegmentPacker)
    tree = formats.read_bilingual(path)  # 30k words: under the streaming threshold, read as a tree
    packed = streamed.documents[0].segments
    whole = tree.documents[0].segments
    assert isinstance(packed, PackedSegments) and isinstance(whole, tuple)
    assert packed.indexed and len(packed) == len(whole) > 2 * PackedSegments.BLOCK
    # held compressed: a fraction of the text it holds
    text = sum(len(s.source) + len(s.target or "") + len(s.unit_id) for s in whole)
    assert packed.packed_bytes() < text / 3
    # the same record as the tree reader's, and a tuple in every way the pipeline reads it
    assert streamed == tree and packed == whole and whole == packed
    assert hash(packed) == hash(whole)
    assert list(packed) == list(whole)
    assert packed[0] == whole[0] and packed[-1] == whole[-1] and packed[700] == whole[700]
    assert packed[250:260] == whole[250:260]
    assert list(segment_texts(packed)) == [(s.index, s.source, s.target) for s in whole]
    assert pickle.loads(pickle.dumps(packed)) == whole
    with pytest.raises(IndexError):
        packed[len(whole)]


def test_a_big_project_keeps_the_files_it_has_read_packed(tmp_path, monkeypatch):
    """Over PACK_PROJECT_BYTES of input, every document is packed once its file is read (memory follows
    the file being read, not the project); the result is the same as with plain records, and records a
    caller passes in are left as they are."""
    project = gen.generate(12_000, 150, tmp_path, seed=3, words_per_file=4_000)
    xliffs, gl = sorted((project / "xliff").glob("*.xlf")), project / "glossary.tbx"
    assert len(xliffs) == 3
    plain = ck.prepare(xliffs, [gl])
    assert all(isinstance(d.segments, tuple) for d in plain.documents)
    whole = _result(xliffs, gl)
    monkeypatch.setattr(read, "PACK_PROJECT_BYTES", sum(p.stat().st_size for p in xliffs) - 1)
    run = ck.prepare(xliffs, [gl])
    assert all(isinstance(d.segments, PackedSegments) for d in run.documents)
    assert [d.segments for d in run.documents] == [d.segments for d in plain.documents]
    assert _result(xliffs, gl) == whole
    given = [formats.read_bilingual(str(p)) for p in xliffs]
    assert all(isinstance(d.segments, tuple) for d in ck.prepare(given, [gl]).documents)


def test_packer_keeps_every_field():
    code = InlineCode(3, "bpt", "open", "1", "<b>")
    segs = [Segment(f"d{i % 2}", f"u{i}", "s1" if i % 3 else "", f"src {i}", None if i % 5 == 0 else f"tgt {i}",
                    "en", "fr", i, source_codes=(code,) if i % 4 == 0 else (), state="final" if i % 2 else None,
                    locked=i % 7 == 0) for i in range(600)]
    p = SegmentPacker()
    for s in segs:
        p.append(s)
    packed = p.done()
    assert list(packed) == segs and packed.indexed
    shuffled = SegmentPacker()
    shuffled.append(Segment("d", "u", "", "a", "b", "en", "fr", 3))
    assert not shuffled.done().indexed  # an index that is not the position: never looked up by position


# --- detection and alignment of a big document --------------------------------------------------------

def test_big_document_gives_the_same_result_in_chunks(memory, monkeypatch):
    tm, gl = memory / "tmx" / "memory.tmx", memory / "glossary.tbx"
    whole = _result([tm], gl)
    monkeypatch.setattr(formats, "STREAM_MIN_BYTES", 0)  # packed segments
    monkeypatch.setattr(occ, "BIG_DOCUMENT", 500)
    monkeypatch.setattr(occ, "DETECT_CHUNK", 500)
    monkeypatch.setattr(established, "COUNT_CHUNK", 300)
    assert _result([tm], gl) == whole
    assert json.loads(whole)["summary"]["occurrences"] > 300


def test_detection_in_chunks_keeps_no_tokens(memory, monkeypatch):
    """Tokens are asked again only for segments holding a match or a few segments after one, and for
    acronyms only where a bracket stands: never for the whole document."""
    monkeypatch.setattr(formats, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(occ, "BIG_DOCUMENT", 500)
    monkeypatch.setattr(occ, "DETECT_CHUNK", 500)
    asked: list[int] = []
    real = occ.SourceTokens.__missing__

    def spy(self, index):
        asked.append(index)
        return real(self, index)

    monkeypatch.setattr(occ.SourceTokens, "__missing__", spy)
    run = ck.prepare([str(memory / "tmx" / "memory.tmx")], [str(memory / "glossary.tbx")],
                     Settings(lemmatiser="lookup"))
    doc = run.documents[0]
    trie, _heads = cached_source_index(list(run.concepts), "en", run.lem("en"), doc.path, Detection("dynamic"))
    matches, tokens = occ.detect_in_chunks(trie, doc.segments, run.lem("en"), Detection("dynamic"), "en")
    assert len(tokens) == 0  # nothing kept: a dict of every segment's tokens would be the document again
    with_match = {m.segment.index for m in matches}
    near = {i + d for i in with_match for d in range(sv.REDUCTION_WINDOW + 1)}
    assert asked and set(asked) <= near
    assert len(set(asked)) < len(doc.segments) / 2


def test_reductions_ask_only_segments_near_a_mention():
    """A reduction refers back at most REDUCTION_WINDOW segments: the tokens of the segments beyond are
    never asked for."""
    from termqa.lang.lemma import get_lemmatiser

    lem = get_lemmatiser("en", mode="lookup")
    texts = ["Start the centrifugal pump now."] + [f"Filler line {i} with nothing." for i in range(40)]
    texts[3] = "Then stop the pump."
    segs = [Segment("d", f"u{i}", "", t, "x", "en", "fr", i) for i, t in enumerate(texts)]
    from termqa.model import Concept, Term

    concepts = [Concept("c1", (Term("centrifugal pump", "en", "preferred"), Term("pompe centrifuge", "fr")))]
    trie = dt.TermTrie()
    for e in dt.build_entries(concepts, "en", lem, Detection("dynamic")):
        trie.add(e)
    tokens = {s.index: lem.tokenize(s.source) for s in segs}
    asked: list[int] = []

    class Spy(dict):
        def __getitem__(self, k):
            asked.append(k)
            return dict.__getitem__(self, k)

    finder = sv.VariantFinder(trie, Detection("dynamic"))
    by_seg, taken = {}, {}
    for s in segs:
        found, t = finder.in_segment(s, tokens[s.index], dt.find_in_segment(trie, s, tokens[s.index]))
        if found:
            by_seg[s.index] = found
        if t:
            taken[s.index] = t
    matches = finder.finish(segs, by_seg, taken, Spy(tokens), "en")
    assert [(m.segment.index, m.entry.rule) for m in matches] == [(0, ""), (3, "reduction")]
    assert set(asked) <= set(range(0, 1 + 3 + sv.REDUCTION_WINDOW + 1))


def test_targets_are_tokenised_a_chunk_at_a_time(memory, monkeypatch):
    """Alignment and n-gram counting never tokenise more than a chunk of segments at once (each chunk's
    tokens are dropped before the next)."""
    from termqa.lang.lemma import Lemmatiser

    monkeypatch.setattr(formats, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(occ, "BIG_DOCUMENT", 500)
    monkeypatch.setattr(occ, "DETECT_CHUNK", 500)
    monkeypatch.setattr(established, "COUNT_CHUNK", 200)
    tm, gl = memory / "tmx" / "memory.tmx", memory / "glossary.tbx"
    doc = formats.read_bilingual(str(tm)).documents[0]
    targets = {s.target for s in doc.segments if s.target}
    sizes: list[int] = []
    asked: list[int] = []  # n-gram counting asks which targets can count (has_key), then tokenises those
    real_many, real_has_key = Lemmatiser.tokenize_many, Lemmatiser.has_key

    def many(self, texts):
        if texts and texts[0] in targets:
            sizes.append(len(texts))
        return real_many(self, texts)

    def has_key(self, texts, keys):
        if texts and texts[0] in targets:
            asked.append(len(texts))
        return real_has_key(self, texts, keys)

    monkeypatch.setattr(Lemmatiser, "tokenize_many", many)
    monkeypatch.setattr(Lemmatiser, "has_key", has_key)
    check([tm], [gl], Settings(index_cache=False, lemmatiser="lookup"))
    # every target looked at (aligned, or asked whether it can count), in many calls of bounded size
    assert len(doc.segments) > 2_000 and sum(asked) + sum(sizes) > 2_000 and sum(asked) > 1_000
    assert max(sizes) <= 500 and max(asked) <= 200



def test_open_targets_of_a_big_document_are_made_again(memory, monkeypatch):
    """Pass 2 of a big document reads the target indexes of the segments left open by pass 1: only the
    segments are kept, an index is made again when asked (a few latest kept), and pass 2 finds what it
    finds with every index held (the chunked run's result equals the whole one, above)."""
    monkeypatch.setattr(formats, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(occ, "BIG_DOCUMENT", 500)
    monkeypatch.setattr(occ, "DETECT_CHUNK", 500)
    monkeypatch.setattr(passes.OpenTargets, "KEEP", 8)
    seen = []
    real = passes.align_established

    def spy(work, by_seg, indexes, *args, **kwargs):
        assert isinstance(indexes, passes.OpenTargets)
        opened = [i for i in by_seg if i in indexes]
        assert len(opened) > passes.OpenTargets.KEEP  # more open segments than are ever held as indexes
        assert not any(isinstance(v, al.TargetIndex) for v in indexes._open.values())
        first = indexes[opened[0]]
        assert first.tokens == al.TargetIndex(args[-1].tokenize(work[by_seg[opened[0]][0]].seg.target)).tokens
        assert indexes.get(opened[0]) is first and indexes.get(-1) is None
        real(work, by_seg, indexes, *args, **kwargs)
        seen.append(len(indexes._recent))

    monkeypatch.setattr(passes, "align_established", spy)
    check([memory / "tmx" / "memory.tmx"], [memory / "glossary.tbx"], Settings(index_cache=False, lemmatiser="lookup"))
    assert seen and max(seen) <= passes.OpenTargets.KEEP


def test_pass_two_gets_only_the_pendings_it_reads(memory, monkeypatch):
    """Pass 1 keeps the Pending of an occurrence only when pass 2 reads it: the occurrence is still open,
    or it is its chain's first (pass 2 takes the chain's forms from it)."""
    got = []
    real = passes.align_established

    def spy(work, by_seg, indexes, pendings, *args, **kwargs):
        firsts = {}
        for i, w in enumerate(work):
            firsts.setdefault((w.concept.id, w.source_form), i)
        opened = {i for i, w in enumerate(work) if w.alignment is None}
        assert set(pendings) == opened | set(firsts.values())
        assert all(pendings[i].index == i for i in pendings)
        got.append((len(work), len(pendings), len(opened)))
        real(work, by_seg, indexes, pendings, *args, **kwargs)

    monkeypatch.setattr(passes, "align_established", spy)
    check([memory / "tmx" / "memory.tmx"], [memory / "glossary.tbx"], Settings(index_cache=False, lemmatiser="lookup"))
    assert got and all(0 < kept < n for n, kept, _ in got), got  # some let go, some kept
    assert any(o > 0 for *_, o in got)


# --- the JSON result, written as it is made ---------------------------------------------------------

def _written(path: Path, data) -> bytes:
    atomic_write(path, json_data=data)
    return path.read_bytes()


@pytest.mark.parametrize("project", ["samples", "memory"])
def test_streamed_json_is_the_whole_result(project, memory, tmp_path):
    """`streamed_result` written gives the bytes of `result_dict` written: same sections, same order,
    same records; its long lists are `Rows`, made again on each pass."""
    if project == "samples":
        res = check([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup", index_cache=False))
    else:
        res = check([memory / "tmx" / "memory.tmx"], [memory / "glossary.tbx"], Settings(index_cache=False))
    whole = result_dict(res)
    streamed = streamed_result(res)
    assert isinstance(streamed["occurrences"], Rows) and isinstance(streamed["segments"], Rows)
    assert list(streamed["occurrences"]) == whole["occurrences"] == list(streamed["occurrences"])
    assert list(streamed["segments"]) == whole["segments"] and len(whole["segments"]) > 10
    assert {k: v for k, v in streamed.items() if k not in ("occurrences", "segments")} == \
        {k: v for k, v in whole.items() if k not in ("occurrences", "segments")}
    text = _written(tmp_path / "streamed.json", streamed)
    assert text == _written(tmp_path / "whole.json", whole)
    assert json.loads(text) == json.loads(json.dumps(whole, ensure_ascii=False))


def test_empty_rows_are_written_as_empty_lists(tmp_path):
    data = {"occurrences": Rows(lambda: iter(()), False), "segments": [], "n": 1}
    assert _written(tmp_path / "e.json", data) == _written(tmp_path / "l.json", {"occurrences": [], "segments": [],
                                                                                "n": 1})


def test_cli_json_is_the_library_result(tmp_path):
    """`termqa check --json` (JSON only: written streamed) writes what `result_dict` gives, and so does
    `--json -` on standard output."""
    out = tmp_path / "r.json"
    r = CliRunner().invoke(main, ["check", str(SAMPLES), "-g", str(SAMPLES / "pump-terms.tbx"),
                                  "--lemmatiser", "lookup", "-q", "--json", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    piped = CliRunner().invoke(main, ["check", str(SAMPLES), "-g", str(SAMPLES / "pump-terms.tbx"),
                                      "--lemmatiser", "lookup", "--json", "-"], catch_exceptions=False)
    lib = result_dict(check([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup")))
    for got in (json.loads(out.read_text(encoding="utf-8")), json.loads(piped.stdout)):
        assert got.pop("signature")["id"] == lib["signature"]["id"]
        assert got == json.loads(json.dumps({k: v for k, v in lib.items() if k != "signature"}, ensure_ascii=False))


def test_streamed_json_never_holds_the_rows(memory, tmp_path):
    """Writing the streamed result holds one occurrence row at a time: its peak of allocated memory is a
    fraction of what the whole result's rows take (measured with tracemalloc, not timed)."""
    res = check([memory / "tmx" / "memory.tmx"], [memory / "glossary.tbx"], Settings(index_cache=False))
    assert len(res.verdicts) > 500

    def peak_of(make) -> int:
        tracemalloc.start()
        try:
            atomic_write(tmp_path / "m.json", json_data=make(res))
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    whole, streamed = peak_of(result_dict), peak_of(streamed_result)
    assert streamed < whole / 3, (streamed, whole)


def test_units_withheld_from_a_packed_document_stay_packed():
    """The unit states step (formats.unitstate.withhold) asks packed segments for their fields and remade():
    the document it gives back is packed again and equal to what the records give."""
    from dataclasses import replace as _replace

    from termqa.formats.unitstate import withhold

    doc = formats.read_bilingual(str(SAMPLES / "pump-manual.xlf")).documents[0]
    segs = list(doc.segments)
    segs[0] = _replace(segs[0], state="needs-translation", target=segs[0].target or "x")
    plain = _replace(doc, segments=tuple(segs))
    packer = SegmentPacker()
    for s in segs:
        packer.append(s)
    packed = _replace(doc, segments=packer.done())
    (from_plain,), held_plain = withhold([plain])
    (from_packed,), held_packed = withhold([packed])
    assert held_plain == held_packed and held_plain.segments == 1
    assert isinstance(from_packed.segments, PackedSegments) and isinstance(from_plain.segments, tuple)
    assert from_packed.segments == from_plain.segments and from_packed.segments[0].target is None
