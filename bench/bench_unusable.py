"""A judge that cannot answer ends the run fast and says why (#36): the real CLI on samples/.

    python bench/bench_unusable.py                 # prose, BANANA labels, a generic 400
    python bench/bench_unusable.py --outage        # also a 500 naming nothing (about 90 s: one outage budget)

The scripted server of the tests (tests/llm_server.py, in this process) answers every chat request
the chosen way; `termqa check samples/pump-manual.xlf -g samples/pump-terms.tbx` runs in a subprocess
with the default retry settings. Printed per case: exit code, wall time, the server's chat requests,
and the line the console ended with. Exit code 1 unless every case exits 3 within its goal (30 s;
150 s for the outage, whose policy allows 120 s per question).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.judge.test_judge import Script  # noqa: E402
from tests.llm_server import ScriptedLLM  # noqa: E402

PROSE = "Sure! I think the translation is fine, nothing to report here."
CASES = {
    "prose": (lambda s: setattr(s, "default", PROSE), 30.0),
    # alignment answered, every verdict's label outside the registry (a model that ignores the list)
    "banana": (lambda s: setattr(s, "default", Script(errors={"": "BANANA"}, consistency="BANANA")), 30.0),
    "400": (lambda s: s.random_faults(1.0, kinds=("400",)), 30.0),
    "500": (lambda s: s.random_faults(1.0, kinds=("500",)), 150.0),
}


def run_case(name: str, work: Path) -> bool:
    setup, goal = CASES[name]
    server = ScriptedLLM().start()
    try:
        setup(server)
        out = work / name
        out.mkdir()
        args = [sys.executable, "-m", "termqa", "check", str(ROOT / "samples" / "pump-manual.xlf"),
                "-g", str(ROOT / "samples" / "pump-terms.tbx"), "--judge-model", "scripted-judge",
                "--judge-base-url", server.url, "--cache", str(out / "c.db"), "--json", str(out / "r.json"),
                "--lemmatiser", "lookup"]
        started = time.monotonic()
        p = subprocess.run(args, capture_output=True, text=True, cwd=str(ROOT))
        wall = time.monotonic() - started
        acc = json.loads((out / "r.json").read_text())["accounting"] if (out / "r.json").exists() else {}
        last = (p.stderr.strip().splitlines() or [""])[-1]
        print(f"{name}: exit {p.returncode}, {wall:.1f} s, {len(server.completions)} chat requests, "
              f"{acc.get('failed')} questions failed {acc.get('failed_by_reason')}\n  {last[:300]}")
        return p.returncode == 3 and wall <= goal
    finally:
        server.stop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--outage", action="store_true", help="also the 500 case (about 90 s)")
    a = ap.parse_args(argv)
    names = ["prose", "banana", "400"] + (["500"] if a.outage else [])
    with tempfile.TemporaryDirectory() as tmp:
        ok = [run_case(n, Path(tmp)) for n in names]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
