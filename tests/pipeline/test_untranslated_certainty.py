""""Left untranslated" (A4) only where it is certain: a copy written as the glossary's own term writes it,
or a copy the target language's word list cannot judge, goes to the judge instead."""
from __future__ import annotations


from termqa.config import Settings
from termqa.labels import R_ACRONYM_KEPT, R_COPY_UNKNOWN, R_SHORT_FORM_KEPT
from termqa.model import Concept, Reference, Term
from termqa.pipeline.prejudge import contains_form, copy_is_foreign, decide, one_verdict_per_copy
from termqa.model import Occurrence, Span, Verdict


def test_a_glossary_term_can_hold_the_kept_form_as_its_short_form():
    assert contains_form("核糖核酸（RNA）", "RNA") and contains_form("获得性免疫缺陷综合征 (AIDS)", "aids")
    assert contains_form("virus SARS-CoV-2", "SARS-CoV-2")
    assert not contains_form("RNAse", "RNA") and not contains_form("mRNA", "RNA")  # inside a Latin word
    assert not contains_form("RNA", "RNA")  # the same text is the glossary term itself, not a short form


FRENCH = {"la", "pompe", "est", "arrêtée", "avant", "le", "nettoyage", "du", "de"}


def test_a_latin_copy_in_a_text_of_another_script_is_certainly_foreign():
    target = "在中国，pandemic 的估计值下降到 0.7%。"
    t0 = target.index("pandemic")
    assert copy_is_foreign("pandemic", target, t0, t0 + 8, lambda w: False)


def test_a_word_list_that_knows_the_text_makes_an_unknown_copy_foreign():
    target = "la pompe est arrêtée avant le nettoyage du filter de la pompe"
    t0 = target.index("filter")
    assert copy_is_foreign("filter", target, t0, t0 + 6, lambda w: w in FRENCH)


def test_a_thin_word_list_says_nothing_about_a_copy():
    # Indonesian: spaCy's table knows about 60 % of running text; "pneumonia" is also Indonesian
    target = "Komplikasi serius mencakup pneumonia, sindrom gawat napas akut, dan gagal organ majemuk."
    t0 = target.index("pneumonia")
    known = {"serius", "dan", "organ"}
    assert not copy_is_foreign("pneumonia", target, t0, t0 + 9, lambda w: w in known)
    # a short segment: the list must know every other word of it
    assert copy_is_foreign("strainer", "Nettoyez le strainer.", 12, 20, lambda w: w in {"Nettoyez", "le"})
    assert not copy_is_foreign("strainer", "Nettoyez le strainer.", 12, 20, lambda w: w == "le")


def _concept(term: str, lang: str = "zh") -> Concept:
    return Concept("c1", (Term("RNA", "en", "preferred"), Term(term, lang, "preferred")))


def test_the_decision_for_each_case():
    ref = Reference("d", "c1", "rna", "核糖核酸（RNA）", "glossary")
    common = dict(kind="untranslated", rendering="RNA", concept=_concept("核糖核酸（RNA）"), reference=ref,
                  form=None, chain_size=3, same_as_reference=False, spelling=None)
    d = decide(**common, target_terms=["核糖核酸（RNA）"])
    assert (d.outcome, d.reason) == ("unjudged", R_SHORT_FORM_KEPT)
    ref = Reference("d", "c1", "pneumonia", "radang paru-paru", "glossary")
    common.update(rendering="pneumonia", concept=_concept("radang paru-paru", "id"), reference=ref)
    d = decide(**common, target_terms=["radang paru-paru"], foreign=False)
    assert (d.outcome, d.reason) == ("unjudged", R_COPY_UNKNOWN)
    d = decide(**common, target_terms=["radang paru-paru"], foreign=True)
    assert (d.outcome, d.label) == ("error", "A4")


def _v(unit, text, outcome, label, reason):
    o = Occurrence(doc_id="d", unit_id=unit, seg_id="", segment_index=0, concept_id="c1", source_form="sputum",
                   source_text="sputum", source_span=Span(0, 6), target_text=text, target_span=Span(0, 6),
                   variation="none", chain_size=2, is_first_mention=unit == "1")
    return Verdict(o, outcome, label, 4.0 if label else None, reason, judge="rule" if label else None)


def test_a_copy_uncertain_in_one_place_is_uncertain_in_all():
    """"sputum" kept twice in one document: certain in a segment the word list knows, not in another. One
    problem, one verdict: the judge decides both."""
    a4 = _v("1", "sputum", "error", "A4", "left untranslated; the glossary gives 'dahak'")
    unknown = _v("2", "Sputum", "unjudged", None, R_COPY_UNKNOWN)
    out = one_verdict_per_copy([a4, unknown])
    assert [(v.outcome, v.label, v.reason, v.penalty) for v in out] == [("unjudged", None, R_COPY_UNKNOWN, None)] * 2
    other = _v("3", "sputa", "error", "A4", "left untranslated; the glossary gives 'dahak'")
    assert one_verdict_per_copy([other, unknown])[0] is other  # another rendering: its own problem
    # the word list vouched for most places: the kept word is untranslated in all of them
    most = [_v(str(n), "sputum", "error", "A4", "left untranslated; the glossary gives 'dahak'") for n in range(3)]
    assert [(v.outcome, v.label) for v in one_verdict_per_copy([*most, unknown])] == [("error", "A4")] * 4
    # an abbreviation's writing is no question of the word list: to the judge everywhere
    kept = _v("5", "SPUTUM", "unjudged", None, R_ACRONYM_KEPT)
    assert {v.reason for v in one_verdict_per_copy([*most, kept])} == {R_ACRONYM_KEPT}


def test_indonesian_medical_words_kept_are_not_certain_errors(corpus):
    """TICO-19 en-id: before, 100 occurrences were A4 "left untranslated", 99 of them Indonesian words the
    glossary would write otherwise (pneumonia x48, influenza x35, prognosis, sputum, sepsis)."""
    from termqa import check

    base = corpus / "eval" / "tico19-multi" / "data"
    res = check([str(base / "TM" / "all.en-id.tmx")],
                [str(base / "terminologies" / "f_en-id_ID.csv"), str(base / "terminologies" / "g_en_id.csv")],
                Settings(lemmatiser="lookup")).to_dict()
    assert res["summary"]["labels"].get("A4", 0) <= 1
    assert res["summary"]["unjudged_reasons"].get(R_COPY_UNKNOWN, 0) >= 90
