"""The one door to an LLM: OpenAI-compatible chat completions with cache, retries and a budget.

Only this module imports `openai`, and only when a call has to be made: a run served entirely
from the cache (or `--offline`) never loads it. Any server that speaks the OpenAI chat API works
(OpenAI, a proxy, vLLM, llama.cpp, Ollama...): `base_url` picks it.

What it guarantees to the judge built on top of it:
- answers are parsed JSON objects that fit the schema (required fields, labels of the prompt's
  registry, spans from the target), or a `JudgeError`: an unusable answer is asked again at most
  twice, then fails with its reason (termqa.judge.retry); it is never cached;
- every answer is written to the cache the moment it arrives (Ctrl-C loses nothing paid for);
- `--max-calls` / `--max-cost` stop new calls with `BudgetExceeded`; answers already given stay;
- the `Accounting` (termqa.judge.accounting) says what the run cost.

Its settings are termqa.judge.settings; `settings_from_env` is imported here too, where docs/library.md shows it.
"""
from __future__ import annotations

import json
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Optional, Union

from termqa.errors import BudgetExceeded, JudgeError, OfflineCacheMiss, UnusableAnswer, UsageError
from termqa.judge.accounting import Accounting
from termqa.judge.answers import (  # noqa: F401  (parse_json_answer: public, tests import it from here)
    BAD_LABEL, EMPTY, REFUSAL, SCHEMA_BREAKING, Expect, Quotes, parse_json_answer, parse_json_object, problem,
)
from termqa.judge.batch import BatchPending, collect, request_line, submit, write_file
from termqa.judge.cache import ANSWERED, MINE, VerdictCache, cache_key
from termqa.judge.costs import read_usage
from termqa.judge.retry import RecentAnswers, RetryPolicy, retry_after
from termqa.judge.settings import OPENAI_URL, PLACEHOLDER_KEY, JudgeSettings, endpoint_kind
from termqa.judge.settings import settings_from_env  # noqa: F401  (public: docs/library.md imports it from here)

JSON_SCHEMA = "json_schema"
JSON_OBJECT = "json_object"  # with the schema alongside: llama.cpp's server constrains output with it
JSON_PLAIN = "json_object_plain"  # for servers that refuse even that extra key


# --- requests and answers -----------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One judge question, ready to send. `json_schema` is {"name", "schema", "strict"?}."""

    prompt_id: str
    prompt_version: str
    messages: tuple[tuple[str, str], ...]  # (role, content)
    json_schema: Optional[Mapping[str, Any]] = None
    temperature: Optional[float] = None  # None: the settings' temperature
    # What an array answer must cover beyond the schema's top-level keys (one item per occurrence
    # asked about, see termqa.judge.answers); an answer that misses one is retried like one that is
    # not JSON. Derived from the messages, so not part of the cache key.
    expect: Optional[Expect] = None
    # Where the answer's quoted spans must come from (the alignment's target segment): a span that
    # is not there makes the answer unusable. Derived from the messages too.
    quotes: Optional[Quotes] = None

    def message_dicts(self) -> list[dict[str, str]]:
        return [{"role": r, "content": c} for r, c in self.messages]


@dataclass(frozen=True)
class Answer:
    """A parsed answer. `data` is the JSON object; `raw` the text the model wrote."""

    data: Any
    raw: str
    model: str
    prompt_id: str
    prompt_version: str
    key: str
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False
    json_mode: Optional[str] = None
    served_model: Optional[str] = None


# --- the backend --------------------------------------------------------------------------------


def open_client(base_url: Optional[str], api_key: Optional[str], what: str = "the judge", **options: Any):
    """An `openai.OpenAI` client for `base_url` (None: OpenAI's); `options` go to the client. The one
    place openai is imported, and only now: runs served from the cache never load it."""
    import openai

    key = api_key or (PLACEHOLDER_KEY if endpoint_kind(base_url) == "local" else None)
    if not key:
        raise UsageError(f"no API key for {what} at {base_url or OPENAI_URL}",
                         fix="set OPENAI_API_KEY (a local server at localhost needs none)")
    # Always pass the URL: the client would read an empty OPENAI_BASE_URL as a URL.
    return openai.OpenAI(api_key=key, base_url=base_url or OPENAI_URL, **options)


