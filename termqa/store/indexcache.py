"""The index cache: what every run against an unchanged termbase would rebuild identically, kept on disk.

A team checks each delivery against the same termbase. Reading a 20k-concept TBX, lemmatising every
term into the source trie and loading spaCy's lemma tables cost seconds per run and give the same
result each time, so the results are stored in the user cache folder and loaded on the next run:

- `glossary-*`: a parsed glossary (its concepts), keyed by the file's bytes (sha256), its path and the
  reader options;
- `source-index-*`: the source trie and head terms of a set of glossaries for one source language,
  keyed by the glossaries' content hashes and languages, the lemmatiser's name (tool, version, tables)
  and mode;
- `lemma-table-*` and `lemma-lexicon-*`: a language's word -> lemma table and the set of words and
  lemmas its tables know, keyed by the data files they came from (path, size, modification time) and
  the spacy-lookups-data version;
- `analyses-*.sqlite`: what a lemmatiser made of the text it saw (in lookup mode each whitespace-delimited
  chunk's tokens and lemmas, with a trained pipeline each whole text's), keyed by the lemmatiser's name
  (spaCy, pipeline and table versions), so a run over text seen before needs neither spaCy nor its
  tables. A table (`Table`), not a pickle: it grows with every project checked, and a run reads only
  the chunks of its own text;
- `blank-language-*` and `tokenizer-spacy-*.bin`: which blank spaCy tokenizer serves a language and
  that tokenizer's rules (loaded without importing the language's exception lists);
- `chunk-rules-*`: the same rules as plain data for termqa.lang.chunktok, which tokenises new text in
  lookup mode without importing spaCy, keyed by the spaCy and Python versions and the language;
- `installed-*`: what importlib.metadata says about spaCy and spacy-lookups-data (termqa.lang.installed),
  keyed by the installed distributions' metadata folders (names and modification times).

Every key also holds this module's FORMAT and a fingerprint of the code that built the value, so an
upgrade (or an edit of the code in a working copy) never reads what older code built: termqa's version
and all its source files for the glossary, the source index and the target forms (`make_key`); only
termqa/lang/ and this module for what the language code alone builds, the analyses, lemma tables,
lexicon, part-of-speech keys, blank-language answers and tokenizer rules (`make_lang_key`), so an edit of
detection or a reader keeps them. Folder:
`$TERMQA_CACHE_DIR` when set, else `<user cache dir>/termqa/index` (platformdirs, the
folder the verdict cache lives in). `termqa cache clear` or deleting the folder empties it; a run with
`--no-index-cache` neither reads nor writes it.

Safety. The files are pickles, and unpickling runs code named in the file: a cache file must only ever
be one this module wrote. The folder is the user's own (like their shell history), so anyone who can
write there can already run code as the user; we still never trust a file blindly: each starts with a
magic line, the format version, and the sha256 of the payload, and a file that fails any check (or
fails to unpickle) is ignored, rebuilt and overwritten. Writes go to a temporary file in the same
folder, then one rename (termqa.fileio.atomic_write): two runs writing the same key both succeed (the
last rename wins, both wrote the same content) and a reader never sees half a file. Any OS error
(read-only home, full disk) only means no cache: results are the same with and without it.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import importlib.util
import json
import marshal
import mmap
import os
import pickle
import shutil
import sqlite3
from pathlib import Path
from typing import Any, Iterator, Optional

from termqa.errors import TermqaError
from termqa.fileio import atomic_write
from termqa.version import __version__

FORMAT = 1
MAGIC = b"termqa-index-cache\n"
ENV_DIR = "TERMQA_CACHE_DIR"


def default_folder() -> Optional[Path]:
    """`$TERMQA_CACHE_DIR`, else `<user cache dir>/termqa/index`; None when neither can be found."""
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env).expanduser()
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("termqa")) / "index"
    except Exception:  # no platformdirs or no home folder: run without a cache
        return None


_CODE: Optional[str] = None
_LANG: Optional[str] = None


def _package_root() -> Path:
    return Path(__file__).resolve().parent.parent  # termqa/, this module being termqa/store/indexcache.py


def source_fingerprint(package: Path, *, lang_only: bool = False, extra_roots: tuple = ()) -> str:
    """sha256 of the source files under `package` (a termqa package folder) that decide cached values.

    All its .py files and those of `extra_roots` (the readers' folder), with termqa's version; with
    `lang_only`, only the language code (`lang/`: tokenizer, lemmatiser, folding, the tables' loading
    and the lexicon) and this module, which is all that the entries keyed by `make_lang_key` depend
    on. A path argument rather than this install's files, so tests can fingerprint an edited copy.
    """
    h = hashlib.sha256()
    if lang_only:
        groups = [(package, sorted((package / "lang").rglob("*.py")) + [package / "store" / Path(__file__).name])]
    else:
        h.update(__version__.encode())
        groups = [(root, sorted(root.rglob("*.py"))) for root in sorted({package, *extra_roots})]
    for root, files in groups:
        for f in files:
            try:
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
            except OSError:
                pass
    return h.hexdigest()


def code_fingerprint() -> str:
    """sha256 of termqa's own source files (the package and its readers).

    The version number alone would let a cache outlive an edit of the code that built it (a working
    copy, a patched install): the readers, lemmatiser and index code are hashed instead, once per process
    (a few milliseconds).
    """
    global _CODE
    if _CODE is None:
        roots = []
        try:  # the readers install as termqa.formats from a folder of their own
            spec = importlib.util.find_spec("termqa.formats")
            if spec is not None and spec.submodule_search_locations:
                roots.append(Path(list(spec.submodule_search_locations)[0]).resolve())
        except (ImportError, ValueError):  # pragma: no cover - formats is part of the install
            pass
        _CODE = source_fingerprint(_package_root(), extra_roots=tuple(roots))
    return _CODE


def lang_fingerprint() -> str:
    """sha256 of the language code and this module only (see `make_lang_key`), once per process."""
    global _LANG
    if _LANG is None:
        _LANG = source_fingerprint(_package_root(), lang_only=True)
    return _LANG


def _key(kind: str, fingerprint: str, parts: tuple) -> str:
    payload = json.dumps([FORMAT, fingerprint, kind, *parts], sort_keys=True,
                         ensure_ascii=False, separators=(",", ":"), default=str)
    return f"{kind}-{hashlib.sha256(payload.encode('utf-8')).hexdigest()[:32]}"


def make_key(kind: str, *parts: Any) -> str:
    """A file-name-safe key: the kind, then the sha256 of everything that decides the cached value
    (termqa's version and code fingerprint included). For what depends on the glossary readers,
    detection or variants code: any edit of termqa makes a new key."""
    return _key(kind, code_fingerprint(), (__version__, *parts))


def make_lang_key(kind: str, *parts: Any) -> str:
    """A key like `make_key`'s, for what only the language code builds (text analyses, lemma tables,
    the lexicon, part-of-speech keys, blank-language answers, tokenizer rules): keyed by
    `lang_fingerprint`, so editing detection, alignment or a reader keeps them (the analyses of every
    text seen, and the tables that take seconds to build), while editing termqa/lang/ or this module
    makes new ones. Whatever else the value depends on (spaCy and table versions, data files) goes in
    `parts`."""
    return _key(kind, lang_fingerprint(), parts)


class IndexCache:
    """Cached values in one folder, one file per key. `folder=None` is a cache that never hits."""

    def __init__(self, folder: Optional[Path]):
        self.folder = Path(folder) if folder is not None else None
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def path_of(self, key: str) -> Path:
        assert self.folder is not None  # internal: callers check `enabled`
        return self.folder / f"{key}.pickle"

    def load(self, key: str) -> Any:
        """The value stored under `key`, or None when absent, damaged or written by another layout."""
        if self.folder is None:
            return None
        try:
            value = _read(self.path_of(key))
        except OSError:
            value = None
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def store(self, key: str, value: Any) -> None:
        """Write `value` under `key` atomically; failing to write only means no cache next time."""
        if self.folder is None:
            return
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            # a value pickle cannot write (a lock, a local function: PicklingError, TypeError or
            # AttributeError depending on the object; RecursionError for a deep one) is not cached: the
            # caller has the value, and the next run builds it again
            return
        try:
            header = MAGIC + f"{FORMAT} {hashlib.sha256(payload).hexdigest()}\n".encode("ascii")
            atomic_write(self.path_of(key), header + payload, make_folder=True)
        except (OSError, TermqaError):
            pass

    def table(self, key: str) -> Optional["Table"]:
        """The key -> value table stored under `key` (created on first write); None without a folder."""
        if self.folder is None:
            return None
        return Table(self.folder / f"{key}.sqlite")

    def clear(self) -> int:
        """Delete every cache file of the folder (and temporary files left by killed runs)."""
        if self.folder is None or not self.folder.is_dir():
            return 0
        n = 0
        for p in self.folder.iterdir():
            if p.is_file() and (p.suffix in (".pickle", ".bin", ".sqlite") or p.name.endswith(".termqa-tmp")
                                or p.name.endswith((".sqlite-journal", ".sqlite-wal", ".sqlite-shm"))):
                with contextlib.suppress(OSError):
                    p.unlink()
                    n += 1
        with contextlib.suppress(OSError):
            if not any(self.folder.iterdir()):
                shutil.rmtree(self.folder)
        return n


class Table:
    """A string -> value table in one SQLite file, for a cache too big to load whole at every run: the
    text analyses (every chunk of text a lemmatiser has met, across projects). A run reads only the
    keys it asks for and adds what it made.

    Values are plain data (tuples, strings, numbers) stored with `marshal`, which rebuilds no objects
    of ours and runs no code. SQLite's own locking serialises concurrent writers (each waits up to
    `TIMEOUT`). Any error, a damaged or locked file included, only means no cache: reads give nothing,
    writes are skipped. The table keeps at most `max_rows` rows; beyond that the oldest half goes.
    """

    TIMEOUT = 10.0

    def __init__(self, path: Path, max_rows: int = 2_000_000):
        self.path = path
        self.max_rows = max_rows

    def _connect(self, create: bool) -> Optional[sqlite3.Connection]:
        if not create and not self.path.is_file():
            return None
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(str(self.path), timeout=self.TIMEOUT, isolation_level=None)
        con.execute("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL)")
        return con

    def get_many(self, keys) -> dict:
        """{key: value} for the keys the table holds."""
        keys = list(dict.fromkeys(keys))
        out: dict = {}
        if not keys:
            return out
        try:
            con = self._connect(create=False)
            if con is None:
                return out
            try:
                for i in range(0, len(keys), 500):  # SQLite's limit on parameters is 999 in old builds
                    part = keys[i:i + 500]
                    rows = con.execute(f"SELECT k, v FROM kv WHERE k IN ({','.join('?' * len(part))})", part)
                    for k, v in rows:
                        try:
                            out[k] = marshal.loads(v)
                        except (EOFError, ValueError, TypeError):  # a damaged value: analysed again
                            pass
            finally:
                con.close()
        except (sqlite3.Error, OSError):
            return {}
        return out

    def put_many(self, items: dict) -> None:
        """Add or replace `items` in one transaction; then trim to `max_rows`."""
        if not items:
            return
        try:
            con = self._connect(create=True)
            try:
                con.execute("BEGIN IMMEDIATE")
                con.executemany("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)",
                                ((k, marshal.dumps(v)) for k, v in items.items()))
                (rows,) = con.execute("SELECT COUNT(*) FROM kv").fetchone()
                if rows > self.max_rows:
                    con.execute("DELETE FROM kv WHERE rowid IN (SELECT rowid FROM kv ORDER BY rowid LIMIT ?)",
                                (rows - self.max_rows // 2,))
                con.execute("COMMIT")
            finally:
                con.close()
        except (sqlite3.Error, OSError, ValueError):  # ValueError: a value marshal cannot write
            pass


def _read(path: Path) -> Any:
    """The value of the cache file at `path`, or None when it fails a check; OSError when unreadable.

    The file is mapped read-only rather than read into a bytes object: the checksum and the unpickler
    read the mapped pages in place, so loading a 20 MB lexicon does not first hold a 20 MB copy of the
    file (and, before, a second one for the payload slice) beside the objects it becomes. The map and
    the file are closed before returning, whatever happened. (A file cut short in place while mapped
    would fault the reader; termqa never writes in place: every write is a new file renamed over.)
    """
    with open(path, "rb") as fh:
        try:
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped (and is not a cache file)
            return None
        except OSError:  # a file system that cannot map files: read it whole, as before
            return _decode(fh.read())
        with mapped:
            return _decode(mapped)


def _decode(data) -> Any:
    """The value of a cache file's content (bytes or any buffer, e.g. an mmap), or None when any check
    fails (never raises).

    Read through memoryview slices, which share the buffer: a slice of an mmap or of bytes would copy
    the payload. Every view is released before returning, so the caller can close an mmap at once.
    """
    with memoryview(data) as view:
        head = bytes(view[:len(MAGIC) + 80])  # magic, then "FORMAT sha256-hex\n": well under 80 bytes
        if not head.startswith(MAGIC):
            return None
        nl = head.find(b"\n", len(MAGIC))
        if nl < 0:
            return None
        try:
            version, digest = head[len(MAGIC):nl].decode("ascii").split(" ")
        except (UnicodeDecodeError, ValueError):
            return None
        if version != str(FORMAT):
            return None
        with view[nl + 1:] as payload:
            if hashlib.sha256(payload).hexdigest() != digest:
                return None
            try:
                return pickle.loads(payload)
            except Exception:  # a class renamed since the file was written, or anything else: rebuild
                return None


# The cache a run uses. A context variable rather than an argument threaded through every reader:
# the lemma tables are loaded deep inside the lemmatiser, once per process, whoever asks first.
_ACTIVE: contextvars.ContextVar[Optional[IndexCache]] = contextvars.ContextVar("termqa_index_cache", default=None)
_DEFAULT: Optional[IndexCache] = None


def default_cache() -> IndexCache:
    """The cache in `default_folder()` (the folder is looked up once per process)."""
    global _DEFAULT
    folder = default_folder()
    if _DEFAULT is None or _DEFAULT.folder != folder:
        _DEFAULT = IndexCache(folder)
    return _DEFAULT


def resolve(setting: Any) -> IndexCache:
    """The cache for a run's `index_cache` setting: True/None -> default folder, False -> none, a path -> there."""
    if setting is None or setting is True:
        return default_cache()
    if setting is False:
        return IndexCache(None)
    if isinstance(setting, IndexCache):
        return setting
    return IndexCache(Path(setting))


def active() -> IndexCache:
    """The cache of the run in progress (the default folder outside a run)."""
    cache = _ACTIVE.get()
    return cache if cache is not None else default_cache()


@contextlib.contextmanager
def using(cache: IndexCache) -> Iterator[IndexCache]:
    """Make `cache` the active one for the duration of a run."""
    token = _ACTIVE.set(cache)
    try:
        yield cache
    finally:
        _ACTIVE.reset(token)


__all__ = ["IndexCache", "Table", "FORMAT", "ENV_DIR", "default_folder", "default_cache", "make_key", "make_lang_key",
           "resolve", "active", "using"]
