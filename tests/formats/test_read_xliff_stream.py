"""Big XLIFF files read streaming (issue 16): the record of the tree reader, without the tree.

With STREAM_MIN_BYTES = 0 every XLIFF is read by formats.xliff1/xliff2.read_stream; each file here is
also read as a parsed tree and the two records (or InputError messages) must be equal
(tests/helpers.read_streamed_and_compared). The reader tests (test_read_xliff1/2) run both ways too.
Here: every real file and sample, the cases the single pass cannot promise (several `<file>`s,
languages found further on, a dialect namespace declared late, notes after units), and a generated
project checked streamed and not.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa import formats
from termqa.errors import InputError
from termqa.formats import read_bilingual, xliff1, xliff2, xmlstream
from termqa.store.packed import PackedSegments, SegmentPacker
from termqa.pipeline.check import check
from tests.conftest import SAMPLES, corpus_files
from tests.helpers import read_streamed_and_compared

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import generate as gen  # noqa: E402

REAL = [p for sub in ("formats/xliff12", "formats/sdlxliff", "formats/mqxliff", "formats/xliff2")
        for p in corpus_files(sub)] + sorted(SAMPLES.glob("*.xlf"))
X12 = '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"{ns}>'
X2 = '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">'


@pytest.fixture
def streamed(monkeypatch):
    read_streamed_and_compared(monkeypatch)


def _read(path, **kw):
    """The record, or the InputError's message (the helper has already compared both readers)."""
    try:
        return read_bilingual(path, **kw)
    except InputError as exc:
        return str(exc)


def _write(tmp_path, text: str, name: str = "t.xlf") -> str:
    p = tmp_path / name
    p.write_text('<?xml version="1.0" encoding="UTF-8"?>\n' + text, encoding="utf-8")
    return str(p)


def _tu(uid, src="Source", tgt="Cible", **attrs) -> str:
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f'<trans-unit id="{uid}"{extra}><source>{src}</source><target>{tgt}</target></trans-unit>'


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_files_and_samples_read_alike(path, streamed):
    first = _read(path)
    if isinstance(first, str) and "pass --tgt-lang" in first:
        _read(path, tgt_lang="fr")
    _read(path, src_lang="en-US", tgt_lang="de")  # overrides: warnings and languages alike


def test_several_files_are_read_again_knowing_how_many(tmp_path, streamed, monkeypatch):
    passes = []
    real = xmlstream.outline
    monkeypatch.setattr(xmlstream, "outline", lambda *a, **kw: passes.append(a) or real(*a, **kw))
    files = "".join(
        f'<file original="f{k}" source-language="en" target-language="fr"><body>{_tu("1")}{_tu("1")}'
        f'<group translate="no">{_tu("2")}<group translate="yes">{_tu("3")}</group></group></body></file>'
        for k in (1, 2, 3))
    bf = _read(_write(tmp_path, X12.format(ns="") + files + "</xliff>"))
    assert [d.doc_id for d in bf.documents] == [f"{tmp_path / 't.xlf'}#{k}" for k in (1, 2, 3)]
    assert [len(d.segments) for d in bf.documents] == [3, 3, 3] and bf.documents[0].skipped == 1
    assert len(bf.problems) == 3  # a duplicate id per file
    assert len(passes) == 1


def test_languages_found_further_on(tmp_path, streamed):
    """No language on the first file: they come from xml:lang further on or from another file, and the
    warnings about them come before any unit's findings."""
    no_lang = '<file original="a"><body><trans-unit id="1"><source xml:lang="en-GB">A</source>' \
              '<target>B</target></trans-unit><trans-unit><source>C</source></trans-unit></body></file>'
    with_lang = f'<file original="b" source-language="en" target-language="fr-CA"><body>{_tu("1")}</body></file>'
    for files in (no_lang + with_lang, with_lang + no_lang, no_lang):
        for kw in ({}, {"tgt_lang": "fr"}, {"src_lang": "de"}):
            _read(_write(tmp_path, X12.format(ns="") + files + "</xliff>"), **kw)
    bf = _read(_write(tmp_path, X12.format(ns="") + no_lang + with_lang + "</xliff>"))
    assert bf.warnings[0].endswith("<file> has no source-language attribute")
    assert bf.documents[0].src_lang == "en-GB" and bf.documents[0].tgt_lang == "fr-CA"
    assert "no target language" in _read(_write(tmp_path, X12.format(ns="") + no_lang + "</xliff>"))


