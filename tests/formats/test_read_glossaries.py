"""Glossary readers (TBX 2008 / v3, SKOS, CSV/TSV) and status normalisation.

Contract tests over every corpus file, exact checks on files read by hand, a cross-check with
translate-toolkit where its TBX reader is right (one term per language section), and inline
fixtures for the edge cases."""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

import pytest

from termqa.errors import InputError
from termqa.model import ADMITTED, DEPRECATED, PREFERRED, SUPERSEDED, UNKNOWN
from tests.conftest import corpus_files, is_invalid_name

from termqa.formats import read_glossary
from termqa.formats import csvgloss, skos, status
from termqa.formats.readers import Source

TBX_FILES = corpus_files("formats/tbx")
# Glossaries are frozen: the 3 MB UNESCO file is read once for the contract and the exact test.
_read_once = lru_cache(maxsize=None)(lambda path: read_glossary(path))
SKOS_FILES = corpus_files("formats/skos")


def _terms(concept):
    return [(t.text, t.lang, t.status) for t in concept.terms]


def _by_id(g, cid):
    return next(c for c in g.concepts if c.id == cid)


def _write(tmp_path, name, content, encoding="utf-8"):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_bytes(content.encode(encoding))
    return str(p)


# --- status.py -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("preferred", PREFERRED),
        ("Preferred", PREFERRED),
        ("preferredTerm-admn-sts", PREFERRED),
        ("standardizedTerm-admn-sts", PREFERRED),
        ("admitted", ADMITTED),
        ("admittedTerm-admn-sts", ADMITTED),
        ("notRecommended", DEPRECATED),
        ("deprecated", DEPRECATED),
        ("deprecatedTerm-admn-sts", DEPRECATED),
        ("forbidden", DEPRECATED),
        ("Obsolete", DEPRECATED),
        ("obsolete", DEPRECATED),
        ("Do not use", DEPRECATED),
        ("superseded", SUPERSEDED),
        ("supersededTerm-admn-sts", SUPERSEDED),
        ("draft", UNKNOWN),
        ("Proposed", UNKNOWN),
        ("", UNKNOWN),
        (None, UNKNOWN),
        ("something else", UNKNOWN),
    ],
)
def test_status_spellings(raw, expected):
    assert status.normalise_status(raw) == expected


def test_status_unrecognised_and_term_types():
    assert status.unrecognised_status("something else")
    assert not status.unrecognised_status("draft")
    assert not status.unrecognised_status("")
    assert status.normalise_term_type("Acronym") == "acronym"
    assert status.normalise_term_type("full form") == "fullForm"
    assert status.normalise_term_type("shortForm") == "shortForm"
    assert status.normalise_term_type("oddType") == "oddType"
    assert status.normalise_term_type(" ") is None


@pytest.mark.parametrize(
    "category, value, dnt",
    [
        ("Translation needed", "No", True),
        ("Translation needed", "Yes", False),
        ("translatable", "false", True),
        ("doNotTranslate", "", True),
        ("dnt", "yes", True),
        ("do_not_translate", "no", False),
        ("usageNote", "doNotTranslate", True),
        ("termType", "DNT", True),
        ("usageNote", "non-translatable", True),
        ("usageNote", "translate carefully", False),
    ],
)
def test_dnt_markers(category, value, dnt):
    assert status.dnt_marker(category, value) is dnt


# --- TBX: contract over the corpus ---------------------------------------------------------------


@pytest.mark.parametrize("path", TBX_FILES, ids=[p.name for p in TBX_FILES])
def test_tbx_corpus_contract(path):
    if is_invalid_name(path):
        try:
            g = read_glossary(path)
        except InputError:
            return  # refused by the parser
        assert g.problems, "an invalid file must be refused or report problems"
        return
    g = read_glossary(path)
    assert g.format in ("tbx-2008", "tbx-v3")
    assert len(g.concepts) > 0
    assert g.problems == ()
    assert all(t.text and t.text == " ".join(t.text.split()) for c in g.concepts for t in c.terms)
    assert len({c.id for c in g.concepts}) == len(g.concepts)


def test_tbx_poorly_formed_is_refused(corpus):
    with pytest.raises(InputError, match="not well-formed XML"):
        read_glossary(corpus / "formats/tbx/ltac_poorly_formed_xml.tbx")


def test_tbx_basic_bad_reports_each_violation(corpus):
    g = read_glossary(corpus / "formats/tbx/ltac_basic_bad_v3.tbx")
    assert g.dialect == "TBX-Basic DCA"
    assert g.problems == (
        "line 24: source at concept level must sit in a descripGrp with what it documents",
        "line 26: <transac type='theWrongType'>: TBX-Basic allows only transactionType",
        "line 69: partOfSpeech value 'nominal' is not in the TBX-Basic picklist "
        "(noun, verb, adjective, adverb, other)",
        "line 97: definition may only appear at concept or language level",
        "line 140: <transacNote type='wrongType'>: TBX-Basic allows only responsibility",
    )
    # it is still read in full
    assert len(g.concepts) == 45


