"""The one door to an LLM: OpenAI-compatible chat completions with cache, retries and a budget.

Only this module imports `openai`, and only when a call has to be made: a run served entirely
from the cache (or `--offline`) never loads it. Any server that speaks the OpenAI chat API works
(OpenAI, a proxy, vLLM, llama.cpp, Ollama...): `base_url` picks it.

What it guarantees to the judge built on top of it:
- answers are parsed JSON objects with the keys the schema requires, or a `JudgeError`;
- every answer is written to the cache the moment it arrives (Ctrl-C loses nothing paid for);
- `--max-calls` / `--max-cost` stop new calls with `BudgetExceeded`; answers already given stay;
- the `Accounting` says what the run cost.
"""
from __future__ import annotations

import ipaddress
import json
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Optional, Sequence, Union
from urllib.parse import urlparse

from termqa.config import (
    DEFAULT_CONCURRENCY, DEFAULT_JUDGE_TIMEOUT, ENV_API_KEY, ENV_BASE_URL, ENV_MODEL, Settings, env_value,
)
from termqa.errors import BudgetExceeded, ConfigError, JudgeError, OfflineCacheMiss, UsageError
from termqa.judge.answers import Expect, answers_every, parse_json_answer
from termqa.judge.batch import BATCH_DISCOUNT, BatchPending, collect, request_line, submit, write_file
from termqa.judge.cache import VerdictCache, cache_key
from termqa.judge.costs import Price, as_price, estimate_cost, read_usage
from termqa.judge.retry import RetryPolicy, retry_after

OPENAI_URL = "https://api.openai.com/v1"
# A local server (llama.cpp, vLLM, Ollama) ignores the key, but the client insists on one.
PLACEHOLDER_KEY = "sk-local-no-key-needed"

