"""How to reach the judge and what it may cost: the judge's own settings record, `JudgeSettings`.

Separate from the client (termqa.judge.llm), which only reads this record: the settings of a run are
made and checked without the client's machinery. `judge_settings()` is the one place the run's typed
settings (termqa.config.Settings) become this record; `settings_from_env()` is the library's way to
make it from the environment and keyword arguments.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Mapping, Optional
from urllib.parse import urlparse

from termqa.config import ENV_API_KEY, ENV_BASE_URL, ENV_MODEL, Settings, env_value
from termqa.errors import ConfigError, UsageError
from termqa.judge.costs import DEFAULT_PRICES, Price, as_price, check_price, parse_price, price_for

OPENAI_URL = "https://api.openai.com/v1"
# A local server (llama.cpp, vLLM, Ollama) ignores the key, but the client insists on one.
PLACEHOLDER_KEY = "sk-local-no-key-needed"

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"}


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


@dataclass(frozen=True)
class JudgeSettings:
    """How to reach the judge and how much it may cost. `prices` is USD per 1M tokens."""

    model: str
    judge_base_url: Optional[str] = None
    api_key: Optional[str] = field(default=None, repr=False)
    # the run's defaults (termqa.config)
    concurrency: int = Settings.concurrency
    judge_timeout: float = Settings.judge_timeout  # seconds per request
    max_retries: int = 8
    retry_budget: float = 120.0  # seconds per question, retries and waits included
    max_calls: Optional[int] = None
    max_cost: Optional[float] = None
    offline: bool = False
    cache: Optional[str] = None  # the verdict cache file; None: termqa.judge.cache.default_cache_path()
    prices: Mapping[str, Price] = field(default_factory=lambda: DEFAULT_PRICES, hash=False, repr=False)
    temperature: float = 0.0
    # A bound on runaway output; generous because reasoning models count their thinking in it.
    max_tokens: Optional[int] = 4096
    # Retry waits: base * 2**(attempt-1), jittered, capped; tests shrink these.
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    # An unusable answer (not JSON, a refusal, outside the schema) is asked again this many times,
    # after this pause: the server is up, waiting longer changes nothing (termqa.judge.retry).
    unusable_retries: int = 2
    unusable_pause: float = 0.5
    # Seconds between the judge's progress lines while a stage waits for answers (termqa.judge.progress);
    # tests shrink it.
    progress_every: float = 10.0
    # The batch engine (termqa.judge.batch): None (ask now), "submit" (--judge-batch: a Batch API
    # job) or "file" (--judge-batch-file: write `batch_file` only).
    batch: Optional[str] = None
    batch_file: Optional[str] = None

    @property
    def endpoint(self) -> str:
        return endpoint_kind(self.judge_base_url)

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
        _within_bounds("concurrency", self.concurrency)
        if self.unusable_retries < 0 or self.unusable_pause < 0 or self.progress_every <= 0:
            raise UsageError("unusable_retries and unusable_pause must be 0 or more, progress_every positive")
        if self.max_retries < 0:
            raise UsageError(f"max retries must be 0 or more, not {self.max_retries}")
        _within_bounds("judge_timeout", self.judge_timeout)
        if self.batch not in (None, "submit", "file"):
            raise UsageError(f"unknown batch mode {self.batch!r}")
        if self.batch == "file" and not self.batch_file:
            raise UsageError("--judge-batch-file needs a file name")
        if self.retry_budget < 0:
            raise UsageError(f"the judge retry budget must be 0 seconds or more, not {self.retry_budget}")
        _within_bounds("max_calls", self.max_calls)
        if self.max_cost is not None:
            _within_bounds("max_cost", self.max_cost)
            if self.price() is None:
                raise UsageError(f"--max-cost needs a price for model {self.model!r}, which termqa does not know",
                                 fix=f"add --price {self.model}=INPUT,OUTPUT[,CACHED_INPUT] (USD per million tokens)")
        if not self.offline and not self.api_key and self.endpoint != "local":
            raise UsageError(f"no API key for the judge at {self.judge_base_url or OPENAI_URL}",
                             fix="set OPENAI_API_KEY (a local server at localhost needs none)")


_RUN_FIELDS = {f.name: f for f in fields(Settings)}


def _within_bounds(name: str, value) -> None:
    """Refuse a value of the run's setting `name` outside the bounds its field declares (termqa.config)."""
    bounds = _RUN_FIELDS[name].metadata["bounds"]
    if value is not None and not bounds.holds(value):
        raise UsageError(f"{_RUN_FIELDS[name].metadata['option'].flags[0]} must be {bounds.words()}, not {value}")


def settings_from_env(environ: Optional[Mapping[str, str]] = None, **overrides: Any) -> JudgeSettings:
    """Settings from the OPENAI_API_KEY / OPENAI_BASE_URL / OPENAI_MODEL of `environ` (the caller's
    environment, e.g. `os.environ`: the library never reads it itself; None: none), with explicit options
    winning.

    An empty variable counts as unset (CI systems often export empty secrets), and an option
    passed as None counts as not given, so the CLI can forward its options unchanged. `prices`
    given here are merged over DEFAULT_PRICES. A local base URL gets a placeholder key.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    unknown = set(given) - set(JudgeSettings.__dataclass_fields__)
    if unknown:
        raise TypeError(f"unknown judge settings: {', '.join(sorted(unknown))}")

    for opt, var in (("model", ENV_MODEL), ("judge_base_url", ENV_BASE_URL), ("api_key", ENV_API_KEY)):
        _drop_blank(given, opt)
        if opt not in given and env_value(var, environ or {}) is not None:
            given[opt] = env_value(var, environ or {})
    return _judge(given)


def _drop_blank(given: dict, opt: str) -> None:
    if isinstance(given.get(opt), str) and not given[opt].strip():
        given.pop(opt)  # an empty option is as good as none


def _judge(given: dict) -> JudgeSettings:
    """The record of `given` (options by JudgeSettings' names), completed and checked."""
    if "prices" in given:
        merged = dict(DEFAULT_PRICES)
        merged.update({k: as_price(v) for k, v in dict(given["prices"]).items()})
        given["prices"] = MappingProxyType(merged)
    if not given.get("api_key") and endpoint_kind(given.get("judge_base_url")) == "local":
        given["api_key"] = PLACEHOLDER_KEY
    if "cache" in given:
        given["cache"] = str(given["cache"])
    settings = JudgeSettings(**{"model": "", **given})
    settings.check()
    return settings


def judge_settings(settings: Settings) -> Optional[JudgeSettings]:
    """The judge's settings of a run (`termqa.config.Settings`, which holds what the CLI read from the
    environment) when a judge model is configured (flag, config or OPENAI_MODEL), else None.

    Both records use the flags' names (judge_base_url, judge_timeout, cache, concurrency...) except two:
    `model` (the library's documented keyword of settings_from_env, the run's `judge_model`) and the
    batch mode (`batch`: "submit" or "file", from the run's `judge_batch` / `judge_batch_file`)."""
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
    given = {k: v for k, v in dict(
        model=settings.judge_model, judge_base_url=settings.judge_base_url, api_key=settings.api_key,
        concurrency=settings.concurrency, max_calls=settings.max_calls, max_cost=settings.max_cost,
        cache=settings.cache, offline=settings.offline or None, judge_timeout=settings.judge_timeout, batch=batch,
        batch_file=batch_file, prices=prices or None).items() if v is not None}
    for opt in ("model", "judge_base_url", "api_key"):
        _drop_blank(given, opt)
    return _judge(given)
