"""The LLM seam through the real openai client, against the scripted HTTP server."""
from __future__ import annotations

import json
import sqlite3

import pytest

from termqa.judge.cache import VerdictCache, cache_key, default_cache_path
from termqa.errors import BudgetExceeded, JudgeError, OfflineCacheMiss, UsageError
from termqa.judge.costs import DEFAULT_PRICES, parse_price, price_for
from termqa.judge.llm import (
    Answer,
    Backend,
    Request,
    parse_json_answer,
    settings_from_env,
)
from termqa.judge.settings import PLACEHOLDER_KEY, endpoint_kind

SCHEMA = {
    "name": "verdict",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {"justification": {"type": "string"}, "label": {"type": "string"}},
        "required": ["justification", "label"],
        "additionalProperties": False,
    },
}


def make_backend(server, tmp_path, **kw) -> Backend:
    options = dict(model="judge-test", judge_base_url=server.url, cache=tmp_path / "cache.sqlite",
                   judge_timeout=2.0, backoff_base=0.001, backoff_max=0.01, concurrency=1)
    options.update(kw)
    return Backend(settings_from_env({}, **options))


def req(text: str, schema=SCHEMA) -> Request:
    return Request("error_judge", "error_judge@1+test", (("system", "You judge."), ("user", text)), schema)


# --- basics, cache, accounting ------------------------------------------------------------------


def test_answer_parsed_accounted_and_cached_for_the_next_run(llm_server, tmp_path):
    llm_server.on("segment 1", {"justification": "Attested term.", "label": "no_error"})
    with make_backend(llm_server, tmp_path) as b:
        a = b.complete(req("judge segment 1"))
        assert a.data == {"justification": "Attested term.", "label": "no_error"}
        assert (a.cached, a.tokens_in, a.tokens_out, a.json_mode) == (False, 100, 10, "json_schema")
        assert a.served_model == "judge-test-served"
        acc = b.account.as_dict()
    assert {k: acc[k] for k in ("calls", "cached", "failed", "retries", "tokens_in", "tokens_out")} == {
        "calls": 1, "cached": 0, "failed": 0, "retries": 0, "tokens_in": 100, "tokens_out": 10}
    assert acc["endpoint"] == "local" and acc["estimated_cost_usd"] == 0.0
    sent = llm_server.completions[0].body
    assert sent["temperature"] == 0 and sent["model"] == "judge-test"
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["name"] == "verdict"

    with make_backend(llm_server, tmp_path) as b2:  # a second run: nothing goes to the server
        again = b2.complete(req("judge segment 1"))
        assert again.cached and again.data == a.data and again.key == a.key
        assert b2.account.calls == 0 and b2.account.cached == 1
    assert len(llm_server.completions) == 1


def test_cache_row_is_the_audit_log(llm_server, tmp_path):
    with make_backend(llm_server, tmp_path) as b:
        a = b.complete(req("audit me"))
    with VerdictCache(tmp_path / "cache.sqlite") as cache:
        (entry,) = list(cache.entries())
    assert entry.key == a.key
    assert entry.model == "judge-test" and entry.served_model == "judge-test-served"
    assert entry.prompt_id == "error_judge" and entry.prompt_version == "error_judge@1+test"
    assert entry.messages == (("system", "You judge."), ("user", "audit me"))
    assert entry.answer == {"justification": "Default scripted answer.", "label": "no_error"}
    assert json.loads(entry.raw) == entry.answer
    assert (entry.tokens_in, entry.tokens_out, entry.json_mode, entry.endpoint) == (100, 10, "json_schema", "local")
    assert entry.created.endswith("+00:00")


def test_cache_key_covers_model_prompt_version_messages_and_schema():
    msgs = [{"role": "user", "content": "x"}]
    base = cache_key("m", "p@1+aa", msgs, SCHEMA)
    assert base == cache_key("m", "p@1+aa", [{"content": "x", "role": "user"}], SCHEMA)
    assert len({base, cache_key("m2", "p@1+aa", msgs, SCHEMA), cache_key("m", "p@1+bb", msgs, SCHEMA),
                cache_key("m", "p@1+aa", [{"role": "user", "content": "y"}], SCHEMA),
                cache_key("m", "p@1+aa", msgs, None)}) == 5


