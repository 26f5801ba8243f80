"""Judge progress that tells the truth: what is answered, failed and on the wire, while a stage waits.

The stages report their start and end (`progress(stage, done, total)`); between the two a stage can
wait minutes for answers. `Ticker` fills that silence: every `JudgeSettings.progress_every` seconds
(ten by default; tests shrink it) it reports the backend's counts through the same callback, with
the failures by reason class ("not JSON 3, outage 1"), so a log shows the run is alive and what goes
wrong while it goes wrong. The library prints nothing itself: the CLI's callback
(termqa.cli.common.progress_bar) decides how the line looks.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Optional

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class JudgeStatus:
    """The judge's counts at one moment. `done` questions of `total` known so far."""

    phase: str
    answered: int
    cached: int
    failed: int
    in_flight: int
    total: int
    retries: int = 0
    failures: tuple[tuple[str, int], ...] = ()

    @property
    def done(self) -> int:
        return self.answered + self.cached + self.failed

    def text(self) -> str:
        why = f" ({', '.join(f'{k} {n}' for k, n in self.failures)})" if self.failures else ""
        phase = f" {self.phase}" if self.phase else ""
        return (f"judge{phase}: {self.answered} answered, {self.cached} from the cache, "
                f"{self.failed} failed{why}, {self.in_flight} in flight, {self.retries} retries")


def status_of(backend) -> JudgeStatus:
    """The counts of a `termqa.judge.llm.Backend` now."""
    acc = backend.account
    return JudgeStatus(backend.phase, acc.answered, acc.cached, acc.failed, max(0, acc.in_flight),
                       max(acc.questions, acc.answered + acc.cached + acc.failed), acc.retries,
                       tuple(sorted(acc.failures.items(), key=lambda kv: -kv[1])))


class Ticker:
    """Reports `status_of(backend)` to `progress` every `every` seconds until closed (a daemon
    thread: it never keeps a process alive)."""

    def __init__(self, backend, progress: Optional[Progress], every: float):
        self._backend, self._progress, self._every = backend, progress, every
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def __enter__(self) -> "Ticker":
        if self._progress is not None:
            self._thread = threading.Thread(target=self._run, name="termqa-judge-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            st = status_of(self._backend)
            self._progress(st.text(), st.done, st.total)  # type: ignore[misc]
