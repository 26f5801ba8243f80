"""TMX reader: contract tests over the corpus, a cross-check with translate-toolkit, exact checks
on hand-read files and inline fixtures for the language rules."""
from __future__ import annotations

import pytest

from termqa.errors import InputError
from termqa.lang.langtags import normalise_tag
from tests.conftest import corpus_files, is_invalid_name

from termqa.formats import read_bilingual

TMX_FILES = [p for p in corpus_files("formats/tmx") if not is_invalid_name(p)]
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _languages(path):
    """Normalised tuv languages of a file in first-seen order, read independently with lxml."""
    from lxml import etree

    seen = {}
    for tuv in etree.parse(str(path)).iter("tuv"):
        tag = normalise_tag(tuv.get(XML_LANG) or tuv.get("lang"))
        seen.setdefault(tag.lower(), tag)
    return list(seen.values())


def _read_some_pair(path):
    """Read with the file's defaults; a multi-language file needs a target: take the first other one."""
    try:
        return read_bilingual(path)
    except InputError as exc:
        assert "pass --tgt-lang" in str(exc)
        langs = _languages(path)
        assert len(langs) > 2
        bf = read_bilingual(path, tgt_lang=langs[1])
        return bf


def _write(tmp_path, body: str, header: str = 'srclang="en-US"', name: str = "t.tmx") -> str:
    p = tmp_path / name
    p.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header creationtool="t" '
        f'creationtoolversion="1" segtype="sentence" o-tmf="t" adminlang="en" datatype="plaintext" {header}/>'
        f"<body>{body}</body></tmx>",
        encoding="utf-8",
    )
    return str(p)


# --- contract tests over the corpus ---------------------------------------------------------------


@pytest.mark.parametrize("path", TMX_FILES, ids=[p.name for p in TMX_FILES])
def test_corpus_file_contract(path):
    bf = _read_some_pair(path)
    assert bf.format == "tmx" and bf.version == "1.4"
    assert bf.problems == ()
    assert list(bf.languages) == _languages(path)
    (doc,) = bf.documents
    assert doc.doc_id == str(path) and doc.format == "tmx"
    assert doc.segments
    for i, s in enumerate(doc.segments):
        assert s.index == i and s.seg_id == "" and s.unit_id
        assert (s.src_lang, s.tgt_lang) == (bf.src_lang, bf.tgt_lang)
        for text, codes in ((s.source, s.source_codes), (s.target, s.target_codes)):
            for c in codes:
                assert 0 <= c.offset <= len(text or "")
                if c.data.strip():  # native code never reaches the plain text
                    assert c.data not in (text or "")


@pytest.mark.parametrize("path", TMX_FILES, ids=[p.name for p in TMX_FILES])
def test_agrees_with_translate_toolkit(path):
    from lxml import etree
    from translate.storage import tmx as tt_tmx

    bf = _read_some_pair(path)
    tt_units = tt_tmx.tmxfile.parsefile(str(path)).units
    assert len(tt_units) == len(bf.segments)
    # translate-toolkit keeps native code in its text: compare only units whose source has no code.
    tus = list(etree.parse(str(path)).iter("tu"))
    compared = 0
    for tu, tt_unit, seg in zip(tus, tt_units, bf.segments):
        src_tuv = next(t for t in tu.iter("tuv") if normalise_tag(t.get(XML_LANG)) == bf.src_lang)
        if len(src_tuv.find("seg")) == 0:
            assert seg.source == tt_unit.source
            compared += 1
    assert compared or all(len(t.find("tuv/seg")) for t in tus)


# --- exact checks on real files -------------------------------------------------------------------


def test_utf16_reads_like_its_utf8_version(corpus, tmp_path):
    for name in ("lisa_ImportTest1A_utf16.tmx", "lisa_ImportTest2A_level2_utf16.tmx"):
        src = corpus / "formats/tmx" / name
        raw = src.read_bytes()
        assert raw.startswith(b"\xff\xfe")
        text = raw.decode("utf-16")
        assert "encoding=" not in text.splitlines()[0]  # so the UTF-8 copy needs no declaration change
        copy = tmp_path / name.replace("utf16", "utf8")
        copy.write_bytes(text.encode("utf-8"))
        a, b = read_bilingual(src), read_bilingual(copy)
        assert a.segments and len(a.segments) == len(b.segments)
        strip = lambda s: (s.unit_id, s.source, s.target, s.source_codes, s.target_codes, s.src_lang, s.tgt_lang)
        assert [strip(s) for s in a.segments] == [strip(s) for s in b.segments]
        assert (a.src_lang, a.tgt_lang, a.languages) == (b.src_lang, b.tgt_lang, b.languages)


