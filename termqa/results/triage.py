"""What to review first in counting mode: the occurrences termqa could not decide, in plain classes a
project manager reads, ranked by how likely they are wrong.

Without a judge, an undecided occurrence is a question for a person. Not all questions are alike: a
different word than the glossary's, a term nobody translated or one kept in the source language is often
wrong; a plural or an adjective made from the glossary term is usually fine. The rank puts the first kind
before the second, so the few minutes a reviewer has go where the errors are.

Each reason an occurrence is left undecided (`termqa.labels`, R_*) belongs to one class. Reads only the
result dict.
"""
from __future__ import annotations

from dataclasses import dataclass

from termqa import labels as L


@dataclass(frozen=True)
class ReviewClass:
    key: str  # stable, for the JSON and filters
    text: str  # what a person reads
    rank: int  # lower: more likely wrong, reviewed first
    likely: str  # "likely wrong", "often wrong", "likely fine": the plain reading of the rank


DIFFERENT = ReviewClass("different_word", "different word", 1, "often wrong")
NOT_FOUND = ReviewClass("not_found", "not found", 2, "often wrong")
KEPT = ReviewClass("kept", "kept in the source language", 3, "often wrong")
SPELLING = ReviewClass("spelling", "spelling", 4, "sometimes wrong")
NO_REFERENCE = ReviewClass("no_reference", "no glossary term to compare with", 5, "unknown")
MISALIGNED = ReviewClass("misaligned", "segment may not match its source", 6, "unknown")
INFLECTED = ReviewClass("inflected", "inflected form", 7, "likely fine")
DERIVED = ReviewClass("derived", "derived form", 8, "likely fine")
NOT_JUDGED = ReviewClass("not_judged", "the judge did not answer", 5, "unknown")
OTHER = ReviewClass("other", "to check", 5, "unknown")

CLASSES = (DIFFERENT, NOT_FOUND, KEPT, SPELLING, NO_REFERENCE, MISALIGNED, INFLECTED, DERIVED, NOT_JUDGED, OTHER)

_BY_REASON = {
    L.R_DIVERGES_GLOSSARY: DIFFERENT, L.R_DIVERGES_MAJORITY: DIFFERENT, L.R_HEAD_DROPPED: DIFFERENT,
    L.R_MISSING: NOT_FOUND, L.R_NO_RENDERING: NOT_FOUND, L.R_NOT_IN_SEGMENT: NOT_FOUND,
    L.R_COPIED_WORD: KEPT, L.R_COPY_UNKNOWN: KEPT, L.R_ACRONYM_KEPT: KEPT, L.R_SHORT_FORM_KEPT: KEPT,
    L.R_IN_KEPT_NAME: KEPT,
    L.R_SPELLING_PSEUDO: SPELLING, L.R_SPELLING_VARIANT: SPELLING, L.R_SPELLING_INFLECTED: SPELLING,
    L.R_HAPAX: NO_REFERENCE, L.R_NO_REFERENCE: NO_REFERENCE,
    L.R_MISALIGNED: MISALIGNED,
    L.R_INFLECTED: INFLECTED, L.R_DERIVED: DERIVED,
    L.R_BUDGET: NOT_JUDGED, L.R_UNAVAILABLE: NOT_JUDGED, L.R_BATCH: NOT_JUDGED,
}


def review_class(o: dict) -> ReviewClass:
    """The class of an undecided occurrence (a result row), from the reason it was left undecided."""
    return _BY_REASON.get(o.get("reason") or "", OTHER)


def by_key(key: str) -> ReviewClass:
    for c in CLASSES:
        if c.key == key:
            return c
    return OTHER
