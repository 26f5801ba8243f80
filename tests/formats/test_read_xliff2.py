"""XLIFF 2.0/2.1/2.2 reader: contract tests over the corpus, exact checks on hand-read files,
and small inline fixtures for the edge cases."""
from __future__ import annotations

import pytest

from termqa.errors import InputError
from tests.conftest import corpus_files, is_invalid_name

from termqa.formats import read_bilingual

XLIFF2_FILES = corpus_files("formats/xliff2")
VALID = [p for p in XLIFF2_FILES if not is_invalid_name(p)]
INVALID = [p for p in XLIFF2_FILES if is_invalid_name(p)]

HEAD20 = '<?xml version="1.0"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">'
HEAD22 = '<?xml version="1.0"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:2.2" version="2.2" srcLang="en" trgLang="fr">'


# every test runs twice: read as a parsed tree, then streamed and compared (tests/formats/conftest.py)
pytestmark = pytest.mark.usefixtures("tree_and_streamed")


def _write(tmp_path, text: str, name: str = "t.xlf") -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


# --- contract tests over the corpus ---------------------------------------------------------------


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_corpus_file_reads_cleanly(path):
    bf = read_bilingual(path)
    assert bf.format in ("xliff-2.0", "xliff-2.1", "xliff-2.2")
    assert bf.format == f"xliff-{bf.version}"
    assert bf.problems == ()
    assert bf.src_lang and bf.tgt_lang
    assert bf.documents and bf.segments
    keys = [s.key for s in bf.segments]
    assert len(keys) == len(set(keys))
    for doc in bf.documents:
        assert [s.index for s in doc.segments] == list(range(len(doc.segments)))
        for s in doc.segments:
            assert s.doc_id == doc.doc_id
            assert s.unit_id and s.seg_id
            assert (s.src_lang, s.tgt_lang) == (bf.src_lang, bf.tgt_lang)
            for text, codes in ((s.source, s.source_codes), (s.target, s.target_codes)):
                for c in codes:
                    assert 0 <= c.offset <= len(text or "")


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_invalid_corpus_file_reports_a_problem_naming_the_unit(path):
    # The OASIS invalid samples have no trgLang: the language must be given.
    bf = read_bilingual(path, tgt_lang="fr")
    assert bf.problems
    assert any("unit '1'" in p for p in bf.problems)


def test_invalid_problems_say_what_is_wrong(corpus):
    d = corpus / "formats/xliff2"
    ec = read_bilingual(d / "oasis22_INVALID_EcBeforeSc.xlf", tgt_lang="fr")
    assert ec.problems == ("unit '1': <ec startRef='1'> in the source has no earlier <sc id='1'> in the unit",)
    notes = read_bilingual(d / "oasis22_INVALID_DuplicateNoteIds.xlf", tgt_lang="fr")
    # n1 also appears at file and group level: that is allowed (ids are unique per <notes>).
    assert notes.problems == ("unit '1': note id 'n1' is used 2 times in one <notes>",)


# --- exact checks on real files -------------------------------------------------------------------


def test_sample1_ns20(corpus):
    path = str(corpus / "formats/xliff2/oasis21_sample1_ns20.xlf")
    bf = read_bilingual(path)
    assert (bf.format, bf.src_lang, bf.tgt_lang, bf.version) == ("xliff-2.0", "en", "de", "2.0")
    assert len(bf.documents) == 1 and bf.documents[0].doc_id == path
    (s,) = bf.segments
    assert (s.unit_id, s.seg_id, s.state) == ("1", "s1", None)
    assert s.source == "Press the TAB key.\n            "
    assert s.target == "Drücken Sie die TAB-TASTE.\n            "
    # the term <mrk> is a container: its text stays, its edges become codes
    assert [(c.offset, c.kind, c.role, c.id) for c in s.source_codes] == [
        (10, "mrk", "open", "m1"),
        (17, "mrk", "close", "m1"),
    ]
    assert s.source[10:17] == "TAB key"


def test_cdata_and_ignorable(corpus):
    bf = read_bilingual(corpus / "formats/xliff2/oasis22_withCDataSections.xlf")
    assert bf.format == "xliff-2.2"
    (s,) = bf.segments  # the <ignorable> is not a segment
    assert (s.seg_id, s.source, s.target) == ("s1", "source & and < etc.", "target & and < etc.")


