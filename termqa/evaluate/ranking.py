"""Statistics and ranking of `termqa compare`: the paired test between two systems and the clusters of
systems it cannot tell apart.

Separate from termqa.evaluate.compare because it works on plain score lists, knowing nothing of inputs,
references or the pipeline; its parameters come from the run's settings (termqa.config: alpha, resamples, seed).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence

from termqa.evaluate import stats
from termqa.evaluate.stats import PermutationTest

# Up to this many documents the sign-flip distribution is enumerated exactly (2^12 = 4096 patterns).
EXACT_MAX_DOCUMENTS = 12
# Below this many documents systems are tested on paired segment scores rather than document scores.
SEGMENT_PAIRING_BELOW = 6


def paired_permutation_test(a: Sequence[float], b: Sequence[float], *, resamples: int, seed: int,
                            exact_max: int = EXACT_MAX_DOCUMENTS) -> PermutationTest:
    """Two-sided paired sign-flip test of the mean difference of document scores (termqa.evaluate.stats):
    exact up to `exact_max` documents, else `resamples` seeded patterns with p = (hits + 1) / (resamples + 1).
    """
    return stats.paired_sign_flip_test(a, b, alternative=stats.TWO_SIDED, exact_max=exact_max,
                                       resamples=resamples, seed=seed, include_observed=True)


@dataclass(frozen=True)
class Rank:
    name: str
    rank: Optional[int]  # None: the system has no scored occurrence
    tie: bool
    score: Optional[float]
    cluster: Optional[int]


def rank_systems(scores: Mapping[str, Optional[float]], p_value: Callable[[str, str], Optional[float]],
                 alpha: float) -> list[Rank]:
    """Systems from best (lowest score) to worst, in significance clusters.

    Walking down the sorted list, a system joins the current cluster when the test cannot tell it from
    the cluster's best system (p >= alpha, or no shared document to test on); otherwise it opens a new
    cluster. Members of a cluster share its rank (1 + the number of systems in better clusters) and are
    marked as a tie when the cluster has more than one member.
    """
    order = list(scores)
    scored = sorted((n for n in order if scores[n] is not None), key=lambda n: (scores[n], order.index(n)))
    clusters: list[list[str]] = []
    for name in scored:
        if clusters:
            p = p_value(clusters[-1][0], name)
            if p is None or p >= alpha:
                clusters[-1].append(name)
                continue
        clusters.append([name])
    out, before = [], 0
    for k, members in enumerate(clusters, 1):
        for name in members:
            out.append(Rank(name, before + 1, len(members) > 1, scores[name], k))
        before += len(members)
    out += [Rank(n, None, False, None, None) for n in order if scores[n] is None]
    return out