def test_dialect_declared_late(tmp_path, streamed):
    """A memoQ namespace declared on the second <file> only makes the whole file memoQ (as the tree
    reader decides from the root and all its children): statuses of the first file's units too."""
    mq = '<trans-unit id="{0}" mq:status="ManuallyConfirmed" mq:locked="locked"><source>A</source>' \
         '<target>B</target></trans-unit>'
    f1 = f'<file original="a" source-language="en" target-language="fr"><body>{mq.format(1)}</body></file>'
    f2 = '<file xmlns:mq="MQXliff" original="b" source-language="en" target-language="fr"><body>' \
         f'{mq.format(2)}</body></file>'
    bf = _read(_write(tmp_path, X12.format(ns=' xmlns:mq="MQXliff"') + f1 + "</xliff>"))
    assert bf.dialect == "mqxliff" and bf.segments[0].locked
    text = X12.format(ns="") + f1.replace("<file ", '<file xmlns:mq="MQXliff" ', 1) + f2 + "</xliff>"
    bf = _read(_write(tmp_path, text))
    assert bf.dialect == "mqxliff" and [s.state for s in bf.segments] == ["ManuallyConfirmed"] * 2
    # declared after the units that need it: on a trailing element of the root
    late = X12.format(ns="") + f1.replace('mq:', 'sdl:').replace("<file ", '<file xmlns:sdl="x" ', 1) + \
        '<sdl:doc-info xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0"/></xliff>'
    assert _read(_write(tmp_path, late)).dialect == "sdlxliff"


def test_units_only_where_the_tree_reader_walks(tmp_path, streamed):
    body = (f'<header>{_tu("h")}</header><body>{_tu("1")}<bin-unit id="b">{_tu("in-bin")}</bin-unit>'
            f'<trans-unit id="2"><source>X</source>{_tu("nested")}</trans-unit>'
            f'<group translate="no"><group>{_tu("3")}</group>{_tu("4", translate="yes")}</group>'
            f'<!-- a comment -->{_tu("5", translate="no")}</body><body>{_tu("6")}</body>')
    text = X12.format(ns="") + f'<file original="o" source-language="en" target-language="fr">{body}</file></xliff>'
    prefixed = re.sub(r"<(/?)(?![!/])", r"<\1x:", text).replace(
        "<x:xliff ", '<x:xliff xmlns:x="urn:oasis:names:tc:xliff:document:1.2" ', 1)
    for variant in (text, text.replace(X12.format(ns=""), '<xliff version="1.0">'), prefixed):
        assert [s.unit_id for s in _read(_write(tmp_path, variant)).segments] == ["1", "2", "4", "6"]


def test_xliff2_several_files_notes_and_groups(tmp_path, streamed):
    notes = '<notes><note id="n">a</note><note id="n">b</note></notes>'
    unit = '<unit id="{0}"{1}><segment><source>S{0}</source><target>T{0}</target></segment></unit>'
    u4 = unit.format("u4", ' translate="yes"')
    body = (unit.format("u1", "") + f'<group id="g">{unit.format("u2", "")}{notes}'
            f'<group id="g2" translate="no">{unit.format("u3", "")}{u4}</group>'
            f'</group><ext:group xmlns:ext="urn:x">{unit.format("u5", "")}</ext:group>{unit.format("", "")}{notes}')
    one = X2 + f'<file id="f">{body}</file></xliff>'
    bf = _read(_write(tmp_path, one))
    assert [s.unit_id for s in bf.segments] == ["u1", "u2", "u4", ""]
    # the file's notes (after its units here) are still its first problems, as the tree reader lists them
    assert bf.problems[0].startswith("file 'f': note id 'n'")
    two = X2 + f'<file id="f">{body}</file><file id="f">{notes}{body}</file><file id="h"/></xliff>'
    bf = _read(_write(tmp_path, two))
    assert len(bf.documents) == 3 and bf.problems[0] == "file id 'f' is used by 2 <file> elements"
    for kw in ({"src_lang": "de"}, {"tgt_lang": "fr-CA"}):
        _read(_write(tmp_path, two), **kw)