def test_segments_without_ids_are_numbered_in_their_unit(corpus):
    bf = read_bilingual(corpus / "formats/xliff2/oasis22_withReorderedCodes.xlf")
    assert [(s.unit_id, s.seg_id) for s in bf.segments] == [
        ("1", "s1"), ("2", "s1"), ("3", "s1"), ("3", "s2"), ("3", "s3"),
        ("4", "s1"), ("4", "s2"), ("4", "s3"), ("5", "s1"),
    ]
    assert bf.segments[0].source.strip() == "text"
    assert [c.kind for c in bf.segments[0].source_codes] == ["pc", "ph", "pc", "ph"]


def test_escaped_markup_is_text_and_empty_target_is_empty(corpus):
    bf = read_bilingual(corpus / "formats/xliff2/okapi_xliff2_escaped.xlf")
    (s,) = bf.segments
    assert bf.documents[0].original == "/de/HTMLEntities4_de.xliff"
    assert (s.unit_id, s.seg_id) == ("strings", "6451")
    assert s.source == "<p>This is a value that <em>I want</em> to be correctly translated.</p>"
    assert s.target == ""


def test_missing_target_element_is_none(corpus):
    bf = read_bilingual(corpus / "formats/xliff2/oasis22_withTBXExtension.xlf")
    (s,) = bf.segments  # the embedded TBX <martif> is an extension, not content
    assert s.source == "There is growing support for sustainable agriculture."
    assert s.target is None
    assert bf.tgt_lang == "pt"


# --- inline fixtures ------------------------------------------------------------------------------


def test_cp_is_text_and_original_data_is_code(tmp_path):
    path = _write(tmp_path, HEAD20 + """
 <file id="f1"><unit id="u1">
  <originalData>
   <data id="d1">&lt;br/&gt;</data>
   <data id="d2">&lt;b&gt;</data><data id="d3">&lt;/b&gt;</data>
   <data id="d4">\\u<cp hex="0001"/></data>
  </originalData>
  <segment id="1" state="translated">
   <source>A<cp hex="0001"/>B <pc id="1" dataRefStart="d2" dataRefEnd="d3">bold</pc><ph id="2" dataRef="d1"/> <sc id="3" dataRef="d2"/>x<ec startRef="3" dataRef="d3"/><ph id="4" dataRef="d4"/></source>
   <target>A<cp hex="E9"/>B <pc id="1" dataRefStart="d2" dataRefEnd="d3">gras</pc><ph id="2" dataRef="d1"/> <sc id="3" dataRef="d2"/>x<ec startRef="3" dataRef="d3"/></target>
  </segment></unit></file></xliff>""")
    bf = read_bilingual(path)
    (s,) = bf.segments
    assert s.source == "A\x01B bold x"
    assert s.target == "AéB gras x"
    assert s.state == "translated"
    assert [(c.offset, c.kind, c.role, c.id, c.data) for c in s.source_codes] == [
        (4, "pc", "open", "1", "<b>"),
        (8, "pc", "close", "1", "</b>"),
        (8, "ph", "standalone", "2", "<br/>"),
        (9, "sc", "open", "3", "<b>"),
        (10, "ec", "close", "3", "</b>"),
        (10, "ph", "standalone", "4", "\\u\x01"),
    ]
    assert bf.problems == ()


def test_multiple_files_are_documents(tmp_path):
    path = _write(tmp_path, HEAD20 + """
 <file id="f1" original="a.html"><unit id="1"><segment><source>One</source><target>Un</target></segment></unit></file>
 <file id="f2" original="b.html">
  <group id="g1"><group id="g2"><unit id="1"><segment id="x"><source>Two</source></segment></unit></group></group>
 </file></xliff>""")
    bf = read_bilingual(path)
    assert [(d.doc_id, d.original) for d in bf.documents] == [(f"{path}#1", "a.html"), (f"{path}#2", "b.html")]
    assert [s.key for s in bf.segments] == [(f"{path}#1", "1", "s1", 0), (f"{path}#2", "1", "x", 0)]
    assert [s.index for s in bf.segments] == [0, 0]
    assert bf.segments[1].target is None
    assert bf.problems == ()  # unit "1" in two different files is fine


