"""docs/architecture.md stays true to the code: every file, folder and module path it names exists, and
every dotted name it gives for a module's function or class (`detect.concept_heads`) is there."""
from __future__ import annotations

import importlib
import re

from tests.test_layout import PACKAGES, ROOT, _modules

DOC = ROOT / "docs" / "architecture.md"
CODE_ROOTS = [ROOT, ROOT / "termqa", *PACKAGES.values()]


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def _exists(rel: str, rooms=CODE_ROOTS) -> bool:
    return any((root / rel).exists() for root in rooms)


def test_every_path_with_a_folder_exists():
    paths = set(re.findall(r"(?<![\w.])((?:[\w.-]+/)+[\w.-]*)", _text()))
    roots = ("termqa/", "formats/", "reports/", "prompts/", "tests/", "bench/", "docs/", "samples/", "pipeline/",
             "judge/", "lang/", "store/", "results/", "evaluate/", "cli/", "annotate/")
    paths = {p for p in paths if p.startswith(roots) or p.endswith(".py")}
    assert len(paths) > 10
    assert sorted(p for p in paths if not _exists(p.rstrip("/"))) == []


def test_every_file_a_room_lists_is_in_that_room():
    """A row of the rooms table names its folder first, then bare file names that must be in it."""
    missing = []
    for row in re.findall(r"^\| `([\w/]+)`[^|]*\| (.*) \|$", _text(), flags=re.M):
        folder, cell = row
        room = ROOT / folder
        if not room.is_dir():
            missing.append(folder)
            continue
        for name in re.findall(r"`([\w]+\.py)`", cell):
            if not any(room.rglob(name)):
                missing.append(f"{folder}{name}")
    assert missing == []


def test_every_bare_file_name_is_a_file_of_the_code():
    names = set(re.findall(r"`([\w]+\.py)`", _text()))
    assert len(names) > 30
    have = {p.name for root in PACKAGES.values() for p in root.rglob("*.py")}
    assert sorted(names - have) == []


def _resolve(dotted: str):
    """The object a dotted name names: a module of ours (full, or by its last parts), then attributes."""
    parts = dotted.split(".")
    mods = _modules()
    for n in range(len(parts), 0, -1):
        head = ".".join(parts[:n])
        matches = [m for m in mods if m == head or m.endswith("." + head)]
        if len(matches) == 1:
            obj = importlib.import_module(matches[0])
            for attr in parts[n:]:
                obj = getattr(obj, attr) if attr != "__post_init__" or hasattr(obj, attr) else None
            return obj
    return None


def test_every_dotted_module_name_resolves():
    module_names = {m.rsplit(".", 1)[-1] for m in _modules()} | {"termqa"}
    names = set(re.findall(r"`([A-Za-z_]\w*(?:\.\w+)+)`", _text()))
    checked, unresolved = 0, []
    for name in sorted(names):
        if name.endswith((".py", ".md", ".json", ".toml")) or name.split(".")[0] not in module_names:
            continue  # a file name, or an attribute of a value (run.settings.variants)
        checked += 1
        try:
            if _resolve(name) is None:
                unresolved.append(name)
        except (ImportError, AttributeError):
            unresolved.append(name)
    assert checked > 15
    assert unresolved == []
