"""The deterministic verdicts (termqa.pipeline.prejudge.Rules): each rule on its own, and the uncertain
cases that must go to the judge (outcome `unjudged` in counting mode), never to a guessed verdict.

Each test is about one rule, with a real French lemmatiser (lookup tables) and the records the
pipeline passes: a concept, the rendering the aligner found (its kind and glossary form), the reference.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from termqa.labels import (
    DEFAULT_PENALTIES, R_ACRONYM_KEPT, R_COPIED_WORD, R_DIVERGES_GLOSSARY, R_DIVERGES_MAJORITY, R_HAPAX,
    R_IN_KEPT_NAME, R_MISSING, R_NO_REFERENCE, R_SPELLING_PSEUDO,
)
from termqa.lang.lemma import get_lemmatiser
from termqa.model import CONFORMING, ERROR, UNJUDGED, Concept, Reference, Segment, Span, Term
from termqa.pipeline.align import TargetForm
from termqa.pipeline.prejudge import Rules

PUMP = Concept("c1", (Term("pump", "en", "preferred"), Term("pompe", "fr", "preferred"),
                      Term("pompe hydraulique", "fr", "admitted"), Term("moteur-pompe", "fr", "deprecated")))
FLOOD = Concept("c2", (Term("flood", "en", "preferred"),))  # no French term
DNT = Concept("c3", (Term("Modbus", "en", "preferred"), Term("Modbus", "fr", "preferred")), dnt=True)
CORONA = Concept("c4", (Term("coronavirus", "en", "preferred"), Term("coronavirus", "fr", "preferred")))


def _ref(text, provenance="glossary", concept="c1"):
    return Reference("d", concept, "pump", text, provenance)


def _form(text, status="preferred", kind="glossary"):
    return TargetForm((text,), text, kind, status)


@pytest.fixture(scope="module")
def rules():
    return Rules(lambda lang: get_lemmatiser(lang, mode="lookup"), DEFAULT_PENALTIES)


def _key(rules, text):
    return rules.reference_key("fr", text)[0]


def _decide(rules, *, kind, rendering=None, form=None, concept=PUMP, reference=None, chain_size=2, **kw):
    key = _key(rules, rendering) if rendering else None
    d, _spelling = rules.decide(kind=kind, form=form, rendering=rendering, rendering_key=key, concept=concept,
                                reference=reference, chain_size=chain_size, tgt_lang="fr-FR", **kw)
    return d


# --- conforming: the glossary's own terms ---------------------------------------------------------

def test_the_preferred_term_conforms(rules):
    d = _decide(rules, kind="glossary", rendering="pompe", form=_form("pompe"), reference=_ref("pompe"))
    assert (d.outcome, d.label, d.rule) == (CONFORMING, None, "glossary")


def test_an_admitted_term_conforms_and_says_it_is_admitted(rules):
    d = _decide(rules, kind="glossary", rendering="pompe hydraulique", form=_form("pompe hydraulique", "admitted"),
                reference=_ref("pompe"))
    assert (d.outcome, d.rule) == (CONFORMING, "glossary_admitted") and "(admitted)" in d.reason


def test_an_inflected_glossary_term_conforms(rules):
    d = _decide(rules, kind="glossary", rendering="pompes", form=_form("pompe"), reference=_ref("pompe"))
    assert (d.outcome, d.rule) == (CONFORMING, "glossary")


# --- errors the rules are sure of ------------------------------------------------------------------

def test_a_misspelt_glossary_term_is_a_spelling_error(rules):
    """Same loose key (accents aside), an accent missing: F, naming the glossary's spelling."""
    flow = Concept("c5", (Term("flow rate", "en", "preferred"), Term("débit", "fr", "preferred")))
    d = _decide(rules, kind="glossary", rendering="debit", form=_form("débit"), concept=flow,
                reference=_ref("débit", concept="c5"))
    assert (d.outcome, d.label, d.rule) == (ERROR, "F", "spelling") and "'débit'" in d.reason


