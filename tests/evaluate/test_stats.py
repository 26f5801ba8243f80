"""The shared sign-flip permutation test (termqa.evaluate.stats): exact p-values worked out by hand, the
relation between one- and two-sided p-values, symmetry, seeded sampling, and that `compare` and
`meta-eval` both go through it."""
from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from termqa.evaluate import agreement as ag  # noqa: E402
from termqa.config import DEFAULT_RESAMPLES, DEFAULT_SEED  # noqa: E402
from termqa.evaluate import ranking  # noqa: E402
from termqa.evaluate import stats  # noqa: E402

EXACT = dict(exact_max=12, resamples=1000, seed=0)


def run(a, b, alternative=stats.TWO_SIDED, **kw):
    return stats.paired_sign_flip_test(a, b, alternative=alternative, **{**EXACT, **kw})


# --- exact enumeration ----------------------------------------------------------------------------

def test_exact_patterns_are_every_sign_vector_once():
    p = stats.exact_patterns(3)
    assert p.shape == (8, 3) and len({tuple(r) for r in p}) == 8
    assert list(p[0]) == [1.0, 1.0, 1.0]  # row 0 is the observed pattern
    # closed under negation: the null distribution of the sum is symmetric
    assert {tuple(-r) for r in p} == {tuple(r) for r in p}


def test_exact_p_values_by_hand():
    # d = (3, 1, 2) - (2, -1, -1) = (1, 2, 3): the 8 signed sums are 6, 4, 2, 0, 0, -2, -4, -6
    t = run([3, 1, 2], [2, -1, -1])
    assert (t.n, t.mean_diff, t.method, t.resamples) == (3, 2.0, "exact", 8)
    assert t.p_value == 2 / 8  # |sum| >= 6: +++ and ---
    assert run([3, 1, 2], [2, -1, -1], stats.GREATER).p_value == 1 / 8  # sum >= 6: +++ only
    # d = (0.5, -1.5), observed sum -1: the four sums are -1, -2, 2, 1
    t = run([0.5, 0.0], [0.0, 1.5])
    assert t.mean_diff == -0.5 and t.p_value == 1.0  # every |sum| >= 1
    assert run([0.5, 0.0], [0.0, 1.5], stats.GREATER).p_value == 3 / 4  # -1, 2 and 1 are >= -1
    # a zero difference doubles every sum: d = (1, 0, 2) -> sum >= 3 twice, |sum| >= 3 four times
    assert run([1, 0, 2], [0, 0, 0], stats.GREATER).p_value == 2 / 8
    assert run([1, 0, 2], [0, 0, 0]).p_value == 4 / 8
    # identical systems: nothing to see
    assert run([0.2, 0.7], [0.2, 0.7]).p_value == 1.0
    assert run([0.2, 0.7], [0.2, 0.7], stats.GREATER).p_value == 1.0


def test_two_sided_is_twice_the_one_sided_tail():
    # the null distribution is symmetric, so for an observed sum > 0, p2 = 2 * p(greater)
    rng = np.random.default_rng(4)
    for _ in range(25):
        n = int(rng.integers(1, 11))
        a, b = rng.normal(size=n).round(2), rng.normal(size=n).round(2)
        if abs(float(np.sum(a - b))) < 1e-6:
            continue
        hi, lo = (a, b) if np.sum(a - b) > 0 else (b, a)
        assert run(hi, lo).p_value == pytest.approx(2 * run(hi, lo, stats.GREATER).p_value)


def test_swapping_the_systems():
    a, b = [3, 1, 2], [2, -1, -1]
    ab, ba = run(a, b), run(b, a)
    assert ab.p_value == ba.p_value and ab.mean_diff == -ba.mean_diff
    # one-sided: p(a > b) + p(b > a) = 1 + P(sum equals the observed one) = 1 + 1/8 here
    assert run(a, b, stats.GREATER).p_value + run(b, a, stats.GREATER).p_value == 1 + 1 / 8