def test_tbx_core_structure_bad_reports_each_violation(corpus):
    g = read_glossary(corpus / "formats/tbx/ltac_core_structure_bad_v3.tbx")
    assert g.dialect == "TBX-Core DCA"
    assert sorted(g.problems) == sorted(
        [
            "line 15: text directly inside <sourceDesc> must be wrapped in <p>",
            "line 21: <admin> is not allowed directly inside <text>",
            "line 27: <admin> has no type attribute (the data category is required)",
            "line 28: entry c1: <term> must come first in <termSec>",
            "line 32: entry c1: <termSec> holds 2 <term>s; only one is allowed",
            "line 44: <descripGrp> holds 2 <descrip> elements; only one is allowed",
            # TBX-Core, as LTAC's dialect defines it, has no data categories at all (formats/tbxdialect.py)
            "line 21: <admin type='whateverForCore'>: TBX-Core has no data categories",
            "line 45: <descrip type='whateverType'>: TBX-Core has no data categories",
            "line 46: <descrip type='whateverType'>: TBX-Core has no data categories",
        ]
    )
    c1 = _by_id(g, "c1")
    assert [t.text for t in c1.terms] == ["Wrong order", "galactic cluster", "cúmulo abierto"]


# --- TBX: exact checks ---------------------------------------------------------------------------


def test_tbx_astronomy_dca_synonyms_and_statuses(corpus):
    g = read_glossary(corpus / "formats/tbx/ltac_basic_astronomy_DCA.tbx")
    assert (g.format, g.dialect, g.languages) == ("tbx-v3", "TBX-Basic DCA", ("en", "es", "zu"))
    assert len(g.concepts) == 45
    assert Counter(t.status for c in g.concepts for t in c.terms) == {
        UNKNOWN: 81,
        ADMITTED: 16,
        PREFERRED: 12,
        DEPRECATED: 3,
        SUPERSEDED: 1,
    }
    c1 = _by_id(g, "c1")
    assert _terms(c1) == [
        ("open cluster", "en", PREFERRED),
        ("galactic cluster", "en", SUPERSEDED),
        ("cúmulo abierto", "es", UNKNOWN),
    ]
    assert c1.terms[1].raw_status == "supersededTerm-admn-sts"
    assert c1.subject == "General"
    assert c1.definition == "A group of stars formed together in the spiral arms of a galaxy."
    assert _terms(_by_id(g, "c2")) == [
        ("circumstellar accretion disk", "en", PREFERRED),
        ("accretion disc", "en", ADMITTED),
        ("circumstellar disk", "en", ADMITTED),
        ("disco de acreción", "es", PREFERRED),
        ("disco de acrecimiento", "es", ADMITTED),
    ]
    c38 = _by_id(g, "c38")
    assert [(t.text, t.status, t.term_type) for t in c38.terms if t.lang == "en"] == [
        ("carbon-nitrogen cycle", ADMITTED, "variant"),
        ("CNO cycle", PREFERRED, "shortForm"),
        ("carbon-nitrogen-oxygen cycle", ADMITTED, "variant"),
        ("Bethe-Weizsäcker-cycle", ADMITTED, None),
        ("carbon cycle", DEPRECATED, "variant"),
        ("CN cycle", ADMITTED, "variant"),
    ]
    assert c38.preferred("es").text == "ciclo del carbono-nitrógeno"
    assert [(t.text, t.term_type) for t in _by_id(g, "c4").terms if t.lang == "en"] == [
        ("gamma-ray burst", "fullForm"),
        ("GRB", "acronym"),
    ]


def test_tbx_min_dct_matches_basic_dca(corpus):
    """The TBX-Min DCT example carries the same terms and statuses as the TBX-Basic DCA one."""
    dct = read_glossary(corpus / "formats/tbx/ltac_min_astronomy_DCT.tbx")
    dca = read_glossary(corpus / "formats/tbx/ltac_basic_astronomy_DCA.tbx")
    assert dct.dialect == "TBX-Min DCT" and dct.problems == ()
    assert [(c.id, _terms(c)) for c in dct.concepts] == [(c.id, _terms(c)) for c in dca.concepts]


