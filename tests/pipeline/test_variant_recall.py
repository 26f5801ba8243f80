"""Variant detection measured on a hand-annotated project (tests/fixtures/variants): recall and precision
over every annotated occurrence of a glossary concept (the exact forms, inflections and each variant
type), restructuring found in both directions, and the negatives never matched.

The project, its glossary and its annotations were written for this test (see the README there); the
annotations say what a terminologist would mark, not what termqa finds.
"""
from termqa.config import Settings
from collections import Counter, defaultdict
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "variants"
MIN_RECALL, MIN_PRECISION = 0.75, 0.95


def _gold():
    pos, neg = [], []
    for line in (HERE / "gold.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        unit, concept, surface, kind = line.split("\t")
        (neg if concept == "-" else pos).append((unit, concept, surface.casefold(), kind))
    return pos, neg


@pytest.fixture(scope="module")
def found():
    from termqa.pipeline.check import check

    r = check([str(HERE / "project.xlf")], [str(HERE / "glossary.csv")],
              Settings(lemmatiser="lookup", variants="dynamic")).to_dict()
    return [(o["unit_id"], o["concept_id"], o["source_text"].casefold(), o["via"]) for o in r["occurrences"]]


def measure(found, gold):
    """(recall, precision, per-type (hits, total), false positives, misses)."""
    want = {(u, c, s) for u, c, s, _ in gold}
    got = {(u, c, s) for u, c, s, _ in found}
    by_type: dict = defaultdict(lambda: [0, 0])
    for u, c, s, kind in gold:
        by_type[kind][1] += 1
        by_type[kind][0] += (u, c, s) in got
    hits = len(want & got)
    return (hits / len(want), hits / max(1, len(got)), {k: tuple(v) for k, v in by_type.items()},
            sorted(got - want), sorted(want - got))


def test_annotations_are_of_the_text():
    pos, neg = _gold()
    assert len(pos) >= 50 and len(neg) >= 5
    assert Counter(k for *_, k in pos)["restructuring"] >= 6


def test_the_project_is_valid_xliff():
    from tests.formats.test_annotate import _errors

    assert _errors((HERE / "project.xlf").read_bytes()) == set()


def test_recall_and_precision(found):
    pos, _neg = _gold()
    recall, precision, by_type, extra, missed = measure(found, pos)
    assert recall >= MIN_RECALL and precision >= MIN_PRECISION, (recall, precision, by_type, extra, missed)
    # every kind of variant annotated is found at least once: no rule can go missing behind the others
    assert all(hits > 0 for hits, _total in by_type.values()), by_type


def test_restructuring_is_found_both_ways(found):
    got = {(u, c, s): via for u, c, s, via in found}
    # the glossary's "Y X" written "X of Y" ...
    assert got.get(("u08", "c01", "loss of head")) == "of_phrase"
    assert got.get(("u22", "c14", "level of noise")) == "of_phrase"
    # ... and the glossary's "X of Y" written "Y X"
    assert got.get(("u05", "c20", "rotation speed")) == "of_phrase"
    assert got.get(("u27", "c09", "friction coefficient")) == "of_phrase"


def test_negatives_are_never_matched(found):
    _pos, neg = _gold()
    for unit, _c, surface, note in neg:
        assert not any(u == unit and surface in s for u, _c2, s, _v in found), (unit, surface, note)
