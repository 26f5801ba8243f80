"""Pronoun suffixes and agreement endings written onto a word, taken off so that the rest can be looked up:
Arabic "مشاريعي" ("my projects") is "مشاريع" with "my", which simplemma's dictionary lists under "مشروع";
"نشاطاتك" is "نشاطات" with "your" (a plural of "نشاط"); "الزمنية" is the feminine of the adjective "زمني".
Persian writes the plural "ها" apart, and with the ezafe it is "های" ("فعالیت های خود" for "فعالیت ها").
An Arabic relational adjective is the noun with "ي" ("السطحي" from "سطح"): with the article written onto it,
a final "ي" cannot be "my" (the article and a possessive never go together), so the word is derived
(`derived_bases`); without the article it is read as "my".

Neither the Snowball stemmers nor simplemma take these off (the Arabic stemmer keeps "مشاريع" apart from
"مشروع"; simplemma does not list "مشاريعي"). What is taken off is a closed list of the languages' attached
pronouns and endings; a word found this way is only ever "an inflected form" (termqa.labels.R_INFLECTED,
left for review), never conforming. Words are loose keys (termqa.lang.fold.loose).
"""
from __future__ import annotations

from termqa.lang.wordlists import ARTICLE_MIN_STEM, ARTICLE_PREFIXES

# Arabic attached possessive pronouns (my, your, his, her, our, your pl., their ...), longest first
_AR_PRONOUNS = ("كما", "هما", "كم", "كن", "هم", "هن", "ها", "نا", "ي", "ك", "ه")
_TA_MARBUTA, _TA = "\u0629", "\u062a"
# the feminine and the sound plurals of an adjective in -ي (nisba): "زمنية", "زمنيات", "زمنيون", "زمنيين"
_AR_NISBA_ENDINGS = ("يات", "يون", "يين", "ية")
# Persian: the plural suffix with the ezafe or the indefinite ending, written as a word of its own
_FA_PLURAL = {"های": "ها", "هایی": "ها", "هاي": "ها"}


def bases(word: str, lang: str) -> tuple[str, ...]:
    """The words `word` (a loose key) may be with an attached pronoun or an agreement ending taken off,
    the article written onto it taken off too; empty when the language has none or nothing fits."""
    if lang == "ar":
        return _arabic(word)
    if lang == "fa":
        got = _FA_PLURAL.get(word)
        return (got,) if got else ()
    return ()


def derived_bases(word: str, lang: str) -> tuple[str, ...]:
    """The nouns loose key `word` may be the relational adjective of (Arabic "السطحي", "تنفسية": "سطح",
    "تنفس"); empty when none fits."""
    if lang != "ar":
        return ()
    word, article = _without_article(word)
    for suf in _AR_NISBA_ENDINGS + (("ي",) if article else ()):
        if word.endswith(suf) and len(word) - len(suf) >= ARTICLE_MIN_STEM:
            return (word[: len(word) - len(suf)],)
    return ()


def _without_article(word: str) -> tuple[str, bool]:
    m = ARTICLE_PREFIXES["ar"].match(word)
    if m is not None and len(word) - m.end() >= ARTICLE_MIN_STEM:
        return word[m.end():], True
    return word, False


def _arabic(word: str) -> tuple[str, ...]:
    word, article = _without_article(word)
    out = []
    for suf in _AR_NISBA_ENDINGS:
        if word.endswith(suf) and len(word) - len(suf) >= ARTICLE_MIN_STEM - 1:
            out.append(word[: len(word) - len(suf)] + "ي")
            break
    if article:  # "the ... my" is no Arabic: no possessive after the article
        return tuple(out)
    for suf in _AR_PRONOUNS:
        if word.endswith(suf) and len(word) - len(suf) >= ARTICLE_MIN_STEM:
            rest = word[: len(word) - len(suf)]
            out.append(rest)
            if rest.endswith(_TA):  # "فاتورتي": the feminine ending is written ت before a pronoun
                out.append(rest[:-1] + _TA_MARBUTA)
            break
    return tuple(out)