def test_tbx_v2_and_v3_conversions_agree(corpus):
    v2 = read_glossary(corpus / "formats/tbx/ltac_converter_Good-Basic2_v2.tbx")
    v3 = read_glossary(corpus / "formats/tbx/ltac_converter_Good-Basic2_v3.tbx")
    assert (v2.format, v2.dialect) == ("tbx-2008", "TBX-Basic")
    assert (v3.format, v3.dialect) == ("tbx-v3", "TBX-Basic DCA")
    assert len(v2.concepts) == 25 and sum(len(c.terms) for c in v2.concepts) == 49
    assert v2.concepts == v3.concepts
    assert v2.languages == v3.languages == ("en", "es")
    first = v2.concepts[0]
    assert first.id == "c1afbb389-97a3-4a56-8020-7c99fca6dc35"
    assert _terms(first) == [("peace", "en", PREFERRED), ("paz", "es", PREFERRED)]
    assert first.definition is None  # "-" is a placeholder, not a definition
    assert first.subject == "gospel"
    assert v2.concepts[1].definition == "una medida"


def test_tbx_suse_monolingual_statuses(corpus):
    g = read_glossary(corpus / "formats/tbx/suse_termweb_weblate_FR-FR.tbx")
    assert (g.format, g.languages, len(g.concepts)) == ("tbx-2008", ("fr-FR",), 544)
    assert Counter((t.raw_status, t.status) for c in g.concepts for t in c.terms) == {
        ("preferred", PREFERRED): 646,
        ("admitted", ADMITTED): 95,
        ("notRecommended", DEPRECATED): 9,
    }
    assert _terms(_by_id(g, "c340")) == [
        ("contrôle de cohérence", "fr-FR", DEPRECATED),
        ("somme de contrôle", "fr-FR", PREFERRED),
    ]
    assert [t.text for t in _by_id(g, "c147").terms] == [
        "application",
        "appli",
        "programme d'application",
        "application logicielle",
        "logiciel d'application",
    ]
    # This export carries no "Translation needed" field: no concept is DNT.
    assert sum(c.dnt for c in g.concepts) == 0


def test_tbx_termweb_dnt_and_obsolete_inline(tmp_path):
    """The TermWeb/Weblate shape with the fields the corpus export lacks."""
    path = _write(
        tmp_path,
        "tw.tbx",
        '<?xml version="1.0" encoding="UTF-8"?>\n<martif type="TBX" xml:lang="en"><text><body>'
        '<termEntry id="c218"><descrip type="Translation needed">No</descrip>'
        '<langSet xml:lang="en-us"><tig><term>SUSE Multi-Linux Manager</term>'
        '<termNote type="administrativeStatus">preferred</termNote></tig></langSet></termEntry>'
        '<termEntry id="c219"><descrip type="Translation needed">Yes</descrip>'
        '<langSet xml:lang="fr-fr"><tig><term>pare-feu</term>'
        '<termNote type="administrativeStatus">preferred</termNote></tig>'
        '<tig><term>garde-barrière</term><termNote type="administrativeStatus">Obsolete</termNote></tig>'
        '<tig><term>mur de feu</term><termNote type="administrativeStatus">forbidden</termNote></tig>'
        "</langSet></termEntry>"
        '<termEntry id="c220"><langSet xml:lang="en"><tig><term>YaST</term>'
        '<termNote type="usageNote">doNotTranslate</termNote></tig></langSet></termEntry>'
        "</body></text></martif>",
    )
    g = read_glossary(path)
    assert [c.dnt for c in g.concepts] == [True, False, True]
    assert g.languages == ("en-US", "fr-FR", "en")
    assert [(t.text, t.status, t.raw_status) for t in g.concepts[1].terms] == [
        ("pare-feu", PREFERRED, "preferred"),
        ("garde-barrière", DEPRECATED, "Obsolete"),
        ("mur de feu", DEPRECATED, "forbidden"),
    ]
    assert g.problems == ()


def test_tbx_win1254_turkish_text(corpus):
    g = read_glossary(corpus / "formats/tbx/okapi_test02_win1254.tbx")
    assert [(t.text, t.lang) for t in g.concepts[0].terms] == [
        ("term with: éá and İı", "en"),
        ("tr term with: éá and İı", "tr"),
    ]
    assert g.concepts[0].id == "id1"


def test_tbx_2008_ntig_files(corpus):
    md = read_glossary(corpus / "formats/tbx/okapi_maryland.tbx")
    c = md.concepts[0]
    assert c.id == "eid-VocCod-211.01"
    assert c.subject == "personnel"
    assert c.definition == "personne qui accomplit un travail copie ou d'écriture"
    assert [(t.text, t.term_type) for t in c.terms_in("fr")] == [
        ("copiste", "entryTerm"),
        ("scribe", "synonym"),
        ("écrivain", "synonym"),
    ]
    assert len(c.terms) == 13
    oracle = read_glossary(corpus / "formats/tbx/okapi_oracle_TBX.tbx")
    c1 = oracle.concepts[0]
    assert [(t.text, t.lang, t.status, t.term_type) for t in c1.terms] == [
        ("Provincial Reporting Establishment", "en", UNKNOWN, None),
        ("PRE", "en", UNKNOWN, "abbreviation"),
        ("Entidade de Supervisão de Província", "pt", PREFERRED, None),
        ("PRE", "pt", UNKNOWN, "abbreviation"),
    ]
    assert c1.subject == "HR"
    ibm = read_glossary(corpus / "formats/tbx/okapi_ibm_tbx.tbx")
    # two English langSets in one entry: both terms kept
    assert _terms(ibm.concepts[0]) == [
        ("navigation trail", "en", UNKNOWN),
        ("branch", "en", UNKNOWN),
        ("historique de navigation", "fr", UNKNOWN),
    ]
    assert ibm.concepts[1].subject == "Hardware \\ Other Processing Units and Specialized Devices"


