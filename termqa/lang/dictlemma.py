"""Lemmas from simplemma's per-language dictionaries, for the words spaCy's lookup tables do not know and
for the languages they do not cover at all (Arabic, Persian, Slovak, Greek, ...).

Only simplemma's dictionary look-up is used. Its other strategies guess a lemma from affixes, and a guessed
lemma shared by two different words would make one conform for the other: a lemma here must be one the
dictionary lists for that very form. simplemma is imported on first use (it loads one compressed dictionary
per language, 0.1 to 3 s): a run whose texts are all in the analyses cache never pays for it.
"""
from __future__ import annotations

import threading
from typing import Callable, Optional

from termqa.lang.installed import morphology

_LOCK = threading.Lock()
_STRATEGY = None


def available(lang: str) -> bool:
    """Has simplemma a dictionary for `lang` (a primary subtag)?"""
    return lang in morphology()["simplemma_langs"]


def name() -> str:
    """How the signature names this source of lemmas."""
    return f"simplemma-{morphology()['simplemma']} (dictionary)"


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

                    _STRATEGY = DictionaryLookupStrategy()
        try:
            return _STRATEGY.get_lemma(word, lang)
        except (ValueError, KeyError):  # a word simplemma's canonicaliser refuses: the dictionary has nothing
            return None

    return lemma
