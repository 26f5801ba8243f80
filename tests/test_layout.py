"""The house keeps its shape: no import cycle among termqa's modules, and refactorings change no verdict."""
from __future__ import annotations

import ast
import json
from collections import defaultdict
from pathlib import Path

import pytest

from tests import golden

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"termqa": ROOT / "termqa", "termqa.formats": ROOT / "formats", "termqa.reports": ROOT / "reports",
            "termqa.prompts": ROOT / "prompts"}


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg, folder in PACKAGES.items():
        for f in sorted(folder.rglob("*.py")):
            parts = [p for p in f.relative_to(folder).with_suffix("").parts if p != "__init__"]
            mods.setdefault(".".join([pkg, *parts]), f)
    return mods


def _import_graph() -> dict[str, set[str]]:
    """Every import of one of our modules, at module level or inside a function (a hidden edge is an edge)."""
    mods = _modules()

    def owner(name: str) -> str:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = set()
            if isinstance(node, ast.Import):
                targets = {owner(a.name) for a in node.names if a.name.startswith("termqa")}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                if not module.startswith("termqa"):
                    continue
                for a in node.names:  # `from pkg import sub` depends on pkg.sub, not on all of pkg
                    sub = f"{module}.{a.name}"
                    targets.add(sub if sub in mods else owner(module))
            graph[name] |= targets - {"", name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle():
    assert _cycles(_import_graph()) == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_graph_sees_the_pipeline():
    graph = _import_graph()
    assert "termqa.pipeline.occurrences" in graph["termqa.pipeline.passes"]
    assert "termqa.judge.llm" in graph["termqa.judge.stages"]
    # the package init loads the library lazily; nothing imports the package init for a name
    assert not any("termqa" in deps for deps in graph.values())


def _compare(name: str, data: dict, roots) -> None:
    stored = json.loads((golden.HERE / f"{name}.json").read_text())
    now = golden.digest(data, roots)
    changed = sorted(k for k in set(stored) | set(now) if stored.get(k) != now.get(k))
    assert not changed, (f"{name}: sections changed: {changed}; if the change of behaviour is intended, "
                         "regenerate with `python -m tests.golden`")


def test_samples_result_is_unchanged():
    data, roots = golden.samples_run()
    _compare("samples", data, roots)


def test_samples_result_without_variants_is_unchanged():
    data, roots = golden.samples_run("none")
    _compare("samples-none", data, roots)


@pytest.mark.corpus
def test_tico19_result_is_unchanged():
    from tests.conftest import CORPUS

    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    data, roots = golden.tico_run(CORPUS)
    _compare("tico19", data, roots)


@pytest.mark.corpus
def test_tico19_result_without_variants_is_unchanged():
    from tests.conftest import CORPUS

    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    data, roots = golden.tico_run(CORPUS, "none")
    _compare("tico19-none", data, roots)


def test_every_package_folder_is_installed():
    """A sub-package missing from pyproject's `packages` works in a checkout and vanishes from the wheel."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {name for name, path in _modules().items() if path.name == "__init__.py"}
    assert found == listed
