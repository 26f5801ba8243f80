"""A glossary's concepts held as plain tuples, each made a `Concept` record only when first read.

Why: a run on a big termbase reads only the concepts its text contains (a few hundred or thousand of
20,000), but unpickling the cached glossary as records made all of them, a visible part of a check of a
short file against that termbase. Tuples of strings unpickle much faster, and a record is made from
its tuple when it is first read.

`ConceptRows` is a read-only sequence of `Concept` (iterating it makes every record, so a caller that
needs them all gets them all); `by_id(concepts)` is the id -> concept mapping of any sequence of
concepts, lazy for `ConceptRows`, a plain dict otherwise. Either gives the records the readers made.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Iterable, Iterator, Optional

from termqa.model import Concept, Term, concepts_by_id

_TERM_FIELDS = tuple(f.name for f in fields(Term))
_CONCEPT_FIELDS = tuple(f.name for f in fields(Concept))
_TERMS_AT = _CONCEPT_FIELDS.index("terms")
_ID_AT = _CONCEPT_FIELDS.index("id")


def _row(c: Concept) -> tuple:
    """A concept as a tuple of its fields in declaration order, its terms as tuples of theirs."""
    values = [getattr(c, name) for name in _CONCEPT_FIELDS]
    values[_TERMS_AT] = tuple(tuple(getattr(t, name) for name in _TERM_FIELDS) for t in c.terms)
    return tuple(values)


def _concept(row: tuple) -> Concept:
    values = list(row)
    values[_TERMS_AT] = tuple(Term(*t) for t in row[_TERMS_AT])
    return Concept(*values)


class ConceptRows(Sequence):
    """The concepts of a glossary as rows (see the module docstring); equal to any sequence of the same
    concepts. Pickled as its rows only."""

    __slots__ = ("_rows", "_made", "_by_id")

    def __init__(self, concepts: Iterable[Concept] = ()):
        # concept k is either a row (_rows[k]) or a record (_made[k]), never both: a run that reads most
        # of a termbase (a 10M-word memory) holds no more than the records alone
        self._made: list[Optional[Concept]] = list(concepts)  # records at hand are kept, not made again
        self._rows: list[Optional[tuple]] = [None] * len(self._made)
        self._by_id: Optional[ConceptsById] = None

    @classmethod
    def from_rows(cls, rows) -> "ConceptRows":
        self = cls.__new__(cls)
        self._rows = list(rows)
        self._made = [None] * len(self._rows)
        self._by_id = None
        return self

    def __reduce__(self):
        return (_from_rows, (self.rows(),))

    @staticmethod
    def merged(parts: Sequence["ConceptRows"], ids: Sequence[Sequence[str]]) -> "ConceptRows":
        """`merged` (below), for a caller that has ConceptRows in hand without importing this module."""
        return merged(parts, ids)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self._rows))))
        c = self._made[i]
        if c is None:
            c = self._made[i] = _concept(self._rows[i])
            self._rows[i] = None
        return c

    def __iter__(self) -> Iterator[Concept]:
        for i in range(len(self._rows)):
            yield self[i]

    def __eq__(self, other) -> bool:
        if isinstance(other, ConceptRows):
            return self.rows() == other.rows()
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(other) == len(self._rows) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))  # as the tuple of the same concepts hashes

    def __repr__(self) -> str:
        return f"ConceptRows({len(self._rows)} concepts)"

    def ids(self) -> Iterator[str]:
        """Every concept's id, in order, without making a record."""
        return (r[_ID_AT] if r is not None else c.id for r, c in zip(self._rows, self._made))

    def rows(self) -> tuple:
        """Every concept as a row (those made into records turned back into rows)."""
        return tuple(r if r is not None else _row(c) for r, c in zip(self._rows, self._made))

    def by_id(self) -> "ConceptsById":
        if self._by_id is None:
            self._by_id = ConceptsById(self)
        return self._by_id


def _from_rows(rows: tuple) -> ConceptRows:
    return ConceptRows.from_rows(rows)


class ConceptsById(Mapping):
    """id -> Concept over a ConceptRows, making a record when it is looked up. As `{c.id: c for c in
    concepts}`: keys in order of first appearance, and the last concept of an id repeated wins."""

    __slots__ = ("_concepts", "_at")

    def __init__(self, concepts: ConceptRows):
        self._concepts = concepts
        self._at = {cid: i for i, cid in enumerate(concepts.ids())}

    def __getitem__(self, cid: str) -> Concept:
        return self._concepts[self._at[cid]]

    def __contains__(self, cid) -> bool:
        return cid in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


def by_id(concepts: Sequence[Concept]) -> Mapping[str, Concept]:
    """The id -> concept mapping of `concepts`: lazy (and made once) for ConceptRows, else a dict
    (termqa.model.concepts_by_id, for a caller that imports nothing of the store)."""
    return concepts_by_id(concepts)


def merged(parts: Sequence[ConceptRows], ids: Sequence[Sequence[str]]) -> ConceptRows:
    """The concepts of several ConceptRows in order, concept k of part n renamed to ids[n][k] (the
    caller decides the names): no record is made."""
    rows = []
    for part, names in zip(parts, ids):
        for row, cid in zip(part.rows(), names):
            if row[_ID_AT] != cid:
                row = row[:_ID_AT] + (cid,) + row[_ID_AT + 1:]
            rows.append(row)
    return ConceptRows.from_rows(tuple(rows))


__all__ = ["ConceptRows", "ConceptsById", "by_id", "merged"]
