"""One cache, one payment (#36): runs sharing a cache file ask each question once. Two backends with
their own SQLite connections stand for two runs (a claim is a row in the file, so threads or processes
see the same thing); the real openai client and the scripted server do the rest."""
from __future__ import annotations

import threading
import time

from termqa.judge.cache import MINE, TAKEN, VerdictCache
from termqa.judge.llm import Backend, Request
from tests.helpers import fast_judge


def backend(server, tmp_path, **kw):
    return Backend(fast_judge(server, tmp_path, environ={}, cache="shared.db", **{"concurrency": 3, **kw}))


def req(text: str) -> Request:
    return Request("error_judge", "error_judge@1+test", (("system", "You judge."), ("user", text)), None)


def test_two_runs_at_once_on_one_cache_pay_for_each_question_once(server, tmp_path):
    server.latency = 0.3
    questions = [req(f"q{i}") for i in range(12)]
    out, accounts = {}, {}

    def run(name):
        with backend(server, tmp_path) as b:
            out[name] = b.complete_many(questions)
            accounts[name] = b.account.as_dict()

    threads = [threading.Thread(target=run, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.raw for a in out["a"]] == [a.raw for a in out["b"]]
    assert len(server.completions) == 12  # not 24
    assert accounts["a"]["calls"] + accounts["b"]["calls"] == 12
    assert accounts["a"]["shared_with_other_run"] + accounts["b"]["shared_with_other_run"] >= 1


def test_a_dead_runs_claim_expires_and_the_question_is_asked(server, tmp_path):
    with backend(server, tmp_path, judge_timeout=0.2, backoff_max=0.05) as b:
        key = b.key_for(req("orphan"))
        other = VerdictCache(str(tmp_path / "shared.db"))
        assert other.claim(key, "dead-run", lease=0.8) == MINE  # a run that was then killed
        assert other.claim(key, "another", lease=0.8) == TAKEN
        other.close()
        started = time.monotonic()
        answer = b.complete(req("orphan"))
        waited = time.monotonic() - started
    assert answer.raw and len(server.completions) == 1
    assert waited >= 0.5  # it waited for the lease, then asked itself


def test_runs_opening_one_new_cache_at_once_all_open_it(tmp_path):
    """Runs that start together on a cache file nobody made yet race to set it up (its journal mode, its
    layout version): each must open it, none may be told the file is locked or damaged."""
    errors = []
    for k in range(15):
        path = str(tmp_path / f"new-{k}.db")

        def open_it():
            try:
                VerdictCache(path).close()
            except Exception as exc:  # noqa: BLE001 - any failure to open is what this test looks for
                errors.append(str(exc))

        threads = [threading.Thread(target=open_it) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []


def test_two_cli_runs_at_once_on_one_cache_cost_one_runs_calls(server, tmp_path):
    """The issue's figure through the real CLI: two `termqa check` processes started together on the samples,
    one cache file: the server answers no more chat requests than one run alone needs, plus at most the
    concurrency setting (questions both took before either had claimed them); both runs end alike."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.judge.test_judge import Script

    root = Path(__file__).resolve().parents[2]
    server.latency = 0.1
    server.default = Script()  # no rendering found by alignment, every verdict "no error"
    concurrency = 3

    def start(cache: Path, out: Path) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "termqa", "check", str(root / "samples" / "pump-manual.xlf"),
             "-g", str(root / "samples" / "pump-terms.tbx"), "--judge-model", "scripted-judge",
             "--judge-base-url", server.url, "--cache", str(cache), "--json", str(out), "--lemmatiser", "lookup",
             "--concurrency", str(concurrency), "-q"], cwd=str(root), env={**os.environ, "OPENAI_API_KEY": "x"},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    alone = start(tmp_path / "alone.db", tmp_path / "alone.json")
    assert alone.wait(timeout=300) in (0, 1), alone.stderr.read().decode()[-800:]
    one_run = len(server.completions)
    assert one_run >= 5
    server.log.clear()
    runs = [start(tmp_path / "shared.db", tmp_path / f"{n}.json") for n in ("a", "b")]
    codes = [p.wait(timeout=300) for p in runs]
    both = len(server.completions)
    assert codes[0] == codes[1] == alone.returncode, [p.stderr.read().decode()[-800:] for p in runs]
    print(f"chat requests: one run alone {one_run}, two runs at once on one cache {both}")  # shown with -s
    assert both <= one_run + concurrency, (both, one_run)

    def verdicts(name):
        data = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
        return [(o["unit_id"], o["concept_id"], o["outcome"], o["label"]) for o in data["occurrences"]]

    assert verdicts("a") == verdicts("b") == verdicts("alone")