def test_tbx_sdl_empty_terms_skipped(corpus):
    g = read_glossary(corpus / "formats/tbx/okapi_sdl_multiterm_tbx.tbx")
    assert len(g.concepts) == 223
    assert sum(len(c.terms) for c in g.concepts) == 472
    assert g.warnings == ("44 empty <term> elements were skipped",)


@pytest.mark.parametrize(
    "name", ["ltac_converter_Good-Basic2_v2.tbx", "okapi_sdl_multiterm_tbx.tbx", "okapi_test02_win1254.tbx"]
)
def test_tbx_cross_check_with_translate_toolkit(corpus, name):
    """translate-toolkit keeps the first term of an entry as its source: where that term is not
    empty, it must be our concept's first term, and both must see the same entries."""
    tbx_tt = pytest.importorskip("translate.storage.tbx")
    path = corpus / "formats/tbx" / name
    units = tbx_tt.tbxfile.parsestring(path.read_bytes()).units
    g = read_glossary(path)
    assert [u.getid() for u in units] == [c.id for c in g.concepts]
    pairs = [(u.source.strip(), c.terms[0].text) for u, c in zip(units, g.concepts) if u.source]
    assert pairs and all(a == b for a, b in pairs)


def test_tbx_structure_problems_inline(tmp_path):
    path = _write(
        tmp_path,
        "p.tbx",
        '<?xml version="1.0"?>\n<tbx type="TBX-Core" style="dca" xml:lang="en" '
        'xmlns="urn:iso:std:iso:30042:ed-2"><tbxHeader><fileDesc><sourceDesc><p>x</p></sourceDesc>'
        "</fileDesc></tbxHeader><text><body>"
        '<conceptEntry id="a"><langSec><termSec><term>no language</term></termSec></langSec>'
        '<langSec xml:lang="fr"><termSec><note>x</note></termSec><termSec><term>chat</term></termSec></langSec>'
        "</conceptEntry>"
        '<conceptEntry><langSec xml:lang="en"><termSec><term>cat</term></termSec></langSec></conceptEntry>'
        '<conceptEntry id="a"><langSec xml:lang="en"><termSec><term>dog</term></termSec></langSec></conceptEntry>'
        "</body></text></tbx>",
    )
    g = read_glossary(path)
    assert [c.id for c in g.concepts] == ["a", "c2", "a#2"]
    assert _terms(g.concepts[0]) == [("no language", "", UNKNOWN), ("chat", "fr", UNKNOWN)]
    assert g.problems == (
        "line 2: entry a: <langSec> without xml:lang",
        "line 2: entry a: <termSec> without <term>",
        "line 2: <conceptEntry> without the required id attribute",
        "line 2: entry id 'a' is used more than once",
    )


def test_tbx_dialect_checks_only_for_basic_and_min(tmp_path):
    body = (
        '<termEntry id="e1"><langSet xml:lang="en"><tig><term>run</term>'
        '<termNote type="partOfSpeech">Verb</termNote>'
        '<termNote type="administrativeStatus">preferred</termNote></tig></langSet></termEntry>'
    )
    free = read_glossary(_write(tmp_path, "a.tbx", f'<martif type="TBX"><text><body>{body}</body></text></martif>'))
    assert free.problems == () and free.concepts[0].terms[0].status == PREFERRED
    basic = read_glossary(
        _write(tmp_path, "b.tbx", f'<martif type="TBX-Basic"><text><body>{body}</body></text></martif>')
    )
    assert len(basic.problems) == 2
    assert "partOfSpeech value 'Verb'" in basic.problems[0]
    assert "administrativeStatus value 'preferred'" in basic.problems[1]


def test_tbx_unknown_status_warns(tmp_path):
    path = _write(
        tmp_path,
        "u.tbx",
        '<martif type="TBX"><text><body><termEntry id="e"><langSet xml:lang="en"><tig><term>x</term>'
        '<termNote type="administrativeStatus">greenish</termNote></tig></langSet></termEntry>'
        "</body></text></martif>",
    )
    g = read_glossary(path)
    assert g.concepts[0].terms[0].status == UNKNOWN
    assert g.concepts[0].terms[0].raw_status == "greenish"
    assert g.warnings == ("status values not recognised, read as unknown: 'greenish' (1)",)


