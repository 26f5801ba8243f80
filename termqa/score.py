"""TermJudge scores from verdicts: a pure function of labels and a penalty table.

Document score = mean penalty over the document's scored occurrences (lower is better); system score
= mean of document scores; also macro-averaged per source form and per concept (within each
document, then over documents). Unjudged occurrences are never scored as 0: they are counted apart and
reduce coverage. Because the penalty is looked up from the label here, saved verdicts can be re-scored
under another table at no LLM cost (`termqa rescore`).
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Mapping, Optional, Sequence

from termqa.errors import UsageError
from termqa.labels import CONSISTENCY_LABELS, DEFAULT_PENALTIES, ERROR_CODES
from termqa.model import CONFORMING, ERROR, JUSTIFIED, UNJUDGED, UNJUSTIFIED


def penalty_for(outcome: str, label: Optional[str], table: Mapping[str, float]) -> Optional[float]:
    """The penalty of one verdict, or None when it is unjudged."""
    if outcome == UNJUDGED:
        return None
    if outcome == ERROR:
        if label not in table:
            raise KeyError(f"no penalty for error label {label!r}")
        return float(table[label])
    if outcome in (CONFORMING, JUSTIFIED, UNJUSTIFIED):
        return float(table[outcome])
    raise KeyError(f"unknown outcome {outcome!r}")


def validate_table(table: Mapping[str, float]) -> dict[str, float]:
    """A full penalty table: defaults overridden by `table`; unknown keys are refused."""

    known = set(DEFAULT_PENALTIES)
    bad = [k for k in table if k not in known]
    if bad:
        raise UsageError(
            f"unknown penalty keys: {', '.join(sorted(bad))}",
            fix=f"use outcomes (conforming, justified, unjustified) or codes {', '.join(ERROR_CODES)}",
        )
    out = dict(DEFAULT_PENALTIES)
    for k, v in table.items():
        try:
            out[k] = float(v)
        except (TypeError, ValueError):
            raise UsageError(f"penalty for {k} is not a number: {v!r}") from None
    return out


_INF = float("inf")


def mean(xs):
    """`statistics.mean`: the same value and type, without its Fraction arithmetic per value (a visible
    part of a big run's scores).

    A float is an integer over a power of two, so the exact sum is an integer over the largest
    denominator, and Python's int division rounds the exact mean once, as statistics.mean does. Like
    it, a whole mean of ints stays an int; other number types go to statistics.mean itself."""
    if not isinstance(xs, list):
        xs = list(xs)
    if not xs:
        raise statistics.StatisticsError("mean requires at least one data point")
    num, den, ints = 0, 1, True
    for x in xs:
        t = type(x)
        if t is float:
            ints = False
            if x != x or x in (_INF, -_INF):  # no integer ratio: statistics.mean's own answer (nan, inf)
                return statistics.mean(xs)
        elif t is not int:
            return statistics.mean(xs)
        n, d = x.as_integer_ratio()
        if d > den:
            num *= d // den
            den = d
        elif d < den:
            n *= den // d
        num += n
    total = den * len(xs)
    if ints and num % total == 0:
        return num // total
    return num / total


def _mean(xs):
    return mean(xs) if xs else None


def scores(rows: Sequence[Mapping]) -> dict:
    """Scores from occurrence rows (dicts with doc_id, concept_id, source_form, outcome, penalty)."""
    by_doc = defaultdict(list)
    for r in rows:
        by_doc[r["doc_id"]].append(r)
    docs = {}
    sf_scores, concept_scores = [], []
    for doc_id, rs in by_doc.items():
        scored = [r for r in rs if r["penalty"] is not None]
        docs[doc_id] = {
            "score": _round(_mean([r["penalty"] for r in scored])),
            "scored": len(scored),
            "unjudged": len(rs) - len(scored),
        }
        by_sf, by_c = defaultdict(list), defaultdict(list)
        for r in scored:
            by_sf[(r["concept_id"], r["source_form"])].append(r["penalty"])
            by_c[r["concept_id"]].append(r["penalty"])
        if scored:
            sf_scores.append(mean(mean(v) for v in by_sf.values()))
            concept_scores.append(mean(mean(v) for v in by_c.values()))
    all_scored = [r["penalty"] for r in rows if r["penalty"] is not None]
    doc_vals = [d["score"] for d in docs.values() if d["score"] is not None]
    total = len(rows)
    return {
        "system": _round(_mean(doc_vals)),
        "micro": _round(_mean(all_scored)),
        "by_source_form": _round(_mean(sf_scores)),
        "by_concept": _round(_mean(concept_scores)),
        "scored": len(all_scored),
        "unjudged": total - len(all_scored),
        "coverage": _round(len(all_scored) / total) if total else None,
        "documents": docs,
    }


def rescore_rows(rows: Sequence[Mapping], table: Mapping[str, float]) -> list[dict]:
    """Rows with penalties recomputed from their outcome and label under `table`."""
    out = []
    for r in rows:
        label = r.get("label")
        if r["outcome"] == ERROR and label not in table:
            raise KeyError(f"no penalty for label {label!r}")
        out.append({**r, "penalty": penalty_for(r["outcome"], label, table)})
    return out


def _round(x):
    return None if x is None else round(x, 6)


__all__ = ["penalty_for", "scores", "rescore_rows", "validate_table", "CONSISTENCY_LABELS"]