def test_default_cache_path_is_in_the_user_cache_dir():
    from platformdirs import user_cache_dir

    assert default_cache_path().parent == __import__("pathlib").Path(user_cache_dir("termqa"))


def test_every_answer_is_in_the_cache_before_the_next_question(llm_server, tmp_path):
    db = tmp_path / "cache.sqlite"
    seen_rows = []

    def reply(body):
        with sqlite3.connect(db) as con:  # another connection, as after a crash
            seen_rows.append(con.execute("SELECT COUNT(*) FROM judgements").fetchone()[0])
        return {"justification": "ok", "label": "no_error"}

    llm_server.default = reply
    with make_backend(llm_server, tmp_path) as b:
        out = b.complete_many([req(f"question {i}") for i in range(4)])
    assert all(isinstance(a, Answer) for a in out)
    assert seen_rows == [0, 1, 2, 3]


# --- json_schema -> json_object fallback ---------------------------------------------------------


def test_server_rejecting_json_schema_switches_to_json_object_for_the_run(llm_server, tmp_path):
    llm_server.reject_json_schema = True
    with make_backend(llm_server, tmp_path) as b:
        out = b.complete_many([req(f"item {i}") for i in range(3)])
        assert [a.data["label"] for a in out] == ["no_error"] * 3
        assert [a.json_mode for a in out] == ["json_object"] * 3
        assert b.json_mode == "json_object"
        acc = b.account.as_dict()
    assert acc["json_mode_fallback"] is True and acc["retries"] == 0 and acc["calls"] == 3
    log = llm_server.completions
    assert [r.response_format for r in log] == ["json_schema", "json_object", "json_object", "json_object"]
    assert log[0].status == 400
    last_user = log[1].body["messages"][-1]["content"]
    assert last_user.startswith("item 0") and "JSON Schema" in last_user and '"justification"' in last_user


def test_llama_cpp_style_500_refusal_falls_back_with_the_schema_alongside(llm_server, tmp_path):
    # llama.cpp's Python server refuses json_schema with a 500 and constrains json_object output
    # with a "schema" key (tests/test_llm_slow.py checks the same against the real server)
    llm_server.reject_json_schema = True
    llm_server.reject_json_schema_status = 500
    with make_backend(llm_server, tmp_path) as b:
        a = b.complete(req("item"))
        assert a.data["label"] == "no_error" and b.json_mode == "json_object"
        assert b.account.as_dict()["retries"] == 0
    log = llm_server.completions
    assert [r.status for r in log] == [500, 200]
    assert log[1].body["response_format"]["schema"]["required"] == ["justification", "label"]


def test_server_refusing_the_schema_key_gets_plain_json_object(llm_server, tmp_path):
    llm_server.reject_json_schema = True
    llm_server.reject_schema_key = True
    with make_backend(llm_server, tmp_path) as b:
        a = b.complete(req("item"))
        assert a.data["label"] == "no_error" and b.json_mode == "json_object_plain"
    log = llm_server.completions
    assert [r.status for r in log] == [400, 400, 200]
    assert log[2].body["response_format"] == {"type": "json_object"}


def test_fallback_answers_share_the_cache_with_schema_answers(llm_server, tmp_path):
    llm_server.reject_json_schema = True
    with make_backend(llm_server, tmp_path) as b:
        b.complete(req("same question"))
    llm_server.reject_json_schema = False
    with make_backend(llm_server, tmp_path) as b:
        assert b.complete(req("same question")).cached
    assert len(llm_server.completions) == 2  # the rejected attempt and the answer


# --- retries -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["429", "500", "503", "timeout", "malformed", "not_json", "empty"])
def test_each_transient_fault_is_retried_with_the_real_client(llm_server, tmp_path, fault):
    llm_server.hang = 3.0
    llm_server.fail_next(fault)
    with make_backend(llm_server, tmp_path, judge_timeout=0.4) as b:
        a = b.complete(req("retry me"))
        acc = b.account.as_dict()
    assert a.data["label"] == "no_error"
    assert [r.fault for r in llm_server.completions] == [fault, None]
    assert (acc["calls"], acc["retries"], acc["failed"]) == (1, 1, 0)
    # Answers that arrived but were unusable were paid for: their tokens count.
    paid = 2 if fault in ("not_json", "empty") else 1
    assert acc["tokens_in"] == 100 * paid