def test_tbx_without_terms_is_empty_glossary(tmp_path):
    path = _write(tmp_path, "e.tbx", '<martif type="TBX"><text><body><termEntry id="x"/></body></text></martif>')
    with pytest.raises(InputError, match="empty glossary"):
        read_glossary(path)


# --- SKOS ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", SKOS_FILES, ids=[p.name for p in SKOS_FILES])
def test_skos_corpus_contract(path):
    g = _read_once(str(path))
    assert g.format == "skos"
    assert len(g.concepts) > 0
    assert g.problems == ()
    assert [c.id for c in g.concepts] == sorted(c.id for c in g.concepts)


def test_skos_xl_labels_resolved(corpus):
    g = read_glossary(corpus / "formats/skos/qskos_skosxl.rdf")
    assert g.dialect == "SKOS-XL"
    love = _by_id(g, "love")
    assert [(t.text, t.lang, t.status, t.matchable_only) for t in love.terms] == [
        ("love", "en", PREFERRED, False),
        ("adoration", "en", ADMITTED, False),  # given both plain and as XL label: kept once
        ("luv", "", UNKNOWN, True),
    ]
    assert _terms(_by_id(g, "otherConcept")) == [("anderes Konzept", "de", PREFERRED), ("luv", "", UNKNOWN)]
    assert g.warnings == (
        "2 labels have no language tag and were read with no language; set their language with --glossary-lang",
    )


def test_skos_xl_turtle_with_definition_resource(corpus):
    g = read_glossary(corpus / "formats/skos/skosmos_xl.ttl")
    (c,) = g.concepts
    assert c.id == "http://www.skosmos.skos/xl/c1"
    assert _terms(c) == [("Concept", "en", PREFERRED), ("Conceptual entity", "en", ADMITTED)]
    assert c.definition == "Unit of thought"


def test_skos_qskos_deprecated_properties_file(corpus):
    """Despite its name this file holds deprecated SKOS *properties* (skos:prefSymbol...), no
    owl:deprecated: only conceptC has a label; the three label-less concepts are counted."""
    g = read_glossary(corpus / "formats/skos/qskos_deprecatedAndIllegalTerms.rdf")
    assert [(c.id, _terms(c)) for c in g.concepts] == [("conceptC", [("tralala", "blubb", PREFERRED)])]
    assert g.warnings == ("3 skos:Concept resources have no label and were skipped",)


def test_skos_owl_deprecated_inline(tmp_path):
    path = _write(
        tmp_path,
        "d.ttl",
        "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
        "@prefix skosxl: <http://www.w3.org/2008/05/skos-xl#> .\n"
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix ex: <http://example.org/> .\n"
        'ex:old a skos:Concept ; skos:prefLabel "floppy disk"@en, "disquette"@fr ; owl:deprecated true .\n'
        'ex:fw a skos:Concept ; skos:prefLabel "firewall"@en ; skosxl:altLabel ex:l1, ex:l2 ;\n'
        "   skos:inScheme ex:s .\n"
        'ex:l1 a skosxl:Label ; skosxl:literalForm "pare-feu"@fr .\n'
        'ex:l2 a skosxl:Label ; skosxl:literalForm "garde-barrière"@fr ;\n'
        '   owl:deprecated "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .\n'
        'ex:s a skos:ConceptScheme ; skos:prefLabel "Réseau"@fr, "Networking"@en .\n',
    )
    g = read_glossary(path)
    assert [c.id for c in g.concepts] == ["http://example.org/fw", "http://example.org/old"]
    fw, old = g.concepts
    assert [(t.text, t.status, t.raw_status) for t in fw.terms] == [
        ("firewall", PREFERRED, "prefLabel"),
        ("garde-barrière", DEPRECATED, "altLabel (owl:deprecated)"),
        ("pare-feu", ADMITTED, "altLabel"),
    ]
    assert fw.subject == "Networking"
    assert fw.preferred("fr").text == "pare-feu"
    assert [t.status for t in old.terms] == [DEPRECATED, DEPRECATED]
    assert old.subject is None
    assert g.languages == ("en", "fr")


def test_skos_labels_without_language(corpus):
    path = corpus / "formats/skos/qskos_ambiguousLabels.rdf"
    g = read_glossary(path)
    assert g.warnings == (
        "13 labels have no language tag and were read with no language; set their language with --glossary-lang",
    )
    assert _terms(_by_id(g, "conceptB")) == [("Concept B", "", PREFERRED), ("Konzept B", "de", PREFERRED)]
    # pref, alt and hidden label with the same text: kept once, as the preferred one
    assert _terms(_by_id(g, "conceptD")) == [("Concept D", "", PREFERRED)]
    g_en = read_glossary(path, default_lang="en_gb")
    assert g_en.warnings == ()
    assert _terms(_by_id(g_en, "conceptB")) == [("Konzept B", "de", PREFERRED), ("Concept B", "en-GB", PREFERRED)]


