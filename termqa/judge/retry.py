"""When to ask a judge question again, and how long to wait first.

A question that failed in a passing way (429, 5xx, timeout, an answer that is not the JSON asked
for) is asked again after an exponential backoff with jitter, so that the workers one 429 hit
spread out instead of coming back together. A server's `Retry-After` (seconds, an HTTP date, or
OpenAI's `retry-after-ms`) is a floor for the wait, never cut short. Two limits end the retries,
whichever comes first: the number of attempts and a time budget per question (the time since its
first attempt, waits included). A question that gives up is reported (the occurrence is `unjudged`
with reason "judge unavailable") and asked again by the next run, which finds every answer already
received in the cache.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Mapping, Optional


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 8  # attempts after the first
    budget: float = 120.0  # seconds per question, first attempt to last
    base: float = 1.0  # first wait; doubles per retry
    cap: float = 30.0  # longest backoff (a Retry-After may ask for more)

    def delay(self, attempt: int, elapsed: float, hint: Optional[float], rng: random.Random) -> Optional[float]:
        """Seconds to wait before retry number `attempt` (1 for the first retry), or None to give up.

        `elapsed` is the time spent on the question so far; `hint` the server's Retry-After."""
        if attempt > self.max_retries:
            return None
        wait = min(self.cap, self.base * (2 ** (attempt - 1)))
        wait *= 0.5 + 0.5 * rng.random()
        if hint is not None and hint > wait:
            wait = hint
        if elapsed + wait > self.budget:
            return None
        return wait


def retry_after(headers: Optional[Mapping[str, Any]]) -> Optional[float]:
    """The wait a response asks for, in seconds: `retry-after-ms`, else `Retry-After` as seconds or
    as an HTTP date; None when absent or unreadable."""
    if not headers or not hasattr(headers, "get"):
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