def test_answer_missing_a_required_key_is_retried(llm_server, tmp_path):
    answers = iter(['{"justification": "no label here"}', '{"justification": "fine", "label": "no_error"}'])
    llm_server.default = lambda body: next(answers)
    with make_backend(llm_server, tmp_path) as b:
        assert b.complete(req("x")).data["justification"] == "fine"
        assert b.account.retries == 1


def test_answer_in_a_code_fence_is_accepted():
    text = 'Here you go:\n```json\n{"justification": "j", "label": "no_error"}\n```'
    assert parse_json_answer(text, SCHEMA) == {"justification": "j", "label": "no_error"}
    assert parse_json_answer("[1, 2]", SCHEMA) is None
    assert parse_json_answer('{"label": "x"}', SCHEMA) is None


def test_retries_exhausted_gives_judge_error_and_caches_nothing(llm_server, tmp_path):
    llm_server.fail_next("500", "500", "500")
    with make_backend(llm_server, tmp_path, max_retries=2) as b:
        with pytest.raises(JudgeError) as info:
            b.complete(req("doomed"))
        acc = b.account.as_dict()
        assert len(b.cache) == 0
    assert "after 3 attempts (2 retries" in str(info.value)  # the counts are true
    assert (acc["calls"], acc["retries"], acc["failed"]) == (1, 2, 1)
    assert len(llm_server.completions) == 3


def test_auth_failure_stops_asking_the_server(llm_server, tmp_path):
    llm_server.fail_next("401")
    with make_backend(llm_server, tmp_path) as b:
        out = b.complete_many([req(f"q{i}") for i in range(3)])
        acc = b.account.as_dict()
    assert all(isinstance(o, JudgeError) for o in out)
    assert "401" in str(out[0]) and "OPENAI_API_KEY" in str(out[0])
    assert len(llm_server.completions) == 1
    assert acc["failed"] == 3 and acc["retries"] == 0 and "401" in acc["fatal_error"]


# --- budget and offline --------------------------------------------------------------------------


def test_call_budget_stops_cleanly_and_keeps_what_was_judged(llm_server, tmp_path):
    with make_backend(llm_server, tmp_path, max_calls=2) as b:
        out = b.complete_many([req(f"q{i}") for i in range(5)])
        acc = b.account.as_dict()
        with pytest.raises(BudgetExceeded):
            b.complete(req("one more"))
    assert [type(o).__name__ for o in out] == ["Answer", "Answer"] + ["BudgetExceeded"] * 3
    assert "--max-calls" in str(out[2])
    assert (acc["calls"], acc["not_sent"], acc["budget_exhausted"]) == (2, 3, True)
    assert len(llm_server.completions) == 2

    # Re-run with the same budget: the two judged answers come from the cache for free.
    with make_backend(llm_server, tmp_path, max_calls=2) as b:
        out = b.complete_many([req(f"q{i}") for i in range(5)])
        assert [isinstance(o, Answer) for o in out] == [True, True, True, True, False]
        assert (b.account.cached, b.account.calls) == (2, 2)


def test_cost_budget_uses_the_price_table(llm_server, tmp_path):
    # 100 + 10 tokens per call at $1000 per million tokens: $0.11 per call.
    with make_backend(llm_server, tmp_path, max_cost=0.2, prices={"judge-test": (1000, 1000)}) as b:
        out = b.complete_many([req(f"q{i}") for i in range(4)])
        acc = b.account.as_dict()
    assert [isinstance(o, Answer) for o in out] == [True, True, False, False]
    assert acc["estimated_cost_usd"] == pytest.approx(0.22)
    assert acc["price_per_million"] == [1000.0, 1000.0, None]  # no cached-input price given
    assert "cost budget" in str(out[2])


def test_offline_miss_names_the_fix_and_never_calls(llm_server, tmp_path):
    with make_backend(llm_server, tmp_path, offline=True) as b:
        with pytest.raises(OfflineCacheMiss) as info:
            b.complete(req("never judged"))
        many = b.complete_many([req("never judged"), req("nor this")])
    assert "--offline" in str(info.value) and "without --offline" in info.value.fix
    assert all(isinstance(m, OfflineCacheMiss) for m in many)
    assert llm_server.completions == []

    with make_backend(llm_server, tmp_path) as b:  # fill the cache
        b.complete(req("never judged"))
    with make_backend(llm_server, tmp_path, offline=True) as b:
        assert b.complete(req("never judged")).cached
    assert len(llm_server.completions) == 1


