"""A document's segments held compressed (`PackedSegments`), for translation memories of millions of units.

A big memory read as Segment records costs several times its file in memory; packed, a fraction of it.
Readers of big files fill a `SegmentPacker` as they go (the segment sink the pipeline hands them, see
formats/sink.py); a project over a size keeps each file's documents packed once read (`packed_document`).
`texts()` and `fields()` read the texts without making records (what termqa.model.segment_texts and the unit
states ask of a sequence that offers them), `remade()` packs changed segments alike.
"""
from __future__ import annotations

import pickle
import zlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Iterable, Iterator, Optional, Union

from termqa.model import Document, Segment
from termqa.store.pickling import pickled_by_fields

_SEGMENT_FIELDS = tuple(f for f in Segment.__dataclass_fields__)  # in the order Segment(*fields) takes them


@pickled_by_fields(fields=("_blocks", "_len", "indexed"), init=True)
class PackedSegments(Sequence):
    """A document's segments held compressed: what a translation memory of millions of units costs in
    memory is then a fraction of its file, not several times it.

    Segments are kept in blocks of BLOCK, each a compressed pickle of the segments' fields (a list per
    field); a block is unpacked into Segment records when one of its segments is read (the latest
    blocks read are kept, so reading in order unpacks each block once). Behaves as the tuple of those segments: length,
    indexing and slices, iteration, equality with any sequence of the same segments. Built with
    `SegmentPacker`.
    """

    BLOCK = 256
    _KEEP = 4  # unpacked blocks kept: in-order reading and a little look-back unpack each block once

    __slots__ = ("_blocks", "_len", "_unpacked", "indexed")

    def __init__(self, blocks: tuple[bytes, ...], length: int, indexed: bool):
        self._blocks = blocks
        self._len = length
        self._unpacked: dict[int, tuple[Segment, ...]] = {}
        # every segment's `index` is its position: `self[seg.index]` finds it (what the readers make)
        self.indexed = indexed

    def _columns(self, b: int) -> tuple[list, ...]:
        return pickle.loads(zlib.decompress(self._blocks[b]))

    def _block(self, b: int) -> tuple[Segment, ...]:
        hit = self._unpacked.get(b)
        if hit is None:
            hit = tuple(Segment(*f) for f in zip(*self._columns(b)))
            if len(self._unpacked) >= self._KEEP:
                del self._unpacked[next(iter(self._unpacked))]
            self._unpacked[b] = hit
        return hit

    def texts(self) -> Iterator[tuple[int, str, Optional[str]]]:
        """(index, source, target) of every segment in order, without making Segment records (faster than
        iterating: counting words or n-grams needs the text only)."""
        return self.fields("index", "source", "target")

    def fields(self, *names: str) -> Iterator[tuple]:
        """The named fields of every segment in order, without making Segment records (as `texts`)."""
        at = [_SEGMENT_FIELDS.index(n) for n in names]
        for b in range(len(self._blocks)):
            cols = self._columns(b)
            yield from zip(*(cols[k] for k in at))

    def remade(self, segments: Iterable[Segment]) -> "PackedSegments":
        """Other segments, held packed as these are (what a step that changes some segments gives back)."""
        packer = SegmentPacker()
        for seg in segments:
            packer.append(seg)
        return packer.done()

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, i: Union[int, slice]):
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(self._len)))
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("segment index out of range")
        return self._block(i // self.BLOCK)[i % self.BLOCK]

    def __iter__(self) -> Iterator[Segment]:
        for b in range(len(self._blocks)):
            yield from self._block(b)

    def __eq__(self, other) -> bool:
        if isinstance(other, PackedSegments) and other._blocks == self._blocks:
            return True
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(other) == self._len and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))  # equal to the tuple of the same segments, as equality says

    def __repr__(self) -> str:
        return f"PackedSegments({self._len} segments in {len(self._blocks)} blocks)"

    def packed_bytes(self) -> int:
        """Bytes held by the compressed blocks (what the segments cost in memory, less small overheads)."""
        return sum(len(b) for b in self._blocks)


class SegmentPacker:
    """Collects a document's segments one at a time into PackedSegments (`append`, then `done`)."""

    def __init__(self):
        self._blocks: list[bytes] = []
        self._open: list[tuple] = []
        self._len = 0
        self._indexed = True

    def __len__(self) -> int:
        return self._len

    def append(self, seg: Segment) -> None:
        self._indexed = self._indexed and seg.index == self._len
        self._open.append(seg)
        self._len += 1
        if len(self._open) == PackedSegments.BLOCK:
            self._close()

    def _close(self) -> None:
        if self._open:
            # one list per field: pickling and unpickling lists of strings is fast, and `texts` reads
            # three of them without making records
            columns = tuple([getattr(seg, f) for seg in self._open] for f in _SEGMENT_FIELDS)
            self._blocks.append(zlib.compress(pickle.dumps(columns, protocol=pickle.HIGHEST_PROTOCOL), 1))
            self._open = []

    def done(self) -> PackedSegments:
        self._close()
        return PackedSegments(tuple(self._blocks), self._len, self._indexed)


def packed_document(doc: Document) -> Document:
    """The same document with its segments held compressed (PackedSegments): what a project of many files
    keeps of the files already read."""
    if isinstance(doc.segments, PackedSegments):
        return doc
    packer = SegmentPacker()
    for seg in doc.segments:
        packer.append(seg)
    return replace(doc, segments=packer.done())
