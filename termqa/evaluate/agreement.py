"""How far a metric agrees with human scores: the statistics of `termqa meta-eval` on score matrices.

Score matrices are systems x items, higher is better, NaN = no score.

   * `pairwise_p_values`: for every system pair (i, j), the one-sided p-value of a paired
     permutation (sign-flip) test for "system i is better than system j": the share of sign vectors
     s for which sum(s * (x_i - x_j)) >= sum(x_i - x_j) over the items both systems have. With
     2^n <= k items the test is exact (all sign vectors), otherwise k random ones from `seed`.
   * `spa`: Soft Pairwise Accuracy (Thompson et al. 2024): 1 - mean over pairs i<j of
     |p_human(i>j) - p_metric(i>j)|. Both p-values are one-sided in the same direction, so a metric
     that is as confident as the humans, in the same direction, scores 1; a confident metric that
     contradicts confident humans scores 0 on that pair. Human and metric tests use the same sign
     vectors and the same items (those where both systems have both scores), so a metric equal to
     the human scores up to a positive affine map has SPA = 1 exactly.
   * `acc_eq`: pairwise accuracy with ties (Deutsch et al. 2023), grouped by item: for each item
     (segment or document), every pair of systems scored by both the humans and the metric counts
     as correct when both order it the same way or both call it a tie (human tie: equal scores;
     metric tie: |difference| <= epsilon); accuracy per item, averaged over items. Tie calibration
     picks the epsilon (0 or one of the observed metric differences) that maximises it; the smallest
     such epsilon is reported.
   * `compare`: is metric A significantly better than metric B on a statistic? Paired permutation
     test that swaps the two metrics' (z-normalised) scores item by item (PERM-BOTH); returns the
     p-value for "A is better".

Separate from termqa.evaluate.meta_eval, which builds the matrices from results and human annotations:
these functions know nothing of termqa results. numpy is imported inside functions (the `stats` extra).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from termqa.errors import UsageError
from termqa.evaluate import stats

TOL = 1e-9  # scores closer than this are equal (human ties, metric ties at epsilon 0)


def rounded(x):
    """A statistic as reported: rounded to 6 places; None for a missing value or NaN."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else round(x, 6)


def sign_vectors(n: int, k: int = 1000, seed: int = 0):
    """k x n matrix of +1/-1: every sign vector when 2^n <= k (an exact test), else k random ones
    (termqa.evaluate.stats), shared by all the tests of one evaluation."""
    return stats.sign_matrix(n, exact_max=stats.exact_limit(k), resamples=k, seed=seed)


def pairwise_p_values(scores, signs=None, *, k: int = 1000, seed: int = 0, valid=None):
    """n_sys x n_sys matrix: [i, j] (i < j) = p-value for "system i is better than system j"
    over the items where both have a score (and `valid[i][j]`, a boolean item mask, allows): the
    one-sided sign-flip test on the given sign vectors (the share as extreme, no +1 correction)."""
    np = stats.numpy()
    x = np.asarray(scores, dtype=float)
    n_sys, n = x.shape
    if signs is None:
        signs = sign_vectors(n, k, seed)
    p = np.full((n_sys, n_sys), np.nan)
    for i in range(n_sys):
        for j in range(i + 1, n_sys):
            ok = np.isfinite(x[i]) & np.isfinite(x[j])
            if valid is not None:
                ok &= valid[i][j]
            if ok.any():
                p[i, j] = stats.share_as_extreme((x[i] - x[j])[ok], signs[:, ok], stats.GREATER)
    return p


@dataclass(frozen=True)
class SPA:
    value: Optional[float]
    pairs: int
    human_p: object  # n_sys x n_sys arrays (upper triangle)
    metric_p: object

    def as_dict(self, systems: Sequence[str] = ()) -> dict:
        out = {"value": rounded(self.value), "pairs": self.pairs}
        if systems:
            rows = []
            n = len(systems)
            for i in range(n):
                for j in range(i + 1, n):
                    if math.isfinite(self.human_p[i, j]) and math.isfinite(self.metric_p[i, j]):
                        rows.append({"a": systems[i], "b": systems[j], "p_human": rounded(self.human_p[i, j]),
                                     "p_metric": rounded(self.metric_p[i, j])})
            out["pairs_detail"] = rows
        return out


def spa(human, metric, *, k: int = 1000, seed: int = 0, signs=None) -> SPA:
    """Soft Pairwise Accuracy of `metric` against `human` (both systems x items, higher is better)."""
    np = stats.numpy()
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    if h.shape != m.shape:
        raise UsageError(f"human and metric matrices differ in shape: {h.shape} vs {m.shape}")
    if signs is None:
        signs = sign_vectors(h.shape[1], k, seed)
    both = np.isfinite(h) & np.isfinite(m)
    n_sys = h.shape[0]
    valid = [[both[i] & both[j] for j in range(n_sys)] for i in range(n_sys)]
    ph = pairwise_p_values(h, signs, valid=valid)
    pm = pairwise_p_values(m, signs, valid=valid)
    iu = np.triu_indices(n_sys, 1)
    ok = np.isfinite(ph[iu]) & np.isfinite(pm[iu])
    value = float(1.0 - np.mean(np.abs(ph[iu][ok] - pm[iu][ok]))) if ok.any() else None
    return SPA(value, int(ok.sum()), ph, pm)


