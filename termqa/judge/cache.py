"""The verdict cache: one SQLite file that makes re-runs free and doubles as the judge's audit log.

Every answer the judge gives is stored under a key that hashes exactly what decides the answer
(model, prompt version, rendered messages, answer schema). A re-run, or a run resumed after Ctrl-C,
asks the server only for what is not there yet. Each row also keeps the messages, the raw text,
the token usage and a timestamp, so a person can see what the judge was asked and what it said.

Only the standard library is used; the file is safe to share between the worker threads of one
run (one connection behind a lock) and between processes (WAL journal, short transactions).

Runs that share the file also share the bill: before asking, a run *claims* the question (a row in
`claims` with a lease). A second run that finds the question claimed waits for the first run's
answer instead of paying for it again; a claim whose run died (killed, the machine lost) expires
with its lease, and the question is claimed anew. The owner renews its lease at each attempt.

The file's layout grows by numbered migrations (`MIGRATIONS`), each adding what a version of termqa
needed; the file records the last one applied (`meta.schema`). Opening a file of an older layout applies
the missing ones, in one transaction, and keeps every answer stored (they were paid for); a file of a
newer layout than this termqa knows is refused, untouched.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Sequence

from termqa.errors import ConfigError

# Questions being asked by some run: (key, owner, expires as a Unix time).
_CLAIMS = "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL)"
# What claim() found: the question is answered, claimed by this owner now, or by another live run.
ANSWERED, MINE, TAKEN = "answered", "mine", "taken"

_TABLE = """
CREATE TABLE IF NOT EXISTS judgements (
    key            TEXT PRIMARY KEY,
    model          TEXT NOT NULL,
    prompt_id      TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    messages       TEXT NOT NULL,
    answer         TEXT NOT NULL,
    raw            TEXT NOT NULL,
    tokens_in      INTEGER NOT NULL DEFAULT 0,
    tokens_out     INTEGER NOT NULL DEFAULT 0,
    json_mode      TEXT,
    endpoint       TEXT,
    served_model   TEXT,
    created        TEXT NOT NULL
)
"""


# The batch engine's tables (termqa.judge.batch), added to any cache file that lacks them: every
# question written to a batch (to store its answer when the batch output comes back), every question
# waiting in a submitted batch (never submitted again while it waits), and the batches themselves.
_BATCH_TABLES = (
    """CREATE TABLE IF NOT EXISTS batch_requests (
        key TEXT PRIMARY KEY, model TEXT NOT NULL, prompt_id TEXT NOT NULL, prompt_version TEXT NOT NULL,
        messages TEXT NOT NULL, schema TEXT, expect TEXT, endpoint TEXT, created TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS batch_pending (
        key TEXT PRIMARY KEY, batch_id TEXT NOT NULL, created TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS batches (
        batch_id TEXT PRIMARY KEY, input_file_id TEXT, status TEXT NOT NULL, requests INTEGER NOT NULL,
        model TEXT, endpoint TEXT, base_url TEXT, created TEXT NOT NULL, updated TEXT NOT NULL)""",
)
# The layouts, oldest first: (number, what it adds, its statements). Statements only create what is missing
# (files written before the numbering carry version 1 and may already hold the later tables). A new layout is a
# new entry at the end, never an edit of one already released.
MIGRATIONS = (
    (1, "the judgements", (_TABLE,)),
    (2, "the batch engine's tables", _BATCH_TABLES),
    (3, "the claims of runs sharing the file", (_CLAIMS,)),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]

# Batch states after which nothing more will come.
BATCH_DONE = ("completed", "failed", "expired", "cancelled")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no whitespace, non-ASCII kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(model: str, prompt_version: str, messages: Sequence[Mapping[str, str]],
              schema: Optional[Mapping[str, Any]]) -> str:
    """sha256 of the canonical JSON of everything that decides the judge's answer."""
    payload = {
        "model": model,
        "prompt_version": prompt_version,
        "messages": [dict(m) for m in messages],
        "schema": schema,
    }
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def default_cache_path() -> Path:
    """`<user cache dir>/termqa/judgements.sqlite` (platformdirs decides the folder per OS)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("termqa")) / "judgements.sqlite"


@dataclass(frozen=True)
class CacheEntry:
    """One stored judgement."""

    key: str
    model: str
    prompt_id: str
    prompt_version: str
    messages: tuple[tuple[str, str], ...]
    answer: Any  # the parsed JSON answer
    raw: str
    tokens_in: int
    tokens_out: int
    json_mode: Optional[str]
    endpoint: Optional[str]
    served_model: Optional[str]  # the model name the server reported (may carry a dated suffix)
    created: str


def _journal_wal(db: sqlite3.Connection, tries: int = 100) -> None:
    """Put the file in WAL mode. Two runs opening one new cache file at once race for it: switching the
    journal mode takes a lock that SQLite's busy timeout does not wait for, so the loser is told "database
    is locked" at once. It asks again for a while (the other run holds the lock for milliseconds)."""
    for attempt in range(tries):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if attempt == tries - 1 or not any(w in str(exc) for w in ("locked", "busy")):
                raise
            time.sleep(0.05)


class VerdictCache:
    """SQLite store of judge answers. `path=None` uses `default_cache_path()`."""

    def __init__(self, path: Optional[str | Path] = None):
        self.path = Path(path) if path is not None else default_cache_path()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One connection shared by the worker threads; the lock serialises its use.
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30.0)
            _journal_wal(self._db)
            self._db.execute("PRAGMA synchronous=NORMAL")
            _migrate(self._db, self.path)
        except sqlite3.DatabaseError as exc:
            raise ConfigError(
                f"{self.path}: cannot open the judge cache ({exc})",
                fix="point --cache at a writable SQLite file, or remove the damaged one",
            ) from exc

    # -- reading --------------------------------------------------------------------------------

    def get(self, key: str) -> Optional[CacheEntry]:
        with self._lock:
            row = self._db.execute(
                "SELECT key, model, prompt_id, prompt_version, messages, answer, raw, tokens_in, "
                "tokens_out, json_mode, endpoint, served_model, created FROM judgements WHERE key=?",
                (key,),
            ).fetchone()
        return _entry(row) if row else None

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM judgements WHERE key=?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]

    def entries(self, prompt_id: Optional[str] = None) -> Iterator[CacheEntry]:
        """All stored judgements, oldest first (the audit log view)."""
        sql = ("SELECT key, model, prompt_id, prompt_version, messages, answer, raw, tokens_in, "
               "tokens_out, json_mode, endpoint, served_model, created FROM judgements")
        args: tuple = ()
        if prompt_id is not None:
            sql += " WHERE prompt_id=?"
            args = (prompt_id,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY created, key", args).fetchall()
        for row in rows:
            yield _entry(row)

    # -- claims: one payment per question across runs sharing the file ----------------------------

    def claim(self, key: str, owner: str, lease: float) -> str:
        """ANSWERED (the answer is stored), MINE (claimed by `owner` for `lease` seconds, or renewed),
        or TAKEN (another run's claim is alive: wait for its answer). One write transaction, so two
        runs never both get MINE."""
        with self._lock:
            if self._db.in_transaction:
                self._db.commit()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if self._db.execute("SELECT 1 FROM judgements WHERE key=?", (key,)).fetchone():
                    return ANSWERED
                now = time.time()
                row = self._db.execute("SELECT owner, expires FROM claims WHERE key=?", (key,)).fetchone()
                if row is not None and row[0] != owner and row[1] > now:
                    return TAKEN
                self._db.execute("INSERT OR REPLACE INTO claims VALUES (?,?,?)", (key, owner, now + lease))
                return MINE
            finally:
                self._db.commit()

    def release(self, key: str, owner: str) -> None:
        """Drop `owner`'s claim (answered or given up): a waiting run then reads the answer or asks."""
        with self._lock:
            self._db.execute("DELETE FROM claims WHERE key=? AND owner=?", (key, owner))
            self._db.commit()

    # -- writing --------------------------------------------------------------------------------

    def put(self, key: str, *, model: str, prompt_id: str, prompt_version: str,
            messages: Sequence[Mapping[str, str]], answer: Any, raw: str, tokens_in: int = 0,
            tokens_out: int = 0, json_mode: Optional[str] = None,
            endpoint: Optional[str] = None, served_model: Optional[str] = None) -> None:
        """Store one answer and commit at once, so an interrupted run loses nothing it paid for."""
        created = datetime.now(timezone.utc).isoformat(timespec="microseconds")
        msgs = canonical_json([[m["role"], m["content"]] for m in messages])
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO judgements VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (key, model, prompt_id, prompt_version, msgs, canonical_json(answer), raw,
                 int(tokens_in), int(tokens_out), json_mode, endpoint, served_model, created),
            )
            self._db.commit()

    # -- batches (termqa.judge.batch) --------------------------------------------------------

    def put_batch_requests(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Remember questions written to a batch: key, model, prompt_id, prompt_version, messages,
        schema, expect, endpoint."""
        now = _now()
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO batch_requests VALUES (?,?,?,?,?,?,?,?,?)",
                [(r["key"], r["model"], r["prompt_id"], r["prompt_version"], canonical_json(r["messages"]),
                  canonical_json(r.get("schema")), canonical_json(r.get("expect")), r.get("endpoint"), now)
                 for r in rows])
            self._db.commit()

    def batch_request(self, key: str) -> Optional[dict[str, Any]]:
        with self._lock:
            row = self._db.execute("SELECT key, model, prompt_id, prompt_version, messages, schema, expect, endpoint "
                                   "FROM batch_requests WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        k, model, pid, pv, messages, schema, expect, endpoint = row
        return {"key": k, "model": model, "prompt_id": pid, "prompt_version": pv,
                "messages": json.loads(messages), "schema": json.loads(schema) if schema else None,
                "expect": json.loads(expect) if expect else None, "endpoint": endpoint}

    def add_batch(self, batch_id: str, keys: Sequence[str], *, input_file_id: Optional[str], status: str,
                  model: Optional[str], endpoint: Optional[str], base_url: Optional[str]) -> None:
        """A submitted batch and the questions it holds (pending until its output is ingested)."""
        now = _now()
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO batches VALUES (?,?,?,?,?,?,?,?,?)",
                             (batch_id, input_file_id, status, len(keys), model, endpoint, base_url, now, now))
            self._db.executemany("INSERT OR REPLACE INTO batch_pending VALUES (?,?,?)",
                                 [(k, batch_id, now) for k in keys])
            self._db.commit()

    def set_batch_status(self, batch_id: str, status: str) -> None:
        with self._lock:
            self._db.execute("UPDATE batches SET status=?, updated=? WHERE batch_id=?", (status, _now(), batch_id))
            self._db.commit()

    def open_batches(self) -> list[dict[str, Any]]:
        """Submitted batches whose output has not been ingested yet, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT batch_id, input_file_id, status, requests, model, endpoint, base_url, created FROM batches "
                "WHERE status NOT IN ('ingested', 'abandoned') ORDER BY created").fetchall()
        names = ("batch_id", "input_file_id", "status", "requests", "model", "endpoint", "base_url", "created")
        return [dict(zip(names, r)) for r in rows]

    def pending_batch(self, key: str) -> Optional[str]:
        """The batch a question waits in, or None."""
        with self._lock:
            row = self._db.execute("SELECT batch_id FROM batch_pending WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def pending_keys(self, batch_id: str) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT key FROM batch_pending WHERE batch_id=?", (batch_id,))]

    def drop_pending(self, keys: Sequence[str]) -> None:
        """Questions no longer waiting (answered, or to be asked again)."""
        with self._lock:
            self._db.executemany("DELETE FROM batch_pending WHERE key=?", [(k,) for k in keys])
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "VerdictCache":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Bring the file to SCHEMA_VERSION: the migrations after the one it records, in one write transaction
    (another run opening the same file at once waits, then finds it done)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
        row = db.execute("SELECT value FROM meta WHERE name='schema'").fetchone()
        have = 0 if row is None else int(row[0]) if str(row[0]).isdigit() else None
        if have is None or have > SCHEMA_VERSION:
            raise ConfigError(
                f"{path}: judge cache has layout version {row[0]}, this termqa reads versions up to "
                f"{SCHEMA_VERSION}",
                fix="use the termqa that wrote it (or a newer one), or point --cache at another file",
            )
        for number, _what, statements in MIGRATIONS:
            if number > have:
                for sql in statements:
                    db.execute(sql)
        if have < SCHEMA_VERSION:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        db.commit()
    except BaseException:
        db.rollback()
        raise


def _entry(row) -> CacheEntry:
    (key, model, prompt_id, prompt_version, messages, answer, raw, tin, tout, mode, endpoint,
     served_model, created) = row
    return CacheEntry(
        key=key,
        model=model,
        prompt_id=prompt_id,
        prompt_version=prompt_version,
        messages=tuple((r, c) for r, c in json.loads(messages)),
        answer=json.loads(answer),
        raw=raw,
        tokens_in=tin,
        tokens_out=tout,
        json_mode=mode,
        endpoint=endpoint,
        served_model=served_model,
        created=created,
    )
