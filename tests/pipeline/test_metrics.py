"""Counting metrics and TermJudge scores, checked against hand-computed values."""
import pytest

from termqa.metrics import Item, all_metrics, conformity, em, pseudo_reference, tcr_em, tcr_pr, tcr_t
from termqa.labels import DEFAULT_PENALTIES
from termqa.score import penalty_for, scores


def _nn(renderings, glossary="réseau de neurones"):
    return [Item("d", "c1", "neural network", tuple(r.split()), r == glossary) for r in renderings]


def test_variation_matters_table_20():
    # 5 occurrences of "neural network" (glossary: réseau de neurones), Variation Matters Table 20
    items = _nn(["réseau neuronal", "réseau neuronal", "réseau de neurones", "réseau de neurones",
                 "réseau neuronal"])
    assert (tcr_em(items).value, tcr_pr(items).value, tcr_t(items).value) == (0.4, 0.6, 0.5)
    assert tcr_pr(items).hits == 3 and tcr_pr(items).scored == 5
    assert tcr_t(items).hits == 2 and tcr_t(items).scored == 4
    assert em(items).value == 0.4


def test_hapax_chains_are_not_scored_by_tcr_but_by_em():
    items = [Item("d", "c1", "a", ("x",), True), Item("d", "c2", "b", ("y",), False)]
    assert tcr_pr(items).scored == 0 and tcr_pr(items).value is None
    assert tcr_t(items).scored == 0
    assert em(items).scored == 2 and em(items).value == 0.5


def test_unaligned_never_agrees_and_out_of_glossary_is_not_em_scored():
    items = [Item("d", "c1", "a", None, None), Item("d", "c1", "a", None, None),
             Item("d", "c1", "a", ("x",), None)]
    assert em(items).scored == 0 and em(items).total == 3
    assert tcr_pr(items).value == 0.0  # first occurrence unaligned: nothing agrees with it
    assert tcr_t(items).value == 0.0


def test_conformity_first_and_majority_fallbacks():
    # no glossary term: reference is the first translation (x) or the majority (y)
    items = [Item("d", "c1", "a", r, None) for r in [("x",), ("y",), ("y",)]]
    assert conformity(items, "first").value == 1 / 3
    assert conformity(items, "majority").value == 2 / 3
    assert pseudo_reference([("a",), ("b",)], "majority") == ("a",)  # tie: first appearance
    assert set(all_metrics(items)) == {"em", "tcr_pr", "tcr_t", "tcr_em", "conformity_first", "conformity_majority",
                                     "ctv"}


def _row(doc, concept, sf, outcome, label=None):
    return {"doc_id": doc, "concept_id": concept, "source_form": sf, "outcome": outcome, "label": label,
            "penalty": penalty_for(outcome, label, DEFAULT_PENALTIES)}


def test_penalties_follow_table_1():
    assert penalty_for("conforming", None, DEFAULT_PENALTIES) == 0
    assert penalty_for("justified", "first_mention", DEFAULT_PENALTIES) == 0
    assert penalty_for("unjustified", "neutralisation", DEFAULT_PENALTIES) == 0.5
    codes = ["A1", "A2", "A3", "A4", "A5", "A6", "A7"]
    assert [penalty_for("error", c, DEFAULT_PENALTIES) for c in codes] == [1, 1, 3, 4, 4, 4, 3]
    assert [penalty_for("error", c, DEFAULT_PENALTIES) for c in "CDEFGH"] == [4, 3, 1, 1, 1, 1]
    assert penalty_for("unjudged", None, DEFAULT_PENALTIES) is None


def test_three_aggregations_and_unjudged_never_zero():
    rows = [
        _row("d1", "c1", "a", "conforming"), _row("d1", "c1", "a", "error", "A4"),  # sf a: 2.0
        _row("d1", "c1", "b", "unjustified", "neutralisation"),  # sf b: 0.5
        _row("d1", "c2", "x", "error", "A3"),  # concept c2: 3
        _row("d1", "c2", "x", "unjudged"),
        _row("d2", "c1", "a", "conforming"),
    ]
    s = scores(rows)
    assert s["documents"]["d1"]["score"] == (0 + 4 + 0.5 + 3) / 4
    assert s["documents"]["d1"]["unjudged"] == 1
    assert s["documents"]["d2"]["score"] == 0
    assert s["system"] == ((0 + 4 + 0.5 + 3) / 4 + 0) / 2
    assert s["micro"] == (0 + 4 + 0.5 + 3 + 0) / 5
    # per source form within d1: a=2, b=0.5, x=3 -> 5.5/3; d2: 0
    assert abs(s["by_source_form"] - (5.5 / 3 + 0) / 2) < 1e-6
    # per concept within d1: c1 = (0+4+0.5)/3 = 1.5, c2 = 3 -> 2.25; d2: 0
    assert abs(s["by_concept"] - 2.25 / 2) < 1e-6
    assert s["scored"] == 5 and s["unjudged"] == 1 and abs(s["coverage"] - 5 / 6) < 1e-6


def test_mean_is_statistics_mean_in_value_and_type():
    """Scores use score.mean (exact integer arithmetic) for speed: the same float, bit for bit, as
    statistics.mean, and an int where statistics.mean gives one (an int penalty table)."""
    import random
    import statistics
    from fractions import Fraction

    from termqa.score import mean

    rng = random.Random(7)
    pool = [0, 1, 2, 3, 0.0, 0.5, 0.25, 1.5, 0.3, 0.1, 2.7, 1e-9, 1e9, 1e-300, 3e300, -0.7]
    for _ in range(20_000):
        xs = [rng.choice(pool) if rng.random() < 0.6 else rng.choice((rng.random() * 4, rng.randint(0, 5)))
              for _ in range(rng.randint(1, 12))]
        got, want = mean(xs), statistics.mean(xs)
        assert got == want and type(got) is type(want), xs
        assert mean(iter(xs)) == want  # any iterable, as the scores pass generators
    assert mean([1, 3]) == 2 and type(mean([1, 3])) is int and mean([1, 2]) == 1.5
    assert mean([Fraction(1, 3), Fraction(1, 6)]) == Fraction(1, 4)  # other types: statistics' own rules
    assert mean([1.0, float("inf")]) == statistics.mean([1.0, float("inf")]) == float("inf")
    assert mean([0.0, float("nan")]) != mean([0.0, float("nan")])  # nan, as statistics.mean gives
    with pytest.raises(statistics.StatisticsError):
        mean([])