@dataclass(frozen=True)
class AccEq:
    value: Optional[float]
    epsilon: Optional[float]
    items: int  # items with at least one usable system pair
    pairs: int

    def as_dict(self) -> dict:
        return {"value": rounded(self.value), "epsilon": rounded(self.epsilon), "items": self.items, "pairs": self.pairs}


def _item_pairs(h, m):
    """Per usable system pair of every item: human sign (-1/0/1), metric difference, weight
    (1 / usable pairs of its item / usable items), and the number of usable items."""
    np = stats.numpy()
    i, j = np.triu_indices(h.shape[0], 1)
    hd = h[i] - h[j]  # pairs x items
    md = m[i] - m[j]
    ok = np.isfinite(hd) & np.isfinite(md)
    per_item = ok.sum(axis=0)
    items = int(np.sum(per_item > 0))
    if not items:
        return np.zeros(0), np.zeros(0), np.zeros(0), 0
    w_item = np.where(per_item > 0, 1.0 / np.maximum(per_item, 1) / items, 0.0)
    w = np.broadcast_to(w_item, ok.shape)[ok]
    hdv = hd[ok]
    hs = np.where(np.abs(hdv) <= TOL, 0.0, np.sign(hdv))
    return hs, md[ok], w, items


def acc_eq(human, metric, *, epsilon: Optional[float] = None) -> AccEq:
    """Group-by-item pairwise accuracy with ties; tie-calibrated unless `epsilon` is given."""
    np = stats.numpy()
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    hs, md, w, items = _item_pairs(h, m)
    if not len(hs):
        return AccEq(None, None, 0, 0)
    a = np.abs(md)
    agree = (hs != 0) & (a > TOL) & (np.sign(md) == hs)
    if epsilon is not None:
        tie = a <= epsilon + TOL
        correct = np.where(hs == 0, tie, agree & ~tie)
        return AccEq(float(np.sum(w * correct)), float(epsilon), items, len(hs))
    # sweep epsilon over 0 and the observed differences: a pair whose |difference| <= epsilon turns
    # into a metric tie, right when the humans tie it, wrong when it was ordered correctly
    base = float(np.sum(w * agree))
    gain = np.where(hs == 0, w, 0.0) - np.where(agree, w, 0.0)
    order = np.argsort(a, kind="stable")
    a_sorted, g_sorted = a[order], gain[order]
    cum = np.cumsum(g_sorted)
    # epsilon 0: only exact metric ties are ties
    zero = int(np.sum(a_sorted <= TOL))
    best_acc, best_eps = base + (float(cum[zero - 1]) if zero else 0.0), 0.0
    # other candidates: the end of each run of (near-)equal differences; ties keep the smaller one
    n = len(a_sorted)
    t = zero
    while t < n:
        u = t
        while u + 1 < n and a_sorted[u + 1] - a_sorted[t] <= TOL:
            u += 1
        acc = base + float(cum[u])
        if acc > best_acc + 1e-12:
            best_acc, best_eps = acc, float(a_sorted[u])
        t = u + 1
    return AccEq(best_acc, best_eps, items, len(hs))


def _zscore(x):
    np = stats.numpy()
    v = x[np.isfinite(x)]
    sd = float(v.std()) if v.size else 0.0
    return (x - float(v.mean())) / sd if sd > 0 else x - (float(v.mean()) if v.size else 0.0)


def compare(stat: Callable, human, m1, m2, *, k: int = 200, seed: int = 1) -> dict:
    """p-value that metric 1 beats metric 2 on `stat(human, metric) -> float` (PERM-BOTH: each
    item's scores of the two metrics, z-normalised, are swapped with probability 1/2)."""
    np = stats.numpy()
    h = np.asarray(human, dtype=float)
    a, b = _zscore(np.asarray(m1, dtype=float)), _zscore(np.asarray(m2, dtype=float))
    s1, s2 = stat(h, a), stat(h, b)
    if s1 is None or s2 is None:
        return {"p": None, "delta": None}
    obs = s1 - s2
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(k):
        swap = rng.integers(0, 2, size=h.shape[1]).astype(bool)
        pa = np.where(swap[None, :], b, a)
        pb = np.where(swap[None, :], a, b)
        v1, v2 = stat(h, pa), stat(h, pb)
        if v1 is not None and v2 is not None and v1 - v2 >= obs - 1e-12:
            hits += 1
    return {"p": rounded(hits / k), "delta": rounded(obs)}

__all__ = ["spa", "acc_eq", "pairwise_p_values", "sign_vectors", "compare", "rounded", "SPA", "AccEq", "TOL"]
