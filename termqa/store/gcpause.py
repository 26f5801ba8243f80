"""Pausing the cyclic garbage collector while records are built in bulk.

Readers and the lemmatiser allocate hundreds of thousands of small records (segments, terms,
tokens) in a burst; each few hundred allocations would start a collection that walks young objects
looking for cycles these records never form, and the older generations, which hold the glossary and
its index, are walked again and again as the young ones fill up. Counting (reading, detection,
alignment) and building the JSON result run with the collector paused: a check spent a large part of
its CPU time in it, with the same peak memory either way (these stages make no cyclic garbage). The collector is resumed, if it was running, as soon as the block ends,
error or not; the judge runs with it on.

On resume, whatever the pause made is moved into the oldest generation at once. Left where it was
made, in the youngest, it would all be walked by the very next collection (the unpickled index and
glossary, the documents), then again as it is promoted to the middle generation. In the oldest it is walked only by
a full collection, which runs when the objects promoted since the last one outnumber a quarter of
those it found. Cyclic garbage made during the pause is still collected, by a full collection.
"""
from __future__ import annotations

import atexit
import functools
import gc
from contextlib import contextmanager


@contextmanager
def paused_gc():
    was_enabled = gc.isenabled()
    if was_enabled:
        # the young generations are small at this point (a few thousand objects at most): collecting
        # them costs little, and keeps what was garbage before the pause out of the oldest generation
        gc.collect(1)
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _age_survivors()
            gc.enable()


def _age_survivors() -> None:
    """Move every object the collector tracks into its oldest generation, without walking them.

    `gc.freeze()` moves every generation into the permanent one (two list splices, no walk) and
    `gc.unfreeze()` moves the permanent one into the oldest. Skipped when the program has frozen
    objects of its own (a server freezing its start-up objects before forking): unfreezing would undo
    that. Then the pause resumes as it always did, with the new objects in the youngest generation.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


_AT_EXIT = False


def no_collection_at_exit() -> None:
    """Let the interpreter exit without walking every object once more (for the command line only).

    Python's shutdown runs a full collection after the exit handlers: in a check, a walk of every record
    still alive, to free memory the process is about to give back
    anyway. An exit handler freezes everything first, and shutdown collects no frozen object. Only
    for a process that ends when the command does: a library caller keeps its collector as it was.
    """
    global _AT_EXIT
    if not _AT_EXIT:
        _AT_EXIT = True
        atexit.register(gc.freeze)


def without_gc(fn):
    """Decorator: `fn` runs inside `paused_gc()`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with paused_gc():
            return fn(*args, **kwargs)

    return wrapper