class _Retry(Exception):
    """One attempt failed in a way worth trying again: a passing fault (`unusable` None), or an
    answer that arrived unusable (`unusable` is its reason class, termqa.judge.answers)."""

    def __init__(self, reason: str, wait_hint: Optional[float] = None, unusable: Optional[str] = None,
                 raw: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.wait_hint = wait_hint
        self.unusable = unusable
        self.raw = raw  # what the server sent, for the line that stops the run


def server_message(exc: Exception) -> str:
    """The server's own words in an error response (its `error.message`), else the exception's text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        message = inner.get("message") or inner.get("detail")
        if message:
            return str(message)
    return getattr(exc, "message", None) or str(exc)


def _error_text(exc: Exception) -> str:
    text = str(exc).lower()
    body = getattr(exc, "body", None)
    if body is not None:
        text += " " + json.dumps(body, default=str).lower()
    return text


def _schema_rejected(exc: Exception) -> bool:
    """Does this 400/422 (or llama.cpp's 500) say the server cannot do `response_format: json_schema`?"""
    text = _error_text(exc)
    return any(w in text for w in ("response_format", "json_schema", "response format",
                                   "structured output", "schema"))


class _InFlight:
    """A question on the wire: the threads that ask it too wait for its answer."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Union["Answer", JudgeError, None] = None


class Backend:
    """Sends `Request`s to an OpenAI-compatible server through the cache, with retries and budget.

    `complete()` raises `JudgeError`s; `complete_many()` runs up to `settings.concurrency` questions
    at once and returns, in order, an `Answer` or the `JudgeError` for each question, so one bad
    question (or the budget running out) never loses the others' answers.
    """

    def __init__(self, settings: JudgeSettings, *, cache: Optional[VerdictCache] = None,
                 seed: Optional[int] = None):
        self.settings = settings
        self.cache = cache if cache is not None else VerdictCache(settings.cache)
        self.account = Accounting(settings)
        self._lock = threading.Lock()
        self._client = None
        self._mode = JSON_SCHEMA
        self._stop = threading.Event()
        self._wake = threading.Event()  # ends retry waits early: set on stop() and on a fatal error
        self._fatal: Optional[JudgeError] = None
        self._rng = random.Random(seed)
        self._abandoned: list[ThreadPoolExecutor] = []
        self._send_temperature = True
        self._recent = RecentAnswers()
        # this run's name in the cache's claims (termqa.judge.cache): the process and a random part
        self._owner = f"{os.getpid()}-{random.Random().getrandbits(48):012x}"
        self._format_tried = False  # a 400/422 naming nothing: the next response format was tried once
        self.phase = ""  # the stage asking now, for progress lines (termqa.judge.progress)
        self._max_tokens_param = "max_tokens"
        # every question in flight holds a slot, whichever thread asked it (documents are judged side by
        # side); a question already in flight is waited for, never sent twice
        self._slots = threading.BoundedSemaphore(max(1, settings.concurrency))
        self._inflight: dict[str, "_InFlight"] = {}
        self._batch_queue: dict[str, Request] = {}  # key -> question, in the order queued
        self._batch_blocked = False  # an earlier stage waits for a batch: later ones wait too
        self._batch_polled = False

    # -- public ---------------------------------------------------------------------------------

    @property
    def json_mode(self) -> str:
        """"json_schema" until the server rejected it once, then "json_object" for the run."""
        return self._mode

    def key_for(self, request: Request) -> str:
        return cache_key(self.settings.model, request.prompt_version, request.message_dicts(),
                         request.json_schema)

    def signature(self) -> dict[str, str]:
        return {"judge_model": self.settings.model, "endpoint": self.settings.endpoint}

    def complete(self, request: Request) -> Answer:
        if self.settings.batch:
            out = self._batch_many([request])[0]
            if isinstance(out, JudgeError):
                raise out
            return out
        key = self.key_for(request)
        hit = self._from_cache(key, request)
        if hit is not None:
            return hit
        out = self._fetch_or_error(request, key)
        if isinstance(out, JudgeError):
            raise out
        return out

    def complete_many(self, requests: Iterable[Request]) -> list[Union[Answer, JudgeError]]:
        requests = list(requests)
        if self.settings.batch:
            return self._batch_many(requests)
        results: list[Union[Answer, JudgeError, None]] = [None] * len(requests)
        self.account.add(questions=len(requests))
        todo: dict[str, list[int]] = {}  # key -> positions; identical questions are asked once
        for i, req in enumerate(requests):
            key = self.key_for(req)
            if key in todo:
                todo[key].append(i)
                continue
            hit = self._from_cache(key, req)
            if hit is not None:
                results[i] = hit
            else:
                todo[key] = [i]
        if todo:
            pool = ThreadPoolExecutor(max_workers=min(self.settings.concurrency, len(todo)),
                                      thread_name_prefix="termqa-judge")
            futures = {pool.submit(self._fetch_or_error, requests[idx[0]], key): key
                       for key, idx in todo.items()}
            try:
                for fut in as_completed(futures):
                    key = futures[fut]
                    first, *rest = todo[key]
                    outcome = fut.result()
                    results[first] = outcome
                    for i in rest:
                        if isinstance(outcome, Answer):
                            results[i] = replace(outcome, cached=True)
                            self.account.add(cached=1)
                        else:
                            results[i] = outcome
                            if isinstance(outcome, (BudgetExceeded, OfflineCacheMiss)):
                                self.account.add(not_sent=1)
            except BaseException:
                # Ctrl-C (or a bug): stop retry loops and drop queued questions. Calls already on
                # the wire finish (bounded by the timeout) and land in the cache; close() waits.
                self._stop.set()
                self._abandoned.append(pool)
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown(wait=True)
        return results  # type: ignore[return-value]

    def close(self) -> None:
        """Stop, let in-flight answers reach the cache, send the batch, release the client and the cache."""
        self._stop.set()
        for pool in self._abandoned:
            pool.shutdown(wait=True)
        self._abandoned.clear()
        if self._batch_queue:
            self._flush_batch()
        if self._client is not None:
            self._client.close()
        self.cache.close()

    def __enter__(self) -> "Backend":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the batch engine (termqa.judge.batch) ---------------------------------------------------

    def _batch_many(self, requests: list[Request]) -> list[Union[Answer, JudgeError]]:
        """Cache hits are answered; every other question is queued for the batch, unless it already
        waits in one, or an earlier stage of the run waits for one (then its question may change)."""
        s, acc = self.settings, self.account
        if s.batch == "submit" and not self._batch_polled:
            self._batch_polled = True
            self._collect()
        results: list[Union[Answer, JudgeError]] = []
        waiting = False
        for req in requests:
            key = self.key_for(req)
            hit = self._from_cache(key, req)
            if hit is not None:
                results.append(hit)
                continue
            if key in self._batch_queue:
                waiting = True
                results.append(BatchPending(f"queued for the judge batch ({req.prompt_id})"))
                continue
            in_batch = self.cache.pending_batch(key) if s.batch == "submit" else None
            if in_batch is not None:
                waiting = True
                acc.add(batch_waiting=1)
                results.append(BatchPending(f"waiting in judge batch {in_batch}"))
                continue
            if self._batch_blocked:
                waiting = True
                acc.add(batch_deferred=1)
                results.append(BatchPending("waiting for the answers of an earlier batch"))
                continue
            try:
                self._reserve()
            except BudgetExceeded as exc:
                results.append(exc)
                continue
            self._batch_queue[key] = req
            waiting = True
            acc.add(batch_queued=1)
            results.append(BatchPending(f"queued for the judge batch ({req.prompt_id})"))
        if waiting:
            self._batch_blocked = True
        return results

    def _collect(self) -> None:
        """Ingest the batches earlier runs submitted that have ended."""
        if not self.cache.open_batches():
            return
        for st in collect(self.cache, self._openai()):
            if st.report is not None:
                self.account.add(batch_ingested=st.report.answered, batch_unusable=st.report.unusable,
                                 batch_tokens_in=st.report.tokens_in, batch_tokens_out=st.report.tokens_out,
                                 batch_tokens_in_cached=st.report.tokens_in_cached)

    def _flush_batch(self) -> None:
        """Write the queued questions as a Batch API JSONL: submitted, or to --judge-batch-file."""
        s, acc = self.settings, self.account
        queue, self._batch_queue = self._batch_queue, {}
        lines = [request_line(key, self._payload(req, JSON_SCHEMA)) for key, req in queue.items()]
        rows = [{"key": key, "model": s.model, "prompt_id": req.prompt_id, "prompt_version": req.prompt_version,
                 "messages": [[r, c] for r, c in req.messages], "schema": req.json_schema,
                 "expect": list(req.expect) if req.expect else None, "endpoint": s.endpoint}
                for key, req in queue.items()]
        try:
            self.cache.put_batch_requests(rows)
            if s.batch == "file":
                write_file(s.batch_file, lines)
                acc.batch_file = str(s.batch_file)
                return
            batch_id, file_id, status = submit(self._openai(), lines)
        except Exception as exc:  # the questions are not waiting anywhere: the next run asks them again
            acc.add(failed=len(queue), batch_queued=-len(queue))
            acc.fatal_error = f"could not {'write' if s.batch == 'file' else 'submit'} the judge batch: {exc}"
            return
        self.cache.add_batch(batch_id, list(queue), input_file_id=file_id, status=status, model=s.model,
                             endpoint=s.endpoint, base_url=s.judge_base_url)
        acc.batch_ids.append(batch_id)

    # -- steps ----------------------------------------------------------------------------------

    def _from_cache(self, key: str, request: Request, count_unusable: bool = True) -> Optional[Answer]:
        entry = self.cache.get(key)
        if entry is None:
            return None
        if problem(entry.answer, request.json_schema, request.expect, request.quotes) is not None:
            # written before answers were checked (an older termqa): ask again, never read it
            if count_unusable:
                self.account.add(cached_unusable=1)
            return None
        self.account.add(cached=1)
        return Answer(data=entry.answer, raw=entry.raw, model=entry.model,
                      prompt_id=request.prompt_id, prompt_version=request.prompt_version, key=key,
                      tokens_in=entry.tokens_in, tokens_out=entry.tokens_out, cached=True,
                      json_mode=entry.json_mode, served_model=entry.served_model)

    def stop(self) -> None:
        """Send no new question (Ctrl-C): retry loops end, queued questions are dropped."""
        self._stop.set()
        self._wake.set()

    def _fetch_or_error(self, request: Request, key: str) -> Union[Answer, JudgeError]:
        with self._lock:
            other = self._inflight.get(key)
            if other is None:
                mine = self._inflight[key] = _InFlight()
        if other is not None:  # the same question, asked by another document's thread: share its answer
            other.done.wait()
            if isinstance(other.result, Answer):
                self.account.add(cached=1)
                return replace(other.result, cached=True)
            return other.result
        result: Union[Answer, JudgeError]
        try:
            with self._slots:
                self.account.add(in_flight=1)
                try:
                    result = self._fetch(request, key)
                finally:
                    self.account.add(in_flight=-1)
        except JudgeError as exc:
            result = exc
        except BaseException as exc:
            mine.result = JudgeError(f"not asked: {type(exc).__name__}")
            raise
        finally:
            if mine.result is None:
                mine.result = result
            mine.done.set()
            with self._lock:
                self._inflight.pop(key, None)
        return result

    def _fetch(self, request: Request, key: str) -> Answer:
        """Ask the server (cache already missed), store the answer, account for it."""
        if self.settings.offline:
            self.account.add(not_sent=1)
            raise OfflineCacheMiss(
                f"--offline: no cached judgement for prompt {request.prompt_version} with model "
                f"{self.settings.model} in {self.cache.path}",
                fix="run once without --offline to fill the cache, or point --cache at the file that has these judgements",
            )
        if self._fatal is not None:
            err = self._fatal_copy()
            self.account.fail(err.reason_class or "error", str(err))
            raise err
        try:
            shared = self._claim(request, key)
        except JudgeError as exc:  # stopped, or the run failed, while another run held the question
            self.account.fail(exc.reason_class or "error", str(exc))
            raise
        if shared is not None:
            return shared
        try:
            self._reserve()
        except BudgetExceeded:
            self.cache.release(key, self._owner)
            raise
        try:
            answer = self._ask(request, key)
        except JudgeError as exc:
            self.cache.release(key, self._owner)
            self.account.fail(getattr(exc, "reason_class", None) or "error", str(exc))
            raise
        except BaseException:
            self.cache.release(key, self._owner)
            raise
        self.cache.put(key, model=self.settings.model, prompt_id=request.prompt_id,
                       prompt_version=request.prompt_version, messages=request.message_dicts(),
                       answer=answer.data, raw=answer.raw, tokens_in=answer.tokens_in,
                       tokens_out=answer.tokens_out, json_mode=answer.json_mode,
                       endpoint=self.settings.endpoint, served_model=answer.served_model)
        self.cache.release(key, self._owner)
        self.account.add(answered=1)
        return answer

    def _lease(self) -> float:
        """How long a claim lives without renewal: one attempt and the longest wait before the next."""
        s = self.settings
        return 2 * s.judge_timeout + s.backoff_max + 5.0

    def _claim(self, request: Request, key: str) -> Optional[Answer]:
        """Claim the question for this run; while another live run holds it, wait for its answer
        (returned as a cache hit). None: this run asks."""
        waited = False
        while True:
            state = self.cache.claim(key, self._owner, self._lease())
            if state == MINE:
                return None
            if state == ANSWERED:
                hit = self._from_cache(key, request, count_unusable=False)
                if hit is not None:
                    if waited:
                        self.account.add(shared_with_other_run=1)
                    return hit
                return None  # an unusable row of an older termqa: this run asks (the row is replaced)
            waited = True
            self._wake.wait(0.2)
            if self._stop.is_set():
                raise JudgeError("judging interrupted")
            if self._fatal is not None:
                raise self._fatal_copy()

    def _reserve(self) -> None:
        """Count one call against the budget, or refuse it. With several calls in flight the cost
        budget can be overrun by what those calls cost; the call budget is exact."""
        s = self.settings
        with self._lock:
            acc = self.account
            reason = None
            if s.max_calls is not None and acc.calls >= s.max_calls:
                reason = f"judge call budget reached ({s.max_calls} calls)"
            elif s.max_cost is not None and (acc.cost or 0.0) >= s.max_cost:
                reason = f"judge cost budget reached (${acc.cost:.4f} of ${s.max_cost:.4f})"
            if reason is not None:
                acc.budget_exhausted = True
                acc.not_sent += 1
                raise BudgetExceeded(reason, fix="raise --max-calls / --max-cost and re-run: cached judgements cost nothing")
            acc.calls += 1

    def _openai(self):
        with self._lock:
            if self._client is None:
                # Its own retries are off so that ours (with accounting) are the only ones.
                s = self.settings
                self._client = open_client(s.judge_base_url, s.api_key, timeout=s.judge_timeout, max_retries=0)
            return self._client

    def _payload(self, request: Request, mode: str) -> dict[str, Any]:
        s = self.settings
        messages = request.message_dicts()
        kwargs: dict[str, Any] = {"model": s.model}
        if self._send_temperature:
            kwargs["temperature"] = s.temperature if request.temperature is None else request.temperature
        if s.max_tokens:
            kwargs[self._max_tokens_param] = s.max_tokens
        schema = request.json_schema
        if schema is not None:
            if mode == JSON_SCHEMA:
                kwargs["response_format"] = {"type": "json_schema", "json_schema": dict(schema)}
            else:
                # The server only promises *some* JSON object: spell the schema out in the prompt.
                spelled = json.dumps(schema.get("schema", schema), ensure_ascii=False, indent=1)
                note = ("\n\nReply with one JSON object and nothing else. It must validate "
                        f"against this JSON Schema:\n{spelled}")
                last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"),
                                default=len(messages) - 1)
                messages[last_user] = {**messages[last_user],
                                       "content": messages[last_user]["content"] + note}
                kwargs["response_format"] = {"type": "json_object"}
                if mode == JSON_OBJECT:
                    kwargs["response_format"]["schema"] = dict(schema.get("schema", schema))
        kwargs["messages"] = messages
        return kwargs

    def _ask(self, request: Request, key: str) -> Answer:
        import openai

        client = self._openai()
        attempt = 0  # retries after passing faults
        reasked = 0  # retries after unusable answers
        started = time.monotonic()
        while True:
            if self._stop.is_set():
                raise JudgeError("judging interrupted")
            if self._fatal is not None:
                raise self._fatal_copy()
            mode = self._mode
            self.cache.claim(key, self._owner, self._lease())  # renew the lease: this run is alive
            try:
                return self._attempt(client, request, key, mode)
            except openai.APIStatusError as exc:
                retry = self._classify_status(exc, mode)
                if retry is None:
                    continue  # switched to json_object mode: not a retry
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                retry = _Retry(f"{type(exc).__name__}: {exc}")
            except (openai.APIResponseValidationError, ValueError) as exc:
                retry = _Retry(f"malformed response from the server ({exc})")
            except _Retry as exc:
                retry = exc
            except openai.OpenAIError as exc:
                raise JudgeError(f"judge request failed: {exc}") from exc
            if retry.unusable is not None:
                self.account.add_unusable(retry.unusable)
                stop = self._recent.add(retry.unusable, retry.raw or retry.reason)
                if stop is not None:
                    self._set_fatal(UnusableAnswer(stop, reason_class=retry.unusable, fix=_UNUSABLE_FIX))
                    raise self._fatal_copy()
                reasked += 1
                if reasked > self.settings.unusable_retries:
                    raise UnusableAnswer(
                        f"unusable judge answer for {request.prompt_id} ({retry.unusable}) after "
                        f"{_times(reasked, 'unusable answer')}: {retry.reason}", reason_class=retry.unusable,
                        fix=_UNUSABLE_FIX)
                self.account.add(retries=1)
                self._wake.wait(min(self.settings.unusable_pause, 2.0))
                continue  # the loop's top ends it when the run stopped meanwhile
            attempt += 1
            delay = self._delay(attempt, retry.wait_hint, time.monotonic() - started)
            if delay is None:
                err = JudgeError(
                    f"judge server unavailable: no answer for {request.prompt_id} after {_times(attempt, 'attempt')} "
                    f"({_times(attempt - 1, 'retry', 'retries')}, {time.monotonic() - started:.1f} s): {retry.reason}",
                    fix="check the judge server; re-running asks only what is missing",
                )
                err.reason_class = "outage"
                # the outage policy is spent: later questions would wait as long again, for nothing
                self._set_fatal(err)
                raise err
            self.account.add(retries=1)
            self._wake.wait(delay)  # cut short when the run stops or another question found the server down

    def _attempt(self, client, request: Request, key: str, mode: str) -> Answer:
        resp = client.chat.completions.create(**self._payload(request, mode))
        tin, cached, tout = read_usage(getattr(resp, "usage", None))
        self.account.add(tokens_in=tin, tokens_in_cached=cached, tokens_out=tout)  # paid for even if unusable
        choices = getattr(resp, "choices", None) or []
        message = choices[0].message if choices else None
        text = (message.content or "") if message is not None else ""
        refusal = getattr(message, "refusal", None) if message is not None else None
        if refusal or (choices and getattr(choices[0], "finish_reason", None) == "content_filter"):
            raise _Retry(f"the model refused: {(refusal or text)[:120]!r}", unusable=REFUSAL, raw=refusal or text)
        if not text.strip():
            raise _Retry("the answer is empty", unusable=EMPTY, raw="(nothing)")
        if request.json_schema is None:
            data: Any = text
        else:
            data = parse_json_object(text)
            found = problem(data, request.json_schema, request.expect, request.quotes)
            if found is not None:
                raise _Retry(f"{found[1]}: {text[:120]!r}", unusable=found[0], raw=text)
        self._recent.add(None)
        return Answer(data=data, raw=text, model=self.settings.model, prompt_id=request.prompt_id,
                      prompt_version=request.prompt_version, key=key, tokens_in=tin,
                      tokens_out=tout, cached=False, json_mode=mode if request.json_schema else None,
                      served_model=getattr(resp, "model", None))

    def _classify_status(self, exc, mode: str) -> Optional[_Retry]:
        """None: retry at once in json_object mode. _Retry: wait and retry. Raises otherwise."""
        status = exc.status_code
        if status in (400, 422):
            # Reasoning models refuse temperature / max_tokens: adapt once for the whole run.
            text = _error_text(exc)
            if "max_tokens" in text and self._max_tokens_param == "max_tokens":
                with self._lock:
                    self._max_tokens_param = "max_completion_tokens"
                    self.account.adapted.append("max_completion_tokens")
                return None
            if "temperature" in text and self._send_temperature:
                with self._lock:
                    self._send_temperature = False
                    self.account.adapted.append("no_temperature")
                return None
        # llama.cpp's Python server answers an unknown response_format with a 500 that names it
        # ("Input should be 'text' or 'json_object'"): a refusal of the mode, not a passing fault
        if (status in (400, 422) or (status == 500 and "json_object" in _error_text(exc))) \
                and mode in (JSON_SCHEMA, JSON_OBJECT) and _schema_rejected(exc):
            with self._lock:
                self._mode = JSON_OBJECT if mode == JSON_SCHEMA else JSON_PLAIN
                self.account.json_mode_fallback = True
            return None
        if status in (400, 422) and mode != JSON_PLAIN and not self._format_tried:
            # a refusal that names nothing: it may still be the response format (servers word it
            # every way); the next format is tried once for the run before giving up
            with self._lock:
                if not self._format_tried:
                    self._format_tried = True
                    self._mode = JSON_OBJECT if mode == JSON_SCHEMA else JSON_PLAIN
                    self.account.json_mode_fallback = True
            return None
        code = getattr(exc, "code", None)
        if status == 429 and code != "insufficient_quota":
            return _Retry(f"rate limited (429): {server_message(exc)}", _retry_after(exc))
        if status in (408, 409) or status >= 500:
            return _Retry(f"server error ({status}): {server_message(exc)}", _retry_after(exc))
        fix = None
        if status in (401, 403):
            fix = "check OPENAI_API_KEY and that it may use this model"
        elif status == 404:
            fix = "check --judge-model and --judge-base-url (the URL usually ends in /v1)"
        elif status == 429:
            fix = "the account has no quota left"
        err = JudgeError(f"judge server refused the request ({status}): {server_message(exc)}", fix=fix)
        err.reason_class = "refused"
        if fix is not None:
            # Every later question would fail the same way: fail them without calling.
            self._set_fatal(err)
        raise err

    def _set_fatal(self, err: JudgeError) -> None:
        with self._lock:
            if self._fatal is None:
                self._fatal = err
                self.account.fatal_error = str(err)
        self._wake.set()

    def _fatal_copy(self) -> JudgeError:
        """The run's fatal error, raised again for another question (a fresh exception each time)."""
        f = self._fatal
        assert f is not None
        err = (UnusableAnswer(f.message, reason_class=f.reason_class, fix=f.fix) if isinstance(f, UnusableAnswer)
               else JudgeError(f.message, fix=f.fix))
        err.reason_class = f.reason_class
        return err

    def _delay(self, attempt: int, hint: Optional[float], elapsed: float = 0.0) -> Optional[float]:
        """The wait before retry `attempt`, None when the question must give up (termqa.judge.retry)."""
        s = self.settings
        policy = RetryPolicy(max_retries=s.max_retries, budget=s.retry_budget, base=s.backoff_base,
                             cap=s.backoff_max)
        with self._lock:  # one generator shared by the workers
            return policy.delay(attempt, elapsed, hint, self._rng)


_UNUSABLE_FIX = ("the model does not answer in the JSON asked for: use a model that follows JSON "
                 "instructions, or a server with JSON-schema output (docs/judge.md: a judge on your own machine); "
                 "re-running asks only what is missing")


def _times(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _retry_after(exc) -> Optional[float]:
    return retry_after(getattr(getattr(exc, "response", None), "headers", None))
