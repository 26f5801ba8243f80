"""Language tags: one place to normalise BCP 47 tags and to decide when two of them match.

Real files write `en-US`, `en_us`, `EN-us`, `fr-FR`, `fr`. We compare case-insensitively with `-`
for `_`; a bare language matches any of its regions (`fr` ~ `fr-CA`), two different regions of
one language do not match exactly but do match loosely (used when nothing better exists).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional


@lru_cache(maxsize=4096)  # a run sees a handful of tags, asked about for every term
def normalise_tag(tag: Optional[str]) -> str:
    """`EN_us` -> `en-US`; `zh-hant-tw` -> `zh-Hant-TW`; empty stays empty."""
    if not tag:
        return ""
    parts = tag.strip().replace("_", "-").split("-")
    out = [parts[0].lower()]
    for p in parts[1:]:
        if len(p) == 2 and p.isalpha():
            out.append(p.upper())
        elif len(p) == 4 and p.isalpha():
            out.append(p.title())
        else:
            out.append(p.lower())
    return "-".join(x for x in out if x)


@lru_cache(maxsize=4096)
def primary(tag: Optional[str]) -> str:
    """The primary language subtag, lowercase: `fr-CA` -> `fr`."""
    return normalise_tag(tag).split("-")[0] if tag else ""


def lang_matches(a: Optional[str], b: Optional[str]) -> bool:
    """True when a and b name the same language: equal, or one is the bare language of the other.

    Two different regions (`fr-FR`, `fr-CA`) also match: a glossary for French serves both; callers
    that care use `match_quality` to prefer the exact region.
    """
    if not a or not b:
        return False
    return primary(a) == primary(b)


def match_quality(want: str, have: str) -> int:
    """3 exact, 2 one side bare, 1 same language other region, 0 no match."""
    w, h = normalise_tag(want), normalise_tag(have)
    if not w or not h:
        return 0
    if w.lower() == h.lower():
        return 3
    if primary(w) != primary(h):
        return 0
    if "-" not in w or "-" not in h:
        return 2
    return 1


# --- language names (for prompts, notes and messages) ---------------------------------------------

_NAMES = {
    "ar": "Arabic", "bg": "Bulgarian", "ca": "Catalan", "cs": "Czech", "da": "Danish",
    "de": "German", "el": "Greek", "en": "English", "es": "Spanish", "et": "Estonian",
    "fi": "Finnish", "fr": "French", "ga": "Irish", "he": "Hebrew", "hi": "Hindi",
    "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian", "is": "Icelandic", "it": "Italian",
    "ja": "Japanese", "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "mt": "Maltese",
    "nb": "Norwegian Bokmål", "nl": "Dutch", "nn": "Norwegian Nynorsk", "no": "Norwegian",
    "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sk": "Slovak",
    "sl": "Slovenian", "sr": "Serbian", "sv": "Swedish", "th": "Thai", "tr": "Turkish",
    "uk": "Ukrainian", "vi": "Vietnamese", "zh": "Chinese", "fa": "Persian", "bn": "Bengali", "ur": "Urdu",
    "ms": "Malay",
}

# English name -> tag, for headers that name a language ("French" column in a CSV glossary)
LANGUAGE_CODES = {name.lower(): tag for tag, name in _NAMES.items()}
# Other English names client termbases write in their headers, each naming one language unambiguously.
LANGUAGE_CODES.update({"farsi": "fa", "simplified chinese": "zh-Hans", "chinese simplified": "zh-Hans",
                       "traditional chinese": "zh-Hant", "chinese traditional": "zh-Hant"})

# A language's name in the language itself, as a header written by its speakers names it ("Français",
# "日本語"). Only names that are not also a common word of another language, and one spelling each
# (plus the Arabic-keyboard spelling of Persian): a header that names its language some other way
# still reads with a tag ("fr") or the English name.
ENDONYMS = {
    "العربية": "ar", "български": "bg", "català": "ca", "čeština": "cs", "dansk": "da", "deutsch": "de",
    "ελληνικά": "el", "english": "en", "español": "es", "eesti": "et", "فارسی": "fa", "فارسي": "fa",
    "suomi": "fi", "français": "fr", "עברית": "he", "हिन्दी": "hi", "hrvatski": "hr", "magyar": "hu",
    "bahasa indonesia": "id", "italiano": "it", "日本語": "ja", "한국어": "ko", "lietuvių": "lt",
    "latviešu": "lv", "nederlands": "nl", "norsk": "no", "polski": "pl", "português": "pt",
    "română": "ro", "русский": "ru", "slovenčina": "sk", "slovenščina": "sl", "српски": "sr",
    "svenska": "sv", "ไทย": "th", "türkçe": "tr", "українська": "uk", "tiếng việt": "vi",
    "中文": "zh", "简体中文": "zh-Hans", "繁體中文": "zh-Hant",
}


def tag_of_name(name: str) -> Optional[str]:
    """The tag of a language named in words, in English or in the language itself (`French`,
    `Français`, `日本語`), else None. Case, accents as composed or not, and spacing do not matter."""
    import unicodedata

    key = " ".join(unicodedata.normalize("NFC", name).casefold().split())
    return LANGUAGE_CODES.get(key) or ENDONYMS.get(key)

_NAME_TAG = re.compile(r"[a-z]{1,8}(?:-[A-Za-z0-9]{1,8}){0,6}")


def language_name(tag: str) -> str:
    """English name of a language tag for prompts (`fr-CA` -> `French (fr-CA)`); the tag itself
    when the language is not in the small built-in table."""

    norm = normalise_tag(tag)
    if not _NAME_TAG.fullmatch(norm):
        # the tag comes from the file: anything that is not a language tag stays out of the prompt
        return "an unnamed language"
    name = _NAMES.get(primary(tag))
    if name is None:
        return norm
    return name if norm == primary(tag) else f"{name} ({norm})"
