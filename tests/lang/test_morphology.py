"""Morphology beyond spaCy's tables (issue #35): simplemma's dictionaries give lemmas (same lemma: the
glossary term), Snowball stems say "inflected form" (left for review, never conforming), a short suffix
table says "derived form"; diacritics that make case forms are not misspellings; casing follows the
language."""
from __future__ import annotations

import pytest

from termqa.labels import R_DERIVED, R_IN_KEPT_NAME, R_INFLECTED
from termqa.lang.derivation import compound_of, derived_from
from termqa.lang.fold import lower
from termqa.lang.lemma import get_lemmatiser
from termqa.lang.normalise import marks_inflect, spelling_issue
from tests.helpers import run

H = ["id", "en", "{tgt}"]


def _keys(lang, text):
    return [t.key for t in get_lemmatiser(lang, mode="lookup").tokenize(text) if not t.punct]


@pytest.mark.parametrize("lang, forms", [
    ("ar", ["متعقب", "المتعقبات", "بالمتعقبات", "متعقبات"]),  # the tracker(s), with the article, "with"
    ("fa", ["کاربر", "کاربران"]),  # user, users
    ("fa", ["مشتری", "مشتریان"]),  # customer, customers
    ("de", ["Space", "Spaces"]),  # a loan word's plural
    ("cs", ["přístup", "přístupů"]),
    ("tr", ["Tanımlayıcı", "TANIMLAYICILAR"]),  # capital I is ı's in Turkish
])
def test_dictionary_lemmas_join_the_forms_of_a_word(lang, forms):
    assert len({tuple(_keys(lang, f)) for f in forms}) == 1, [_keys(lang, f) for f in forms]


def test_dictionary_lemmas_keep_different_words_apart():
    # conforming precision: a dictionary lemma is one simplemma lists for that very form, never a guess
    assert _keys("fr", "climat") != _keys("fr", "climatiques")
    assert _keys("de", "Strasse") == _keys("de", "Straße")  # "Strasse" is not the dictionary's "Strass"
    assert _keys("ar", "محركات البحث") == _keys("ar", "محرك بحث")


def test_signature_names_the_libraries():
    name = get_lemmatiser("ar", mode="lookup").name
    assert "simplemma-" in name and "(dictionary)" in name and "snowball:arabic" in name and "article rules" in name


def test_turkish_and_greek_casing():
    assert lower("DİĞER TANIMLAYICILAR", "tr") == "diğer tanımlayıcılar"
    assert lower("DİĞER", "en") != "diğer"  # the root locale makes i + a combining dot
    tr = get_lemmatiser("tr", mode="lookup")
    assert spelling_issue(tr.tokenize("TANIMLAYICI"), tr.tokenize("Tanımlayıcı"), "tr") is None
    assert spelling_issue(tr.tokenize("TANIM"), tr.tokenize("tanım"), "tr") is None
    el = get_lemmatiser("el", mode="lookup")
    assert spelling_issue(el.tokenize("ΚΌΣΜΟΣ"), el.tokenize("κόσμος"), "el") is None
    de = get_lemmatiser("de", mode="lookup")
    assert spelling_issue(de.tokenize("GRÖSSE"), de.tokenize("Größe"), "de") is None


def test_czech_length_marks_in_an_ending_make_case_forms():
    cs = get_lemmatiser("cs", mode="lookup")
    t = cs.tokenize
    assert marks_inflect(t("anotaci"), t("anotací"), "cs")  # dative/locative beside instrumental
    assert not marks_inflect(t("anótace"), t("anotace"), "cs")  # a mark inside the word: spelling
    assert spelling_issue(t("přístupů"), t("přístup"), "cs") is None  # a form the dictionary lists
    assert spelling_issue(t("přistup"), t("přístup"), "cs") is not None  # a missing length mark in the stem


def test_derivation_table():
    assert derived_from("budgetaire", "budget", "fr") and derived_from("climatiques", "climat", "fr")
    assert derived_from("pandemique", "pandemie", "fr") and derived_from("вирусный", "вирус", "ru")
    assert not derived_from("budget", "budget", "fr") and not derived_from("eaux", "eau", "fr")
    # nouns of action and verbs made from the noun
    assert derived_from("facturation", "facture", "fr") and derived_from("экспортировать", "экспорт", "ru")
    assert not derived_from("facturation", "facture", "de")


