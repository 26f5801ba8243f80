"""Glossary stage: concepts kept as rows (termqa.store.conceptrows) read back from the index cache.

A cached glossary holds its concepts as tuples; a run makes a Concept record only of the concepts it
reads, and everything that reads them sees the records the reader made.
"""
from __future__ import annotations

import json
import pickle
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa import formats
from termqa.store import indexcache
from termqa.store.conceptrows import ConceptRows, by_id
from termqa.inputs import merge_glossaries
from termqa.model import Concept, Term
from termqa.pipeline.check import check
from termqa.pipeline.read import read_glossary_cached

from tests.conftest import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import generate as gen  # noqa: E402


@pytest.fixture
def glossary():
    return formats.read_glossary(SAMPLES / "pump-terms.tbx")


def _made(rows: ConceptRows) -> int:
    return sum(1 for c in rows._made if c is not None)


def test_rows_equal_the_records_and_survive_a_pickle_unmade(glossary):
    concepts = glossary.concepts
    rows = ConceptRows(concepts)
    assert rows == concepts and tuple(rows) == concepts and len(rows) == len(concepts)
    assert hash(rows) == hash(concepts)
    back = pickle.loads(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))
    assert isinstance(back, ConceptRows) and _made(back) == 0
    assert back[2] == concepts[2] and _made(back) == 1  # one record made, on reading it
    assert back[2] is back[2]  # and kept
    assert back._rows[2] is None  # its row let go: a concept is held once, as a row or as a record
    assert back[1:3] == concepts[1:3] and back[-1] == concepts[-1]
    assert back == rows == concepts and list(back.ids()) == [c.id for c in concepts]
    # the pickle holds no record: only strings, tuples and the like
    assert b"termqa.model" not in pickle.dumps(rows)


def test_by_id_is_the_dict_of_the_records_even_with_a_repeated_id(glossary):
    first, second, *rest = glossary.concepts
    dup = replace(second, id=first.id, definition="the later one")
    concepts = (first, second, dup, *rest)
    rows = pickle.loads(pickle.dumps(ConceptRows(concepts)))
    lazy, plain = by_id(rows), by_id(concepts)
    assert list(lazy) == list(plain) and len(lazy) == len(plain)
    assert lazy[first.id].definition == "the later one" == plain[first.id].definition
    assert dict(lazy.items()) == plain and first.id in lazy and "no such id" not in lazy
    assert lazy.get("no such id") is None
    assert by_id(rows) is lazy  # made once per glossary, not per document


def test_merged_rows_rename_colliding_ids_as_the_records_do(glossary, tmp_path):
    other_path = tmp_path / "other.tbx"
    shutil.copy(SAMPLES / "pump-terms.tbx", other_path)
    other = formats.read_glossary(other_path)
    plain = merge_glossaries([glossary, other])
    as_rows = merge_glossaries([replace(glossary, concepts=ConceptRows(glossary.concepts)),
                                replace(other, concepts=ConceptRows(other.concepts))])
    assert isinstance(as_rows, ConceptRows) and as_rows == plain
    assert plain[0].id == f"pump-terms:{glossary.concepts[0].id}" and plain[-1].id.startswith("other:")
    mixed = merge_glossaries([glossary, replace(other, concepts=ConceptRows(other.concepts))])
    assert mixed == plain


def test_a_warm_run_makes_only_the_concepts_it_finds(tmp_path):
    """A project that finds a part of its termbase: the other concepts stay rows, and the result is the
    one of a run without the cache."""
    project = gen.generate(3_000, 400, tmp_path, seed=5, words_per_file=3_000)
    folder, gl = tmp_path / "cache", project / "glossary.tbx"
    cold = check([project / "xliff"], [gl], Settings(index_cache=folder))
    with indexcache.using(indexcache.IndexCache(folder)):
        cached = read_glossary_cached(gl)
    assert isinstance(cached.concepts, ConceptRows) and _made(cached.concepts) == 0
    warm = check([project / "xliff"], [cached], Settings(index_cache=folder))
    found = {v.occurrence.concept_id for v in warm.verdicts}
    made = {c.id for c in cached.concepts._made if c is not None}
    assert found and made <= found | {cached.concepts[0].id}  # the first: is there a target term at all?
    assert len(made) < len(cached.concepts) // 2
    none = check([project / "xliff"], [gl], Settings(index_cache=False))
    as_json = [json.dumps(r.to_dict(), sort_keys=True, ensure_ascii=False) for r in (cold, warm, none)]
    assert as_json[0] == as_json[1] == as_json[2]


def test_rows_follow_the_record_fields():
    """A field added to Term or Concept travels in the rows too (they are made from the dataclass fields)."""
    c = Concept("c1", (Term("pump", "en", "preferred", "preferredTerm-admn-sts", "fullForm", False),
                       Term("pompe", "fr")), definition="d", subject="s", dnt=True, note="n")
    (back,) = pickle.loads(pickle.dumps(ConceptRows([c])))
    assert back == c and back.terms[0].raw_status == "preferredTerm-admn-sts" and back.dnt
