"""The verdict cache's layout grows by numbered migrations: a file of an older layout opens, gains what it
lacks, and keeps every answer it holds (they were paid for); a file of a newer layout is refused untouched."""
from __future__ import annotations

import sqlite3

import pytest

from termqa.errors import ConfigError
from termqa.judge.cache import MIGRATIONS, MINE, SCHEMA_VERSION, VerdictCache, cache_key, canonical_json

# The first layout termqa wrote (version 1): the judgements and the meta table, nothing else.
FIRST_LAYOUT = """
CREATE TABLE judgements (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, prompt_id TEXT NOT NULL, prompt_version TEXT NOT NULL,
    messages TEXT NOT NULL, answer TEXT NOT NULL, raw TEXT NOT NULL, tokens_in INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0, json_mode TEXT, endpoint TEXT, served_model TEXT, created TEXT NOT NULL);
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);
INSERT INTO meta VALUES ('schema', '1');
"""
MESSAGES = [{"role": "system", "content": "You judge."}, {"role": "user", "content": "pompe for pump?"}]
ANSWER = {"justification": "the glossary term", "label": "no_error"}


def _first_layout_file(path, schema: str = "1"):
    key = cache_key("gpt-test", "error_judge@1", MESSAGES, None)
    db = sqlite3.connect(str(path))
    db.executescript(FIRST_LAYOUT.replace("'1'", f"'{schema}'"))
    db.execute("INSERT INTO judgements VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
               (key, "gpt-test", "error_judge", "error_judge@1",
                canonical_json([[m["role"], m["content"]] for m in MESSAGES]), canonical_json(ANSWER),
                '{"label": "no_error"}', 120, 30, "json_schema", "chat", "gpt-test-2026", "2026-11-30T10:00:00+00:00"))
    db.commit()
    db.close()
    return key


def _tables(path) -> set:
    db = sqlite3.connect(str(path))
    try:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        db.close()


def test_the_migrations_are_numbered_one_after_another():
    assert [m[0] for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert SCHEMA_VERSION == MIGRATIONS[-1][0] > 1


def test_a_cache_of_the_first_layout_keeps_its_answers_and_gains_the_later_tables(tmp_path):
    path = tmp_path / "old.sqlite"
    key = _first_layout_file(path)
    assert _tables(path) == {"judgements", "meta"}
    with VerdictCache(path) as cache:
        entry = cache.get(key)
        assert entry is not None and entry.answer == ANSWER  # what was paid for is still there
        assert (entry.tokens_in, entry.tokens_out, entry.served_model) == (120, 30, "gpt-test-2026")
        assert len(cache) == 1
        assert cache.claim("another question", "run-1", lease=5.0) == MINE  # the claims table is there
        assert cache.open_batches() == []  # and the batch engine's
    assert {"claims", "batch_requests", "batch_pending", "batches"} <= _tables(path)
    db = sqlite3.connect(str(path))
    assert db.execute("SELECT value FROM meta WHERE name='schema'").fetchone() == (str(SCHEMA_VERSION),)
    db.close()
    with VerdictCache(path) as cache:  # opened again: nothing more to do, nothing lost
        assert cache.get(key).answer == ANSWER


def test_a_file_written_before_the_numbering_with_every_table_opens(tmp_path):
    """termqa wrote version 1 while it added the batch and claims tables: such a file already holds them."""
    path = tmp_path / "v1-full.sqlite"
    key = _first_layout_file(path)
    with VerdictCache(path):
        pass
    db = sqlite3.connect(str(path))
    db.execute("UPDATE meta SET value='1' WHERE name='schema'")
    db.commit()
    db.close()
    with VerdictCache(path) as cache:
        assert cache.get(key).answer == ANSWER


@pytest.mark.parametrize("schema", [str(SCHEMA_VERSION + 1), "two"])
def test_a_cache_of_an_unknown_layout_is_refused_untouched(tmp_path, schema):
    path = tmp_path / "newer.sqlite"
    _first_layout_file(path, schema=schema)
    with pytest.raises(ConfigError, match="layout version") as err:
        VerdictCache(path)
    assert err.value.fix
    assert _tables(path) == {"judgements", "meta"}