def test_german_compounds_hold_the_term():
    assert compound_of("rechnungsvorlage", "rechnung", "de") and compound_of("restbudget", "budget", "de")
    assert compound_of("benutzereinstellungen", "einstellungen", "de") and compound_of("monatsbudgets", "budget", "de")
    assert not compound_of("budgets", "budget", "de")  # a plural, no compound
    assert not compound_of("rechnungen", "rechnung", "de")  # a plural ending is no second part
    assert not compound_of("restbudget", "budget", "fr")  # French writes no closed compounds


def test_a_german_compound_is_an_inflected_form_to_review(tmp_path):
    got = _one(tmp_path, "de", [("Invoice template", "Rechnungsvorlage"),
                                ("With remaining budget", "Inkl. Restbudget")],
               [["c1", "invoice", "Rechnung"], ["c2", "budget", "Budget"]])
    assert [(g[0], g[1], g[3]) for g in got] == [("Rechnungsvorlage", "unjudged", R_INFLECTED),
                                                   ("Restbudget", "unjudged", R_INFLECTED)]


def test_a_loan_word_inside_a_name_kept_in_english_is_not_the_term(tmp_path):
    got = _one(tmp_path, "de", [("sends space invaders", "sendet Space Invaders"),
                                ("In spaces %(a)s and %(b)s.", "In den Spaces %(a)s und %(b)s."),
                                ("Forget this space", "Diesen Space vergessen")],
               [["c1", "Space", "Space"]])
    assert [(g[0], g[1], g[3]) for g in got] == [
        ("Space", "unjudged", R_IN_KEPT_NAME), ("Spaces", "conforming", got[1][3]), ("Space", "conforming", got[2][3])]


def _one(tmp_path, tgt, pairs, rows):
    r = run(tmp_path, pairs, ["id", "en", tgt], rows, tgt=tgt)
    return [(o["target_text"], o["outcome"], o["label"], o["reason"]) for o in r["occurrences"]]


def test_arabic_plurals_conform(tmp_path):
    got = _one(tmp_path, "ar", [("Block trackers.", "حظر المتعقبات."),
                                ("Use search engines.", "استخدم محركات البحث.")],
               [["c1", "tracker", "متعقب"], ["c2", "search engine", "محرك بحث"]])
    assert [(g[0], g[1]) for g in got] == [("المتعقبات", "conforming"), ("محركات البحث", "conforming")]


def test_persian_plurals_conform(tmp_path):
    got = _one(tmp_path, "fa", [("Manage users.", "مدیریت کاربران."), ("New customers.", "مشتریان جدید.")],
               [["c1", "user", "کاربر"], ["c2", "customer", "مشتری"]])
    assert [(g[0], g[1]) for g in got] == [("کاربران", "conforming"), ("مشتریان", "conforming")]


def test_german_plural_of_a_loan_word_is_not_left_untranslated(tmp_path):
    got = _one(tmp_path, "de", [("Create new Spaces.", "Erstellen Sie neue Spaces.")],
               [["c1", "Space", "Space"]])
    assert got[0][0] == "Spaces" and got[0][2] != "A4" and got[0][1] in ("conforming", "unjudged")


def test_czech_case_forms(tmp_path):
    got = _one(tmp_path, "cs", [("Add an annotation.", "Přidejte k anotaci poznámku."),
                                ("Contextual embeddings.", "Kontextuálních vektorů."),
                                ("Many approaches.", "Mnoho přístupů.")],
               [["c1", "annotation", "anotace"], ["c2", "contextual", "kontextuální"], ["c3", "approach", "přístup"]])
    by = {g[0]: g for g in got}
    assert by["anotaci"][2] != "F" and by["anotaci"][1] == "unjudged"  # a case form, not a misspelling
    assert by["Kontextuálních"][3] == R_INFLECTED  # found, an inflected form (the stems agree)
    assert by["přístupů"][1] == "conforming"


def test_french_derived_adjective_is_left_for_review(tmp_path):
    got = _one(tmp_path, "fr", [("A balanced budget.", "Un équilibre budgétaire."),
                                ("The climate crisis.", "La crise climatique.")],
               [["c1", "budget", "budget"], ["c2", "climate", "climat"]])
    assert [(g[0], g[3]) for g in got] == [("budgétaire", R_DERIVED), ("climatique", R_DERIVED)]