def test_errors_are_one_line_input_errors(tmp_path, streamed):
    no_lang = '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0"><file id="f"/></xliff>'
    assert "has no source language" in _read(_write(tmp_path, no_lang))
    # not well-formed beats a missing language, as in the tree reader (which parses everything first)
    assert "not well-formed XML" in _read(_write(tmp_path, no_lang.replace("</xliff>", "")))
    assert "not well-formed XML" in _read(_write(tmp_path, X12.format(ns="") + '<file source-language="en" '
                                                  f'target-language="fr"><body>{_tu(1)}<trans-unit></body></file>'))
    assert "without any <file>" in _read(_write(tmp_path, X12.format(ns="") + "</xliff>"))
    assert "has no <file>" in _read(_write(tmp_path, X2 + "</xliff>"))
    entities = '<!DOCTYPE xliff [<!ENTITY a "b">]>' + X12.format(ns="") + "</xliff>"
    assert "entities" in _read(_write(tmp_path, entities))
    latin = tmp_path / "latin.xlf"
    latin.write_bytes(b'<?xml version="1.0" encoding="x-unknown"?>' + X12.format(ns="").encode() + b"</xliff>")
    assert "decoded" in _read(str(latin)) or "not well-formed" in _read(str(latin))


def test_only_big_xliff_and_tmx_files_stream(tmp_path, monkeypatch):
    x = _write(tmp_path, X12.format(ns="") + "</xliff>")
    assert formats._big_xml(x) is None  # small
    monkeypatch.setattr(formats, "STREAM_MIN_BYTES", 0)
    assert formats._big_xml(x) == "xliff"
    assert formats._big_xml(_write(tmp_path, "<!-- c --><x:xliff xmlns:x='u'/>")) == "xliff"
    assert formats._big_xml(_write(tmp_path, '<martif type="TBX"/>')) is None
    assert formats._big_xml(_write(tmp_path, "a,b\n")) is None


# --- a generated project ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A generated 30k-word project in one XLIFF file (one <file>, about 2,700 units)."""
    return gen.generate(30_000, 300, tmp_path_factory.mktemp("big"), seed=5, words_per_file=30_000)


def _result(inputs, glossary) -> str:
    res = check(inputs, [glossary], Settings(index_cache=False, lemmatiser="lookup")).to_dict()
    res.pop("signature", None)
    return json.dumps(res, sort_keys=True, ensure_ascii=False)


def test_generated_xliff_streamed_is_packed_and_checks_alike(project, monkeypatch):
    xlf = next((project / "xliff").glob("*.xlf"))
    whole = _result([xlf], project / "glossary.tbx")
    tree = read_bilingual(xlf)
    monkeypatch.setattr(formats, "STREAM_MIN_BYTES", 0)
    streamed = read_bilingual(xlf, sink=SegmentPacker)  # the pipeline's sink
    assert isinstance(read_bilingual(xlf).documents[0].segments, tuple)  # the default sink
    packed = streamed.documents[0].segments
    assert isinstance(packed, PackedSegments) and isinstance(tree.documents[0].segments, tuple)
    assert packed.indexed and len(packed) > 2 * PackedSegments.BLOCK
    assert streamed == tree
    assert _result([xlf], project / "glossary.tbx") == whole
    assert json.loads(whole)["summary"]["occurrences"] > 100


def test_generated_xliff2_streamed_is_packed(tmp_path, monkeypatch):
    units = "".join(f'<unit id="u{n}"><segment><source>Open valve {n}.</source><target>Ouvrez la vanne {n}.'
                    f'</target></segment></unit>' for n in range(700))
    path = _write(tmp_path, X2 + f'<file id="f">{units}</file></xliff>')
    tree = read_bilingual(path)
    monkeypatch.setattr(formats, "STREAM_MIN_BYTES", 0)
    bf = xliff2.read_stream(path, sink=SegmentPacker)
    assert isinstance(bf.documents[0].segments, PackedSegments) and bf == tree
    assert isinstance(xliff1.read_stream(_write(tmp_path, X12.format(ns="") + '<file source-language="en" '
                                                f'target-language="fr"><body>{_tu(1)}</body></file></xliff>'),
                                      sink=SegmentPacker)
                      .documents[0].segments, PackedSegments)
