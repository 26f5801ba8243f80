"""Where a streaming reader puts a document's segments as it reads them: a sink its caller chooses.

A reader of a big TMX or XLIFF file hands each segment to a sink (`append`; `len` is how many it holds)
and takes the document's segments from it at the file's end (`done`). The default, `TupleSink`, keeps
the records in a tuple. The pipeline passes the speed machinery's packer
(termqa.store.packed.SegmentPacker), which keeps them compressed, so a memory of millions of units costs a
fraction of its file; the readers themselves import none of that machinery.
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence

from termqa.model import Segment


class SegmentSink(Protocol):
    def __len__(self) -> int: ...

    def append(self, seg: Segment) -> None: ...

    def done(self) -> Sequence[Segment]: ...


class TupleSink(list):
    """The segments as records, in a tuple."""

    def done(self) -> tuple[Segment, ...]:
        return tuple(self)


# what a reader is given: a new sink per document
SinkFactory = Callable[[], SegmentSink]
