"""Words of scripts written without spaces between them: Japanese, Chinese, Thai (and Lao, Khmer, Myanmar).

spaCy's own tokenizers for these languages need packages spaCy does not install (Japanese:
SudachiPy with `sudachidict_core` exactly; Thai: pythainlp), and without them the multilingual
tokenizer keeps a whole unspaced sentence as one word, so a glossary term inside it is never found.
The lemmatiser therefore tokenises these languages with the multilingual tokenizer and hands every
token holding such a script to a `Segmenter` (see `refine`), which cuts it into words:

* Japanese: SudachiPy with any of its dictionary packages (small, core or full, in that order of
  preference: the small one is enough for segmenting), in split mode A (the shortest units), so that
  a glossary term is rarely hidden inside a longer compound. Installed by the `cjk` extra.
* Thai: pythainlp's dictionary segmenter (`newmm`, its word list ships in the package; nothing is
  downloaded). Installed by the `cjk` extra.
* Chinese, and every language above when its segmenter is missing or `TERMQA_SEGMENTER=chars` is set:
  characters. Each character of the script (a Thai or Lao letter with its combining marks) is one
  token, so a term is found wherever its characters stand in a row, whatever the words around it.
  Chinese uses this always (spaCy's default for Chinese too): a word segmenter would hide a term inside
  a longer word (病毒 in 冠状病毒) and needs a model or dictionary to do better than characters do.

Runs of other scripts inside such a token (Latin words, digits in "ISBN-13コード") stay whole. The
segmenter in use is part of the lemmatiser's name, so of the run signature and of every cache key
built from it.
"""
from __future__ import annotations

import os
import re
import threading
from typing import Callable, Optional

# Languages written without spaces between words.
SPACELESS = frozenset({"ja", "zh", "th", "lo", "km", "my"})

# The environment setting that chooses segmenters: "auto" (default: the language's segmenter when its
# package is installed, else characters) or "chars" (characters for every language, e.g. to compare).
ENV = "TERMQA_SEGMENTER"
SETTINGS = ("auto", "chars")

# Characters of the scripts written without spaces: Hiragana, Katakana (and its phonetic extensions and
# half-width forms), CJK ideographs (with extension A, compatibility ideographs and the supplementary
# planes), the iteration mark 々 and the prolonged sound mark ー, Thai, Lao, Myanmar, Khmer.
_SCRIPT_CLASS = ("\u3005\u3006\u3007\u3021-\u3029\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                 "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
                 "\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u1780-\u17ff")
SCRIPT = re.compile(f"[{_SCRIPT_CLASS}]")
_RUNS = re.compile(f"[{_SCRIPT_CLASS}]+")
# a character of those scripts with the combining marks that follow it (Thai vowels and tone marks)
_CLUSTER = re.compile(f"[{_SCRIPT_CLASS}][\u0300-\u036f\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc"
                      f"\u0ec8-\u0ecd\u102b-\u103e\u17b4-\u17d3\u3099\u309a]*")

# Punctuation of these scripts (ideographic full stop and comma, brackets, full-width signs): always a
# token of its own, as the multilingual tokenizer would leave "。ISBN" glued
_PUNCT = re.compile("[\u2018-\u201f\u2026\u3000-\u3004\u3008-\u3020\u3030-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")
_CUT = re.compile(f"[{_SCRIPT_CLASS}]+|{_PUNCT.pattern}")

Split = Callable[[str], "list[tuple[str, int]]"]


def setting() -> str:
    """The segmenter setting from the environment ("auto" when unset); a UsageError for an unknown one."""
    value = (os.environ.get(ENV) or "auto").strip().lower()
    if value not in SETTINGS:
        from termqa.errors import UsageError

        raise UsageError(f"{ENV}={value!r} is not a segmenter setting", fix="use one of: " + ", ".join(SETTINGS))
    return value


def chars(text: str) -> list[tuple[str, int]]:
    """Characters (with their combining marks) as words: (text, offset) pairs."""
    return [(m.group(), m.start()) for m in _CLUSTER.finditer(text)]


class Segmenter:
    """Cuts a run of one of these scripts into words. `name` goes into the lemmatiser's name."""

    def __init__(self, name: str, split: Split):
        self.name = name
        self._split = split

    def words(self, run: str) -> list[tuple[str, int]]:
        """(word, offset) pairs covering `run` (a text without spaces), in order."""
        return self._split(run)


CHARS = Segmenter("chars", chars)


def _version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except Exception:
        return "?"


