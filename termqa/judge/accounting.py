"""What the judge cost in one run: calls, cache hits, failures, tokens and the estimated price.

Separate from the client (termqa.judge.llm), which only adds to its counters: what the counters mean
and how the JSON's `judge` block is made of them is read here on its own, and pricing them needs only
termqa.judge.costs.
"""
from __future__ import annotations

import threading
from collections import Counter
from typing import Any, Optional

from termqa.judge.answers import BAD_LABEL, SCHEMA_BREAKING
from termqa.judge.batch import BATCH_DISCOUNT
from termqa.judge.costs import estimate_cost
from termqa.judge.settings import JudgeSettings


class Accounting:
    """What the judge cost in this run. Thread-safe counters; `as_dict()` for the JSON report.

    `calls` counts questions sent to the server (one per question, however many retries it took),
    `cached` questions answered from the cache or shared with an identical question of the same
    batch, `failed` questions that ended without a usable answer, `retries` extra attempts,
    `not_sent` questions refused by the budget or by --offline. `unusable` counts the answers that
arrived unusable, by reason class (each was asked again, none became a verdict or a cache row);
`failures` the questions that failed, by reason class; `in_flight` the questions on the wire now. `tokens_in_cached` is the part of
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
        self.in_flight = 0
        self.questions = 0  # questions handed to the backend (cache hits included): progress's total
        self.answered = 0  # questions the server answered usably in this run
        self.cached_unusable = 0  # cache rows an older termqa wrote that fail the checks: asked again
        self.unusable: Counter = Counter()  # reason class -> answers
        self.failures: Counter = Counter()  # reason class -> questions
        self.first_failure: Optional[str] = None
        self.shared_with_other_run = 0  # answers another run sharing the cache was asking: waited for, not paid

    def add_unusable(self, reason: str) -> None:
        with self._lock:
            self.unusable[reason] += 1

    def fail(self, reason: str, message: Optional[str] = None) -> None:
        """One question ended without a usable answer, for `reason` (a class: "outage", "not JSON"...)."""
        with self._lock:
            self.failed += 1
            self.failures[reason] += 1
            if message and self.first_failure is None:
                self.first_failure = message

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
            # answers that arrived but were unusable (asked again; never a verdict, never cached)
            "unusable_answers": sum(self.unusable.values()),
            "unusable_by_reason": dict(self.unusable),
            "schema_breaking_answers": sum(n for k, n in self.unusable.items() if k in SCHEMA_BREAKING),
            "out_of_registry_labels": self.unusable.get(BAD_LABEL, 0),
            "failed_by_reason": dict(self.failures),
            "shared_with_other_run": self.shared_with_other_run,
            "first_failure": self.first_failure,
            # questions that failed after their retries, or wait for a batch: re-run to finish (exit code 3)
            "incomplete": self.failed > 0 or self.batch_open > 0,
            **({"batch": self.batch_dict()} if self.batch_mode else {}),
        }
