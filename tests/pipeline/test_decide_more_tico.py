"""Decide more without a model, only where a rule is certain (issue #35, TICO-19 part): the rules measured on
TICO-19 in seven target languages, each with short sentences of our own and, where the corpus is there, the
real TICO-19 segments that showed the case (read from ../shared; skipped without it)."""
from __future__ import annotations

import pytest
from lxml import etree

from termqa.labels import R_INFLECTED
from tests.conftest import CORPUS
from tests.helpers import outcomes, run

H = ["concept_id", "en", "fr"]


def _tico_pairs(tmx: str, *needles: str) -> list[tuple[str, str]]:
    """The (source, target) pairs of a TICO-19 translation memory whose source holds one of `needles`."""
    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    base = CORPUS / "eval" / ("tico19-enfr" if tmx.endswith("en-fr.tmx") else "tico19-multi") / "data" / "TM"
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    out = []
    for tu in etree.parse(str(base / tmx), parser).iter("tu"):
        segs = ["".join(s.itertext()) for s in tu.iter("seg")]
        if len(segs) == 2 and any(n in segs[0] for n in needles):
            out.append((segs[0], segs[1]))
    assert out, f"no unit of {tmx} holds {needles}"
    return out


# --- a form the lexicon lists under the glossary word's lemma is that word -----------------------------

def test_plural_of_a_participle_the_glossary_writes_is_conforming(tmp_path):
    # the table's one lemma of "infectées" is "infecter"; the lexicon also lists it under "infecté"
    r = run(tmp_path, [("Isolate the infected people.", "Isolez les personnes infectées.")],
            H, [["c1", "infected", "infecté"]])
    assert outcomes(r) == [("infected", "infectées", "conforming", None)]


def test_a_form_of_another_word_of_the_same_verb_is_not(tmp_path):
    # "infectait" (imperfect) is listed under "infecter" only: not the glossary's participle "infecté"
    r = run(tmp_path, [("The virus infected the cell.", "Le virus infectait la cellule.")],
            H, [["c1", "infected", "infecté"]])
    assert [o["outcome"] for o in r["occurrences"]] == ["unjudged"]


def test_tico19_infected_people_conform(tmp_path):
    pairs = _tico_pairs("all.en-fr.tmx", "isolate any infected people", "number of infected students")
    r = run(tmp_path, pairs, H, [["418", "infected", "infecté"]])
    got = {(o["target_text"], o["outcome"]) for o in r["occurrences"]}
    assert got == {("infectées", "conforming"), ("infectés", "conforming")}


# --- shown spans cover the rendering: closest candidates ------------------------------------------------

def _shown(r, source_text):
    return [o["target_text"] for o in r["occurrences"] if o["source_text"] == source_text]


def test_closest_candidate_steps_over_an_inserted_modifier(tmp_path):
    # "common" stands inside the rendering of "respiratory diseases": the span is not cut short of its last words
    r = run(tmp_path, [("It resembles other common respiratory diseases.",
                        "Elle ressemble à d'autres maladies communes des voies respiratoires.")],
            H, [["c1", "respiratory diseases", "maladies respiratoires"]])
    assert _shown(r, "respiratory diseases") == ["maladies communes des voies respiratoires"]


def test_closest_candidate_never_spans_a_conjunction(tmp_path):
    # "facial" belongs to "écran facial" (face shield): "facial ou masque" renders nothing; the head is shown
    r = run(tmp_path, [("Wear a face shield or face mask.", "Portez un écran facial ou masque de protection.")],
            H, [["c1", "face mask", "masque facial"]])
    assert _shown(r, "face mask") == ["masque"]


def test_tico19_closest_spans(tmp_path):
    pairs = _tico_pairs("all.en-fr.tmx", "a face shield or face mask", "other common upper respiratory diseases")
    r = run(tmp_path, pairs, H, [["105", "face mask", "masque facial"],
                                 ["221", "respiratory diseases", "maladie respiratoire"]])
    assert _shown(r, "face mask") == ["masque"]
    assert _shown(r, "respiratory diseases") == ["maladies communes des voies respiratoires"]


# --- clitics written onto the word: the same word -------------------------------------------------------