def _sudachi() -> Optional[Segmenter]:
    import importlib.util

    if importlib.util.find_spec("sudachipy") is None:
        return None
    for dic in ("small", "core", "full"):
        if importlib.util.find_spec(f"sudachidict_{dic}") is not None:
            break
    else:
        return None
    name = f"sudachipy-{_version('sudachipy')} sudachidict-{dic}-{_version('sudachidict-' + dic)} mode A"
    state: dict = {}
    lock = threading.Lock()
    mine = threading.local()  # a SudachiPy tokenizer must not be used by two threads at once

    def split(run: str) -> list[tuple[str, int]]:
        tok = getattr(mine, "tok", None)
        if tok is None:
            import sudachipy

            with lock:  # loading the dictionary takes a moment: once, and only when Japanese text comes
                if "dict" not in state:
                    state["dict"] = sudachipy.Dictionary(dict=dic)
            d = state["dict"]
            make = getattr(d, "tokenizer", None) or d.create  # `create` before SudachiPy 0.6.8
            tok = mine.tok = make(mode=sudachipy.SplitMode.A)
        out = []
        for m in tok.tokenize(run):
            a, b = m.begin(), m.end()
            if b > a:
                out.append((run[a:b], a))
        return out

    return Segmenter(name, split)


def _pythainlp() -> Optional[Segmenter]:
    import importlib.util

    if importlib.util.find_spec("pythainlp") is None:
        return None

    def split(run: str) -> list[tuple[str, int]]:
        from pythainlp.tokenize import word_tokenize

        out, pos = [], 0
        for w in word_tokenize(run, engine="newmm", keep_whitespace=True):
            if run.startswith(w, pos):
                out.append((w, pos))
                pos += len(w)
            else:  # a word that is not the text as written (never seen): characters from here on
                return out + [(t, pos + o) for t, o in chars(run[pos:])]
        if pos < len(run):
            out.extend((t, pos + o) for t, o in chars(run[pos:]))
        return out

    return Segmenter(f"pythainlp-{_version('pythainlp')} newmm", split)


_FINDERS = {"ja": _sudachi, "th": _pythainlp}
_FOUND: dict[tuple[str, str], Segmenter] = {}


def segmenter(lang: str, choice: Optional[str] = None) -> Optional[Segmenter]:
    """The segmenter of `lang` (a primary language subtag), None for languages written with spaces.
    `choice`: "auto" or "chars"; None reads the environment (`ENV`)."""
    if lang not in SPACELESS:
        return None
    choice = choice or setting()
    got = _FOUND.get((lang, choice))
    if got is None:
        find = _FINDERS.get(lang) if choice == "auto" else None
        got = (find() if find is not None else None) or CHARS
        _FOUND[(lang, choice)] = got
    return got


def refine(pieces: list[tuple[str, int]], seg: Segmenter) -> list[tuple[str, int]]:
    """Tokenizer pieces with every run of these scripts cut into the segmenter's words; the rest of a
    piece (Latin letters, digits, signs) stays as it was around them."""
    out: list[tuple[str, int]] = []
    for text, start in pieces:
        if SCRIPT.search(text) is None and (len(text) == 1 or _PUNCT.search(text) is None):
            out.append((text, start))
            continue
        pos = 0
        for m in _CUT.finditer(text):
            if m.start() > pos:
                out.append((text[pos:m.start()], start + pos))
            base = start + m.start()
            run = m.group()
            if _PUNCT.fullmatch(run):
                out.append((run, base))
            else:
                out.extend((w, base + o) for w, o in seg.words(run))
            pos = m.end()
        if pos < len(text):
            out.append((text[pos:], start + pos))
    return out


# Characters per word where words are not spaced, for counting words (segcheck): measured with the
# segmenters above on real text (Chinese: 1.55 ideographs per English word in the TICO-19 memory;
# Japanese: 1.7 characters per SudachiPy short unit in Symfony's validators.ja.xlf; Thai: 4.3 code
# points per pythainlp word in validators.th.xlf). Lao, Khmer and Myanmar take Thai's, unmeasured.
_CJK_RUN = re.compile("[\u3005\u3006\u3007\u3021-\u3029\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                      "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]+")
CJK_CHARS_PER_WORD = 1.6
SOUTHEAST_CHARS_PER_WORD = 4.3


def word_count(text: str) -> int:
    """Words of `text`: whitespace-separated chunks, where every run of an unspaced script counts as its
    length in characters over the script's mean word length (at least one word). The same for any
    installed segmenter: results do not depend on which packages are there."""
    n = 0
    for chunk in text.split():
        if SCRIPT.search(chunk) is None:
            n += 1
            continue
        words = 0.0
        for m in _CJK_RUN.finditer(chunk):
            words += len(m.group()) / CJK_CHARS_PER_WORD
        rest = _CJK_RUN.sub(" ", chunk)
        for m in _RUNS.finditer(rest):
            words += len(m.group()) / SOUTHEAST_CHARS_PER_WORD
        other = _RUNS.sub(" ", rest).split()
        n += max(1, round(words)) + sum(1 for o in other if any(c.isalnum() for c in o))
    return n
