"""Worker processes for the counting stage: documents are independent until references are settled.

Workers are forked after the parent has built the lemmatisers and the source index, so each starts with
them in memory (shared copy-on-write) instead of loading them again. Only where the operating system
can fork (Linux, macOS with the fork start method); elsewhere counting stays in one process. Small
projects stay in one process too: starting workers and sending results back costs more than it gains.
"""
from __future__ import annotations

import multiprocessing
import os
from typing import Callable, Optional, Sequence, TypeVar

from termqa.model import Document

# Below this many source words, `jobs=None` (the default) counts in one process.
PARALLEL_MIN_WORDS = 150_000

R = TypeVar("R")
_TASK: Optional[Callable[[int], object]] = None  # set in the parent just before forking


def available_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    counter = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counter is not None:
        return counter() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def plan_jobs(jobs: Optional[int], documents: Sequence[Document]) -> int:
    """Worker processes for counting: `jobs` when given, else the cores on a large enough project;
    never more than the documents, and 1 where processes cannot be forked."""
    if len(documents) < 2 or not can_fork():
        return 1
    if jobs is None:
        words = sum(len(s.source.split()) for d in documents for s in d.segments)
        if words < PARALLEL_MIN_WORDS:
            return 1
        jobs = available_cores()
    return max(1, min(int(jobs), len(documents)))


def _run(n: int):
    assert _TASK is not None  # internal: set by map_in_workers before the pool starts
    return _TASK(n)


def map_in_workers(task: Callable[[int], R], count: int, jobs: int,
                   progress: Optional[Callable[[int], None]] = None) -> list[R]:
    """[task(0), ..., task(count - 1)], computed in `jobs` forked processes, in order.

    `task` may be any callable (a closure over the run's data): the workers inherit it by forking, only
    the index goes to them and only the result comes back (pickled).
    """
    global _TASK
    _TASK = task
    try:
        ctx = multiprocessing.get_context("fork")
        out = []
        with ctx.Pool(jobs) as pool:
            for i, r in enumerate(pool.imap(_run, range(count), chunksize=1)):
                out.append(r)
                if progress:
                    progress(i + 1)
        return out
    finally:
        _TASK = None


__all__ = ["PARALLEL_MIN_WORDS", "available_cores", "can_fork", "plan_jobs", "map_in_workers"]
