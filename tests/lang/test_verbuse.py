"""English verb uses of noun terms (termqa.lang.verbuse): lemminflect's readings of a word form and the
verb frames English grammar writes; anything unsure keeps its match."""
import pytest

from termqa.lang.verbuse import noun_term, verb_use


def _use(sentence: str, word: str) -> bool:
    toks = sentence.split()
    words = [t.lower() if t.replace("'", "").isalpha() else None for t in toks]
    return verb_use(words, toks.index(word))


@pytest.mark.parametrize("sentence, word", [
    ("We are also hearing from members", "hearing"),  # "-ing" after a form of "be", an adverb between
    ("This helps Mozilla improve", "helps"),  # "-s" after a singular subject pronoun
    ("Files exported from the app", "exported"),  # no noun reading at all
    ("We can help you", "help"),  # after a modal
    ("If you do touch it", "touch"),  # after the auxiliary "do"
    ("it has spread all over China", "spread"),  # a participle after "have"
    ("they test the samples", "test"),  # after a plural subject pronoun
    ("we want to help the poor", "help"),  # "to" + base form + object
    ("testing the samples is key", "testing"),  # "-ing" with an object
])
def test_verb_uses(sentence, word):
    assert _use(sentence, word)


@pytest.mark.parametrize("sentence, word", [
    ("The hearings on the bill", "hearings"),
    ("the hearing was adjourned", "hearing"),
    ("Open the Help menu", "Help"),
    ("the export of data", "export"),
    ("the spread of the virus", "spread"),
    ("the disease 's spread and", "spread"),  # a possessive, not "is"
    ("Remember that masks are not enough", "masks"),  # "that" a conjunction
    ("access to testing is key", "testing"),
    ("access to help is key", "help"),  # "to" without an object: unsure, kept
    ("we are here to help .", "help"),
])
def test_noun_uses_and_unsure_ones_keep_their_match(sentence, word):
    assert not _use(sentence, word)


def test_the_glossary_word_class_wins_over_the_guess():
    assert noun_term("export", None)  # can be a noun
    assert noun_term("gun violence", None)  # several words: a noun phrase
    assert not noun_term("infected", None)  # an adjective or a participle, never a noun
    assert not noun_term("quarantine", "verb")
    assert noun_term("Snuneymuxw", "proper noun")
