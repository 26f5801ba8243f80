"""Large word sets and word -> value mappings kept as one sorted UTF-8 byte string and searched in
place. The lexicon and the part-of-speech keys are stored in the index cache in this form, so that
loading them is a copy of bytes rather than rebuilding a set or dict of every word."""
from __future__ import annotations

from typing import Optional


def _search_lines(text: bytes, word: bytes, pairs: bool) -> Optional[bytes]:
    """Binary search of sorted, newline-separated lines for the one whose key is `word`: the whole
    line, or with `pairs` what stands before its tab. The value after the tab (b"" for a plain line),
    or None when no line has that key. UTF-8 keeps the code points' order, so lines sorted as str are
    sorted as bytes too."""
    lo, hi = 0, len(text)  # the line, if there, lies whole inside text[lo:hi]
    while lo < hi:
        mid = (lo + hi) // 2
        start = text.rfind(b"\n", lo, mid) + 1 or lo
        end = text.find(b"\n", mid, hi)
        if end < 0:
            end = hi
        cut = text.find(b"\t", start, end) if pairs else end
        if cut < 0:  # a pair line without a value: not one this module wrote
            cut = end
        key = text[start:cut]
        if key == word:
            return text[cut + 1:end] if pairs else b""
        if key < word:
            lo = end + 1
        else:
            hi = start - 1
    return None


def _utf8(word: str) -> bytes:
    """`word` as the sorted text holds it: UTF-8, a lone surrogate (from a decoding error) encoded as
    the text encodes it rather than raising."""
    return word.encode("utf-8", "surrogatepass")


class SortedText:
    """Sorted lines in one UTF-8 byte string, searched in place: the index cache stores the bytes as they
    are, so loading them is a copy, where a set or dict of the same 400k words would hash every one of
    them on each run, for the handful of words a run asks. Bytes rather than str: a str holding one
    character beyond Latin-1 (French "œ") takes 2 bytes a character throughout, and unpickling a str
    decodes it."""

    __slots__ = ("_text",)

    @classmethod
    def from_text(cls, text: bytes):
        out = cls()
        out._text = text
        return out

    def text(self) -> bytes:
        return self._text

    def __bool__(self) -> bool:
        return bool(self._text)


class SortedWords(SortedText):
    """A large set of words: membership, iteration and size."""

    __slots__ = ()

    def __init__(self, words=()):
        # whole-collection steps (set, sort, join: C loops), a word-by-word filter only when a word needs
        # leaving out: a lexicon's 800k words took ~0.3 s of CPU filtered one by one in Python
        kept = set(words)
        kept.discard("")
        text = "\n".join(sorted(kept))
        if kept and text.count("\n") != len(kept) - 1:  # a word holding a newline: left out
            text = "\n".join(sorted(w for w in kept if "\n" not in w))
        self._text = text.encode("utf-8", "surrogatepass")

    def __contains__(self, word) -> bool:
        return _search_lines(self._text, _utf8(word), False) is not None

    def __iter__(self):
        return iter(self._text.decode("utf-8", "surrogatepass").split("\n") if self._text else ())

    def __len__(self) -> int:  # counts the lines: for tests and reports, not for hot paths
        return self._text.count(b"\n") + 1 if self._text else 0


class SortedPairs(SortedText):
    """A large word -> value mapping as "word<TAB>value" lines (values hold no newline; several
    values are tab-separated)."""

    __slots__ = ()

    def __init__(self, pairs: Optional[dict[str, str]] = None):
        pairs = pairs or {}
        keys = sorted(pairs)  # keys are unique: sorting them sorts the pairs, and strings sort faster than tuples
        values = list(map(pairs.__getitem__, keys))
        joined_keys = "\n".join(keys)
        n = len(keys) - 1
        if keys and keys[0] and joined_keys.count("\n") == n and "\t" not in joined_keys \
                and "\n".join(values).count("\n") == n:
            text = "\n".join(map("\t".join, zip(keys, values)))  # every pair can be kept: no line-by-line checks
        else:
            text = "\n".join(f"{k}\t{v}" for k, v in zip(keys, values)
                              if k and "\n" not in k and "\t" not in k and "\n" not in v)
        self._text = text.encode("utf-8", "surrogatepass")

    def get(self, word: str) -> Optional[str]:
        got = _search_lines(self._text, _utf8(word), True)
        return got.decode("utf-8", "surrogatepass") if got is not None else None
