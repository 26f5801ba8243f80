"""Which way the rooms depend on each other: the readers and writers (`formats`) never reach the pipeline,
and the results (`results`) read the pipeline's records and scores, never a stage's internals."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.test_layout import ROOT, _import_graph, _modules

# what `results` may read of the pipeline: the metric items with their metrics, and the scores
RESULTS_MAY_IMPORT = {"termqa.pipeline", "termqa.metrics", "termqa.score"}


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


def test_results_read_only_the_pipelines_records_and_scores():
    loaded = _loaded_after_importing("termqa.results")
    assert set().union(*map(set, loaded.values())) <= RESULTS_MAY_IMPORT
    graph = _import_graph()
    found = {name: sorted(d for d in deps if d.startswith("termqa.pipeline") and d not in RESULTS_MAY_IMPORT)
             for name, deps in graph.items() if name.startswith("termqa.results")}
    assert {k: v for k, v in found.items() if v} == {}


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
