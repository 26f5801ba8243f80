"""Two versions of termqa, run alternately on the same command: medians of wall time and CPU, peak memory.

    git worktree add /tmp/before <commit> && python -m venv --system-site-packages /tmp/before-venv
    /tmp/before-venv/bin/pip install --no-deps -e /tmp/before
    python bench/ab.py --before /tmp/before --before-python /tmp/before-venv/bin/python --runs 7 -- \
        check PROJECT/xliff -g PROJECT/glossary.tbx -q --json out.json

"before" runs the other checkout (first on PYTHONPATH, with the Python of a venv it is installed in, whose
editable finder serves that checkout's termqa.formats, reports and prompts), "after" the termqa this
Python imports. Each has an index cache folder of its own, filled by one unmeasured run, and the order
alternates run by run, so a machine that slows down or speeds up in between weighs on both alike. CPU
is user + system of the child and the workers it waited for (`os.wait4`); peak memory the largest.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_pofilter import measure  # noqa: E402  (one child process: wall, CPU with workers, peak memory)


def _run(argv: list[str], env: dict) -> tuple[float, float, float]:
    r = measure(argv, env)
    if r["code"] not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {r['code']}:\n{r['stderr'][-2000:]}")
    return r["seconds"], r["cpu"], r["peak_mb"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="checkout of the version to compare with")
    ap.add_argument("--before-python", default=sys.executable, help="the Python that runs it (e.g. a venv's)")
    ap.add_argument("--runs", type=int, default=5, help="measured runs of each version")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="-- then the termqa arguments")
    a = ap.parse_args(argv)
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    if not args:
        ap.error("give the termqa arguments after --")
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("OPENAI_")}
    with tempfile.TemporaryDirectory(prefix="termqa-ab-") as tmp:
        sides = {
            "before": ([a.before_python, "-m", "termqa", *args],
                       {**base, "PYTHONPATH": str(a.before.resolve()), "TERMQA_CACHE_DIR": f"{tmp}/before"}),
            "after": ([sys.executable, "-m", "termqa", *args], {**base, "TERMQA_CACHE_DIR": f"{tmp}/after"}),
        }
        for argv_, env in sides.values():  # fills each side's index cache
            _run(argv_, env)
        got: dict[str, list] = {name: [] for name in sides}
        for n in range(a.runs):
            for name in (("before", "after") if n % 2 == 0 else ("after", "before")):
                got[name].append(_run(*sides[name]))
    for name, rows in got.items():
        print(f"{name:>6}: wall {statistics.median(r[0] for r in rows):.3f} s  cpu {statistics.median(r[1] for r in rows):.3f} s"
              f"  peak {max(r[2] for r in rows):.0f} MB  ({len(rows)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