def test_skos_language_tags_kept_as_written(corpus):
    g = read_glossary(corpus / "formats/skos/qskos_languageTags.rdf")
    assert g.languages == ("bm", "en", "ff", "ht", "jv", "jv-ID", "mn-Cyrl-MN", "sl-blabla", "sl-rozaj", "wa", "xy")
    assert _by_id(g, "http://mminf.univie.ac.at/vocab/conceptF").terms[0].lang == "jv-ID"
    assert g.warnings == ("1 skos:Concept resources have no label and were skipped",)


def test_skos_yso_hidden_labels(corpus):
    g = read_glossary(corpus / "formats/skos/skosmos_yso_subset.ttl")
    assert len(g.concepts) == 271
    assert g.languages == ("en", "fi", "se", "sv")
    hidden = [t for c in g.concepts for t in c.terms if t.matchable_only]
    assert len(hidden) == 661 and {t.status for t in hidden} == {UNKNOWN}
    c = _by_id(g, "http://www.yso.fi/onto/yso/p10206")
    assert c.subject == "YSO - General Finnish ontology"
    assert [(t.text, t.lang, t.matchable_only) for t in c.terms_in("sv")] == [
        ("hushållsartiklar", "sv", False),
        ("hushållstillbehör", "sv", False),
        ("hushållsartikel", "sv", True),
    ]
    assert c.preferred("sv").text == "hushållsartiklar"


def test_skos_unesco(corpus):
    g = _read_once(str(corpus / "formats/skos/unesco_thesaurus_2013.ttl"))
    assert len(g.concepts) == 4408  # the ConceptScheme and 96 Collections are not concepts
    assert g.languages == ("en", "es", "fr", "ru")
    assert Counter(t.status for c in g.concepts for t in c.terms) == {PREFERRED: 17597, ADMITTED: 13867}
    c = _by_id(g, "http://skos.um.es/unescothes/C00006")
    assert _terms(c) == [
        ("Abstracting", "en", PREFERRED),
        ("Elaboración de resúmenes análiticos", "es", PREFERRED),
        ("Rédaction de résumés", "fr", PREFERRED),
        ("Реферирование", "ru", PREFERRED),
    ]
    assert c.subject == "UNESCO Thesaurus"


def test_skos_other_syntaxes_inline(tmp_path):
    nt = _write(
        tmp_path,
        "a.nt",
        '<http://ex.org/c1> <http://www.w3.org/2004/02/skos/core#prefLabel> "cloud"@en .\n'
        '<http://ex.org/c1> <http://www.w3.org/2004/02/skos/core#altLabel> "nuage"@fr .\n'
        '<http://ex.org/c1> <http://www.w3.org/2004/02/skos/core#definition> "Remote computing"@en .\n',
    )
    # formats/__init__.py currently sends any file starting with "<" to the XML parser, so an
    # N-Triples file is given to the SKOS reader directly here.
    data = open(nt, "rb").read()
    g = skos.read(Source(str(nt), data))
    assert _terms(g.concepts[0]) == [("cloud", "en", PREFERRED), ("nuage", "fr", ADMITTED)]
    assert g.concepts[0].definition == "Remote computing"
    jsonld = _write(
        tmp_path,
        "a.jsonld",
        '{"@context": {"skos": "http://www.w3.org/2004/02/skos/core#"},'
        ' "@id": "http://ex.org/c2", "@type": "skos:Concept",'
        ' "skos:prefLabel": [{"@value": "server", "@language": "en"}, {"@value": "serveur", "@language": "fr-FR"}],'
        ' "skos:hiddenLabel": {"@value": "srv", "@language": "en"}}',
    )
    g = read_glossary(jsonld)
    assert g.concepts[0].id == "http://ex.org/c2"
    assert [(t.text, t.lang, t.status, t.matchable_only) for t in g.concepts[0].terms] == [
        ("server", "en", PREFERRED, False),
        ("serveur", "fr-FR", PREFERRED, False),
        ("srv", "en", UNKNOWN, True),
    ]


def test_skos_jsonld_remote_context_is_refused(tmp_path):
    path = _write(
        tmp_path,
        "r.jsonld",
        '{"@context": "https://example.org/context.jsonld", "@id": "http://ex.org/c", "prefLabel": "x"}',
    )
    with pytest.raises(InputError, match="remote JSON-LD @context"):
        read_glossary(path)