def test_missing_target_language(tmp_path):
    path = _write(tmp_path, HEAD20.replace(' trgLang="fr"', "") + """
 <file id="f1"><unit id="1"><segment><source>One</source></segment></unit></file></xliff>""")
    with pytest.raises(InputError, match="has no target language; pass --tgt-lang"):
        read_bilingual(path)
    bf = read_bilingual(path, tgt_lang="de_de")
    assert bf.tgt_lang == "de-DE" and bf.segments[0].tgt_lang == "de-DE"


def test_language_override_wins_with_a_warning(tmp_path):
    path = _write(tmp_path, HEAD20 + """
 <file id="f1"><unit id="1"><segment><source>One</source><target>Eins</target></segment></unit></file></xliff>""")
    bf = read_bilingual(path, src_lang="EN-gb", tgt_lang="de")
    assert (bf.src_lang, bf.tgt_lang) == ("en-GB", "de")
    assert len(bf.warnings) == 1 and "'fr'" in bf.warnings[0] and "--tgt-lang" in bf.warnings[0]


def test_namespace_22_and_version_21(tmp_path):
    body = '<file id="f1"><unit id="1"><segment><source>One</source><target>Un</target></segment></unit></file></xliff>'
    assert read_bilingual(_write(tmp_path, HEAD22 + body, "a.xlf")).format == "xliff-2.2"
    v21 = HEAD20.replace('version="2.0"', 'version="2.1"')
    bf = read_bilingual(_write(tmp_path, v21 + body, "b.xlf"))
    assert (bf.format, bf.version) == ("xliff-2.1", "2.1")
    assert bf.segments[0].target == "Un"


def test_translate_no_is_skipped_and_inherited(tmp_path):
    path = _write(tmp_path, HEAD22 + """
 <file id="f1">
  <unit id="1" translate="no"><segment><source>Logo</source></segment></unit>
  <group id="g" translate="no">
   <unit id="2"><segment><source>Inherited</source></segment></unit>
   <unit id="3" translate="yes"><segment><source>Back on</source></segment></unit>
  </group>
  <unit id="4"><segment><source>Normal</source></segment></unit>
 </file></xliff>""")
    bf = read_bilingual(path)
    assert [s.unit_id for s in bf.segments] == ["3", "4"]
    assert bf.documents[0].skipped == 2


def test_structural_problems(tmp_path):
    path = _write(tmp_path, HEAD22 + """
 <file id="f1">
  <unit id="1"><segment><source><sc id="1"/>a</source></segment><segment><source>b<ec startRef="1"/></source></segment></unit>
  <unit id="1"><segment><source><ec id="9" isolated="yes"/>c</source></segment></unit>
  <unit id="2"><notes><note id="a">x</note><note id="b">y</note></notes>
   <segment><source>d<ec startRef="7"/></source><target><sc id="7"/>d<ec startRef="7"/></target></segment></unit>
 </file></xliff>""")
    bf = read_bilingual(path)
    assert bf.problems == (
        "unit '2': <ec startRef='7'> in the source has no earlier <sc id='7'> in the unit",
        "file 'f1': id '1' is used by 2 units/groups (ids must be unique among the units and groups of a file)",
    )
    assert [s.source for s in bf.segments] == ["a", "b", "c", "d"]


def test_nested_pc_data_and_unit_without_id(tmp_path):
    path = _write(tmp_path, HEAD20 + """
 <file id="f1"><unit>
  <originalData><data id="a">[a</data><data id="b">a]</data><data id="c">[c</data><data id="d">c]</data></originalData>
  <segment><source><pc id="1" dataRefStart="a" dataRefEnd="b">x<pc id="2" dataRefStart="c" dataRefEnd="d">y</pc>z</pc></source></segment>
 </unit></file></xliff>""")
    bf = read_bilingual(path)
    (s,) = bf.segments
    assert s.source == "x\u2028y\u2028z"  # the inner pc's edges glue letters: boundaries
    assert [(c.offset, c.id, c.role, c.data) for c in s.source_codes] == [
        (0, "1", "open", "[a"), (1, "2", "open", "[c"), (3, "2", "close", "c]"), (5, "1", "close", "a]"),
    ]
    assert bf.problems == (f"a <unit> in file {path!r} has no id",)
