"""The batch stage's own logic (termqa.judge.batch): what an ingestion stores, drops and counts, and how
`collect` polls the batches a cache holds. The whole batch path of a check is in test_judge.py; here each
rule of the stage on its own, with a real verdict cache and, for `collect`, the real openai client
against the HTTP test server (tests/llm_server.py)."""
from __future__ import annotations

import json

import pytest

from termqa.judge.batch import ENDPOINT, IngestReport, collect, ingest_file, ingest_lines, jsonl, request_line, submit
from termqa.judge.cache import VerdictCache

SCHEMA = {"name": "verdict", "schema": {"type": "object", "required": ["label"]}}


@pytest.fixture
def cache(tmp_path):
    with VerdictCache(tmp_path / "cache.db") as vc:
        yield vc


def _asked(cache, key, *, expect=None, schema=SCHEMA, batch_id="batch_1"):
    """A question written to a batch (what the backend records when it queues one), waiting in `batch_id`."""
    cache.put_batch_requests([{"key": key, "model": "m", "prompt_id": "error", "prompt_version": "error@2",
                               "messages": [["user", f"question {key}"]], "schema": schema, "expect": expect,
                               "endpoint": "openai"}])
    cache.add_batch(batch_id, [key], input_file_id="file_1", status="validating", model="m", endpoint="openai",
                    base_url=None)


