"""termqa.store.gcpause: the collector is off inside a pause, on again after it (if it was), and what the
pause made is then in the oldest generation, still collectable."""
from __future__ import annotations

import gc
import weakref

import pytest

from termqa.store.gcpause import paused_gc, without_gc


class Node:
    """A record that can form a cycle and be weakly referenced."""

    def __init__(self):
        self.other = None


def _generation_of(obj) -> int:
    """The collector's generation holding `obj` (3: frozen, -1: untracked)."""
    for g in range(3):
        if any(o is obj for o in gc.get_objects(generation=g)):
            return g
    return 3 if gc.is_tracked(obj) else -1


@pytest.fixture(autouse=True)
def collector_on():
    assert gc.isenabled() and gc.get_freeze_count() == 0
    yield
    gc.enable()


def test_inside_a_pause_the_collector_is_off_and_after_it_on_with_the_new_objects_in_the_oldest_generation():
    before = Node()
    with paused_gc():
        assert not gc.isenabled()
        made = [Node() for _ in range(5_000)]  # past the youngest generation's threshold
        assert _generation_of(made[-1]) == 0
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # aged, not left frozen
    assert _generation_of(made[0]) == _generation_of(made[-1]) == 2
    assert _generation_of(before) == 2


def test_cyclic_garbage_made_in_a_pause_is_still_collected():
    with paused_gc():
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
    assert gone() is not None  # a cycle: only the collector frees it
    gc.collect()
    assert gone() is None


def test_an_error_inside_resumes_the_collector_and_ages_what_was_made():
    made = []
    with pytest.raises(ValueError):
        with paused_gc():
            made.append(Node())
            raise ValueError("boom")
    assert gc.isenabled() and _generation_of(made[0]) == 2


def test_a_nested_pause_resumes_nothing_and_the_outer_one_resumes_and_ages():
    with paused_gc():
        with paused_gc():
            inner = Node()
        assert not gc.isenabled()  # the inner pause did not resume it
        assert _generation_of(inner) == 0  # nor age anything
        outer = Node()
    assert gc.isenabled()
    assert _generation_of(inner) == _generation_of(outer) == 2


def test_a_collector_the_caller_turned_off_stays_off_and_nothing_is_aged():
    gc.disable()
    with paused_gc():
        made = Node()
    assert not gc.isenabled()
    assert _generation_of(made) == 0


def test_objects_the_program_froze_stay_frozen():
    """A program that froze its own objects (before forking workers, say) keeps them frozen: the pause
    then resumes without ageing anything (unfreezing would undo the program's freeze)."""
    kept = Node()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with paused_gc():
            made = Node()
        assert gc.isenabled() and gc.get_freeze_count() == frozen
        assert _generation_of(kept) == 3 and _generation_of(made) == 0
    finally:
        gc.unfreeze()


def test_without_gc_runs_the_function_in_a_pause():
    @without_gc
    def work(x):
        assert not gc.isenabled()
        return Node(), x

    made, x = work(7)
    assert x == 7 and gc.isenabled() and _generation_of(made) == 2


def test_the_command_line_skips_the_collection_at_exit_and_the_library_does_not(monkeypatch, tmp_path):
    """A `termqa` command registers one exit handler that freezes every object (shutdown then walks
    none of them again); importing or calling the library registers nothing."""
    import atexit

    from click.testing import CliRunner

    from termqa.store import gcpause
    from termqa.cli.main import main

    registered = []
    monkeypatch.setattr(gcpause, "_AT_EXIT", False)
    monkeypatch.setattr(atexit, "register", lambda fn, *a, **k: registered.append(fn))
    with paused_gc():
        pass
    assert registered == []
    monkeypatch.setenv("TERMQA_CACHE_DIR", str(tmp_path))
    for _ in range(2):
        assert CliRunner().invoke(main, ["cache", "path"]).exit_code == 0
    assert registered == [gc.freeze]