def test_arabic_proclitics_on_the_term(tmp_path):
    # "بكوفيد" is "with COVID", "وفيروس" "and virus": the glossary's words with a preposition or "and" joined on
    g = [["c1", "COVID-19", "كوفيد 19"], ["v", "virus", "فيروس"], ["r", "research", "حث"]]
    r = run(tmp_path, [("People with COVID-19 and the virus.", "الناس المصابون بكوفيد-19 وفيروس."),
                       ("Research matters.", "البحث مهم.")], ["concept_id", "en", "ar"], g, tgt="ar")
    got = {(o["source_text"], o["target_text"], o["outcome"]) for o in r["occurrences"]}
    assert ("COVID-19", "بكوفيد-19", "conforming") in got and ("virus", "وفيروس", "conforming") in got
    # a base of two letters is no word with a clitic: "بحث" (research) is not "ب" + "حث"
    assert not [o for o in r["occurrences"] if o["concept_id"] == "r" and o["outcome"] == "conforming"]


def test_a_number_ending_a_sentence_is_the_terms_number(tmp_path):
    # Arabic keeps the full stop on "19." (as German does for ordinals): the span shows "كوفيد-19" without it
    r = run(tmp_path, [("The disease is COVID-19.", "المرض هو كوفيد-19.")], ["concept_id", "en", "ar"],
            [["c1", "COVID-19", "كوفيد 19"]], tgt="ar")
    assert outcomes(r) == [("COVID-19", "كوفيد-19", "conforming", None)]


def test_spanish_pronouns_after_the_infinitive(tmp_path):
    g = [["t", "touching", "tocar"], ["n", "touch", "toque"]]
    r = run(tmp_path, [("Avoid touching your face.", "Evite tocarse la cara."),
                       ("Avoid touching it.", "Evite tocándolo."),
                       ("Do not touch it.", "No debe tocarlo.")], ["concept_id", "en", "es"], g, tgt="es")
    got = [(o["target_text"], o["outcome"]) for o in r["occurrences"] if o["concept_id"] == "t"]
    # "tocar" is an infinitive: the entry is the verb, so "touch" in "Do not touch it" is its occurrence too
    assert got == [("tocarse", "conforming"), ("tocándolo", "conforming"), ("tocarlo", "conforming")]
    # the glossary's noun "toque" is not the verb "tocar" with a pronoun
    assert all(o["outcome"] != "conforming" for o in r["occurrences"] if o["concept_id"] == "n")


def test_tico19_arabic_and_spanish_clitics(tmp_path):
    pairs = _tico_pairs("all.en-ar.tmx", "Three major risk factors for COVID-19", "exposure to COVID-19.")
    r = run(tmp_path, pairs, ["concept_id", "en", "ar"], [["67", "COVID-19", "كوفيد 19"]], tgt="ar")
    got = {(o["target_text"], o["outcome"]) for o in r["occurrences"]}
    assert ("لكوفيد-19", "conforming") in got and {x[1] for x in got} == {"conforming"}
    pairs = _tico_pairs("all.en-es-LA.tmx", "avoid touching your face")
    r = run(tmp_path, pairs, ["concept_id", "en", "es"], [["273", "touching", "tocar"]], tgt="es")
    assert ("tocarse", "conforming") in {(o["target_text"], o["outcome"]) for o in r["occurrences"]}


# --- Indonesian affixes derive: a derived word never conforms -----------------------------------------

def test_indonesian_derived_verb_is_not_the_noun(tmp_path):
    # "bergejala" (to have symptoms) is listed under "gejala" (symptom) by simplemma: a derived word, left
    # for review; "gejalanya" (its symptoms) and "gejala-gejala" are the noun itself
    g = [["s", "symptoms", "gejala"]]
    r = run(tmp_path, [("People without symptoms.", "Orang yang tidak bergejala."),
                       ("Its symptoms are mild.", "Gejalanya ringan."),
                       ("The symptoms vary.", "Gejala-gejala bervariasi.")], ["concept_id", "en", "id"], g, tgt="id")
    assert [(o["target_text"], o["outcome"]) for o in r["occurrences"]] == [
        ("bergejala", "unjudged"), ("Gejalanya", "conforming"), ("Gejala", "conforming")]
    assert r["occurrences"][0]["reason"].startswith("a word derived from the glossary term")


# --- shown spans cover the rendering: mined renderings ------------------------------------------------

