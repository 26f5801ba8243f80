"""Paired sign-flip permutation tests, the one implementation behind `termqa compare` (are two systems'
document scores different?) and `termqa meta-eval` (is system i better than system j, by the humans
and by a metric?).

Under the null hypothesis that two systems are exchangeable on every item (a document or a
segment), each paired difference d_k keeps its size and gets a random sign. The statistic is the
signed sum of the differences (the mean times a constant n, so both order the patterns alike); the
p-value is the share of sign patterns whose sum is at least as extreme as the observed one:

* two-sided: |sum(s * d)| >= |sum(d)|;
* greater (one-sided, "a is better than b" when higher is better): sum(s * d) >= sum(d).

Up to `exact_max` items every one of the 2^n patterns is enumerated (an exact test). Above, random
patterns come from numpy's default generator seeded with `seed`, so a run is reproducible; drawn
in blocks of bounded size, which yields the same patterns as one draw. A sampled p-value either
counts the observed pattern as one of the permutations, p = (hits + 1) / (resamples + 1), which
can never be 0 (`include_observed=True`, what `compare` reports), or is the plain share of the
drawn patterns (`include_observed=False`, what SPA needs: the humans' and the metric's p-values
must rest on the very same patterns).

numpy comes with spaCy (a dependency of termqa); the error below only names the fix should it be
missing.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Iterator, Optional, Sequence

from termqa.errors import UsageError

if TYPE_CHECKING:  # numpy is imported when a test runs
    import numpy as np

TWO_SIDED = "two-sided"
GREATER = "greater"
ALTERNATIVES = (TWO_SIDED, GREATER)
# Exact enumeration never goes beyond this many items (2^20 patterns), whatever the budget.
EXACT_CAP = 20
# A signed sum within this share of sum(|d|) below the observed one counts as "as extreme": the same
# numbers summed in another order (matrix product against Python or numpy sum) differ in the last bits.
REL_TOL = 1e-9
# Random patterns are drawn in blocks of at most this many cells (bounded memory for long item lists).
MAX_BLOCK_CELLS = 2_000_000


def numpy() -> ModuleType:
    """numpy, or a UsageError naming the extra that installs it."""
    try:
        import numpy as np
    except ModuleNotFoundError:  # pragma: no cover - numpy ships with spaCy and the stats/test extras
        raise UsageError("the permutation tests need numpy", fix='pip install "termqa[stats]"') from None
    return np


def exact_limit(budget: int) -> int:
    """The most items whose 2^n sign patterns fit in `budget` patterns (at most EXACT_CAP)."""
    if budget < 1:
        return -1
    return min(EXACT_CAP, budget.bit_length() - 1)


def is_exact(n: int, exact_max: int) -> bool:
    return n <= min(exact_max, EXACT_CAP)


def exact_patterns(n: int) -> "np.ndarray":
    """All 2^n sign patterns over n items as a float matrix; row 0 is all +1 (the observed pattern)."""
    np = numpy()
    idx = np.arange(2 ** n)[:, None]
    return np.where((idx >> np.arange(n)[None, :]) & 1, -1.0, 1.0)


def sampled_patterns(n: int, resamples: int, seed: int, *,
                     max_cells: Optional[int] = MAX_BLOCK_CELLS) -> Iterator["np.ndarray"]:
    """`resamples` random sign patterns over n items, in blocks of at most `max_cells` cells (None: one
    block). The blocks concatenated are the patterns of one draw: the generator's stream is the same."""
    np = numpy()
    rng = np.random.default_rng(seed)
    left = resamples
    block = resamples if max_cells is None else max(1, min(resamples, max_cells // max(n, 1)))
    while left > 0:
        k = min(block, left)
        yield rng.integers(0, 2, size=(k, n)).astype(float) * 2.0 - 1.0
        left -= k


def sign_matrix(n: int, *, exact_max: int, resamples: int, seed: int) -> "np.ndarray":
    """The sign patterns of a test over n items as one (patterns x n) matrix, to share between several
    tests: all 2^n of them when n <= exact_max, else `resamples` seeded random ones."""
    if is_exact(n, exact_max):
        return exact_patterns(n)
    if resamples < 1:
        return numpy().zeros((0, n))
    return next(sampled_patterns(n, resamples, seed, max_cells=None))


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, not {alternative!r}")


def count_as_extreme(d: Sequence[float], patterns: "np.ndarray", alternative: str = TWO_SIDED) -> int:
    """How many rows s of `patterns` give a signed sum sum(s * d) at least as extreme as sum(d)."""
    _check_alternative(alternative)
    np = numpy()
    d = np.asarray(d, dtype=float)
    observed = float(d.sum())
    tol = REL_TOL * max(1.0, float(np.abs(d).sum()))
    null = patterns @ d
    if alternative == TWO_SIDED:
        return int(np.count_nonzero(np.abs(null) >= abs(observed) - tol))
    return int(np.count_nonzero(null >= observed - tol))


def share_as_extreme(d: Sequence[float], patterns: "np.ndarray", alternative: str = GREATER) -> float:
    """The p-value on given patterns: the share of them at least as extreme as the observed sum."""
    return count_as_extreme(d, patterns, alternative) / patterns.shape[0]


@dataclass(frozen=True)
class PermutationTest:
    """A paired sign-flip test of mean(a - b) over the items.

    `p_value` is None when there is no item; `method` is `exact` (every sign pattern enumerated),
    `sampled` (random patterns) or `none`; `resamples` is the number of patterns used.
    """

    n: int
    mean_diff: Optional[float]
    p_value: Optional[float]
    method: str
    resamples: int = 0
    alternative: str = TWO_SIDED


def paired_sign_flip_test(a: Sequence[float], b: Sequence[float], *, alternative: str = TWO_SIDED,
                          exact_max: int, resamples: int, seed: int,
                          include_observed: bool = True) -> PermutationTest:
    """Test the paired differences a - b (see the module docstring for the options)."""
    _check_alternative(alternative)
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    d = [float(x) - float(y) for x, y in zip(a, b)]
    n = len(d)
    if n == 0:
        return PermutationTest(0, None, None, "none", 0, alternative)
    mean_diff = sum(d) / n
    if is_exact(n, exact_max):
        hits = count_as_extreme(d, exact_patterns(n), alternative)
        return PermutationTest(n, mean_diff, hits / 2 ** n, "exact", 2 ** n, alternative)
    hits = sum(count_as_extreme(d, block, alternative) for block in sampled_patterns(n, resamples, seed))
    p = (hits + 1) / (resamples + 1) if include_observed else hits / resamples
    return PermutationTest(n, mean_diff, p, "sampled", resamples, alternative)


def smallest_p_value(n: int, *, alternative: str = TWO_SIDED, exact_max: int, resamples: int,
                     include_observed: bool = True) -> float:
    """The smallest p-value a test over n items can give: if it is not below alpha, no difference can
    show (with no item there is no test: 1)."""
    _check_alternative(alternative)
    if n == 0:
        return 1.0
    if is_exact(n, exact_max):
        # the observed pattern and, two-sided, its mirror image are always as extreme
        return (2 if alternative == TWO_SIDED else 1) / 2 ** n
    return 1 / (resamples + 1) if include_observed else 0.0


__all__ = ["PermutationTest", "paired_sign_flip_test", "count_as_extreme", "share_as_extreme", "sign_matrix", "exact_patterns", "sampled_patterns", "exact_limit", "is_exact", "smallest_p_value",
           "TWO_SIDED", "GREATER", "ALTERNATIVES", "REL_TOL"]