def test_skos_invalid_turtle_is_refused(tmp_path):
    path = _write(tmp_path, "bad.ttl", "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\nthis is not turtle")
    with pytest.raises(InputError, match="is not valid Turtle"):
        read_glossary(path)


# --- CSV / TSV -----------------------------------------------------------------------------------


def test_csv_tico19_facebook(corpus):
    g = read_glossary(corpus / "eval/tico19-enfr/data/terminologies/f_en-fr_XX.csv")
    assert (g.format, g.languages, g.warnings) == ("csv", ("en", "fr"), ())
    assert len(g.concepts) == 306
    assert all(len(c.terms) == 2 for c in g.concepts)
    assert (g.concepts[0].id, _terms(g.concepts[0])) == (
        "1",
        [("1918 flu", "en", UNKNOWN), ("Grippe de 1918", "fr", UNKNOWN)],
    )
    assert _terms(g.concepts[-1]) == [("Wuhan", "en", UNKNOWN), ("Wuhan", "fr", UNKNOWN)]


def test_csv_tico19_google(corpus):
    g = read_glossary(corpus / "eval/tico19-enfr/data/terminologies/g_en_fr-FR.csv")
    assert (g.format, g.languages, g.warnings) == ("csv", ("en", "fr-FR"), ())
    assert len(g.concepts) == 336
    assert sum(len(c.terms) for c in g.concepts) == 672
    cdc = _by_id(g, "4")
    assert _terms(cdc) == [("CDC", "en", UNKNOWN), ("CDC", "fr-FR", UNKNOWN)]
    assert cdc.definition.startswith('Short for "Centers for Disease Control and Prevention": a US federal')
    # the same source term in two rows stays two concepts
    assert [c.id for c in g.concepts if c.terms[0].text == "WHO"] == ["24", "589"]
    assert _by_id(g, "589").definition is None


def test_csv_wide_with_statuses_and_synonyms(tmp_path):
    path = _write(
        tmp_path,
        "g.csv",
        "id,en,fr,fr_status,definition,domain,dnt,note\n"
        'k1,firewall,pare-feu|garde-barrière,preferred|forbidden,"A barrier, in software",Networking,,\n'
        "k2,SUSE,SUSE,,,,yes,brand\n"
        "k3,log in;sign in,se connecter,admitted,,,,\n",
    )
    g = read_glossary(path)
    assert (g.format, g.languages, g.warnings) == ("csv", ("en", "fr"), ())
    k1, k2, k3 = g.concepts
    assert _terms(k1) == [
        ("firewall", "en", UNKNOWN),
        ("pare-feu", "fr", PREFERRED),
        ("garde-barrière", "fr", DEPRECATED),
    ]
    assert (k1.definition, k1.subject, k1.dnt) == ("A barrier, in software", "Networking", False)
    assert (k2.dnt, k2.note) == (True, "brand")
    assert _terms(k3) == [("log in", "en", UNKNOWN), ("sign in", "en", UNKNOWN), ("se connecter", "fr", ADMITTED)]


def test_csv_semicolon_region_tags(tmp_path):
    path = _write(tmp_path, "g.csv", "en;fr-FR;note;Translatable\nbrowser;navigateur|butineur;web;\nGNOME;GNOME;;no\n")
    g = read_glossary(path)
    assert g.languages == ("en", "fr-FR")
    assert [c.id for c in g.concepts] == ["c1", "c2"]
    assert _terms(g.concepts[0]) == [
        ("browser", "en", UNKNOWN),
        ("navigateur", "fr-FR", UNKNOWN),
        ("butineur", "fr-FR", UNKNOWN),
    ]
    assert g.concepts[0].note == "web"
    assert [c.dnt for c in g.concepts] == [False, True]


def test_tsv_with_bom_and_term_types(tmp_path):
    path = _write(tmp_path, "g.tsv", "\ufeffEnglish\tGerman\tde_type\nWorld Health Organization; WHO\tWHO\tacronym\n")
    g = read_glossary(path)
    assert g.format == "tsv"
    assert [(t.text, t.lang, t.term_type) for t in g.concepts[0].terms] == [
        ("World Health Organization", "en", None),
        ("WHO", "en", None),
        ("WHO", "de", "acronym"),
    ]


def test_csv_utf16_and_latin1(tmp_path):
    g16 = read_glossary(_write(tmp_path, "u16.csv", "\ufeffen,fr\nkey,clé\n", encoding="utf-16-le"))
    assert _terms(g16.concepts[0]) == [("key", "en", UNKNOWN), ("clé", "fr", UNKNOWN)] and g16.warnings == ()
    g1 = read_glossary(_write(tmp_path, "l1.csv", "en,fr\nkey,clé\n", encoding="latin-1"))
    assert _terms(g1.concepts[0]) == [("key", "en", UNKNOWN), ("clé", "fr", UNKNOWN)]
    assert g1.warnings == (
        "not valid UTF-8: decoded as cp1252; save the file as UTF-8 to be sure of its accents",
    )