_REPORTED = [("The committee on health reported without amendment.", "Le comité de la santé fait rapport sans amendement."),
             ("Bill C-12 was reported without amendment yesterday.",
              "Le projet de loi C-12 a fait l’objet d’un rapport sans amendement hier."),
             ("The finance committee reported without amendment on Monday.",
              "Le comité des finances a fait rapport sans amendement lundi."),
             ("Mr. Speaker, the housing bill is late.", "Monsieur le Président, le projet de loi sur le logement est en retard."),
             ("Mr. Speaker, the farm bill is late.", "Monsieur le Président, le projet de loi sur l'agriculture est en retard."),
             ("The water bill passed.", "Le projet de loi sur l'eau a été adopté.")]


def test_a_mined_rendering_leaves_the_neighbours_rendering_out(tmp_path):
    # "reported" stands beside the term every time: "rapport" renders it, not "without amendment"; the term's
    # function word "without" has its own, "sans", inside the span
    r = run(tmp_path, _REPORTED, H, [["wa", "without amendment", ""]], source_only_glossary=True)
    assert [o["target_text"] for o in r["occurrences"]] == ["sans amendement"] * 3


# --- a glossary term's notation: optional words, endings in parentheses --------------------------------

def test_written_forms_of_a_glossary_term():
    from termqa.pipeline.align import written_forms

    assert written_forms("contagioso(a)") == ["contagioso(a)", "contagioso", "contagiosa"]
    assert written_forms("infecté(e)") == ["infecté(e)", "infecté", "infectée"]
    assert written_forms("подтвержденные случаи [заболевания]") == [
        "подтвержденные случаи [заболевания]", "подтвержденные случаи"]
    assert written_forms("SARS (síndrome respiratória aguda grave)") == ["SARS (síndrome respiratória aguda grave)"]


def test_tico19_gender_ending_in_parentheses(tmp_path):
    pairs = _tico_pairs("all.en-pt-BR.tmx", "contagious")
    r = run(tmp_path, pairs, ["concept_id", "en", "pt"], [["1", "contagious", "contagioso(a)"]], tgt="pt-BR")
    got = {(o["target_text"], o["outcome"]) for o in r["occurrences"] if o["target_text"]}
    assert ("contagiosa", "conforming") in got and ("contagioso", "conforming") in got


def test_closest_candidate_steps_over_no_character_of_a_spaceless_script(tmp_path):
    # Chinese text is matched character by character: "流感季节进行" is "流感" and three other words' characters
    r = run(tmp_path, [("The surveillance runs each influenza season.", "在每个流感季节进行病毒学监测。")],
            ["concept_id", "en", "zh"], [["c1", "influenza", "流行性感冒"]], tgt="zh")
    assert _shown(r, "influenza") != ["流感季节进行"]


def test_full_name_without_the_abbreviation_the_glossary_adds(tmp_path):
    assert "Organisasi Kesehatan Dunia" in __import__("termqa.pipeline.align", fromlist=["x"]).written_forms(
        "Organisasi Kesehatan Dunia (WHO)")
    r = run(tmp_path, [("WHO issued a warning.", "Organisasi Kesehatan Dunia mengeluarkan peringatan."),
                       ("WHO issued another warning.", "WHO mengeluarkan peringatan lain.")],
            ["concept_id", "en", "id"], [["who", "WHO", "Organisasi Kesehatan Dunia (WHO)"]], tgt="id")
    got = [(o["target_text"], o["outcome"]) for o in r["occurrences"]]
    # the full name conforms; the abbreviation kept alone is still a question
    assert got[0] == ("Organisasi Kesehatan Dunia", "conforming") and got[1][1] == "unjudged"


def test_no_head_word_among_characters(tmp_path):
    # "病毒传播" (virus spreads) is matched character by character: its last character is no head to prefer
    r = run(tmp_path, [("The virus spreads among people.", "病毒在人群中传播。")],
            ["concept_id", "en", "zh"], [["c1", "virus spreads", "病毒传播"]], tgt="zh")
    assert _shown(r, "virus spreads") != ["播"]


def test_indonesian_word_said_once_for_the_glossarys_word_said_twice(tmp_path):
    # the lexicon lists "paru-paru" (lungs) under "paru", and keeps "mata-mata" (a spy) apart from "mata" (eye)
    from termqa.pipeline.align import single_reduplications

    assert single_reduplications("paru-paru", "id") == ["paru-paru", "paru"]
    assert single_reduplications("mata-mata", "id") == ["mata-mata"]
    r = run(tmp_path, [("Lung cancer is common.", "Kanker paru sering terjadi.")], ["concept_id", "en", "id"],
            [["lung", "lung", "paru-paru"]], tgt="id")
    assert outcomes(r) == [("Lung", "paru", "conforming", None)]


