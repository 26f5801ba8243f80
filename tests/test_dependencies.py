"""Which way the rooms depend on each other: every import points down a declared order of rooms (the readers
and writers never reach the pipeline, the results read the records and the scores below them, never a stage),
and the speed machinery (`termqa.store`) is reached through few modules."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.test_layout import ROOT, _import_graph, _modules

# The rooms from the bottom up: a module may import its own room and the rooms below it, never one above. A
# module belongs to the room of its longest listed prefix (termqa.lang.langtags is foundation, the rest of
# termqa.lang is lang); a new top-level module must be placed here.
ROOMS = (
    ("foundation", ("termqa.version", "termqa.errors", "termqa.fileio", "termqa.config", "termqa.labels",
                    "termqa.lang.langtags", "termqa.outputs", "termqa.shownpath", "termqa.docnames", "termqa.prompts")),
    ("records", ("termqa.model", "termqa.score", "termqa.metrics")),
    ("store", ("termqa.store",)),
    ("lang", ("termqa.lang",)),
    ("inputs", ("termqa.problems", "termqa.glossaryscope", "termqa.glossaryhygiene", "termqa.wordcount",
                "termqa.signature", "termqa.inputs")),
    ("results", ("termqa.results",)),
    ("formats", ("termqa.formats",)),
    ("pipeline", ("termqa.pipeline", "termqa.inspect")),
    ("judge", ("termqa.judge",)),
    ("evaluate", ("termqa.evaluate",)),
    ("reports", ("termqa.reports",)),
    ("top", ("termqa", "termqa.run", "termqa.cli", "termqa.__main__")),
)
# Imports that still run up: none since the top floor (termqa.run) calls the judge between the counting stages
# and `finish` (issue 38). A new entry here needs a reason and an issue.
UPWARD_PENDING: set = set()
STORE_IMPORTERS_AT_MOST = 6
# how many modules outside termqa.store import it today (29 at 207f73f): it may only go down (issue 38 asks 6)
STORE_IMPORTERS_TODAY = 7  # 18; lang reaches it through lang.langcache alone, the CLI and the results through run


def room_of(module: str) -> tuple[int, str]:
    best = None
    for level, (room, prefixes) in enumerate(ROOMS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and (best is None or len(p) > len(best[2])):
                best = (level, room, p)
    if best is None or (best[2] == "termqa" and module != "termqa"):
        return (-1, "")  # a top-level module no room lists
    return best[:2]


def test_every_module_is_in_a_declared_room():
    assert sorted(m for m in _modules() if room_of(m)[0] < 0) == []


def test_no_module_imports_a_room_above_its_own():
    graph = _import_graph()
    upward = {(a, b) for a, deps in graph.items() for b in deps if room_of(b)[0] > room_of(a)[0]}
    assert sorted(upward - UPWARD_PENDING) == []
    assert UPWARD_PENDING <= upward, "an exception no import needs any more: drop it"  # not kept by mistake


def _store_importers() -> list[str]:
    graph = _import_graph()
    return sorted(a for a, deps in graph.items() if not (a == "termqa.store" or a.startswith("termqa.store."))
                  and any(d == "termqa.store" or d.startswith("termqa.store.") for d in deps))


def test_fewer_modules_import_the_store_than_before():
    assert len(_store_importers()) <= STORE_IMPORTERS_TODAY


@pytest.mark.xfail(strict=True, reason="the source index, target forms and pickled records of the pipeline import it")
def test_at_most_six_modules_import_the_store():
    assert len(_store_importers()) <= STORE_IMPORTERS_AT_MOST, _store_importers()


def test_the_data_model_imports_only_the_foundation():
    graph = _import_graph()
    assert {d for d in graph["termqa.model"] if room_of(d)[1] != "foundation"} == set()


def _loaded_after_importing(prefix: str) -> dict:
    """In a fresh interpreter, import every module under `prefix` one by one: the termqa.pipeline modules
    loaded after each."""
    names = sorted(n for n in _modules() if n == prefix or n.startswith(prefix + "."))
    code = ("import importlib, json, sys\nout = {}\n"
            f"for name in {names!r}:\n"
            "    importlib.import_module(name)\n"
            "    out[name] = sorted(m for m in sys.modules if m.startswith('termqa.pipeline'))\n"
            "print(json.dumps(out))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_importing_any_reader_or_writer_loads_no_pipeline_module():
    loaded = _loaded_after_importing("termqa.formats")
    assert len(loaded) > 20  # every reader, writer and annotator was imported
    assert {name: mods for name, mods in loaded.items() if mods} == {}


def test_no_reader_or_writer_imports_the_pipeline_even_lazily():
    graph = _import_graph()
    found = {name: sorted(d for d in deps if d.startswith("termqa.pipeline"))
             for name, deps in graph.items() if name.startswith("termqa.formats")}
    assert {k: v for k, v in found.items() if v} == {}


def test_importing_the_results_loads_no_pipeline_module():
    """The results read the records and the scores (termqa.score, termqa.metrics), below the pipeline."""
    loaded = _loaded_after_importing("termqa.results")
    assert set().union(*map(set, loaded.values())) == set()


def test_the_pipeline_does_not_load_the_results_serialiser():
    """The pipeline's result record offers `to_dict` (the public API), which loads the serialiser only
    when called: importing or running the stages never does."""
    code = ("import sys, termqa.pipeline.check, termqa.pipeline.prejudge\n"
            "print(sorted(m for m in sys.modules if m.startswith('termqa.results')))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_the_vocabulary_lives_in_labels():
    from termqa import labels
    from termqa.pipeline import prejudge

    assert prejudge.R_MISALIGNED is labels.R_MISALIGNED  # the stage gives the reasons labels defines
    src = (ROOT / "formats" / "annotate" / "notes.py").read_text(encoding="utf-8")
    assert "R_MISALIGNED" in src and "termqa.pipeline" not in src


def test_one_module_imports_openai():
    """The judge's client (termqa.judge.llm) is the only place the openai package is imported, lazily: every
    other module reaches the model through it."""
    import ast

    importers = set()
    for base in ("termqa", "formats", "reports"):
        for path in (ROOT / base).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n == "openai" or n.startswith("openai.") for n in names):
                    importers.add(path.relative_to(ROOT).as_posix())
    assert importers == {"termqa/judge/llm.py"}
    top = ast.parse((ROOT / "termqa" / "judge" / "llm.py").read_text(encoding="utf-8")).body
    assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) and "openai" in ast.dump(n) for n in top)  # lazily
