"""Lemmas from simplemma's per-language dictionaries, for the words spaCy's lookup tables do not know and
for the languages they do not cover at all (Arabic, Persian, Slovak, Greek, ...).

Only simplemma's dictionary look-up is used. Its other strategies guess a lemma from affixes, and a guessed
lemma shared by two different words would make one conform for the other: a lemma here must be one the
dictionary lists for that very form. simplemma is imported on first use: a run whose texts are all in the
analyses cache never pays for it.

simplemma ships each dictionary as an lzma-compressed front-coded stream and decodes it into a dict of a
million entries or more per language (0.1 to 1.1 s of CPU each, and ~100 MB for Russian) in every process.
Here the stream is only decompressed (a few milliseconds) and read in place: one pass notes where every
32nd form starts (the index is kept in the index cache, so later runs skip the pass), and a look-up decodes
the few forms of one block. simplemma's lookup strategy is given these as its dictionaries
(`CompactDictionaries`): the same answers, word for word (tests/lang/test_dictlemma_compact.py compares
them with simplemma's own dictionary on every form of several languages).
"""
from __future__ import annotations

import os
import threading
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from typing import Callable, Optional

from termqa.lang.installed import morphology
from termqa.lang import langcache

_LOCK = threading.Lock()
_STRATEGY = None
FORMAT = 1  # of the stored stream index; bump when `_stream_index` changes


def available(lang: str) -> bool:
    """Has simplemma a dictionary for `lang` (a primary subtag)?"""
    return lang in morphology()["simplemma_langs"]


def name() -> str:
    """How the signature names this source of lemmas."""
    return f"simplemma-{morphology()['simplemma']} (dictionary)"


def _data_file(lang: str) -> Optional[str]:
    import simplemma

    path = os.path.join(os.path.dirname(simplemma.__file__), "strategies", "dictionaries", "data", f"{lang}.plzma")
    return path if os.path.isfile(path) else None


_BLOCK = 32  # records per block of the stream index: a look-up decodes at most this many


def _read_stream(lang: str) -> bytes:
    from simplemma.strategies.dictionaries import dictionary_factory

    return dictionary_factory._read_decompressed(lang)


def _stream_index(data: bytes) -> Optional[tuple]:
    """(reverse, count, first keys, [(offset, previous key, previous value)]) of every _BLOCK-th record of a
    decompressed front-coded stream: where a look-up starts decoding. None when the stream is not laid out
    as this expects (another simplemma release) or its keys are not strictly sorted."""
    from simplemma.strategies.dictionaries import frontcode

    try:
        reverse, count, pos = frontcode._read_header(data)
        firsts: list[bytes] = []
        seeds: list[tuple[int, bytes, bytes]] = []
        prev_k, prev_v = b"", b""
        n = 0
        for start, k, v in frontcode._iter_records(data, pos):
            if n and not prev_k < k:
                return None
            if n % _BLOCK == 0:
                firsts.append(k)
                seeds.append((start, prev_k, prev_v))
            prev_k, prev_v = k, v
            n += 1
    except Exception:  # private API of simplemma: another release, another layout
        return None
    if n != count:
        return None
    return bool(reverse), count, firsts, seeds


class CompactDictionary(Mapping):
    """simplemma's dictionary of one language read in place from its decompressed front-coded stream (a few
    MB, where the dict simplemma builds of it is ~100 MB for Russian), through an index of every _BLOCK-th
    form kept in the index cache: `get` answers as simplemma's str -> str mapping does."""

    def __init__(self, data: bytes, index: tuple):
        self._data = data
        self._reverse, self._count, self._firsts, self._seeds = index

    def get(self, key, default=None):
        if not isinstance(key, str):
            return default
        try:
            target = key.encode("utf-8")  # as simplemma encodes: a lone surrogate finds nothing
        except UnicodeEncodeError:
            return default
        if self._reverse:
            target = target[::-1]
        block = bisect_right(self._firsts, target) - 1
        if block < 0:
            return default
        from simplemma.strategies.dictionaries import frontcode

        for _start, k, v in frontcode._iter_records(self._data, *self._seeds[block]):
            if k == target:
                return (v[::-1] if self._reverse else v).decode("utf-8")
            if k > target:
                break
        return default

    def __getitem__(self, key):
        got = self.get(key)
        if got is None:
            raise KeyError(key)
        return got

    def __iter__(self) -> Iterator[str]:
        from simplemma.strategies.dictionaries import frontcode

        if not self._seeds:
            return
        for _start, k, _v in frontcode._iter_records(self._data, self._seeds[0][0]):
            yield (k[::-1] if self._reverse else k).decode("utf-8")

    def __len__(self) -> int:
        return self._count


