"""The CI gate (`termqa.results.gate`) on result dicts: each kind of condition, coverage, and the rule that
a run which checked nothing never passes."""
from __future__ import annotations

import pytest

from termqa.errors import UsageError
from termqa.labels import NOTHING_CHECKED
from termqa.results.gate import coverage, failures, nothing_checked, parse


def result(*, occurrences=10, outcomes=None, labels=None, scores=None, untranslated=0, alerts=()):
    outcomes = {"conforming": 6, "justified": 1, "unjustified": 1, "error": 1, "unjudged": 1, **(outcomes or {})}
    return {
        "summary": {"occurrences": occurrences, "outcomes": outcomes, "labels": labels or {"A4": 1},
                    "occurrences_in_untranslated_segments": untranslated},
        "scores": {"system": 0.15, "micro": 0.2, "by_concept": 0.1, "by_source_form": 0.12, "scored": 9,
                   "unjudged": 1, **(scores or {})},
        "alerts": list(alerts),
    }


def test_conditions_are_read_with_their_thresholds():
    assert parse(["error", "error>3,score>0.2", " coverage < 0.9 ", "A4"]) == [
        ("error", ">", 0.0), ("error", ">", 3.0), ("score", ">", 0.2), ("coverage", "<", 0.9), ("A4", ">", 0.0)]


@pytest.mark.parametrize("bad", ["nonsense", "score", "coverage", "error>>3", "score>abc"])
def test_a_condition_it_cannot_read_is_refused_with_a_fix(bad):
    with pytest.raises(UsageError) as e:
        parse([bad])
    assert e.value.fix


def test_outcomes_labels_and_counts():
    r = result()
    assert failures(r, ["error"]) == ["error>0 (found 1)"]
    assert failures(r, ["error>1"]) == []
    assert failures(r, ["A4"]) == ["A4>0 (found 1)"] and failures(r, ["F"]) == []
    assert failures(r, ["unjustified,unjudged"]) == ["unjustified>0 (found 1)", "unjudged>0 (found 1)"]


def test_scores_against_thresholds_and_a_missing_score_never_fails():
    r = result()
    assert failures(r, ["score>0.1"]) == ["score>0.1 (found 0.15)"]
    assert failures(r, ["micro>0.25", "by_concept>0.2", "by_source_form>0.2"]) == []
    assert failures(r, ["micro>0.1", "by_concept>0.05", "by_source_form>0.1"]) == [
        "micro>0.1 (found 0.2)", "by_concept>0.05 (found 0.1)", "by_source_form>0.1 (found 0.12)"]
    assert failures(result(scores={"system": None}), ["score>0"]) == []


def test_coverage_counts_occurrences_in_untranslated_segments_as_not_scored():
    assert coverage(result()) == pytest.approx(0.9)
    assert coverage(result(untranslated=8)) == pytest.approx(0.5)
    assert failures(result(untranslated=8), ["coverage<0.9"]) == ["coverage<0.9 (found 0.5)"]
    assert failures(result(), ["coverage<0.9"]) == []


def test_a_run_that_checked_nothing_fails_whatever_the_conditions():
    empty = result(occurrences=0, outcomes={k: 0 for k in ("conforming", "justified", "unjustified", "error",
                                                           "unjudged")}, labels={}, untranslated=65,
                   scores={"system": None, "micro": None, "scored": 0, "unjudged": 0})
    assert nothing_checked(empty).startswith(NOTHING_CHECKED)
    assert failures(empty, []) == [f"{NOTHING_CHECKED} (65 occurrences in untranslated segments)"]
    assert failures(empty, ["error", "coverage<0.9"])[0].startswith(NOTHING_CHECKED)
    # the run's own alert is the message when it gave one
    said = f"{NOTHING_CHECKED}: 0 of the 41 segments have a translation"
    assert nothing_checked(dict(empty, alerts=[said])) == said


def test_a_run_that_found_no_term_at_all_is_not_a_pass():
    """A glossary none of whose terms occurs checked nothing: the same state as untranslated targets
    (#34), never a green pass, whatever the gate."""
    none = result(occurrences=0, outcomes={k: 0 for k in ("conforming", "justified", "unjustified", "error",
                                                          "unjudged")}, labels={},
                  scores={"system": None, "scored": 0, "unjudged": 0})
    assert nothing_checked(none) == f"{NOTHING_CHECKED}: no glossary term occurs in the source text"
    assert failures(none, ["error"])[0].startswith(NOTHING_CHECKED)
