"""A bad output path fails in under a second, whatever the project's size.

    python bench/bench_outputs.py                      # a generated 1M-word project, 5 runs each
    python bench/bench_outputs.py --words 100000 --repeat 9

`termqa check PROJECT -g GLOSSARY --report MISSING/report.html` (a folder that does not exist) runs in
fresh child processes, alternately with `termqa --version` (the price of starting Python and termqa's
command line, paid by every command), `--repeat` times. The medians of wall time and of CPU time (user +
system: steadier than wall time on a shared machine) are printed for both, with the failing run's exit
code and stderr. Exit code 1 unless the failing run exits 2 with one line on stderr, its median CPU time
is under `TARGET_S`, and its median wall time is under `TARGET_S` more than `--version`'s (the check adds
no reading of the project: on a loaded machine starting Python alone may take over a second).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as bench_run  # noqa: E402
from vs_pofilter import measure  # noqa: E402

TARGET_S = 1.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=1_000_000)
    ap.add_argument("--concepts", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()))
    ap.add_argument("--termqa", help="the command to run (default: termqa on PATH, else python -m termqa)")
    args = ap.parse_args(argv)
    termqa = bench_run.termqa_command(args.termqa)
    project = bench_run.project_for(args.words, args.concepts, 7, args.out, 100_000)
    env = dict(__import__("os").environ)
    with tempfile.TemporaryDirectory() as tmp:
        failing = termqa + ["check", str(project / "xliff"), "-g", str(project / "glossary.tbx"),
                            "--report", str(Path(tmp) / "missing" / "report.html")]
        bad, start = [], []
        for _ in range(args.repeat):
            bad.append(measure(failing, env))
            start.append(measure(termqa + ["--version"], env))
    med = {name: (statistics.median(r["seconds"] for r in runs), statistics.median(r["cpu"] for r in runs))
           for name, runs in (("bad output path", bad), ("--version", start))}
    for name, (wall, cpu) in med.items():
        print(f"{name:>16}: median wall {wall:.2f} s, CPU {cpu:.2f} s ({args.repeat} runs)")
    last = bad[-1]
    lines = last["stderr"].strip().splitlines()
    print(f"exit code {last['code']}, stderr: {last['stderr'].strip()}")
    ok = (all(r["code"] == 2 for r in bad) and len(lines) == 1 and med["bad output path"][1] < TARGET_S
          and med["bad output path"][0] - med["--version"][0] < TARGET_S)
    print("goal met" if ok else "goal NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