def test_a_deprecated_term_is_a_forbidden_term_error(rules):
    d = _decide(rules, kind="forbidden", rendering="moteur-pompe", form=_form("moteur-pompe", "deprecated", "forbidden"),
                reference=_ref("pompe"))
    assert (d.outcome, d.label, d.rule) == (ERROR, "A1", "forbidden_term") and "deprecated" in d.reason


def test_a_term_left_in_the_source_language_is_an_untranslated_error(rules):
    seg = Segment("d", "u1", "", "Start the pump now.", "Démarrez la pump maintenant.", "en", "fr")
    d = _decide(rules, kind="untranslated", rendering="pump", reference=_ref("pompe"), segment=seg,
                source_span=Span(10, 14), target_span=Span(12, 16))
    assert (d.outcome, d.label, d.rule) == (ERROR, "A4", "untranslated")


def test_a_do_not_translate_item_kept_conforms(rules):
    d = _decide(rules, kind="dnt", rendering="Modbus", concept=DNT, reference=_ref("Modbus", concept="c3"))
    assert (d.outcome, d.rule) == (CONFORMING, "dnt_kept")


def test_a_do_not_translate_item_altered_is_an_a5_error(rules):
    d = _decide(rules, kind="dnt_altered", rendering="ModBus", concept=DNT, reference=_ref("Modbus", concept="c3"))
    assert (d.outcome, d.label, d.rule) == (ERROR, "A5", "dnt_altered")


def test_a_do_not_translate_item_translated_is_an_a5_error(rules):
    d = _decide(rules, kind="glossary", rendering="Modbus", form=_form("Modbus"), concept=DNT,
                reference=_ref("Modbus", concept="c3"))
    assert (d.outcome, d.label, d.rule) == (ERROR, "A5", "dnt_translated")


def test_a_do_not_translate_item_missing_is_an_a5_error(rules):
    d = _decide(rules, kind=None, concept=DNT, reference=_ref("Modbus", concept="c3"))
    assert (d.outcome, d.label, d.rule) == (ERROR, "A5", "dnt_missing")


# --- references the document gives (no glossary term matched) --------------------------------------

def test_matching_a_generated_reference_conforms_even_once(rules):
    d = _decide(rules, kind="established", rendering="pompe", reference=_ref("pompe", "generated"), chain_size=1)
    assert (d.outcome, d.rule) == (CONFORMING, "reference")


def test_matching_the_majority_rendering_conforms(rules):
    d = _decide(rules, kind="established", rendering="pompe", concept=FLOOD, reference=_ref("pompe", "pseudo"))
    assert (d.outcome, d.rule) == (CONFORMING, "pseudo_reference")


# --- uncertain: these go to the judge, never to a guessed verdict ----------------------------------

def _unjudged(d, reason):
    assert (d.outcome, d.label, d.rule, d.reason) == (UNJUDGED, None, None, reason)


def test_no_rendering_found_goes_to_the_judge(rules):
    _unjudged(_decide(rules, kind=None, reference=_ref("pompe")), R_MISSING)


def test_no_rendering_and_no_reference_goes_to_the_judge(rules):
    _unjudged(_decide(rules, kind=None, concept=FLOOD, reference=None, chain_size=2), R_NO_REFERENCE)


def test_a_single_occurrence_without_reference_goes_to_the_judge(rules):
    _unjudged(_decide(rules, kind=None, concept=FLOOD, reference=None, chain_size=1), R_HAPAX)


def test_a_rendering_other_than_the_glossary_term_goes_to_the_judge(rules):
    """The document's own rendering against a glossary reference: a synonym or an error, rules cannot tell."""
    _unjudged(_decide(rules, kind="established", rendering="circulateur", reference=_ref("pompe")),
              R_DIVERGES_GLOSSARY)


def test_a_rendering_other_than_the_majority_goes_to_the_judge(rules):
    _unjudged(_decide(rules, kind="established", rendering="circulateur", concept=FLOOD,
                      reference=_ref("pompe", "pseudo")), R_DIVERGES_MAJORITY)