def test_1a_whitespace_kept(corpus):
    bf = read_bilingual(corpus / "formats/tmx/lisa_ImportTest1A_utf16.tmx")
    assert [(s.unit_id, s.source, s.target) for s in bf.segments] == [
        ("1", "First segment with [\t\t   ]", "Premier segment avec [\t\t   ]"),
        ("2", "Second segment with [  \t\t]", "Second segment avec [  \t\t]"),
    ]
    assert (bf.src_lang, bf.tgt_lang) == ("en-US", "fr-CA")


def test_level2_codes_are_never_text(corpus):
    bf = read_bilingual(corpus / "formats/tmx/lisa_ImportTest2A_level2_utf16.tmx")
    assert (bf.src_lang, bf.tgt_lang, bf.languages) == ("en-US", "fr-CA", ("en-US", "fr-CA"))
    assert [(s.unit_id, s.source, s.target) for s in bf.segments] == [
        ("1", "The big black cat sleeps.", "Le gros chat noir dors."),
        ("2", 'Test for special characters = <=lt, >=gt, &=amp, "=quot.',
         'Test pour caractères spéciaux = <=lt, >=gt, &=amp, "=quot.'),
        ("3", "Nested formatting = Bold+Italic+Underlined, Bold+Italic, Bold.",
         "Format en gigogne = gras+italique+souligné, gras+italique, gras."),
        ("4", "First sentence.", "Première phrase."),
        ("5", "Second sentence.", "Seconde phrase."),
        ("6", "Picture: ", "Image: "),  # tags written En-uS / FR-CA
        ("7", "Some text with a part highlighted.", "Du texte avec une portion délimitée."),  # tuvs inverted
    ]
    for s in bf.segments:
        for t in (s.source, s.target):
            assert "<b>" not in t and "</b>" not in t and "img" not in t and "<u>" not in t
    first = bf.segments[0]
    assert [(c.offset, c.kind, c.role, c.data) for c in first.source_codes] == [
        (8, "bpt", "open", "<b>"), (13, "ept", "close", "</b>"),
        (14, "bpt", "open", "<u>"), (17, "ept", "close", "</u>"),
    ]
    assert [(c.kind, c.role) for c in bf.segments[3].source_codes] == [("it", "open")]
    assert [(c.kind, c.role) for c in bf.segments[4].source_codes] == [("it", "close")]
    assert bf.segments[5].source_codes[0].data == '<img src="img.png"/>'
    hi = bf.segments[6]
    assert [(c.offset, c.kind, c.role) for c in hi.source_codes] == [(15, "hi", "open"), (33, "hi", "close")]
    assert hi.source[15:33] == "a part highlighted"


def test_sample_tmx2_mixed_case_and_all(corpus):
    path = corpus / "formats/tmx/okapi_sampleTMX2.tmx"
    with pytest.raises(InputError) as exc:
        read_bilingual(path)
    assert "fr-CA, fr-FR" in str(exc.value) and "pass --tgt-lang" in str(exc.value)
    with pytest.raises(InputError, match="ambiguous"):
        read_bilingual(path, tgt_lang="fr")
    ca = read_bilingual(path, tgt_lang="fr-ca")
    assert (ca.src_lang, ca.tgt_lang, ca.languages) == ("en-US", "fr-CA", ("en-US", "fr-CA", "fr-FR"))
    assert [(s.unit_id, s.source, s.target) for s in ca.segments] == [
        ("0001", "data (with a non-standard character: \uf8ff).", "données (avec un caractère non standard: \uf8ff)."),
        ("0002", "menu", "menu"),
    ]
    fr = read_bilingual(path, tgt_lang="FR-FR")
    assert [(s.unit_id, s.target) for s in fr.segments] == [("0001", None), ("0002", "menu")]
    # tu 0002 says srclang="*all*": French may be the source there, but only it has fr-FR.
    rev = read_bilingual(path, src_lang="fr-FR", tgt_lang="en")
    assert [(s.unit_id, s.source, s.target) for s in rev.segments] == [("0002", "menu", "menu")]
    assert rev.warnings == ("1 translation unit(s) have no fr-FR text and were left out",)


