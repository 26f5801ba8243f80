"""Source words: the one word count termqa shows (`inspect`, the report, the JSON `summary.source_words`,
the judge's cost per 1,000 words, every warning that names a number of words).

A word is a run of letters or digits; an apostrophe or a hyphen between two such runs joins them
("l'eau", "state-of-the-art", "CP-200" are one word each); punctuation, inline tags and spaces are not
words. In scripts written without spaces (Chinese, Japanese, Thai...) a run of letters is many words: it
counts as its length over the script's mean word length (termqa.lang.segment.word_count), so a Chinese
source is not counted as a handful of words. "Source words" are the words of the source text of every translatable segment read, translated or
not (units marked not translatable are not segments). Three counts of one file (whitespace-separated
chunks in the report, this in `inspect`, source and target together in a warning) made the same project
look like three sizes; every place now calls `source_words`.
"""
from __future__ import annotations

import re
from typing import Iterable, Optional

from termqa.lang import segment
from termqa.model import Document, segment_texts

_WORD = re.compile(r"\w+(?:['’-]\w+)*", re.UNICODE)


def count_words(text: Optional[str]) -> int:
    """The words of one text (see the module's definition)."""
    if not text:
        return 0
    words = _WORD.findall(text)
    if segment.SCRIPT.search(text) is None:
        return len(words)
    return sum(segment.word_count(w) for w in words)  # a word without such a script counts 1 there too


def source_words(documents: Iterable[Document]) -> int:
    """The source words of every segment of `documents` (packed segments are read without records)."""
    return sum(count_words(source) for d in documents for _i, source, _t in segment_texts(d.segments))


def source_and_checked_words(documents: Iterable[Document]) -> tuple[int, int]:
    """(source words, checked words) of `documents` in one pass: the checked words are the source words of
    the segments that have a translation, the only ones whose terms were checked (a unit not translated yet
    had its target taken away). Rates are given over those: "0 issues per 1,000 words" over words nobody
    translated yet would read as a clean file."""
    total = checked = 0
    for d in documents:
        for _i, source, target in segment_texts(d.segments):
            n = count_words(source)
            total += n
            if target and target.strip():
                checked += n
    return total, checked


def target_words(documents: Iterable[Document]) -> int:
    """The target words of every segment of `documents`, by the same definition."""
    return sum(count_words(target) for d in documents for _i, _s, target in segment_texts(d.segments))
