"""Does a target segment look like a translation of its source at all?

Translation memories and exported projects sometimes pair a source with the wrong target (a shifted
block). Terms then seem "missing" from the target when the whole segment is someone else's. Two
cheap signs, tuned on the TICO-19 EN-FR memory (whose PubMed_8 and Wikinews blocks are shifted):
- lengths far apart for a sentence of some size (fewer than 0.4 or more than 2.5 target words per
  source word, from 8 source words up);
- two or more numbers in the source and none of them in the target (digit groups compared without
  their separators: "473,933,356" is "473 933 356").
Names and acronyms are not used: they are translated too often (EU -> UE, UK -> Royaume-Uni).
Words are counted by `segment.word_count`: whitespace-separated chunks, and for scripts written without
spaces (Chinese, Japanese, Thai) the length of each run over the script's mean word length, so that a
Japanese or Chinese sentence is not one "word" against a dozen English ones.
"""
from __future__ import annotations

import re
from typing import Optional

from termqa.lang.segment import word_count

_NUMBER = re.compile(r"\d{1,3}(?:[ \u00a0\u202f.,]\d{3})+(?![\d])|\d+")

MIN_WORDS = 8
RATIO_LOW, RATIO_HIGH = 0.4, 2.5


def _numbers(text: str) -> set[str]:
    return {re.sub(r"\D", "", n) for n in _NUMBER.findall(text)}


def _one_variant(text: str) -> str:
    """The longest of a message's plural variants (Symfony's "one|many"): a language with one plural form
    writes one variant where English writes two, and is no shorter translation for it."""
    return max(text.split("|"), key=word_count) if "|" in text else text


def misalignment(source: str, target: Optional[str]) -> Optional[str]:
    """A short reason when `target` does not look like a translation of `source`, else None."""
    if not target or not target.strip():
        return None
    s, t = word_count(_one_variant(source)), word_count(_one_variant(target))
    if s >= MIN_WORDS:
        ratio = t / s
        if ratio < RATIO_LOW or ratio > RATIO_HIGH:
            return f"{t} target words for {s} source words"
    ns = _numbers(source)
    if len(ns) >= 2 and not ns & _numbers(target):
        return "none of the source's numbers is in the target"
    return None
