"""gettext PO and Qt TS through translate-toolkit: exact readings of small fixtures written here,
detection from content, languages, the optional-dependency contract and `inspect`/`check` end to end."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.errors import InputError, MissingLanguageError
from termqa.formats import read_any, read_bilingual, read_glossary
from termqa.inputs import expand
from tests.conftest import SAMPLES

try:
    import translate.storage.pypo  # noqa: F401
    HAVE_TOOLKIT = True
except ImportError:  # the optional extra; only the test of its absence runs without it
    HAVE_TOOLKIT = False
needs_toolkit = pytest.mark.skipif(not HAVE_TOOLKIT, reason="translate-toolkit (termqa[toolkit]) is not installed")

SAMPLE_XLF = SAMPLES / "pump-manual.xlf"

PO = r'''# Pump manual, French translation.
# Copyright (C) the termqa team.
#
#, fuzzy
msgid ""
msgstr ""
"Project-Id-Version: pump 1.0\n"
"Language: fr_FR\n"
"X-Source-Language: en\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\n"

#: manual.c:10
msgid "Replace the impeller."
msgstr "Remplacez la roue."

#, fuzzy
msgid "Check the seal."
msgstr "Vérifiez le joint."

msgctxt "menu"
msgid "Open"
msgstr "Ouvrir"

msgctxt "valve"
msgid "Open"
msgstr "Ouverte"

#, c-format
msgid "%d pump"
msgid_plural "%d pumps"
msgstr[0] "%d pompe"
msgstr[1] "%d pompes"

msgid ""
"Drain the "
"casing.\n"
msgstr ""

#~ msgid "Prime the pump."
#~ msgstr "Amorcez la pompe."
'''

TS = '''<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr_FR" sourcelanguage="en">
<context>
    <name>MainWindow</name>
    <message>
        <location filename="main.cpp" line="10"/>
        <source>Replace the impeller</source>
        <translation>Remplacez la roue</translation>
    </message>
    <message>
        <source>Check the seal</source>
        <translation type="unfinished">Vérifiez le joint</translation>
    </message>
    <message>
        <source>Old text</source>
        <translation type="vanished">Vieux texte</translation>
    </message>
    <message>
        <source>Older text</source>
        <translation type="obsolete">Texte ancien</translation>
    </message>
    <message numerus="yes">
        <source>%n pump(s)</source>
        <translation>
            <numerusform>%n pompe</numerusform>
            <numerusform>%n pompes</numerusform>
        </translation>
    </message>
    <message id="msg.open">
        <source>&amp;Open</source>
        <comment>menu</comment>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Dialog</name>
    <message>
        <source>Replace the impeller</source>
        <translation>Remplacer la roue</translation>
    </message>
</context>
</TS>
'''


def _write(tmp_path, name: str, text: str, bom: bool = False):
    p = tmp_path / name
    p.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return str(p)


def _po_id(msgid: str, ctx=None) -> str:
    key = msgid if ctx is None else f"{ctx}\x04{msgid}"
    return "po:" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]


def _rows(bf):
    return [(s.seg_id, s.source, s.target, s.state, s.locked) for s in bf.segments]


# --- gettext PO ----------------------------------------------------------------------------------


@needs_toolkit
def test_po_entries_plurals_fuzzy_context_obsolete_header(tmp_path):
    path = _write(tmp_path, "manual.po", PO)
    bf = read_bilingual(path)
    assert (bf.format, bf.version, bf.dialect) == ("po", None, None)
    assert (bf.src_lang, bf.tgt_lang, bf.languages) == ("en", "fr-FR", ("en", "fr-FR"))
    assert bf.problems == ()
    assert bf.warnings == (f"{path}: 1 obsolete (#~) entry left out",)
    (doc,) = bf.documents
    assert (doc.doc_id, doc.path, doc.format, doc.src_lang, doc.tgt_lang) == (path, path, "po", "en", "fr-FR")
    assert _rows(bf) == [
        ("", "Replace the impeller.", "Remplacez la roue.", "translated", False),
        ("", "Check the seal.", "Vérifiez le joint.", "fuzzy", False),
        ("", "Open", "Ouvrir", "translated", False),
        ("", "Open", "Ouverte", "translated", False),
        ("p0", "%d pump", "%d pompe", "translated", False),
        ("p1", "%d pumps", "%d pompes", "translated", False),
        ("", "Drain the casing.\n", "", "needs-translation", False),
    ]
    segs = bf.segments
    assert [s.index for s in segs] == list(range(7))
    assert [s.unit_id for s in segs] == [
        _po_id("Replace the impeller."), _po_id("Check the seal."), _po_id("Open", "menu"),
        _po_id("Open", "valve"), _po_id("%d pump"), _po_id("%d pump"), _po_id("Drain the casing.\n"),
    ]
    assert all(s.source_codes == () and s.target_codes == () for s in segs)
    assert [s.translated for s in segs] == [True] * 6 + [False]


@needs_toolkit
def test_po_unit_ids_do_not_depend_on_position(tmp_path):
    first = read_bilingual(_write(tmp_path, "a.po", PO))
    entries = PO.split("\n\n")
    moved = "\n\n".join([entries[0], entries[3], entries[1], entries[2]] + entries[4:])
    second = read_bilingual(_write(tmp_path, "b.po", moved))
    by_source = {(s.source, s.target): s.unit_id for s in first.segments}
    assert [s.source for s in second.segments][:3] == ["Open", "Replace the impeller.", "Check the seal."]
    assert all(by_source[(s.source, s.target)] == s.unit_id for s in second.segments)


@needs_toolkit
def test_po_duplicate_entry_is_a_problem_and_plural_count_is_checked(tmp_path):
    text = textwrap.dedent('''\
        msgid ""
        msgstr ""
        "Language: de\\n"
        "Plural-Forms: nplurals=2; plural=(n != 1);\\n"

        msgid "Seal"
        msgstr "Dichtung"

        msgid "Seal"
        msgstr "Dichtring"

        msgid "%d seal"
        msgid_plural "%d seals"
        msgstr[0] "%d Dichtung"
        ''')
    path = _write(tmp_path, "dup.po", text)
    bf = read_bilingual(path, src_lang="en")
    assert bf.problems == (f"{path}: msgctxt/msgid used by more than one entry: 'Seal'",)
    assert bf.warnings == (f"{path}: 1 plural entry has a number of msgstr[n] other than the header's nplurals=2",)
    assert _rows(bf)[2] == ("p0", "%d seal", "%d Dichtung", "translated", False)
    assert len(bf.segments) == 3


@needs_toolkit
def test_po_languages_arguments_override_and_missing(tmp_path):
    path = _write(tmp_path, "manual.po", PO)
    bf = read_bilingual(path, src_lang="en_GB", tgt_lang="fr-ca")
    assert (bf.src_lang, bf.tgt_lang) == ("en-GB", "fr-CA")
    assert {(s.src_lang, s.tgt_lang) for s in bf.segments} == {("en-GB", "fr-CA")}

    no_source = _write(tmp_path, "nosrc.po", PO.replace('"X-Source-Language: en\\n"\n', ""))
    with pytest.raises(MissingLanguageError) as err:
        read_bilingual(no_source)
    assert err.value.which == "source" and err.value.candidates == ("fr-FR",)
    assert "--src-lang" in str(err.value)
    assert read_bilingual(no_source, src_lang="en").src_lang == "en"

    template = _write(tmp_path, "t.pot", PO.replace("Language: fr_FR", "Language: "))
    with pytest.raises(MissingLanguageError) as err:
        read_bilingual(template)
    assert err.value.which == "target" and "--tgt-lang" in str(err.value)

    for header, tag in (("sr@latin", "sr-Latn"), ("sr_RS@latin", "sr-Latn-RS"), ("de_DE.UTF-8", "de-DE"),
                        ("ca@valencia", "ca")):
        locale = _write(tmp_path, "locale.po", PO.replace("Language: fr_FR", f"Language: {header}"))
        assert read_bilingual(locale).tgt_lang == tag, header

    no_header = _write(tmp_path, "bare.po", 'msgid "Seal"\nmsgstr "Joint"\n')
    bf = read_bilingual(no_header, src_lang="en", tgt_lang="fr")
    assert _rows(bf) == [("", "Seal", "Joint", "translated", False)] and bf.warnings == ()


@needs_toolkit
def test_po_target_language_from_poedit_header_warns(tmp_path):
    text = PO.replace('"Language: fr_FR\\n"', '"Language: \\n"\n"X-Poedit-Language: German\\n"')
    path = _write(tmp_path, "poedit.po", text)
    bf = read_bilingual(path)
    assert bf.tgt_lang == "de"
    assert bf.warnings[0] == (f"{path}: the Language header is empty; target language de taken from the "
                              "other PO headers")


# --- Qt TS ---------------------------------------------------------------------------------------


@needs_toolkit
def test_ts_contexts_unfinished_vanished_numerus(tmp_path):
    path = _write(tmp_path, "app_fr.ts", TS)
    bf = read_bilingual(path)
    assert (bf.format, bf.version) == ("qt-ts", "2.1")
    assert (bf.src_lang, bf.tgt_lang) == ("en", "fr-FR")
    assert bf.problems == ()
    assert bf.warnings == (f"{path}: 2 vanished/obsolete messages left out",)
    assert _rows(bf) == [
        ("", "Replace the impeller", "Remplacez la roue", "translated", False),
        ("", "Check the seal", "Vérifiez le joint", "unfinished", False),
        ("p0", "%n pump(s)", "%n pompe", "translated", False),
        ("p1", "%n pump(s)", "%n pompes", "translated", False),
        ("", "&Open", "", "needs-translation", False),
        ("", "Replace the impeller", "Remplacer la roue", "translated", False),
    ]
    ids = [s.unit_id for s in bf.segments]
    assert ids[4] == "msg.open"
    assert ids[2] == ids[3] and len(set(ids)) == 5  # same source in two contexts: two units
    assert all(i.startswith("ts:") for k, i in enumerate(ids) if k != 4)
    (doc,) = bf.documents
    assert doc.format == "qt-ts" and doc.doc_id == path


@needs_toolkit
def test_ts_missing_language_and_message_without_translation(tmp_path):
    text = TS.replace(' language="fr_FR"', "").replace(
        "<source>Check the seal</source>\n        <translation type=\"unfinished\">Vérifiez le joint</translation>",
        "<source>Check the seal</source>")
    path = _write(tmp_path, "nolang.ts", text)
    with pytest.raises(MissingLanguageError) as err:
        read_bilingual(path)
    assert err.value.which == "target"
    bf = read_bilingual(path, tgt_lang="fr")
    assert bf.tgt_lang == "fr"
    assert _rows(bf)[1] == ("", "Check the seal", None, "needs-translation", False)

    posix = _write(tmp_path, "posix.ts", TS.replace('sourcelanguage="en"', 'sourcelanguage="POSIX"'))
    with pytest.raises(MissingLanguageError) as err:
        read_bilingual(posix)
    assert err.value.which == "source"


@needs_toolkit
def test_ts_with_entities_is_refused_by_the_hardened_parser(tmp_path):
    text = TS.replace("<!DOCTYPE TS>", '<!DOCTYPE TS [<!ENTITY x "boom">]>')
    with pytest.raises(InputError, match="declares XML entities"):
        read_bilingual(_write(tmp_path, "evil.ts", text))


# --- detection and folders -----------------------------------------------------------------------


@needs_toolkit
def test_po_detected_from_content_whatever_the_name(tmp_path):
    long_header = "".join(f"# licence line {i:03d} " + "x" * 60 + "\n" for i in range(120))  # > 4 KB
    assert len(long_header) > 8000
    for name, text, bom in (("notes.txt", PO, False), ("bom.po", PO, True), ("long.po", long_header + PO, False)):
        bf = read_any(_write(tmp_path, name, text, bom=bom))
        assert bf.format == "po" and len(bf.segments) == 7, name
    assert read_any(_write(tmp_path, "strings.xml", TS)).format == "qt-ts"
    with pytest.raises(InputError, match=r"is a bilingual file \(toolkit\), not a glossary"):
        read_glossary(_write(tmp_path, "g.po", PO))


def test_csv_and_turtle_with_comment_lines_are_not_po(tmp_path):
    csv = _write(tmp_path, "g.csv", "# exported terms\nen,fr\nmsgid,identifiant\n")
    assert read_glossary(csv).format == "csv"
    ttl = _write(tmp_path, "g.ttl", "# a thesaurus\n@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
                 '<http://x/1> a skos:Concept ; skos:prefLabel "seal"@en, "joint"@fr .\n')
    assert read_glossary(ttl).format == "skos"


@needs_toolkit
def test_folder_expansion_includes_po_and_ts(tmp_path):
    _write(tmp_path, "a.po", PO)
    _write(tmp_path, "b.ts", TS)
    _write(tmp_path, "c.txt", PO)
    assert [p.rsplit("/", 1)[-1] for p in expand([str(tmp_path)])] == ["a.po", "b.ts"]


# --- the optional dependency ---------------------------------------------------------------------


def test_missing_translate_toolkit_names_the_fix(tmp_path, monkeypatch):
    path = _write(tmp_path, "manual.po", PO)
    for name in [m for m in sys.modules if m == "translate" or m.startswith("translate.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "translate", None)  # makes `import translate...` fail
    with pytest.raises(InputError) as err:
        read_bilingual(path)
    assert err.value.fix == 'pip install "termqa[toolkit]"'
    assert "translate-toolkit" in err.value.problem and err.value.path == path
    with pytest.raises(InputError, match="termqa\\[toolkit\\]"):
        read_bilingual(_write(tmp_path, "app.ts", TS))


@needs_toolkit
def test_translate_toolkit_is_imported_only_when_a_po_file_is_read(tmp_path):
    path = _write(tmp_path, "manual.po", PO)
    script = textwrap.dedent(f"""
        import sys
        import termqa.cli.main, termqa.pipeline.check, termqa.inspect
        from termqa import formats
        from termqa.formats import toolkit
        formats.read_bilingual({str(SAMPLE_XLF)!r})
        assert not any(m == "translate" or m.startswith("translate.") for m in sys.modules), "too early"
        bf = formats.read_bilingual({path!r})
        assert bf.format == "po" and "translate.storage.pypo" in sys.modules
        print("ok")
        """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


# --- through the CLI -----------------------------------------------------------------------------

CLI_PO = r'''msgid ""
msgstr ""
"Language: fr\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\n"

msgid "Replace the impeller."
msgstr "Remplacez la roue."

msgid "Clean the impeller."
msgstr "Nettoyez la turbine."

#, fuzzy
msgid "Check the seal."
msgstr "Vérifiez le joint."

msgid "%d seal"
msgid_plural "%d seals"
msgstr[0] "%d joint"
msgstr[1] "%d joints"

#~ msgid "Old seal"
#~ msgstr "Vieux joint"
'''


@needs_toolkit
def test_cli_inspect_and_check_a_po_file(tmp_path):
    from termqa.cli.main import main

    po = _write(tmp_path, "pump.po", CLI_PO)
    glossary = _write(tmp_path, "terms.csv", "en,fr,fr_status\nimpeller,roue|turbine,preferred|deprecated\n"
                                             "seal,joint,preferred\n")
    runner = CliRunner()
    r = runner.invoke(main, ["inspect", po, "--json", "--src-lang", "en"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert (info["format"], info["source_language"], info["target_language"]) == ("po", "en", "fr")
    # the fuzzy entry is not checked (gettext's own rule): inspect says so as the check's JSON does
    assert info["segments"] == {"total": 5, "translated": 4, "empty": 0, "locked": 0, "skipped": 0,
                                "not_translated": 1, "not_translated_units": 1,
                                "not_translated_states": {"fuzzy": 1}}
    assert info["warnings"] == [f"{po}: 1 obsolete (#~) entry left out"] and info["problems"] == []

    r = runner.invoke(main, ["inspect", po, "--json"])  # gettext has no source-language header
    info = json.loads(r.stdout)  # inspect describes the file anyway and says what check will need
    assert r.exit_code == 0 and info["source_language"] is None and info["target_language"] == "fr"
    assert any("--src-lang" in w for w in info["warnings"])
    r = runner.invoke(main, ["check", po, "-g", glossary])
    assert r.exit_code == 2 and "pass --src-lang" in r.stderr

    out = tmp_path / "r.json"
    r = runner.invoke(main, ["check", po, "-g", glossary, "--src-lang", "en", "--lemmatiser", "lookup",
                             "--json", str(out), "-q"])
    assert r.exit_code == 0, r.output
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["inputs"] == [{"path": po, "format": "po", "dialect": None, "documents": 1, "segments": 5}]
    got = [(o["segment_id"], o["source_text"], o["target_text"], o["outcome"], o["label"])
           for o in result["occurrences"]]
    assert got == [
        ("", "impeller", "roue", "conforming", None),
        ("", "impeller", "turbine", "error", "A1"),
        ("p0", "seal", "joint", "conforming", None),
        ("p1", "seals", "joints", "conforming", None),
    ]
    assert result["occurrences"][1]["unit_id"] == _po_id("Clean the impeller.")
    sm = result["summary"]
    assert sm["outcomes"]["error"] == 1
    assert (sm["units_not_translated"], sm["segments_not_translated"], sm["not_translated_states"]) == (
        1, 1, {"fuzzy": 1})
    assert sm["occurrences_in_untranslated_segments"] == 1

    # --include-states fuzzy checks the fuzzy entry as a translation again
    r = runner.invoke(main, ["check", po, "-g", glossary, "--src-lang", "en", "--lemmatiser", "lookup",
                             "--include-states", "fuzzy,unfinished", "--json", str(out), "-q"])
    assert r.exit_code == 0, r.output
    result = json.loads(out.read_text(encoding="utf-8"))
    assert ("", "seal", "joint", "conforming", None) in [
        (o["segment_id"], o["source_text"], o["target_text"], o["outcome"], o["label"]) for o in result["occurrences"]]
    assert result["summary"]["units_not_translated"] == 0

    r = runner.invoke(main, ["check", po, "-g", glossary, "--src-lang", "en", "--lemmatiser", "lookup", "--annotate",
                             str(tmp_path / "out.po"), "-q"])
    assert r.exit_code == 2 and "XLIFF files only" in r.stderr
    assert not (tmp_path / "out.po").exists()


# --- unit states: what is checked is what the format's own rule calls translated -----------------


def _own_rule_translated(path: str, module: str) -> int:
    """Units translate-toolkit itself calls translated (a numerus message counts once per form)."""
    from translate.storage import pypo, ts2

    store = (pypo.pofile if module == "po" else ts2.tsfile).parsefile(path)
    n = 0
    for u in store.units:
        if u.isheader() or u.isobsolete() or not u.istranslated():
            continue
        n += len(u.target.strings) if u.hasplural() else 1
    return n


@needs_toolkit
@pytest.mark.parametrize("name, text, module, states", [
    ("pump.po", CLI_PO, "po", {"fuzzy": 1}),
    ("app_fr.ts", TS, "ts", {"unfinished": 1}),
])
def test_inspect_translated_is_the_formats_own_rule(tmp_path, name, text, module, states):
    # no licensed public file at hand for these states: the fixtures are written here
    path = _write(tmp_path, name, text)
    from termqa.inspect import inspect_file

    seg = inspect_file(path, src_lang="en")["segments"]
    assert seg["translated"] == _own_rule_translated(path, module)
    assert seg["not_translated_states"] == states
    assert seg["total"] == seg["translated"] + seg["not_translated"] + seg["empty"]


@needs_toolkit
def test_ts_unfinished_messages_are_not_checked_unless_included(tmp_path):
    from termqa.pipeline.check import check

    ts = _write(tmp_path, "app_fr.ts", TS)
    glossary = _write(tmp_path, "terms.csv", "en,fr\nseal,joint\nimpeller,roue\n")
    r = check([ts], [glossary], Settings(lemmatiser="lookup")).to_dict()
    assert [o["source_text"] for o in r["occurrences"]] == ["impeller", "impeller"]
    sm = r["summary"]
    assert (sm["units_not_translated"], sm["not_translated_states"]) == (1, {"unfinished": 1})
    assert sm["occurrences_in_untranslated_segments"] == 1
    r = check([ts], [glossary], Settings(lemmatiser="lookup", include_states=["fuzzy,unfinished"])).to_dict()
    assert "seal" in [o["source_text"] for o in r["occurrences"]] and r["summary"]["units_not_translated"] == 0