def test_csv_without_header_two_columns(tmp_path):
    path = _write(tmp_path, "p.csv", "cloud computing,informatique en nuage\nserver,\nmouse,souris\n")
    g = read_glossary(path)
    assert g.languages == ()
    assert [_terms(c) for c in g.concepts] == [
        [("cloud computing", "", UNKNOWN), ("informatique en nuage", "", UNKNOWN)],
        [("mouse", "", UNKNOWN), ("souris", "", UNKNOWN)],
    ]
    assert g.warnings == (
        "1 rows with only one of the two cells filled were skipped",
        "no header row naming the languages: column 1 is read as source terms and column 2 as target "
        "terms; their languages come from --src-lang/--tgt-lang or the files checked",
    )
    named = csvgloss.assign_languages(g, "en", "fr_ca")
    assert named.languages == ("en", "fr-CA")
    assert _terms(named.concepts[1]) == [("mouse", "en", UNKNOWN), ("souris", "fr-CA", UNKNOWN)]
    assert csvgloss.assign_languages(named, "de", "it") is named


def test_csv_source_target_header_without_languages(tmp_path):
    g = read_glossary(_write(tmp_path, "st.csv", "Source,Target\nbug,bogue\n"))
    assert [_terms(c) for c in g.concepts] == [[("bug", "", UNKNOWN), ("bogue", "", UNKNOWN)]]
    assert "--src-lang/--tgt-lang" in g.warnings[-1]


def test_csv_unknown_columns_warn(tmp_path):
    g = read_glossary(_write(tmp_path, "w.csv", "en,fr,Reviewer,status\nfile,fichier,Ann,approved\n"))
    assert _terms(g.concepts[0]) == [("file", "en", UNKNOWN), ("fichier", "fr", UNKNOWN)]
    assert g.warnings == (
        "columns not understood and ignored: Reviewer, status (name statuses <lang>_status, e.g. fr_status)",
    )


def test_csv_three_columns_without_header_is_refused(tmp_path):
    with pytest.raises(InputError, match="no header row naming the languages"):
        read_glossary(_write(tmp_path, "x.csv", "a,b,c\nd,e,f\n"))


def test_csv_header_only_is_empty_glossary(tmp_path):
    with pytest.raises(InputError, match="empty glossary"):
        read_glossary(_write(tmp_path, "h.csv", "en,fr\n"))


def test_skos_collections_and_schemes_are_not_concepts_their_members_are(tmp_path):
    # no licensed public file at hand with untyped or ISO 25964 collections: written here
    ttl = """@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix isothes: <http://purl.org/iso25964/skos-thes#> .
@prefix ex: <http://example.org/> .
ex:scheme skos:prefLabel "Pump vocabulary"@en ; skos:hasTopConcept ex:pump .
ex:pump a skos:Concept ; skos:prefLabel "pump"@en, "pompe"@fr ; skos:inScheme ex:scheme .
ex:seal skos:prefLabel "seal"@en ; skos:inScheme ex:scheme .
ex:valve skos:prefLabel "valve"@en ; skos:topConceptOf ex:other .
ex:other skos:prefLabel "Other vocabulary"@en .
ex:parts skos:prefLabel "pump parts"@en ; skos:member ex:seal, ex:valve .
ex:ordered skos:prefLabel "parts in order"@en ; skos:memberList ( ex:seal ex:valve ) .
ex:group a isothes:ConceptGroup ; skos:prefLabel "seals and valves"@en .
ex:MyGroup rdfs:subClassOf skos:Collection .
ex:mine a ex:MyGroup ; skos:prefLabel "my group"@en .
ex:odd a skos:Concept ; skos:prefLabel "odd concept"@en ; skos:member ex:seal .
"""
    g = read_glossary(_write(tmp_path, "c.ttl", ttl))
    assert sorted(c.id for c in g.concepts) == [
        "http://example.org/odd", "http://example.org/pump", "http://example.org/seal", "http://example.org/valve"]
    assert {c.id: c.subject for c in g.concepts}["http://example.org/seal"] == "Pump vocabulary"


@pytest.mark.corpus
def test_unesco_collections_are_left_out_their_members_kept(corpus):
    import re

    path = corpus / "formats/skos/unesco_thesaurus_2013.ttl"
    text = path.read_text(encoding="utf-8")
    collections = set(re.findall(r"^unescothes:(\S+) a skos:Collection", text, re.M))
    members = set(re.findall(r"skos:member unescothes:(C\d+)", text))
    ids = {c.id.rsplit("/", 1)[-1] for c in _read_once(str(path)).concepts}
    assert len(collections) == 96 and not ids & collections
    assert members and members <= ids  # the concepts a collection groups are concepts