def test_a_single_occurrence_with_only_a_document_reference_goes_to_the_judge(rules):
    """Matching a pseudo-reference made from this very occurrence would be circular."""
    _unjudged(_decide(rules, kind="established", rendering="pompe", concept=FLOOD,
                      reference=_ref("pompe", "pseudo"), chain_size=1), R_HAPAX)


def test_the_majority_rendering_misspelt_goes_to_the_judge(rules):
    _unjudged(_decide(rules, kind="established", rendering="debit", concept=FLOOD,
                      reference=_ref("débit", "pseudo")), R_SPELLING_PSEUDO)


def test_a_source_word_that_is_also_a_target_word_goes_to_the_judge(rules):
    _unjudged(_decide(rules, kind="copied_word", rendering="influenza", reference=_ref("grippe")), R_COPIED_WORD)


def test_an_abbreviation_kept_where_the_glossary_gives_only_a_full_form_goes_to_the_judge(rules):
    _unjudged(_decide(rules, kind="untranslated", rendering="CoV", concept=CORONA,
                      reference=_ref("coronavirus", concept="c4")), R_ACRONYM_KEPT)


def test_a_term_inside_a_name_kept_in_the_source_language_goes_to_the_judge(rules):
    seg = Segment("d", "u1", "", "See the Centre for Pump Safety.", "Voir le Centre for Pump Safety.", "en", "fr")
    s0 = seg.source.index("Pump")
    t0 = seg.target.index("Pump")
    _unjudged(_decide(rules, kind="untranslated", rendering="Pump", reference=_ref("pompe"), segment=seg,
                      source_span=Span(s0, s0 + 4), target_span=Span(t0, t0 + 4)), R_IN_KEPT_NAME)


# --- what a verdict built from the rules holds ------------------------------------------------------

def test_a_rule_verdict_is_marked_as_the_rules_and_priced_from_the_table(rules):
    f = rules.fields(kind="forbidden", form=_form("moteur-pompe", "deprecated", "forbidden"), rendering="moteur-pompe",
                     rendering_key=None, concept=PUMP, reference=_ref("pompe"), chain_size=2, tgt_lang="fr")
    assert (f["outcome"], f["label"], f["judge"], f["extra"]) == (ERROR, "A1", "rule", (("rule", "forbidden_term"),))
    assert f["penalty"] == DEFAULT_PENALTIES["A1"]


def test_an_unjudged_verdict_has_no_penalty_and_no_judge(rules):
    f = rules.fields(kind=None, form=None, rendering=None, rendering_key=None, concept=PUMP, reference=_ref("pompe"),
                     chain_size=2, tgt_lang="fr")
    assert (f["outcome"], f["penalty"], f["judge"], f["extra"]) == (UNJUDGED, None, None, ())


def test_every_rule_is_declared_once_with_its_label_its_type_and_note():
    """The rules' ids, labels, ITS types and note sentences come from one enum: each error rule scores under
    its declared label, has an ITS type and a note sentence, and results keep its id as a plain string."""
    from termqa import labels
    from termqa.labels import Rule
    from termqa.pipeline import prejudge

    errors = [r for r in Rule if r.label]
    assert {r.value for r in errors} == set(labels.RULE_NAMES) == set(labels.ITS_TYPES_BY_RULE)
    for r in errors:
        assert r.label in labels.ERROR_CODES and r.its and r.note in labels.NOTE_TEXT
    assert Rule.SPELLING == "spelling" and {"spelling": 1}[Rule.SPELLING] == 1 and Rule("spelling") is Rule.SPELLING
    src = Path(prejudge.__file__).read_text(encoding="utf-8")
    assert not [r.value for r in Rule if f'"{r.value}")' in src]  # no rule id written out as a literal
    d = prejudge.decide(kind="forbidden", rendering="x", concept=PUMP, reference=None, form=None,
                        chain_size=2, same_as_reference=False, spelling=None)
    assert (d.rule, d.label) == (Rule.FORBIDDEN_TERM, "A1")
    assert prejudge.verdict_fields(d, labels.DEFAULT_PENALTIES)["extra"] == (("rule", "forbidden_term"),)
    assert type(prejudge.verdict_fields(d, labels.DEFAULT_PENALTIES)["extra"][0][1]) is str