def test_sums_equal_up_to_float_noise_count_as_extreme():
    patterns = np.array([[1.0, 1.0], [1.0, -1.0]])
    # sums 1 + 1e-12 and 1 - 1e-12 differ by rounding-sized noise only
    assert stats.count_as_extreme([1.0, 1e-12], patterns, stats.GREATER) == 2
    assert stats.count_as_extreme([1.0, 0.01], patterns, stats.GREATER) == 1
    # 0.1 + 0.2 - 0.3 is not 0 in floats; every pattern is still as extreme
    assert run([0.1, 0.2, 0.0], [0.0, 0.0, 0.3]).p_value == 1.0


def test_where_exact_stops():
    assert [stats.exact_limit(k) for k in (1, 2, 1000, 1024, 2 ** 40)] == [0, 1, 9, 10, stats.EXACT_CAP]
    assert run([1.0] * 12, [0.0] * 12).method == "exact"
    assert run([1.0] * 13, [0.0] * 13).method == "sampled"
    assert stats.smallest_p_value(3, exact_max=12, resamples=1000) == 2 / 8
    assert stats.smallest_p_value(3, alternative=stats.GREATER, exact_max=12, resamples=1000) == 1 / 8
    assert stats.smallest_p_value(13, exact_max=12, resamples=999) == 1 / 1000
    assert stats.smallest_p_value(13, exact_max=12, resamples=999, include_observed=False) == 0.0
    assert stats.smallest_p_value(0, exact_max=12, resamples=999) == 1.0


# --- sampling -------------------------------------------------------------------------------------

def test_sampling_is_seeded_and_blocks_do_not_change_the_patterns():
    one = stats.sign_matrix(30, exact_max=12, resamples=500, seed=7)
    assert one.shape == (500, 30) and set(np.unique(one)) == {-1.0, 1.0}
    assert np.array_equal(one, stats.sign_matrix(30, exact_max=12, resamples=500, seed=7))
    assert not np.array_equal(one, stats.sign_matrix(30, exact_max=12, resamples=500, seed=8))
    blocks = list(stats.sampled_patterns(30, 500, 7, max_cells=30 * 64))
    assert len(blocks) == 8 and np.array_equal(np.concatenate(blocks), one)


def test_sampled_p_value_with_and_without_the_observed_pattern():
    rng = np.random.default_rng(11)
    a, b = rng.normal(size=40), rng.normal(size=40)
    kw = dict(exact_max=12, resamples=999, seed=3)
    plus = stats.paired_sign_flip_test(a, b, include_observed=True, **kw)
    share = stats.paired_sign_flip_test(a, b, include_observed=False, **kw)
    assert plus.method == share.method == "sampled" and plus.resamples == 999
    hits = round(share.p_value * 999)
    assert plus.p_value == (hits + 1) / 1000
    assert plus == stats.paired_sign_flip_test(a, b, include_observed=True, **kw)
    # no random pattern of 40 signs reaches the all-plus sum of 40 equal differences
    t = stats.paired_sign_flip_test([1.0] * 40, [0.0] * 40, **kw)
    assert t.p_value == 1 / 1000
    assert stats.paired_sign_flip_test([1.0] * 40, [0.0] * 40, include_observed=False, **kw).p_value == 0.0


def test_bad_calls():
    with pytest.raises(ValueError, match="same length"):
        run([1, 2], [1])
    with pytest.raises(ValueError, match="alternative"):
        run([1], [0], "less")
    assert run([], []) == stats.PermutationTest(0, None, None, "none", 0)


# --- the two callers ------------------------------------------------------------------------------

def test_compare_and_meta_eval_use_the_same_test():
    a, b = [0.5, 0.25, 1.0, 0.0, 0.75], [0.25, 0.25, 0.5, 0.5, 0.0]
    two = ranking.paired_permutation_test(a, b, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED)
    assert two == stats.paired_sign_flip_test(a, b, exact_max=ranking.EXACT_MAX_DOCUMENTS,
                                              resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED)
    # meta-eval's one-sided p-value for "a better than b" on the same five items: half of compare's
    one = ag.pairwise_p_values([a, b])[0, 1]
    assert one == run(a, b, stats.GREATER).p_value and two.p_value == 2 * one
    assert np.array_equal(ag.sign_vectors(5, k=1000), stats.exact_patterns(5))
    assert np.array_equal(ag.sign_vectors(15, k=100, seed=2),
                          stats.sign_matrix(15, exact_max=6, resamples=100, seed=2))
