"""Character folding for loose matching: `loose` (case, diacritics, ligatures, apostrophes, dashes)
and `strip_marks`. Language-independent; the lemmatiser keys every token with `loose`, and the
normalisation family (normalise.py) builds on it."""
from __future__ import annotations

import re
import unicodedata
from typing import Optional

# Apostrophe look-alikes and dashes that writers and CAT tools use interchangeably.
_APOSTROPHES = "\u2019\u2018\u02bc\u02bb\u2032\u00b4\u0060\uff07"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d\u00ad"
# Letters that are not "letter + combining mark" in Unicode, so NFKD leaves them alone; for a loose
# key we still want them to fold to their base letters.
_FOLD_EXTRA = {
    "œ": "oe", "æ": "ae", "ß": "ss", "ø": "o", "đ": "d", "ð": "d", "ł": "l", "ı": "i",
    "ħ": "h", "þ": "th", "ŀ": "l",
}
_LOOSE_TABLE = str.maketrans(
    {**{c: "'" for c in _APOSTROPHES}, **{c: "-" for c in _DASHES if c != "\u00ad"},
     "\u00ad": "", "\u0640": "", **_FOLD_EXTRA}  # tatweel (ـ) only stretches an Arabic line
)
_ASCII_TABLE = str.maketrans({"`": "'"})


def _kept(c: str) -> bool:
    # Marks that make another word, not an accent: kana voicing (か/が, ハ/バ/パ), Thai and Lao vowel
    # and tone marks (ไม่ "not" / ไม), Myanmar and Khmer signs. Folding them away merged words.
    return c in "\u3099\u309a" or "\u0e00" <= c <= "\u0eff" or "\u1000" <= c <= "\u109f" or "\u1780" <= c <= "\u17ff"


def _mark(c: str) -> bool:
    return bool(unicodedata.combining(c)) and not _kept(c)


def loose(s: str) -> str:
    """The loose matching form of `s`.

    casefold; NFKD then drop combining marks (é -> e, ﬁ -> fi, full-width -> ASCII; the marks of kana,
    Thai, Lao, Myanmar and Khmer stay: they change the word); expand
    ligatures and fold stroke letters (œ -> oe, æ -> ae, ß -> ss, ø -> o, ł -> l); unify
    apostrophes (’ ‘ ʼ ´ -> ') and dashes (‐ ‑ – — − -> -); drop soft hyphens and the Arabic tatweel.
    """
    if s.isascii():  # fast path: most words in running text
        return s.lower().translate(_ASCII_TABLE)
    s = unicodedata.normalize("NFKD", s.casefold())
    s = "".join(c for c in s if not _mark(c))
    return s.translate(_LOOSE_TABLE)


def is_caps(text: str) -> bool:
    """An acronym-like word: two or more letters, all capitals (VFD, NPSH, PLC)."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def exact_key(text: str) -> str:
    """The case-sensitive key of an acronym-like word; a plural 's' is dropped (VFDs -> VFD)."""
    if len(text) > 2 and text.endswith("s") and is_caps(text[:-1]):
        text = text[:-1]
    return "=" + text


_MARKS_BMP: Optional[re.Pattern] = None  # the marks `loose` drops, in the BMP, as one character class
_LOOSE_CHARS = re.compile("[" + "".join(map(re.escape, map(chr, _LOOSE_TABLE))) + "]")
_BEYOND_BMP = re.compile("[\U00010000-\U0010ffff]")


def _marks_bmp() -> re.Pattern:
    global _MARKS_BMP
    if _MARKS_BMP is None:
        ranges: list[list[int]] = []
        for cp in range(0x10000):
            if _mark(chr(cp)):
                if ranges and ranges[-1][1] == cp - 1:
                    ranges[-1][1] = cp
                else:
                    ranges.append([cp, cp])
        _MARKS_BMP = re.compile("[" + "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "")
                                              for a, b in ranges) + "]")
    return _MARKS_BMP


def _fold_chars(m: re.Match) -> str:
    return m.group().translate(_LOOSE_TABLE)


def loose_many(words: list[str]) -> list[str]:
    """`[loose(w) for w in words]`, in a few passes over the joined text instead of one Python step
    per character (a whole lexicon folds in a fraction of the time). Words must not contain newlines.
    The marks and the folded characters are found by regular expressions: `str.translate` with a dict
    looks every character up (~0.3 s per pass over Russian's 500k table forms, the expressions ~0.04 s)."""
    if not words:
        return []
    text = unicodedata.normalize("NFKD", "\n".join(words).casefold())
    if _BEYOND_BMP.search(text):  # a character beyond the BMP (its marks are not in the class): the exact way
        return [loose(w) for w in words]
    out = _LOOSE_CHARS.sub(_fold_chars, _marks_bmp().sub("", text)).split("\n")
    return out if len(out) == len(words) else [loose(w) for w in words]


def strip_marks(s: str) -> str:
    """`s` without combining marks, case kept (É -> E); used to compare letters' base forms."""
    s = unicodedata.normalize("NFD", s)
    return unicodedata.normalize("NFC", "".join(c for c in s if not unicodedata.combining(c)))


# Languages whose capital I is the dotless ı's and whose dotted İ is i's: "DİĞER" is "diğer", "KAPI" is
# "kapı". Python's lower() follows the root locale (I -> i, İ -> i + a combining dot).
_DOTLESS_I = frozenset({"tr", "az", "crh", "tt", "kk"})
_DOTLESS_TABLE = str.maketrans({"I": "ı", "İ": "i"})


def dotless_i(s: str, lang: str) -> str:
    """`s` with Turkish and Azeri capital I and İ made the lowercase letters they stand for (ı, i), other
    letters as they are; `s` itself in other languages."""
    if lang in _DOTLESS_I and ("I" in s or "İ" in s):
        return s.translate(_DOTLESS_TABLE)
    return s


def lower(s: str, lang: str) -> str:
    """`s` in lowercase by the rules of `lang` (a primary subtag): Turkish and Azeri I/ı/İ/i; Greek final
    sigma is Python's own (ΟΔΟΣ -> οδος)."""
    return dotless_i(s, lang).lower()
