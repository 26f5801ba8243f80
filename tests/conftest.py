"""Shared fixtures. Real files come from ../shared/corpus when it exists (CI has it)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.notecheck import repeated_notes_under

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def _find_shared() -> Path | None:
    env = os.environ.get("TERMQA_SHARED")
    candidates = [Path(env)] if env else []
    candidates += [ROOT.parent / "shared", ROOT / ".." / "shared"]
    for c in candidates:
        if (c / "corpus").is_dir():
            return c.resolve()
    return None


SHARED = _find_shared()


@pytest.fixture(autouse=True, scope="session")
def _index_cache_folder(tmp_path_factory):
    """Runs in the tests keep their index cache (termqa.store.indexcache) in a temporary folder, never the
    user's: a test must not depend on what an earlier run left there."""
    old = os.environ.get("TERMQA_CACHE_DIR")
    os.environ["TERMQA_CACHE_DIR"] = str(tmp_path_factory.mktemp("index-cache"))
    yield
    if old is None:
        os.environ.pop("TERMQA_CACHE_DIR", None)
    else:
        os.environ["TERMQA_CACHE_DIR"] = old
CORPUS = SHARED / "corpus" if SHARED else None


@pytest.fixture
def corpus() -> Path:
    """The real-file corpus; tests using it skip cleanly when ../shared is absent."""
    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    return CORPUS


def corpus_files(sub: str, pattern: str = "*") -> list[Path]:
    """Files for parametrised tests (empty list when the corpus is absent)."""
    if CORPUS is None:
        return []
    return sorted(p for p in (CORPUS / sub).glob(pattern) if p.is_file())


def is_invalid_name(p: Path) -> bool:
    n = p.name.lower()
    return any(w in n for w in ("invalid", "bad", "malformed", "poorly_formed"))
from tests.llm_server import llm_server  # noqa: F401  (fixture)


# --- no XLIFF file the tests write carries the same termqa note twice in a unit (#34) -----------------

_NOTES_READ: dict = {}  # XLIFF files already read unchanged: path -> (size, mtime)


@pytest.fixture(autouse=True)
def _one_note_per_problem_per_unit(request):
    """After each test that has a tmp_path, every annotated XLIFF file it wrote there is read back: a
    unit with the same termqa note twice fails that test (at teardown, naming file, unit and note)."""
    folder = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if folder is not None and folder.is_dir():
        found = repeated_notes_under(folder, _NOTES_READ)
        assert not found, "the same termqa note twice in a unit:\n" + "\n".join(found)


@pytest.fixture(autouse=True, scope="session")
def _one_note_per_problem_per_unit_in_the_session(tmp_path_factory):
    """The same for everything the session wrote under pytest's temporary folder (the files of module
    and session fixtures too), once every test has run."""
    yield
    found = repeated_notes_under(tmp_path_factory.getbasetemp(), _NOTES_READ)
    assert not found, "the same termqa note twice in a unit:\n" + "\n".join(found)