# --- concurrency ---------------------------------------------------------------------------------


def test_requests_overlap_up_to_the_concurrency_and_results_keep_their_order(llm_server, tmp_path):
    llm_server.latency = 0.3
    llm_server.default = lambda body: {"justification": body["messages"][-1]["content"], "label": "no_error"}
    with make_backend(llm_server, tmp_path, concurrency=16) as b:
        out = b.complete_many([req(f"question {i}") for i in range(16)])
    assert [a.data["justification"] for a in out] == [f"question {i}" for i in range(16)]
    assert llm_server.max_active >= 8  # overlapping requests, not one after the other
    assert len(llm_server.completions) == 16


def test_concurrency_is_bounded(llm_server, tmp_path):
    llm_server.latency = 0.05
    with make_backend(llm_server, tmp_path, concurrency=2) as b:
        b.complete_many([req(f"q{i}") for i in range(6)])
    assert llm_server.max_active == 2


def test_identical_questions_in_one_batch_are_asked_once(llm_server, tmp_path):
    with make_backend(llm_server, tmp_path, concurrency=4) as b:
        out = b.complete_many([req("same"), req("other"), req("same")])
        assert [a.cached for a in out] == [False, False, True]
        assert out[0].data == out[2].data
        assert (b.account.calls, b.account.cached) == (2, 1)
    assert len(llm_server.completions) == 2


# --- settings ------------------------------------------------------------------------------------


