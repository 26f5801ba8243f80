"""Pronoun suffixes and agreement endings written onto a word, taken off so that the rest can be looked up:
Arabic "مشاريعي" ("my projects") is "مشاريع" with "my", which simplemma's dictionary lists under "مشروع";
"نشاطاتك" is "نشاطات" with "your" (a plural of "نشاط"); "الزمنية" is the feminine of the adjective "زمني".
Persian writes the plural "ها" apart, and with the ezafe it is "های" ("فعالیت های خود" for "فعالیت ها");
the indefinite and the ezafe "ی" are written onto the word ("تیمی": a team).
An Arabic relational adjective is the noun with "ي" ("السطحي" from "سطح"): with the article written onto it,
a final "ي" cannot be "my" (the article and a possessive never go together), so the word is derived
(`derived_bases`); without the article it is read as "my".

Neither the Snowball stemmers nor simplemma take these off (the Arabic stemmer keeps "مشاريع" apart from
"مشروع"; simplemma does not list "مشاريعي"). What is taken off is a closed list of the languages' attached
pronouns and endings; a word found this way is only ever "an inflected form" (termqa.labels.R_INFLECTED,
left for review), never conforming. Words are loose keys (termqa.lang.fold.loose).
"""
from __future__ import annotations

import re

from termqa.lang.wordlists import ARTICLE_MIN_STEM, ARTICLE_PREFIXES

# Arabic attached possessive pronouns (my, your, his, her, our, your pl., their ...), longest first
_AR_PRONOUNS = ("كما", "هما", "كم", "كن", "هم", "هن", "ها", "نا", "ي", "ك", "ه")
_TA_MARBUTA, _TA = "\u0629", "\u062a"
# "and", "so", then "with", "as", "for" written onto a word
_AR_PROCLITICS = re.compile("^[\u0648\u0641]?[\u0628\u0643\u0644]|^[\u0648\u0641]")
# the feminine and the sound plurals of an adjective in -ي (nisba): "زمنية", "زمنيات", "زمنيون", "زمنيين"
_AR_NISBA_ENDINGS = ("يات", "يون", "يين", "ية")
# Persian: the plural suffix with the ezafe or the indefinite ending, written as a word of its own
_FA_PLURAL = {"های": "ها", "هایی": "ها", "هاي": "ها"}
_FA_YEH = "ی"


def bases(word: str, lang: str) -> tuple[str, ...]:
    """The words `word` (a loose key) may be with an attached pronoun or an agreement ending taken off,
    the article written onto it taken off too; empty when the language has none or nothing fits."""
    if lang == "ar":
        return _arabic(word)
    if lang == "fa":
        got = _FA_PLURAL.get(word)
        if got:
            return (got,)
        # the indefinite or the ezafe "ی" ("تیمی": a team; "جستجوی شما": your search)
        return (word[:-1],) if word.endswith(_FA_YEH) and len(word) > ARTICLE_MIN_STEM else ()
    return ()


def derived_bases(word: str, lang: str, bare: bool = True) -> tuple[str, ...]:
    """The nouns loose key `word` may be the relational adjective of (Arabic "السطحي", "تنفسية": "سطح",
    "تنفس"); empty when none fits. `bare=False`: only by a feminine or plural ending, not by the final
    "ي" alone, which a defective noun ("التفشي", "تفشٍ") also ends with."""
    if lang != "ar":
        return ()
    word, article = _without_article(word)
    for suf in _AR_NISBA_ENDINGS + (("ي",) if article and bare else ()):
        if word.endswith(suf) and len(word) - len(suf) >= ARTICLE_MIN_STEM:
            return (word[: len(word) - len(suf)],)
    return ()


def _endings(word: str) -> tuple[str, ...]:
    """`word` without the feminine or the feminine plural ending of an adjective or a noun ("وسيطة" of
    "وسيط", "مضيفات" of "مضيف")."""
    for suf in ("ات", _TA_MARBUTA):
        if word.endswith(suf) and len(word) - len(suf) >= ARTICLE_MIN_STEM:
            return (word[: len(word) - len(suf)],)
    return ()


def _without_article(word: str) -> tuple[str, bool]:
    m = ARTICLE_PREFIXES["ar"].match(word)
    if m is not None and len(word) - m.end() >= ARTICLE_MIN_STEM:
        return word[m.end():], True
    return word, False


def _arabic(word: str) -> tuple[str, ...]:
    out = []
    if word.startswith("\u0644\u0644") and len(word) > ARTICLE_MIN_STEM + 1:
        out.append(word[1:])  # "للقاحات": "for" + "لقاحات", not "for the" + "قاحات"
    word, article = _without_article(word)
    if not article:
        # a conjunction or preposition written onto a word without the article ("بكوفيد", "لسارس",
        # "كمضيفات"): the lemmatiser leaves them on (wordlists.ARTICLE_PREFIXES: "فيروس" starts with ف),
        # here the word without them is only a candidate to compare with the term's own word
        m = _AR_PROCLITICS.match(word)
        if m is not None and len(word) - m.end() >= ARTICLE_MIN_STEM:
            out.append(word[m.end():])
            out.extend(_endings(word[m.end():]))
    out.extend(_endings(word))
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
