"""Counting metrics beside the judge: EM accuracy, TCR-PR / TCR-T / TCR-EM, glossary conformity.

Definitions follow the Variation Matters paper (§4; Table 20 is reproduced in the tests) and the
TermJudge paper's glossary-conformity baselines (head term against the glossary, other forms against a
document pseudo-reference: first translation or majority). Each metric reports how many occurrences it
could score (`scored`) out of how many exist (`total`), so coverage is never hidden.

Input is a flat list of `Item`s: one per occurrence, in document order.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from termqa.labels import CTV_PRESERVES, TYPE_CODES


@dataclass(frozen=True, slots=True)
class Item:
    doc_id: str
    concept_id: str
    source_form: str
    rendering: Optional[tuple[str, ...]]  # normalised lemma key of the aligned rendering, None if unaligned
    glossary_match: Optional[bool]  # matches an allowed glossary target term; None: concept has none
    is_head: bool = True  # source form is the concept's head term (for conformity baselines)
    variation: str = "none"  # the source form's variation type (termqa.labels.TYPE_CODES)
    target_variation: Optional[str] = None  # the rendering's type relative to the target preferred term
    spelling: bool = False  # a GRAPH form that is a spelling (hyphen, closed compound), not an acronym


@dataclass(frozen=True)
class Ratio:
    hits: float
    scored: int
    total: int

    @property
    def value(self) -> Optional[float]:
        return self.hits / self.scored if self.scored else None

    def as_dict(self) -> dict:
        v = self.value
        return {"value": None if v is None else round(v, 6), "hits": round(self.hits, 6),
                "scored": self.scored, "total": self.total}


def em(items: Sequence[Item]) -> Ratio:
    """Share of occurrences whose rendering matches an allowed glossary term (concepts with one)."""
    scored = [i for i in items if i.glossary_match is not None]
    return Ratio(sum(1 for i in scored if i.glossary_match), len(scored), len(items))


def _chains(items: Sequence[Item]) -> dict:
    chains = defaultdict(list)
    for i in items:
        chains[(i.doc_id, i.concept_id, i.source_form)].append(i)
    return chains


def tcr_pr(items: Sequence[Item]) -> Ratio:
    """Agreement with the chain's first translation (pseudo-reference), chains of 2+ occurrences."""
    hits = scored = 0
    for chain in _chains(items).values():
        if len(chain) < 2:
            continue
        ref = chain[0].rendering
        scored += len(chain)
        hits += sum(1 for i in chain if ref is not None and i.rendering == ref)
    return Ratio(hits, scored, len(items))


def tcr_t(items: Sequence[Item]) -> Ratio:
    """Share of consecutive occurrence pairs in a chain with identical translations.

    `scored` counts pairs here (k-1 per chain of k), `total` occurrences.
    """
    hits = pairs = 0
    for chain in _chains(items).values():
        for a, b in zip(chain, chain[1:]):
            pairs += 1
            hits += a.rendering is not None and a.rendering == b.rendering
    return Ratio(hits, pairs, len(items))


def tcr_em(items: Sequence[Item]) -> Ratio:
    """Per chain of 2+ occurrences with a glossary entry, the share matching the glossary; mean over
    chains (macro). `hits` is the sum of per-chain shares, `scored` the number of chains."""
    shares = []
    for chain in _chains(items).values():
        if len(chain) < 2 or chain[0].glossary_match is None:
            continue
        shares.append(sum(1 for i in chain if i.glossary_match) / len(chain))
    return Ratio(sum(shares), len(shares), len(items))


def conformity(items: Sequence[Item], fallback: str = "first") -> Ratio:
    """Glossary conformity: forms with a glossary reference against it, the others against the
    document's first (`first`) or most frequent (`majority`, ties by first appearance) translation of
    that form, on lemmas. Unaligned occurrences count as not conforming."""
    hits = scored = 0
    for chain in _chains(items).values():
        if chain[0].glossary_match is not None:
            scored += len(chain)
            hits += sum(1 for i in chain if i.glossary_match)
            continue
        ref = pseudo_reference([i.rendering for i in chain], fallback)
        if ref is None:
            continue
        scored += len(chain)
        hits += sum(1 for i in chain if i.rendering == ref)
    return Ratio(hits, scored, len(items))


def ctv(items: Sequence[Item]) -> Ratio:
    """Cross-term variation (variation preservation, the Variation Matters paper's third dimension).

    Where a document translates the concept's preferred term correctly (one head-term occurrence
    matching the glossary), each GRAPH / RED / EXP / LEX occurrence of the concept scores a hit
    when its rendering has the corresponding type: an acronym, a reduction, an expansion, a lexical
    variant or the preferred term itself (LEX). MORPH and COMBO are not scored. A GRAPH form that is
    only a spelling ("hand washing" for "hand-washing") is preserved by the preferred term too: a
    hyphen has no counterpart to keep in another language.
    """
    good = {(i.doc_id, i.concept_id) for i in items if i.is_head and i.glossary_match}
    hits = scored = 0
    for i in items:
        want = CTV_PRESERVES.get(i.variation)
        if want is None or (i.doc_id, i.concept_id) not in good:
            continue
        scored += 1
        hits += i.target_variation in want or (i.spelling and i.target_variation == "none")
    return Ratio(hits, scored, len(items))


def variation_shares(items: Sequence[Item]) -> dict:
    """Occurrences per variation type (paper codes, NO-VAR for the preferred term) and their share."""
    c = Counter(TYPE_CODES.get(i.variation, i.variation) for i in items)
    n = len(items)
    return {k: {"occurrences": c[k], "share": round(c[k] / n, 6)} for k in TYPE_CODES.values() if c[k]}


def pseudo_reference(renderings: Sequence, how: str = "majority") -> Optional[tuple]:
    """First or most frequent non-null rendering; majority ties go to the first appearance."""
    seen = [r for r in renderings if r is not None]
    if not seen:
        return None
    if how == "first":
        return seen[0]
    counts = Counter(seen)
    best = max(counts.values())
    return next(r for r in seen if counts[r] == best)


METRICS = {
    "em": em,
    "tcr_pr": tcr_pr,
    "tcr_t": tcr_t,
    "tcr_em": tcr_em,
    "conformity_first": lambda items: conformity(items, "first"),
    "conformity_majority": lambda items: conformity(items, "majority"),
    "ctv": ctv,
}


def all_metrics(items: Sequence[Item]) -> dict[str, Ratio]:
    return {name: fn(items) for name, fn in METRICS.items()}


def per_document(items: Iterable[Item]) -> dict[str, dict[str, Ratio]]:
    by_doc = defaultdict(list)
    for i in items:
        by_doc[i.doc_id].append(i)
    return {d: all_metrics(v) for d, v in by_doc.items()}