def test_empty_environment_variables_count_as_unset():
    env = {"OPENAI_MODEL": "", "OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""}
    with pytest.raises(UsageError, match="no judge model"):
        settings_from_env(env)
    with pytest.raises(UsageError, match="no API key") as info:
        settings_from_env(env, model="gpt-4.1-mini")
    assert "OPENAI_API_KEY" in info.value.fix
    s = settings_from_env({**env, "OPENAI_API_KEY": "sk-1"}, model="gpt-4.1-mini")
    assert s.judge_base_url is None and s.endpoint == "openai" and s.api_key == "sk-1"


def test_environment_fills_what_options_leave_out_and_options_win():
    env = {"OPENAI_MODEL": "env-model", "OPENAI_BASE_URL": "https://llm.example.org/v1",
           "OPENAI_API_KEY": "sk-env"}
    s = settings_from_env(env)
    assert (s.model, s.judge_base_url, s.api_key, s.endpoint) == ("env-model", "https://llm.example.org/v1", "sk-env", "custom")
    s = settings_from_env(env, model="cli-model", judge_base_url=None, api_key="", concurrency=3)
    assert (s.model, s.judge_base_url, s.api_key, s.concurrency) == ("cli-model", "https://llm.example.org/v1", "sk-env", 3)


def test_local_server_needs_no_key_and_costs_nothing():
    s = settings_from_env({}, model="qwen", judge_base_url="http://localhost:8080/v1")
    assert s.api_key == PLACEHOLDER_KEY and s.endpoint == "local" and s.price() == (0.0, 0.0, 0.0)
    assert "sk-" not in repr(s)  # keys stay out of logs


def test_offline_needs_no_key():
    s = settings_from_env({}, model="gpt-4.1-mini", offline=True)
    assert s.offline and s.api_key is None


def test_max_cost_needs_a_known_price():
    with pytest.raises(UsageError, match="--max-cost") as info:
        settings_from_env({"OPENAI_API_KEY": "k"}, model="mystery-model", max_cost=1.0)
    assert "--price mystery-model=" in info.value.fix
    s = settings_from_env({"OPENAI_API_KEY": "k"}, model="mystery-model", max_cost=1.0,
                          prices={"mystery-model": (1, 2)})
    assert s.price() == (1.0, 2.0, None) and s.prices["gpt-4.1-mini"] == DEFAULT_PRICES["gpt-4.1-mini"]


def test_bad_numbers_are_usage_errors():
    for bad in ({"concurrency": 0}, {"max_calls": -1}, {"judge_timeout": 0}):
        with pytest.raises(UsageError):
            settings_from_env({}, model="m", judge_base_url="http://127.0.0.1:1/v1", **bad)


@pytest.mark.parametrize("url,kind", [
    (None, "openai"), ("https://api.openai.com/v1", "openai"), ("http://localhost:11434/v1", "local"),
    ("http://127.0.0.1:8080/v1", "local"), ("http://[::1]:8000/v1", "local"),
    ("http://192.168.1.20:8000/v1", "local"), ("http://gpu-box.local:8000/v1", "local"),
    ("https://openrouter.ai/api/v1", "custom"), ("https://my-proxy.example.com/v1", "custom"),
])
def test_endpoint_kind(url, kind):
    assert endpoint_kind(url) == kind


def test_prices_match_dated_and_prefixed_model_names():
    assert price_for("gpt-4.1-mini-2025-04-14", DEFAULT_PRICES) == (0.4, 1.6, 0.1)
    assert price_for("openai/gpt-4.1", DEFAULT_PRICES) == (2.0, 8.0, 0.5)
    assert price_for("llama-3", DEFAULT_PRICES) is None
    assert parse_price("my-model=0.5,2") == ("my-model", (0.5, 2.0, None))
    assert parse_price("my-model=0.5,2,0.125") == ("my-model", (0.5, 2.0, 0.125))
    for bad in ("my-model=cheap", "my-model=1,2,3,4", "my-model=1,2,-1", "=1,2"):
        with pytest.raises(UsageError, match="cannot read price"):
            parse_price(bad)


def test_ctrl_c_keeps_answers_already_received_and_sends_no_more(llm_server, tmp_path):
    import os
    import signal
    import time

    def reply(body):
        if body["messages"][-1]["content"] == "q2":
            os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C while q2 is in flight
            time.sleep(0.1)
        return {"justification": "ok", "label": "no_error"}

    llm_server.default = reply
    b = make_backend(llm_server, tmp_path)
    with pytest.raises(KeyboardInterrupt):
        b.complete_many([req(f"q{i}") for i in range(6)])
    b.close()  # waits for q2's answer to be stored
    with VerdictCache(tmp_path / "cache.sqlite") as cache:
        stored = sorted(e.messages[-1][1] for e in cache.entries())
    assert stored == ["q0", "q1", "q2"]
    assert [r.body["messages"][-1]["content"] for r in llm_server.completions] == ["q0", "q1", "q2"]


def test_parameters_a_reasoning_model_refuses_are_adapted_once(llm_server, tmp_path):
    llm_server.reject_params = ("temperature", "max_tokens")
    with make_backend(llm_server, tmp_path) as b:
        out = b.complete_many([req("a"), req("b")])
        acc = b.account.as_dict()
    assert all(isinstance(o, Answer) for o in out)
    assert sorted(acc["adapted"]) == ["max_completion_tokens", "no_temperature"]
    assert (acc["retries"], acc["failed"], acc["calls"]) == (0, 0, 2)
    log = llm_server.completions
    assert [r.status for r in log] == [400, 400, 200, 200]
    assert "temperature" not in log[-1].body and log[-1].body["max_completion_tokens"] == 4096


# --- the retry policy: backoff, Retry-After, a time budget ------------------------------------------


def test_retry_after_is_honoured_even_past_the_backoff_cap(llm_server, tmp_path):
    import time

    llm_server.retry_after = "0.4"
    llm_server.fail_next("429")
    with make_backend(llm_server, tmp_path, backoff_max=0.01) as b:
        t0 = time.monotonic()
        a = b.complete(req("slow down"))
        waited = time.monotonic() - t0
        assert a.data["label"] == "no_error" and b.account.retries == 1
    assert waited >= 0.4


def test_the_time_budget_ends_retries_and_names_the_fix(llm_server, tmp_path):
    llm_server.retry_after = "5"  # longer than the budget: give up at once rather than sleep past it
    llm_server.fail_next("429")
    with make_backend(llm_server, tmp_path, retry_budget=1.0, max_retries=8) as b:
        with pytest.raises(JudgeError) as info:
            b.complete(req("too slow"))
        acc = b.account.as_dict()
    assert "after 1 attempt (0 retries" in str(info.value) and "re-running asks only what is missing" in info.value.fix
    assert (acc["failed"], acc["incomplete"], len(llm_server.completions)) == (1, True, 1)


def test_retry_policy_backs_off_with_jitter_within_the_budget():
    import random

    from termqa.judge.retry import RetryPolicy, retry_after

    p = RetryPolicy(max_retries=4, budget=10.0, base=1.0, cap=3.0)
    rng = random.Random(1)
    waits = [p.delay(n, 0.0, None, rng) for n in (1, 2, 3, 4)]
    assert 0.5 <= waits[0] <= 1.0 and 1.0 <= waits[1] <= 2.0 and 1.5 <= waits[2] <= 3.0 and waits[3] <= 3.0
    assert p.delay(5, 0.0, None, rng) is None  # attempts exhausted
    assert p.delay(1, 9.8, None, rng) is None  # the wait would overrun the budget
    assert p.delay(1, 0.0, 7.0, rng) == 7.0  # Retry-After is a floor, not capped
    assert retry_after({"retry-after": "2"}) == 2.0 and retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert retry_after({"retry-after": "soon"}) is None and retry_after(None) is None


def test_random_faults_lose_no_question_and_repeat_no_paid_answer(llm_server, tmp_path):
    llm_server.hang = 2.5
    llm_server.random_faults(0.3, seed=11, kinds=("429", "500", "503", "malformed", "not_json", "empty", "timeout"))
    llm_server.default = lambda body: {"justification": body["messages"][-1]["content"], "label": "no_error"}
    with make_backend(llm_server, tmp_path, concurrency=4, judge_timeout=1.5, max_retries=12) as b:
        out = b.complete_many([req(f"q{i}") for i in range(30)])
    assert [o.data["justification"] for o in out] == [f"q{i}" for i in range(30)]
    assert sum(r.fault is not None for r in llm_server.completions) >= 5
    paid = [r.body["messages"][-1]["content"] for r in llm_server.answered]
    assert sorted(paid) == sorted(f"q{i}" for i in range(30))  # each answer paid for once


def test_cached_tokens_are_what_the_server_reported_from_1024_in_steps_of_128(llm_server, tmp_path):
    """The test server's prompt cache (tests/llm_server.py) follows OpenAI's rule; the backend keeps
    its report and prices the cached part at the cached-input price."""
    from tests.llm_server import count_tokens

    llm_server.prompt_caching = True
    long, short = "word " * 1500, "word " * 900
    assert len(count_tokens(long)) == 1500
    prices = {"judge-test": (1000, 2000, 100)}
    with make_backend(llm_server, tmp_path, concurrency=1, prices=prices) as b:
        for text in (long + "first", long + "second", short + "third", short + "fourth"):
            b.complete(req(text))
        acc = b.account.as_dict()
    cached = [u["prompt_tokens_details"]["cached_tokens"] for u in llm_server.reported]
    # the second shares system message and 1,500 words with the first: 1,507 tokens, 1,408 in steps of
    # 128; the last two share ~900 tokens only, under the 1,024 a prefix needs to be cached
    assert cached == [0, 1408, 0, 0]
    tin = sum(u["prompt_tokens"] for u in llm_server.reported)
    tout = sum(u["completion_tokens"] for u in llm_server.reported)
    assert (acc["tokens_in"], acc["tokens_in_cached"], acc["tokens_out"]) == (tin, 1408, tout)
    assert acc["estimated_cost_usd"] == pytest.approx(((tin - 1408) * 1000 + 1408 * 100 + tout * 2000) / 1e6)


def test_read_usage_and_estimate_cost():
    from termqa.judge.costs import Price, estimate_cost, read_usage

    assert read_usage({"prompt_tokens": 2000, "completion_tokens": 30,
                       "prompt_tokens_details": {"cached_tokens": 1536}}) == (2000, 1536, 30)
    assert read_usage({"prompt_tokens": 10, "completion_tokens": 3, "prompt_tokens_details": None}) == (10, 0, 3)
    assert read_usage(None) == (0, 0, 0)
    # without a cached-input price cached tokens cost what input costs
    assert estimate_cost(2000, 1536, 30, Price(2.0, 8.0)) == pytest.approx((2000 * 2.0 + 30 * 8.0) / 1e6)
    assert estimate_cost(2000, 1536, 30, Price(2.0, 8.0, 0.5)) == pytest.approx(
        (464 * 2.0 + 1536 * 0.5 + 30 * 8.0) / 1e6)
