"""When to ask a judge question again, and how long to wait first.

Two kinds of failure, two policies:

- *Content failures* (an answer arrived, but it is unusable: not JSON, empty, a refusal, outside the
  schema; termqa.judge.answers) are not outages: the server is up and a long backoff changes
  nothing. The question is asked again at most `unusable_retries` times (two) after a short pause,
  then fails with its reason and frees its slot. `RecentAnswers` watches the last answers of the
  run: when most of them are unusable the model cannot do the task, and the run stops judging early
  with one line saying why (what the server sent, cut short) instead of failing each question in turn.
- *Passing faults* (429, 5xx, timeout, a broken response body) after an exponential backoff with jitter, so that the workers one 429 hit
spread out instead of coming back together. A server's `Retry-After` (seconds, an HTTP date, or
OpenAI's `retry-after-ms`) is a floor for the wait, never cut short. Two limits end the retries,
whichever comes first: the number of attempts and a time budget per question (the time since its
first attempt, waits included). A question that gives up is reported (the occurrence is `unjudged`
with reason "judge unavailable") and asked again by the next run, which finds every answer already
received in the cache. A question that exhausted this policy means the server is down: the backend
then sends no new question (a run waits for one outage budget, not one per question).
"""
from __future__ import annotations

import random
import threading
from collections import Counter, deque
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


# The run stops judging when at least UNUSABLE_STOP of the last UNUSABLE_WINDOW answers were
# unusable. Three quarters, over twenty answers: a model that is merely sloppy (a third of its
# answers unusable) practically never reaches it (p < 1e-4 per window), one that cannot follow the
# schema reaches it after a handful of questions.
UNUSABLE_WINDOW = 20
UNUSABLE_STOP = 15


class RecentAnswers:
    """The last answers the server sent: usable or not, and a sample of the unusable ones."""

    def __init__(self, window: int = UNUSABLE_WINDOW, stop: int = UNUSABLE_STOP):
        self._lock = threading.Lock()
        self._recent: deque = deque(maxlen=window)  # reason class, or None for a usable answer
        self._stop = stop
        self.sample = ""

    def add(self, reason: Optional[str], text: str = "") -> Optional[str]:
        """Record an answer (`reason` None when usable); the one-line reason to stop judging, or None."""
        with self._lock:
            self._recent.append(reason)
            if reason is not None and text and not self.sample:
                self.sample = text
            bad = [r for r in self._recent if r is not None]
            if len(bad) < self._stop:
                return None
            classes = ", ".join(f"{k} {n}" for k, n in Counter(bad).most_common())
            sample = " ".join(self.sample.split())
            sample = sample[:80] + ("..." if len(sample) > 80 else "")
            return (f"judging stopped early: {len(bad)} of the last {len(self._recent)} answers were unusable "
                    f"({classes}); the server sent {sample!r}")
