"""Attached pronouns and endings taken off (termqa.lang.clitics), Persian words parted at the ZWNJ, and
Turkish lemmas that would hide a derivation (issue #35). The strings are kimai's and TICO-19's."""
from __future__ import annotations

import pytest

from termqa.lang.clitics import bases, derived_bases
from termqa.lang.derivation import derived_from, hides_derivation
from termqa.lang.fold import loose


@pytest.mark.parametrize("word,base", [
    ("مشاريعي", "مشاريع"),  # my projects
    ("نشاطاتك", "نشاطات"),  # your activities
    ("فاتورتي", "فاتورة"),  # my invoice: ت before the pronoun is the feminine ة
    ("الزمنية", "زمني"),  # the feminine of the adjective
    ("بكوفيد", "كوفيد"),  # with COVID
    ("كمضيفات", "مضيف"),  # as hosts (feminine plural)
    ("للقاحات", "لقاحات"),  # for vaccines: ل before a word in ل, not "for the"
])
def test_arabic_word_without_what_is_written_onto_it(word, base):
    assert base in bases(loose(word), "ar")


def test_no_possessive_after_the_article():
    """"السطحي" is the adjective "superficial", never "my surface": with the article it is derived."""
    assert "سطح" not in bases(loose("السطحي"), "ar")
    assert derived_bases(loose("السطحي"), "ar") == ("سطح",)
    assert derived_bases(loose("سطحي"), "ar") == ()  # without the article it may be "my surface"


def test_persian_plural_with_the_ezafe_and_the_indefinite():
    assert bases("های", "fa") == ("ها",)
    assert bases(loose("تیمی"), "fa") == (loose("تیم"),)
    assert bases("ها", "fa") == ()


def test_other_languages_take_nothing_off():
    assert bases("projects", "en") == () and derived_bases("projects", "en") == ()


def test_persian_parts_words_at_the_zwnj_as_at_a_space():
    from termqa.lang.lemma import get_lemmatiser

    lt = get_lemmatiser("fa", mode="lookup")
    joined = [(t.text, t.start, t.end) for t in lt.tokenize("پیش\u200cفرض را")]
    spaced = [(t.text, t.start, t.end) for t in lt.tokenize("پیش فرض را")]
    assert joined == spaced == [("پیش", 0, 3), ("فرض", 4, 7), ("را", 8, 10)]


def test_turkish_derivation_is_not_its_base():
    """The word lists give "bütçesiz" ("without a budget") the lemma "bütçe": it is derived, not the term."""
    assert hides_derivation("bütçesiz", "bütçe", "tr")
    assert hides_derivation("bütçeli", "bütçe", "tr")
    assert not hides_derivation("bütçeler", "bütçe", "tr")  # a plural is the word itself
    assert not hides_derivation("bütçesiz", "bütçe", "de")
    assert derived_from(loose("bütçesiz"), loose("bütçe"), "tr")

    from termqa.lang.lemma import get_lemmatiser

    lt = get_lemmatiser("tr", mode="lookup")
    assert lt.tokenize("Bütçesiz")[0].key != lt.tokenize("bütçe")[0].key
    assert lt.tokenize("Bütçeler")[0].key == lt.tokenize("bütçe")[0].key


def test_a_feminine_adjective_names_its_noun_but_a_final_yeh_alone_does_not():
    """"فيروسية" (viral) is made from "فيروس"; "التفشي" is the defective noun "تفشٍ" itself."""
    assert derived_bases(loose("فيروسية"), "ar", bare=False) == (loose("فيروس"),)
    assert derived_bases(loose("التفشي"), "ar", bare=False) == ()
