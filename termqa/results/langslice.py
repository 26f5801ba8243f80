"""Cutting a result of several target languages to one language (termqa.results.languages says why).

Kept apart from termqa.results.languages, which builds each language's figures with the backlog:
the backlog reads a multilingual result through these functions too.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from termqa.lang.langtags import normalise_tag

# What each language gets of its own run's result (the top-level figures a mixed run drops).
LANGUAGE_KEYS = ("summary", "scores", "metrics")


def language_of(doc) -> str:
    """A document's target language tag, as the languages are keyed (a record or a JSON document row)."""
    tgt = doc.get("tgt_lang") if isinstance(doc, Mapping) else doc.tgt_lang
    return normalise_tag(tgt or "") or "und"


def target_languages(documents: Sequence) -> list[str]:
    """The target languages of `documents`, in order of first appearance."""
    return list(dict.fromkeys(language_of(d) for d in documents))


def slice_result(data: Mapping, lang: str) -> dict:
    """A multilingual result dict cut to the documents of `lang`: what the writers (HTML, CSV, XLSX,
    backlog) read of one language, its figures those of `languages[lang]`."""
    part = data["languages"][lang]
    ids = set(part["documents"])
    occ = [o for o in data.get("occurrences") or [] if o["doc_id"] in ids]
    used = {o["concept_id"] for o in occ}
    return {
        **data,
        "inputs": data.get("inputs") or [],
        "documents": [d for d in data.get("documents") or [] if d["doc_id"] in ids],
        "occurrences": occ,
        "segments": [s for s in data.get("segments") or [] if s["doc_id"] in ids],
        "references": [r for r in data.get("references") or [] if r["doc_id"] in ids],
        "concepts": [c for c in data.get("concepts") or [] if c["id"] in used],
        **{k: part[k] for k in LANGUAGE_KEYS},
        "languages": None,
    }


__all__ = ["LANGUAGE_KEYS", "language_of", "target_languages", "slice_result"]