def test_three_language_pair_choice(corpus):
    path = corpus / "formats/tmx/lisa_ImportTest1L_comments_notes.tmx"
    with pytest.raises(InputError) as exc:
        read_bilingual(path)
    assert "(fr, en-GB)" in str(exc.value) and "pass --tgt-lang" in str(exc.value)
    fr = read_bilingual(path, tgt_lang="fr")
    assert fr.languages == ("en-US", "fr", "en-GB")
    assert [(s.unit_id, s.source, s.target) for s in fr.segments] == [("tu001", "Text of the segment.", "Texte du segment.")]
    gb = read_bilingual(path, tgt_lang="en_gb")
    assert (gb.tgt_lang, gb.segments[0].target) == ("en-GB", "Text of the segment.")
    # `fr-CA` is not in the file: the only French (bare `fr`) serves, without a warning
    ca = read_bilingual(path, tgt_lang="fr-CA")
    assert (ca.tgt_lang, ca.segments[0].target, ca.warnings) == ("fr", "Texte du segment.", ())


# --- inline fixtures ------------------------------------------------------------------------------


def test_all_takes_most_common_first_language(tmp_path):
    body = (
        '<tu><tuv xml:lang="de"><seg>Eins</seg></tuv><tuv xml:lang="EN-us"><seg>One</seg></tuv></tu>'
        '<tu><tuv xml:lang="en-US"><seg>Two</seg></tuv><tuv xml:lang="de"><seg>Zwei</seg></tuv></tu>'
        '<tu><tuv xml:lang="en-us"><seg>Three</seg></tuv><tuv xml:lang="DE"><seg>Drei</seg></tuv></tu>'
    )
    path = _write(tmp_path, body, header='srclang="*all*"')
    bf = read_bilingual(path)
    assert (bf.src_lang, bf.tgt_lang, bf.languages) == ("en-US", "de", ("de", "en-US"))
    assert [(s.unit_id, s.source, s.target) for s in bf.segments] == [
        ("1", "One", "Eins"), ("2", "Two", "Zwei"), ("3", "Three", "Drei"),
    ]
    de = read_bilingual(path, src_lang="de")
    assert (de.src_lang, de.tgt_lang, de.segments[0].source) == ("de", "en-US", "Eins")


def test_old_lang_attribute_region_fallback_and_missing_tuvs(tmp_path):
    body = (
        '<tu tuid="a"><tuv lang="EN"><seg>Save</seg></tuv><tuv lang="FR-ca"><seg>Enregistrer</seg></tuv></tu>'
        '<tu tuid="b"><tuv lang="en"><seg>Open</seg></tuv></tu>'
        '<tu tuid="c"><tuv lang="fr-CA"><seg>Fermer</seg></tuv></tu>'
    )
    path = _write(tmp_path, body, header='srclang="en"')
    bf = read_bilingual(path, tgt_lang="fr")
    assert (bf.src_lang, bf.tgt_lang, bf.warnings) == ("en", "fr-CA", ("1 translation unit(s) have no en text and were left out",))
    assert [(s.unit_id, s.source, s.target) for s in bf.segments] == [("a", "Save", "Enregistrer"), ("b", "Open", None)]
    with pytest.raises(InputError, match="no target text in 'de'.*fr-CA"):
        read_bilingual(path, tgt_lang="de")


