"""Worker processes for the counting stage: documents are independent until references are settled.

Workers are forked after the parent has built the lemmatisers and the source index, so each starts with
them in memory (shared copy-on-write) instead of loading them again. Only where the operating system
can fork (Linux, macOS with the fork start method); elsewhere counting stays in one process. Small
projects stay in one process too: starting workers and sending results back costs more than it gains.
"""
from __future__ import annotations

import gc
import os
from typing import Callable, Optional, Sequence, TypeVar

from termqa.model import Document
from termqa.store import pickling  # noqa: F401 (the records workers send back pickle by their fields)

# Below this many source words, `jobs=None` (the default) counts in one process.
PARALLEL_MIN_WORDS = 150_000

R = TypeVar("R")


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
    import multiprocessing  # only asked when workers are wanted: a one-process run never loads it

    return "fork" in multiprocessing.get_all_start_methods()


def plan_jobs(jobs: Optional[int], documents: Sequence[Document]) -> int:
    """Worker processes for counting: `jobs` when given, else the cores on a large enough project;
    never more than the documents, and 1 where processes cannot be forked."""
    if len(documents) < 2:
        return 1
    if jobs is None:
        if not _has_words(documents, PARALLEL_MIN_WORDS):
            return 1
        jobs = available_cores()
    jobs = max(1, min(int(jobs), len(documents)))
    return jobs if jobs == 1 or can_fork() else 1


def _has_words(documents: Sequence[Document], at_least: int) -> bool:
    """Do the documents' sources hold `at_least` words? Counting stops there (the answer is known long
    before a big project's last word)."""
    words = 0
    if at_least <= 0:
        return True
    for d in documents:
        for s in d.segments:
            words += len(s.source.split())
            if words >= at_least:
                return True
    return False


_TASK: Optional[Callable[[int], object]] = None  # set in the parent just before forking


def _worker(conn, mine: list[int]) -> None:
    try:
        for n in mine:
            result = _TASK(n)  # type: ignore[misc]
            conn.send(("done", n, result))
    except BaseException:  # noqa: BLE001 - everything goes back to the parent, which raises it
        import traceback

        try:
            conn.send(("error", -1, traceback.format_exc()))
        except Exception:
            pass
    finally:
        conn.close()


def run_documents(task: Callable[[int], R], count: int, jobs: int,
                  progress: Optional[Callable[[int], None]] = None) -> list[R]:
    """[task(0), ..., task(count - 1)] in `jobs` forked processes, in order.

    Documents go to the workers in turn (n % jobs), each worker counting its own in increasing order.
    `task` may be any callable (a closure over the run's data): the workers inherit it by forking; only
    the results (pickled) travel back. Documents are independent, so nothing else needs to.
    """
    global _TASK
    import multiprocessing
    from multiprocessing.connection import wait

    _TASK = task
    ctx = multiprocessing.get_context("fork")
    procs, conns = [], {}
    # objects that exist now are never collected in the workers: a collection there would write to every
    # object's header and copy the whole inherited heap page by page (gc.freeze is meant for this)
    gc.freeze()
    try:
        for w in range(jobs):
            parent_end, child_end = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(child_end, list(range(w, count, jobs))), daemon=True)
            p.start()
            child_end.close()
            procs.append(p)
            conns[parent_end] = p
        results: dict[int, R] = {}
        while len(results) < count:
            if not conns:
                raise RuntimeError("a counting worker process ended without its results")
            for conn in wait(list(conns)):
                try:
                    kind, n, value = conn.recv()
                except EOFError:
                    del conns[conn]
                    continue
                if kind == "done":
                    results[n] = value
                    if progress:
                        progress(len(results))
                else:
                    raise RuntimeError(f"a counting worker process failed:\n{value}")
        return [results[n] for n in range(count)]
    finally:
        _TASK = None
        gc.unfreeze()
        for conn in conns:
            conn.close()
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()


__all__ = ["PARALLEL_MIN_WORDS", "available_cores", "can_fork", "plan_jobs", "run_documents"]
