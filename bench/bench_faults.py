"""No judge question lost under random faults: 20 seeds over a generated project.

    python bench/bench_faults.py                       # 20 seeds, 30 % faults, 30k words
    python bench/bench_faults.py --seeds 5 --rate 0.5 --words 100000

The scripted server of the tests (tests/llm_server.py, in this process) answers like the judge
benchmark (bench/bench_judge.py `answer`), and `--rate` of its chat requests fail with a fault drawn
from 429 (Retry-After 0), 500, 503, a hang past the client's timeout, a malformed body, prose
instead of JSON, or no choices. For each seed, with a fresh cache, `termqa.check` runs until the
run is complete (re-running while questions failed after their retries, as exit code 3 asks), then:
- occurrences lost: verdicts (outcome, label, rendering) that differ from a fault-free run;
- paid answers asked twice: usable answers (status 200, no fault) the server gave more than once
  for the same messages, over all the rounds of the seed.
Exit code 1 unless both are 0 for every seed.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_judge import MODEL, answer, generated_project  # noqa: E402


def verdicts(data: dict) -> list:
    return [(o["doc_id"], o["segment_index"], o["concept_id"], o["source_span"] if "source_span" in o else None,
             o["target_text"], o["outcome"], o["label"]) for o in data["occurrences"]]


def run(inputs, glossary, url, cache, timeout, lemmatiser, concurrency, max_retries=8):
    from termqa.judge.llm import settings_from_env
    from termqa.config import Settings
    from termqa.run import check  # the judge is called from the top floor

    settings = settings_from_env(environ={}, model=MODEL, judge_base_url=url, cache=str(cache),
                                 concurrency=concurrency, judge_timeout=timeout, backoff_base=0.05, backoff_max=1.0,
                                 max_retries=max_retries)
    return check([str(p) for p in inputs], [str(glossary)], Settings(lemmatiser=lemmatiser), judge=settings).to_dict()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--rate", type=float, default=0.3, help="share of chat requests that fail")
    ap.add_argument("--words", type=int, default=30_000)
    ap.add_argument("--concepts", type=int, default=600)
    ap.add_argument("--term-rate", type=float, default=0.12)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--timeout", type=float, default=0.5, help="--judge-timeout of the runs (a hang lasts 2x)")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--max-rounds", type=int, default=5)
    ap.add_argument("--max-retries", type=int, default=8,
                    help="retries per question (lower it to see runs end incomplete and finish in a re-run)")
    ap.add_argument("--lemmatiser", default="lookup")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "termqa-bench-judge")
    a = ap.parse_args(argv)
    from tests.llm_server import ScriptedLLM

    a.out.mkdir(parents=True, exist_ok=True)
    proj = generated_project(a.words, a.concepts, a.term_rate, 7, a.out)
    inputs, gloss = [proj / "xliff"], proj / "glossary.tbx"
    work = Path(tempfile.mkdtemp(prefix="faults-", dir=a.out))
    server = ScriptedLLM(latency=a.latency, default=answer, hang=2 * a.timeout).start()
    rows, ok = [], True
    try:
        t0 = time.perf_counter()
        clean = run(inputs, gloss, server.url, work / "clean.sqlite", a.timeout, a.lemmatiser, a.concurrency)
        expected = verdicts(clean)
        print(f"fault-free run: {len(expected)} occurrences, {clean['accounting']['calls']} calls, "
              f"{time.perf_counter() - t0:.1f} s")
        print(f"{'seed':>4} {'rounds':>6} {'requests':>8} {'faults':>6} {'retries':>7} {'failed':>6} "
              f"{'calls':>6} {'lost':>5} {'paid twice':>10} {'s':>6}")
        for seed in range(1, a.seeds + 1):
            server.log.clear()
            server.random_faults(a.rate, seed=seed)
            cache = work / f"seed-{seed}.sqlite"
            t0 = time.perf_counter()
            rounds, retries, failed, calls = 0, 0, 0, 0
            while True:
                rounds += 1
                data = run(inputs, gloss, server.url, cache, a.timeout, a.lemmatiser, a.concurrency, a.max_retries)
                acc = data["accounting"]
                retries += acc["retries"]
                failed += acc["failed"]
                calls += acc["calls"]
                if not acc["incomplete"] or rounds >= a.max_rounds:
                    break
            lost = sum(1 for x, y in zip(verdicts(data), expected) if x != y) + abs(len(expected) - len(data["occurrences"]))
            paid = Counter(json.dumps(r.body["messages"], sort_keys=True) for r in server.answered)
            twice = sum(n - 1 for n in paid.values() if n > 1)
            faults = sum(1 for r in server.completions if r.fault)
            ok = ok and lost == 0 and twice == 0
            rows.append({"seed": seed, "rounds": rounds, "requests": len(server.completions), "faults": faults,
                         "retries": retries, "failed": failed, "calls": calls, "lost": lost, "paid_twice": twice})
            print(f"{seed:>4} {rounds:>6} {len(server.completions):>8} {faults:>6} {retries:>7} {failed:>6} "
                  f"{calls:>6} {lost:>5} {twice:>10} {time.perf_counter() - t0:>6.1f}", flush=True)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    total_lost = sum(r["lost"] for r in rows)
    total_twice = sum(r["paid_twice"] for r in rows)
    print(f"{'PASS' if ok else 'MISS'}: {len(rows)} seeds at {a.rate:.0%} faults: {total_lost} occurrences lost, "
          f"{total_twice} paid answers asked twice; runs needing a second round: "
          f"{sum(r['rounds'] > 1 for r in rows)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