def _line(key, content, *, status=200, tokens=(100, 10), error=None):
    body = {"model": "m-2025-01-01", "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]}}
    return json.dumps({"custom_id": key, "response": {"status_code": status, "body": body}, "error": error})


def test_a_usable_answer_is_stored_and_stops_waiting(cache):
    _asked(cache, "k1")
    rep = ingest_lines(cache, [_line("k1", '{"label": "no_error"}')])
    assert (rep.answered, rep.unusable, rep.tokens_in, rep.tokens_out, rep.models) == (1, 0, 100, 10, {"m": (100, 10, 0)})
    entry = cache.get("k1")
    assert entry.answer == {"label": "no_error"} and entry.served_model == "m-2025-01-01"
    assert cache.pending_batch("k1") is None


def test_an_error_line_is_unusable_and_the_question_is_asked_again(cache):
    _asked(cache, "k1")
    rep = ingest_lines(cache, [_line("k1", "", status=500, error={"message": "server error"})])
    assert (rep.answered, rep.unusable) == (0, 1)
    assert "k1" not in cache and cache.pending_batch("k1") is None  # not waiting: the next round asks it


def test_an_answer_that_is_not_the_json_asked_for_is_unusable(cache):
    _asked(cache, "k1")
    rep = ingest_lines(cache, [_line("k1", "The rendering looks fine to me.")])
    assert (rep.answered, rep.unusable) == (0, 1) and "k1" not in cache
    assert rep.tokens_in == 100  # the answer came back: it was paid for


def test_an_answer_missing_a_required_key_is_unusable(cache):
    _asked(cache, "k1")
    assert ingest_lines(cache, [_line("k1", '{"justification": "fine"}')]).unusable == 1


def test_an_array_answer_that_misses_an_occurrence_is_unusable(cache):
    _asked(cache, "k1", expect=["items", "id", ["o1", "o2"]])
    rep = ingest_lines(cache, [_line("k1", '{"label": "x", "items": [{"id": "o1", "label": "no_error"}]}')])
    assert (rep.answered, rep.unusable) == (0, 1)
    _asked(cache, "k2", expect=["items", "id", ["o1", "o2"]])
    both = '{"label": "x", "items": [{"id": "o1", "label": "no_error"}, {"id": "o2", "label": "A4"}]}'
    assert ingest_lines(cache, [_line("k2", both)]).answered == 1


def test_a_line_that_is_not_json_is_unusable(cache):
    assert ingest_lines(cache, ["{not json", "", "   "]).as_dict() == {
        "answered": 0, "unusable": 1, "already": 0, "unknown": 0, "tokens_in": 0, "tokens_out": 0,
        "tokens_in_cached": 0}


def test_an_answer_this_cache_never_asked_is_counted_unknown_and_not_stored(cache):
    rep = ingest_lines(cache, [_line("never-asked", '{"label": "no_error"}')])
    assert (rep.unknown, rep.answered) == (1, 0) and "never-asked" not in cache


def test_ingesting_the_same_output_twice_stores_nothing_more(cache):
    _asked(cache, "k1")
    lines = [_line("k1", '{"label": "no_error"}')]
    ingest_lines(cache, lines)
    again = ingest_lines(cache, lines)
    assert (again.answered, again.already, again.tokens_in) == (0, 1, 0) and len(cache) == 1


def test_an_ingested_answer_keeps_the_question_it_answers(cache):
    _asked(cache, "k1")
    ingest_lines(cache, [_line("k1", '{"label": "no_error"}')], endpoint="local")
    entry = cache.get("k1")
    assert (entry.model, entry.prompt_id, entry.prompt_version, entry.endpoint) == ("m", "error", "error@2", "local")


def test_reports_add_up(cache):
    a = IngestReport(answered=2, unusable=1, tokens_in=10, tokens_out=2, tokens_in_cached=4, models={"m": (10, 2, 4)})
    a.add(IngestReport(answered=1, already=3, unknown=1, tokens_in=5, tokens_out=1,
                       models={"m": (5, 1, 0), "n": (1, 1, 0)}))
    assert a.as_dict() == {"answered": 3, "unusable": 1, "already": 3, "unknown": 1, "tokens_in": 15, "tokens_out": 3,
                           "tokens_in_cached": 4}
    assert a.models == {"m": (15, 3, 4), "n": (1, 1, 0)}


def test_an_input_file_is_one_chat_request_per_line():
    lines = [request_line("k1", {"model": "m", "messages": []}), request_line("k2", {"model": "m", "messages": []})]
    text = jsonl(lines)
    assert text.endswith("\n") and len(text.splitlines()) == 2
    first = json.loads(text.splitlines()[0])
    assert first == {"custom_id": "k1", "method": "POST", "url": ENDPOINT, "body": {"model": "m", "messages": []}}


def test_a_missing_output_file_is_a_judge_error(cache, tmp_path):
    from termqa.errors import JudgeError

    with pytest.raises(JudgeError, match="cannot read the batch output"):
        ingest_file(cache, str(tmp_path / "nowhere.jsonl"))


# --- collect: polling the batches a cache holds (real client, HTTP test server) ----------------------

def _client(server):
    import openai

    return openai.OpenAI(api_key="sk-test", base_url=server.url, max_retries=0)


def _submitted(cache, client, keys):
    body = {"model": "scripted-judge", "messages": [{"role": "user", "content": "Is it right?"}],
            "response_format": {"type": "json_object"}}
    batch_id, file_id, status = submit(client, [request_line(k, body) for k in keys])
    for k in keys:
        cache.put_batch_requests([{"key": k, "model": "scripted-judge", "prompt_id": "error", "prompt_version": "1",
                                   "messages": [["user", "Is it right?"]], "schema": SCHEMA, "expect": None,
                                   "endpoint": "local"}])
    cache.add_batch(batch_id, keys, input_file_id=file_id, status=status, model="scripted-judge", endpoint="local",
                    base_url=None)
    return batch_id


def test_collect_ingests_an_ended_batch_and_closes_it(cache, llm_server):
    with _client(llm_server) as client:
        bid = _submitted(cache, client, ["k1", "k2"])
        statuses = collect(cache, client)
    assert [(s.batch_id, s.status, s.requests) for s in statuses] == [(bid, "completed, ingested", 2)]
    assert statuses[0].report.answered == 2 and "k1" in cache and "k2" in cache
    assert cache.open_batches() == [] and cache.pending_batch("k1") is None


def test_collect_leaves_a_running_batch_waiting(cache, llm_server):
    llm_server.batch_polls = 2  # completes at its second retrieval
    with _client(llm_server) as client:
        bid = _submitted(cache, client, ["k1"])
        first = collect(cache, client)
        assert [(s.status, s.report) for s in first] == [("in_progress", None)]
        assert "k1" not in cache and cache.pending_batch("k1") == bid  # never submitted again meanwhile
        second = collect(cache, client)
    assert second[0].status == "completed, ingested" and "k1" in cache and cache.open_batches() == []


def test_collect_asks_again_what_an_ended_batch_did_not_answer(cache, llm_server):
    llm_server.batch_line_error = lambda line: line["custom_id"] == "k2"
    with _client(llm_server) as client:
        _submitted(cache, client, ["k1", "k2"])
        (status,) = collect(cache, client)
    assert (status.report.answered, status.report.unusable) == (1, 1)
    assert "k1" in cache and "k2" not in cache and cache.pending_batch("k2") is None