def compact_dictionary(lang: str) -> Optional[CompactDictionary]:
    """The compact dictionary of `lang`, its stream index from the index cache, else made and stored; None
    when simplemma's stream cannot be read that way (its own dictionary then serves)."""
    try:
        data = _read_stream(lang)
    except Exception:
        return None
    cache = langcache.active()
    key = None
    if cache.enabled:
        path = _data_file(lang)
        try:
            st = os.stat(path) if path else None
        except OSError:
            st = None
        stamp = [path, st.st_size, st.st_mtime_ns] if st else [path]
        key = langcache.make_lang_key("dictionary-index", FORMAT, _BLOCK, morphology()["simplemma"], lang, stamp,
                                       len(data))
        hit = cache.load(key)
        if (isinstance(hit, tuple) and len(hit) == 4 and isinstance(hit[2], list) and isinstance(hit[3], list)
                and len(hit[2]) == len(hit[3])):
            return CompactDictionary(data, hit)
    index = _stream_index(data)
    if index is None:
        return None
    if key is not None:
        cache.store(key, index)
    return CompactDictionary(data, index)


class CompactDictionaries:
    """A simplemma dictionary factory (its `get_dictionary(lang)` protocol) giving `compact_dictionary`s, or
    simplemma's own dictionary for a language whose stream cannot be read compactly."""

    def __init__(self):
        self._got: dict[str, Mapping] = {}
        self._lock = threading.Lock()

    def get_dictionary(self, lang: str) -> Mapping:
        got = self._got.get(lang)
        if got is None:
            with self._lock:
                got = self._got.get(lang)
                if got is None:
                    got = compact_dictionary(lang)
                    if got is None:
                        from simplemma.strategies.dictionaries.dictionary_factory import (
                            DEFAULT_DICTIONARY_FACTORY as simplemma_factory,
                        )

                        got = simplemma_factory.get_dictionary(lang)
                    self._got[lang] = got
        return got


def lookup(lang: str) -> Optional[Callable[[str], Optional[str]]]:
    """word -> its lemma in simplemma's dictionary of `lang` (None when the dictionary does not list the
    word), or None when simplemma has no dictionary for `lang`."""
    if not available(lang):
        return None
    if lang in _DERIVING:
        return _inflections_only(_lookup(lang))
    return _lookup(lang)


# Indonesian and Malay have no inflection: their affixes make other words ("bergejala", to have symptoms, from
# "gejala", symptom; "dikarantina", quarantined, from "karantina"), which simplemma's dictionary lists under the
# root. Of its lemmas only those of the root with a clitic written on ("gejalanya", its symptoms) or of the
# root said twice (the plural "gejala-gejala") are kept: the rest is a derived word, not a form of the root.
_DERIVING = frozenset({"id", "ms"})
_ID_CLITICS = ("nya", "ku", "mu", "lah", "kah", "pun", "tah")


def _inflections_only(lemma: Callable[[str], Optional[str]]) -> Callable[[str], Optional[str]]:
    def kept(word: str) -> Optional[str]:
        got = lemma(word)
        if got is None:
            return None
        w, root = word.lower(), got.lower()
        for c in ("",) + _ID_CLITICS:
            if c and not w.endswith(c):
                continue
            base = w[: len(w) - len(c)] if c else w
            if base == root or base == f"{root}-{root}":
                return got
        return None

    return kept


def _lookup(lang: str) -> Callable[[str], Optional[str]]:
    def lemma(word: str) -> Optional[str]:
        global _STRATEGY
        if _STRATEGY is None:
            with _LOCK:
                if _STRATEGY is None:
                    from simplemma.strategies import DictionaryLookupStrategy

                    _STRATEGY = DictionaryLookupStrategy(dictionary_factory=CompactDictionaries())
        try:
            return _STRATEGY.get_lemma(word, lang)
        except (ValueError, KeyError):  # a word simplemma's canonicaliser refuses: the dictionary has nothing
            return None

    return lemma