def test_sub_inside_codes_is_not_text(tmp_path):
    body = (
        '<tu><tuv xml:lang="en-US"><seg>Click <bpt i="1">&lt;a title="<sub>Home page</sub>"&gt;</bpt>here'
        '<ept i="1">&lt;/a&gt;</ept> <!-- a comment --><ph>&lt;br/&gt;</ph>now</seg></tuv>'
        '<tuv xml:lang="fr-FR"><seg>Cliquez <hi type="x">ici</hi></seg></tuv></tu>'
    )
    bf = read_bilingual(_write(tmp_path, body))
    (s,) = bf.segments
    assert s.source == "Click here now"
    assert [(c.offset, c.kind, c.role, c.data) for c in s.source_codes] == [
        (6, "bpt", "open", '<a title="Home page">'),
        (10, "ept", "close", "</a>"),
        (11, "ph", "standalone", "<br/>"),
    ]
    assert s.target == "Cliquez ici"
    assert [(c.offset, c.kind, c.role) for c in s.target_codes] == [(8, "hi", "open"), (11, "hi", "close")]


def test_tuv_without_language_is_a_problem(tmp_path):
    body = '<tu tuid="x"><tuv xml:lang="en-US"><seg>A</seg></tuv><tuv><seg>B</seg></tuv><tuv xml:lang="it"><seg>C</seg></tuv></tu>'
    bf = read_bilingual(_write(tmp_path, body))
    assert bf.problems == ("tu 'x': a <tuv> has no xml:lang; it was left out",)
    assert [(s.source, s.target) for s in bf.segments] == [("A", "C")]


# --- streaming reader (big files): the same record as the tree reader --------------------------------


def _both(monkeypatch, path, **kw):
    """(tree record or error text, streaming record or error text) of one file."""
    import termqa.formats as fm

    out = []
    for threshold in (10 ** 12, 0):
        monkeypatch.setattr(fm, "STREAM_MIN_BYTES", threshold)
        try:
            out.append(read_bilingual(path, **kw))
        except InputError as exc:
            out.append(str(exc))
    return out


@pytest.mark.parametrize("path", TMX_FILES, ids=[p.name for p in TMX_FILES])
def test_streaming_reads_corpus_files_like_the_tree_reader(path, monkeypatch):
    tree, stream = _both(monkeypatch, path)
    if isinstance(tree, str) and "pass --tgt-lang" in tree:
        tree, stream = _both(monkeypatch, path, tgt_lang=_languages(path)[1])
    if isinstance(tree, str) and "UTF-16" not in tree:
        assert stream == tree
    else:
        assert stream == tree


def test_streaming_reads_fixtures_like_the_tree_reader(tmp_path, monkeypatch):
    bodies = [
        '<tu><tuv xml:lang="de"><seg>Eins</seg></tuv><tuv xml:lang="EN-us"><seg>One</seg></tuv></tu>'
        '<tu><tuv xml:lang="en-US"><seg>Two</seg></tuv><tuv xml:lang="de"><seg>Zwei</seg></tuv></tu>',
        '<tu tuid="a"><tuv lang="EN"><seg>Save <ph>&lt;br/&gt;</ph>now</seg></tuv><tuv lang="FR-ca"><seg>Enr'
        '<hi>egis</hi>trer</seg></tuv></tu><tu tuid="a"><tuv lang="en"><seg>Open</seg></tuv></tu>'
        '<tu tuid="c"><tuv lang="fr-CA"><seg>Fermer</seg></tuv></tu><tu><tuv><seg>B</seg></tuv></tu>',
        "",
    ]
    for n, body in enumerate(bodies):
        for header in ('srclang="en-US"', 'srclang="*all*"', ""):
            path = _write(tmp_path, body, header=header, name=f"f{n}.tmx")
            tree, stream = _both(monkeypatch, path)
            assert stream == tree, (body, header)
    bad = tmp_path / "bad.tmx"
    bad.write_text('<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>x</tuv></tu></body></tmx>')
    tree, stream = _both(monkeypatch, str(bad))
    assert isinstance(stream, str) and "not well-formed XML" in stream and isinstance(tree, str)
    ent = tmp_path / "ent.tmx"
    ent.write_text('<?xml version="1.0"?><!DOCTYPE tmx [<!ENTITY a "b">]><tmx version="1.4"><header srclang="en"/>'
                   '<body/></tmx>')
    tree, stream = _both(monkeypatch, str(ent))
    assert stream == tree and "entities" in stream
    nobody = tmp_path / "nobody.tmx"
    nobody.write_text('<tmx version="1.4"><header srclang="en"/></tmx>')
    assert _both(monkeypatch, str(nobody))[1] == _both(monkeypatch, str(nobody))[0]