# --- the infinitive of the verb whose gerund the glossary writes is that verb --------------------------

def test_infinitive_of_the_glossary_gerund_conforms(tmp_path):
    # "sans toucher" renders "without touching"; the glossary writes the present participle "touchant"
    r = run(tmp_path, [("Greet people without touching them.", "Saluez les gens sans les toucher.")],
            H, [["c1", "touching", "touchant"]])
    assert outcomes(r) == [("touching", "toucher", "conforming", None)]


def test_infinitive_of_the_glossary_gerund_conforms_in_portuguese(tmp_path):
    r = run(tmp_path, [("Greet people without touching them.", "Cumprimente as pessoas sem tocar nelas.")],
            ["concept_id", "en", "pt"], [["c1", "touching", "tocando"]], tgt="pt-BR")
    assert outcomes(r) == [("touching", "tocar", "conforming", None)]


def test_another_form_of_the_gerund_verb_is_not_conforming(tmp_path):
    # only the infinitive: "touchez" stays for review
    r = run(tmp_path, [("Greet people without touching them.", "Saluez les gens, ne les touchez pas.")],
            H, [["c1", "touching", "touchant"]])
    assert [o["outcome"] for o in r["occurrences"]] == ["unjudged"]


def test_a_verb_reading_of_a_noun_term_is_still_no_reading_of_it(tmp_path):
    # "voie" is also a form of "voir" (que je voie); "voient" is no form of the noun "voie"
    r = run(tmp_path, [("They see it.", "Ils le voient.")], H, [["c1", "see", "voie"]])
    assert [o["outcome"] for o in r["occurrences"]] == ["unjudged"]
    r = run(tmp_path, [("They see the road.", "Ils voient la voie.")], H, [["c1", "road", "voie"]])
    assert outcomes(r) == [("road", "voie", "conforming", None)]


def test_tico19_without_touching_conforms(tmp_path):
    pairs = _tico_pairs("all.en-fr.tmx", "Greet people without touching them")
    r = run(tmp_path, pairs, H, [["1", "touching", "touchant"]])
    assert {(o["target_text"], o["outcome"]) for o in r["occurrences"]} == {("toucher", "conforming")}


# --- a glossary verb phrase "auxiliary + participle" rendered by the participle alone -------------------

def test_participle_without_the_glossary_auxiliary_is_an_inflected_form(tmp_path):
    r = run(tmp_path, [("Most individuals who are infected do not transmit it.",
                        "La plupart des individus infectés ne le transmettent pas.")],
            H, [["c1", "are infected", "être infecté"]])
    assert [(o["target_text"], o["outcome"], o["reason"]) for o in r["occurrences"]] == [
        ("infectés", "unjudged", R_INFLECTED)]


def test_participle_with_the_auxiliary_apart_shows_the_auxiliary(tmp_path):
    r = run(tmp_path, [("Most individuals who are infected do not transmit it.",
                        "La plupart des individus qui ne sont pas infectés le transmettent.")],
            H, [["c1", "are infected", "être infecté"]])
    assert [(o["target_text"], o["outcome"]) for o in r["occurrences"]] == [("sont pas infectés", "unjudged")]


def test_participle_with_the_auxiliary_next_to_it_conforms(tmp_path):
    r = run(tmp_path, [("Most individuals who are infected do not transmit it.",
                        "La plupart des individus qui sont infectés le transmettent.")],
            H, [["c1", "are infected", "être infecté"]])
    assert outcomes(r) == [("are infected", "sont infectés", "conforming", None)]


def test_participle_without_the_auxiliary_in_portuguese(tmp_path):
    r = run(tmp_path, [("Most individuals who are infected do not transmit it.",
                        "A maioria das pessoas infetadas não o transmite.")],
            ["concept_id", "en", "pt"], [["c1", "are infected", "ser infetado"]], tgt="pt-BR")
    assert [(o["target_text"], o["outcome"], o["reason"]) for o in r["occurrences"]] == [
        ("infetadas", "unjudged", R_INFLECTED)]