# USD per 1M tokens (input, output, cached input), list prices of the OpenAI models most likely to
# be used as judges; cached input is what OpenAI bills for prompt tokens served from its prompt
# cache (a repeated prefix of 1,024 tokens or more). Used only for the estimate and --max-cost; the
# user's own table is merged over this one.
DEFAULT_PRICES = MappingProxyType({
    "gpt-4.1": Price(2.00, 8.00, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-5": Price(1.25, 10.00, 0.125),
    "gpt-5-mini": Price(0.25, 2.00, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
})

JSON_SCHEMA = "json_schema"
JSON_OBJECT = "json_object"  # with the schema alongside: llama.cpp's server constrains output with it
JSON_PLAIN = "json_object_plain"  # for servers that refuse even that extra key

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"}


# --- settings -----------------------------------------------------------------------------------


def endpoint_kind(base_url: Optional[str]) -> str:
    """"openai" (no URL, or api.openai.com), "local" (loopback, private network, *.local), or
    "custom" (any other server). Goes into the run signature; a local server needs no key."""
    if not base_url:
        return "openai"
    host = (urlparse(base_url if "//" in base_url else "//" + base_url).hostname or "").lower()
    if host == "api.openai.com":
        return "openai"
    if host in _LOCAL_HOSTS or host.endswith(".local") or host.endswith(".localhost"):
        return "local"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return "custom"
    return "local" if (ip.is_loopback or ip.is_private or ip.is_link_local) else "custom"


def price_for(model: str, prices: Mapping[str, Sequence[Optional[float]]]) -> Optional[Price]:
    """The price (input, output, cached input) of `model`: exact name, else the longest listed name
    it starts with (dated snapshots such as gpt-4.1-mini-2025-04-14), also after a `provider/`
    prefix."""
    names = [model]
    if "/" in model:
        names.append(model.rsplit("/", 1)[1])
    for name in names:
        if name in prices:
            return as_price(prices[name])
    for name in names:
        best = max((k for k in prices if name.startswith(k)), key=len, default=None)
        if best is not None:
            return as_price(prices[best])
    return None


def parse_price(text: str) -> tuple[str, Price]:
    """`MODEL=IN,OUT[,CACHED_IN]` (USD per 1M input / output / cached input tokens) -> (model,
    Price); for --price."""
    model, sep, nums = text.partition("=")
    parts = re.split(r"[,/:]", nums)
    try:
        if not sep or not model.strip() or len(parts) not in (2, 3):
            raise ValueError
        price = check_price(parts)
    except ValueError:
        raise UsageError(f"cannot read price {text!r}",
                         fix="write MODEL=INPUT,OUTPUT[,CACHED_INPUT] in USD per million tokens, "
                             "e.g. gpt-4.1-mini=0.4,1.6,0.1") from None
    return model.strip(), price


def check_price(values: Sequence[Any]) -> Price:
    """A Price from 2 or 3 numbers, none negative; ValueError otherwise."""
    if isinstance(values, (str, bytes)) or len(values) not in (2, 3):
        raise ValueError("a price is [input, output] or [input, output, cached input]")
    price = as_price(values)
    if min(x for x in price if x is not None) < 0:
        raise ValueError("a price cannot be negative")
    return price


@dataclass(frozen=True)
class JudgeSettings:
    """How to reach the judge and how much it may cost. `prices` is USD per 1M tokens."""

    model: str
    base_url: Optional[str] = None
    api_key: Optional[str] = field(default=None, repr=False)
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_JUDGE_TIMEOUT  # seconds per request (--judge-timeout)
    max_retries: int = 8
    retry_budget: float = 120.0  # seconds per question, retries and waits included
    max_calls: Optional[int] = None
    max_cost: Optional[float] = None
    offline: bool = False
    cache_path: Optional[str] = None
    prices: Mapping[str, Price] = field(default_factory=lambda: DEFAULT_PRICES, hash=False, repr=False)
    temperature: float = 0.0
    # A bound on runaway output; generous because reasoning models count their thinking in it.
    max_tokens: Optional[int] = 4096
    # Retry waits: base * 2**(attempt-1), jittered, capped; tests shrink these.
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    # The batch engine (termqa.judge.batch): None (ask now), "submit" (--judge-batch: a Batch API
    # job) or "file" (--judge-batch-file: write `batch_file` only).
    batch: Optional[str] = None
    batch_file: Optional[str] = None

    @property
    def endpoint(self) -> str:
        return endpoint_kind(self.base_url)

    def price(self) -> Optional[Price]:
        """Known price of the model, 0 on a local server, None when unknown."""
        found = price_for(self.model, self.prices)
        if found is None and self.endpoint == "local":
            return Price(0.0, 0.0, 0.0)
        return found

    def check(self) -> None:
        """Raise UsageError for settings that cannot work (called by settings_from_env)."""
        if not self.model:
            raise UsageError("no judge model given",
                             fix="pass --judge-model NAME or set OPENAI_MODEL")
        if self.concurrency < 1:
            raise UsageError(f"--concurrency must be at least 1, not {self.concurrency}")
        if self.max_retries < 0:
            raise UsageError(f"max retries must be 0 or more, not {self.max_retries}")
        if self.timeout <= 0:
            raise UsageError(f"--judge-timeout must be positive, not {self.timeout}")
        if self.batch not in (None, "submit", "file"):
            raise UsageError(f"unknown batch mode {self.batch!r}")
        if self.batch == "file" and not self.batch_file:
            raise UsageError("--judge-batch-file needs a file name")
        if self.retry_budget < 0:
            raise UsageError(f"the judge retry budget must be 0 seconds or more, not {self.retry_budget}")
        if self.max_calls is not None and self.max_calls < 0:
            raise UsageError(f"--max-calls must be 0 or more, not {self.max_calls}")
        if self.max_cost is not None:
            if self.max_cost < 0:
                raise UsageError(f"--max-cost must be 0 or more, not {self.max_cost}")
            if self.price() is None:
                raise UsageError(f"--max-cost needs a price for model {self.model!r}, which termqa does not know",
                                 fix=f"add --price {self.model}=INPUT,OUTPUT[,CACHED_INPUT] (USD per million tokens)")
        if not self.offline and not self.api_key and self.endpoint != "local":
            raise UsageError(f"no API key for the judge at {self.base_url or OPENAI_URL}",
                             fix="set OPENAI_API_KEY (a local server at localhost needs none)")


def settings_from_env(environ: Optional[Mapping[str, str]] = None, **overrides: Any) -> JudgeSettings:
    """Settings from OPENAI_API_KEY / OPENAI_BASE_URL / OPENAI_MODEL, with explicit options winning.

    An empty variable counts as unset (CI systems often export empty secrets), and an option
    passed as None counts as not given, so the CLI can forward its options unchanged. `prices`
    given here are merged over DEFAULT_PRICES. A local base URL gets a placeholder key.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    unknown = set(given) - set(JudgeSettings.__dataclass_fields__)
    if unknown:
        raise TypeError(f"unknown judge settings: {', '.join(sorted(unknown))}")

    for opt, var in (("model", ENV_MODEL), ("base_url", ENV_BASE_URL), ("api_key", ENV_API_KEY)):
        if isinstance(given.get(opt), str) and not given[opt].strip():
            given.pop(opt)  # an empty option is as good as none
        if opt not in given and env_value(var, environ) is not None:
            given[opt] = env_value(var, environ)
    if "prices" in given:
        merged = dict(DEFAULT_PRICES)
        merged.update({k: as_price(v) for k, v in dict(given["prices"]).items()})
        given["prices"] = MappingProxyType(merged)
    if not given.get("api_key") and endpoint_kind(given.get("base_url")) == "local":
        given["api_key"] = PLACEHOLDER_KEY
    if "cache_path" in given:
        given["cache_path"] = str(given["cache_path"])
    settings = JudgeSettings(**{"model": "", **given})
    settings.check()
    return settings


def judge_settings(settings: Settings, environ: Optional[Mapping[str, str]] = None) -> Optional[JudgeSettings]:
    """The judge's settings of a run (`termqa.config.Settings`) when a judge model is configured (flag,
    config or OPENAI_MODEL), else None.

    This record names what it holds by what it is (model, base_url, timeout, cache_path); the run's
    options name it by the judge (judge_model, judge_base_url, judge_timeout, cache): this is the one
    place one becomes the other."""
    if not settings.judge_model:
        return None
    prices = {}
    for m, pair in settings.prices.items():  # config: [prices] model = [input, output] or [in, out, cached in]
        try:
            prices[m] = check_price(pair if isinstance(pair, (list, tuple)) else "")
        except (TypeError, ValueError):
            raise ConfigError(f"config: price of {m} must be [input, output] or [input, output, cached_input] "
                              "in USD per million tokens") from None
    for text in settings.price:
        m, pair = parse_price(text)
        prices[m] = pair
    batch, batch_file = None, None
    if settings.judge_batch_file:
        batch, batch_file = "file", str(settings.judge_batch_file)
    elif settings.judge_batch:
        batch = "submit"
    return settings_from_env(environ, model=settings.judge_model, base_url=settings.judge_base_url,
                             concurrency=settings.concurrency, max_calls=settings.max_calls,
                             max_cost=settings.max_cost, cache_path=settings.cache, offline=settings.offline or None,
                             timeout=settings.judge_timeout, batch=batch, batch_file=batch_file,
                             prices=prices or None)


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


class Accounting:
    """What the judge cost in this run. Thread-safe counters; `as_dict()` for the JSON report.

    `calls` counts questions sent to the server (one per question, however many retries it took),
    `cached` questions answered from the cache or shared with an identical question of the same
    batch, `failed` questions that ended without a usable answer, `retries` extra attempts,
    `not_sent` questions refused by the budget or by --offline. `tokens_in_cached` is the part of
    `tokens_in` the server says it served from its prompt cache (termqa.judge.costs).
    """

    def __init__(self, settings: JudgeSettings):
        self._lock = threading.Lock()
        self.model = settings.model
        self.endpoint = settings.endpoint
        self._price = settings.price()
        self.calls = 0
        self.cached = 0
        self.failed = 0
        self.retries = 0
        self.not_sent = 0
        self.tokens_in = 0
        self.tokens_in_cached = 0  # of tokens_in: prompt prefixes the provider had cached
        self.tokens_out = 0
        self.source_words = 0  # of the documents judged: the base of the per-1,000-words figures
        self.batch_mode = settings.batch
        self.batch_queued = 0  # questions written to this run's batch (or file)
        self.batch_waiting = 0  # questions waiting in a batch submitted by an earlier run
        self.batch_deferred = 0  # questions of later stages, waiting for the answers of a batch
        self.batch_ingested = 0  # answers this run took from finished batches
        self.batch_unusable = 0  # answers of finished batches that will be asked again
        self.batch_tokens_in = 0  # tokens of those answers (paid at the batch price)
        self.batch_tokens_in_cached = 0
        self.batch_tokens_out = 0
        self.batch_ids: list[str] = []  # batches this run submitted
        self.batch_file: Optional[str] = None  # the file this run wrote
        self.json_mode_fallback = False
        self.adapted: list[str] = []  # request parameters changed because the server refused them
        self.budget_exhausted = False
        self.fatal_error: Optional[str] = None

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)

    @property
    def cost(self) -> Optional[float]:
        """Estimated USD spent in this run (cache hits cost nothing; prompt tokens the provider had
        cached at the cached-input price); None if the price is unknown."""
        if self._price is None:
            return None
        now = estimate_cost(self.tokens_in, self.tokens_in_cached, self.tokens_out, self._price)
        batch = estimate_cost(self.batch_tokens_in, self.batch_tokens_in_cached, self.batch_tokens_out, self._price)
        return now + batch * BATCH_DISCOUNT

    @property
    def batch_open(self) -> int:
        """Questions the run could not answer because of batches: it is incomplete until they are."""
        return self.batch_queued + self.batch_waiting + self.batch_deferred

    def per_1000_words(self) -> Optional[dict[str, Any]]:
        """Calls, tokens and estimated cost per 1,000 source words: what judging a project costs."""
        if not self.source_words:
            return None
        k = 1000.0 / self.source_words
        cost = self.cost
        return {"calls": round(self.calls * k, 3), "tokens": round((self.tokens_in + self.tokens_out) * k, 1),
                "estimated_cost_usd": None if cost is None else round(cost * k, 6)}

    def batch_dict(self) -> dict[str, Any]:
        return {"mode": self.batch_mode, "queued": self.batch_queued, "waiting": self.batch_waiting,
                "deferred": self.batch_deferred, "ingested": self.batch_ingested, "unusable": self.batch_unusable,
                "tokens_in": self.batch_tokens_in, "tokens_in_cached": self.batch_tokens_in_cached,
                "tokens_out": self.batch_tokens_out,
                "submitted": list(self.batch_ids), "file": self.batch_file, "price_share": BATCH_DISCOUNT}

    def as_dict(self) -> dict[str, Any]:
        cost = self.cost
        return {
            "model": self.model,
            "endpoint": self.endpoint,
            "calls": self.calls,
            "cached": self.cached,
            "failed": self.failed,
            "retries": self.retries,
            "not_sent": self.not_sent,
            "tokens_in": self.tokens_in,
            "tokens_in_cached": self.tokens_in_cached,
            "tokens_out": self.tokens_out,
            "estimated_cost_usd": None if cost is None else round(cost, 6),
            "source_words": self.source_words,
            "per_1000_source_words": self.per_1000_words(),
            "price_per_million": None if self._price is None else list(self._price),
            "json_mode_fallback": self.json_mode_fallback,
            "adapted": list(self.adapted),
            "budget_exhausted": self.budget_exhausted,
            "fatal_error": self.fatal_error,
            # questions that failed after their retries, or wait for a batch: re-run to finish (exit code 3)
            "incomplete": self.failed > 0 or self.batch_open > 0,
            **({"batch": self.batch_dict()} if self.batch_mode else {}),
        }


# --- the backend --------------------------------------------------------------------------------


class _Retry(Exception):
    """One attempt failed in a way worth trying again."""

    def __init__(self, reason: str, wait_hint: Optional[float] = None):
        super().__init__(reason)
        self.reason = reason
        self.wait_hint = wait_hint


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
        self.cache = cache if cache is not None else VerdictCache(settings.cache_path)
        self.account = Accounting(settings)
        self._lock = threading.Lock()
        self._client = None
        self._mode = JSON_SCHEMA
        self._stop = threading.Event()
        self._fatal: Optional[JudgeError] = None
        self._rng = random.Random(seed)
        self._abandoned: list[ThreadPoolExecutor] = []
        self._send_temperature = True
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
                             endpoint=s.endpoint, base_url=s.base_url)
        acc.batch_ids.append(batch_id)

    # -- steps ----------------------------------------------------------------------------------

    def _from_cache(self, key: str, request: Request) -> Optional[Answer]:
        entry = self.cache.get(key)
        if entry is None:
            return None
        self.account.add(cached=1)
        return Answer(data=entry.answer, raw=entry.raw, model=entry.model,
                      prompt_id=request.prompt_id, prompt_version=request.prompt_version, key=key,
                      tokens_in=entry.tokens_in, tokens_out=entry.tokens_out, cached=True,
                      json_mode=entry.json_mode, served_model=entry.served_model)

    def stop(self) -> None:
        """Send no new question (Ctrl-C): retry loops end, queued questions are dropped."""
        self._stop.set()

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
                result = self._fetch(request, key)
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
            self.account.add(failed=1)
            raise JudgeError(self._fatal.message, fix=self._fatal.fix)
        self._reserve()
        try:
            answer = self._ask(request, key)
        except JudgeError:
            self.account.add(failed=1)
            raise
        self.cache.put(key, model=self.settings.model, prompt_id=request.prompt_id,
                       prompt_version=request.prompt_version, messages=request.message_dicts(),
                       answer=answer.data, raw=answer.raw, tokens_in=answer.tokens_in,
                       tokens_out=answer.tokens_out, json_mode=answer.json_mode,
                       endpoint=self.settings.endpoint, served_model=answer.served_model)
        return answer

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
                import openai  # lazy: runs served from the cache never load it

                s = self.settings
                key = s.api_key or (PLACEHOLDER_KEY if s.endpoint == "local" else None)
                if not key:
                    raise UsageError(f"no API key for the judge at {s.base_url or OPENAI_URL}",
                                     fix="set OPENAI_API_KEY (a local server at localhost needs none)")
                # Always pass the URL: the client would read an empty OPENAI_BASE_URL as a URL.
                # Its own retries are off so that ours (with accounting) are the only ones.
                self._client = openai.OpenAI(api_key=key, base_url=s.base_url or OPENAI_URL,
                                             timeout=s.timeout, max_retries=0)
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
        attempt = 0
        started = time.monotonic()
        while True:
            if self._stop.is_set():
                raise JudgeError("judging interrupted")
            mode = self._mode
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
            attempt += 1
            delay = self._delay(attempt, retry.wait_hint, time.monotonic() - started)
            if delay is None:
                raise JudgeError(
                    f"no usable judge answer for {request.prompt_id} after {attempt} attempts "
                    f"({time.monotonic() - started:.1f} s): {retry.reason}",
                    fix="check the judge server; re-running asks only what is missing",
                )
            self.account.add(retries=1)
            if self._stop.wait(delay):
                raise JudgeError("judging interrupted")

    def _attempt(self, client, request: Request, key: str, mode: str) -> Answer:
        resp = client.chat.completions.create(**self._payload(request, mode))
        tin, cached, tout = read_usage(getattr(resp, "usage", None))
        self.account.add(tokens_in=tin, tokens_in_cached=cached, tokens_out=tout)  # paid for even if unusable
        choices = getattr(resp, "choices", None) or []
        text = (choices[0].message.content or "") if choices else ""
        data = parse_json_answer(text, request.json_schema) if request.json_schema is not None else text
        if data is None or (request.json_schema is None and not text):
            raise _Retry(f"answer is not the JSON object asked for: {text[:120]!r}")
        if not answers_every(data, request.expect):
            raise _Retry(f"answer leaves out part of what was asked: {text[:120]!r}")
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
        code = getattr(exc, "code", None)
        if status == 429 and code != "insufficient_quota":
            return _Retry(f"rate limited (429): {exc}", _retry_after(exc))
        if status in (408, 409) or status >= 500:
            return _Retry(f"server error ({status}): {exc}", _retry_after(exc))
        fix = None
        if status in (401, 403):
            fix = "check OPENAI_API_KEY and that it may use this model"
        elif status == 404:
            fix = "check --judge-model and --judge-base-url (the URL usually ends in /v1)"
        elif status == 429:
            fix = "the account has no quota left"
        err = JudgeError(f"judge server refused the request ({status}): {exc}", fix=fix)
        if fix is not None:
            # Every later question would fail the same way: fail them without calling.
            with self._lock:
                self._fatal = err
                self.account.fatal_error = str(err)
        raise err

    def _delay(self, attempt: int, hint: Optional[float], elapsed: float = 0.0) -> Optional[float]:
        """The wait before retry `attempt`, None when the question must give up (termqa.judge.retry)."""
        s = self.settings
        policy = RetryPolicy(max_retries=s.max_retries, budget=s.retry_budget, base=s.backoff_base,
                             cap=s.backoff_max)
        with self._lock:  # one generator shared by the workers
            return policy.delay(attempt, elapsed, hint, self._rng)


def _retry_after(exc) -> Optional[float]:
    return retry_after(getattr(getattr(exc, "response", None), "headers", None))

