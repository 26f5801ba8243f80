"""termqa check next to translate-toolkit's pofilter on the same files, in the same run: time and memory ratios.

    python bench/vs_pofilter.py                          # samples/, 1,000, 100k and 1M words, 20k concepts
    python bench/vs_pofilter.py --sizes 100000 --repeat 5 --results vs.json

pofilter runs three generic checks and no terminology (`pofilter --nofuzzy -t untranslated
-t doublespacing -t endpunc IN OUT`): what a team already runs on every delivery, so the price of
termqa is read as a ratio to it. Both tools run in fresh child processes, alternately, `--repeat` times;
the median wall time and the largest peak resident memory (from `os.wait4`: the child itself, or the
largest of its own children that it waited for, such as termqa's counting workers) are reported.

termqa runs with a warm index cache (one unmeasured run first fills a cache folder of this benchmark's
own; `--cold` measures with an empty one each time; `--new-text` keeps the termbase's entries but
forgets the analysed text before every run: a delivery never seen before). The bundled samples are
timed too (termqa only), and a short delivery (`--start-words`, 1,000 words) against the same
termbase: what starting on a big termbase costs. Children run with bytecode caching on
(PYTHONDONTWRITEBYTECODE removed), as an installed package runs: pofilter's modules were compiled when
it was installed.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as bench_run  # noqa: E402

POFILTER_CHECKS = ["--nofuzzy", "-t", "untranslated", "-t", "doublespacing", "-t", "endpunc"]
TARGETS = {1_000_000: 1.0, 100_000: 2.0}  # termqa / pofilter time ratio goals by project size
TARGET_SAMPLES_S = 1.0
TARGET_PEAK_MB_1M = 400


def measure(argv: list[str], env: dict) -> dict:
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out_f, stderr=err_f, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        err_f.seek(0)
        err = err_f.read().decode("utf-8", "replace")
    return {"seconds": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024.0, "code": code, "stderr": err}


def pofilter_command(explicit: str | None) -> list[str]:
    if explicit:
        return shlex.split(explicit)
    exe = shutil.which("pofilter")
    if exe and "shims" in exe:  # pyenv's shim is a bash script that execs the real one: skip it
        try:
            exe = subprocess.run(["pyenv", "which", "pofilter"], capture_output=True, text=True,
                                 check=True).stdout.strip() or exe
        except (OSError, subprocess.CalledProcessError):
            pass
    if not exe:
        raise SystemExit("pofilter not found: pip install translate-toolkit (or pass --pofilter)")
    return [exe]


def side_by_side(name: str, xliff: Path, glossary: Path, termqa: list[str], pofilter: list[str], repeat: int,
                 env: dict, cold: bool, check_args: list[str], with_pofilter: bool = True,
                 new_text: bool = False) -> dict:
    cache = Path(env["TERMQA_CACHE_DIR"])
    with tempfile.TemporaryDirectory() as tmp:
        tq_argv = termqa + ["check", str(xliff), "--glossary", str(glossary), "-q", "--json",
                            str(Path(tmp) / "r.json")] + check_args
        if not cold:
            measure(tq_argv, env)  # fills the index cache: what every later run against this termbase finds
        tq, pf = [], []
        for _ in range(repeat):
            if cold:
                shutil.rmtree(cache, ignore_errors=True)
            elif new_text:  # the text's tokens and lemmas are gone; glossaries, indexes and tables stay
                for f in cache.glob("analyses-*.sqlite"):
                    f.unlink()
            r = measure(tq_argv, env)
            if r["code"] not in (0, 1):
                raise SystemExit(f"termqa failed on {xliff} (exit {r['code']}):\n{r['stderr'][-2000:]}")
            tq.append(r)
            if with_pofilter:
                out = Path(tmp) / "pofilter-out"
                shutil.rmtree(out, ignore_errors=True)
                r = measure(pofilter + POFILTER_CHECKS + [str(xliff), str(out)], env)
                if r["code"] != 0:
                    raise SystemExit(f"pofilter failed on {xliff} (exit {r['code']}):\n{r['stderr'][-2000:]}")
                pf.append(r)
    row = {"project": name, "termqa_s": round(statistics.median(r["seconds"] for r in tq), 3),
           "termqa_cpu_s": round(statistics.median(r["cpu"] for r in tq), 3),
           "termqa_peak_mb": round(max(r["peak_mb"] for r in tq), 1), "runs": repeat}
    if pf:
        row["pofilter_s"] = round(statistics.median(r["seconds"] for r in pf), 3)
        row["pofilter_cpu_s"] = round(statistics.median(r["cpu"] for r in pf), 3)
        row["pofilter_peak_mb"] = round(max(r["peak_mb"] for r in pf), 1)
        row["ratio"] = round(row["termqa_s"] / row["pofilter_s"], 2)
        # CPU seconds (user + system, workers included) move less than wall time on a shared machine
        row["cpu_ratio"] = round(row["termqa_cpu_s"] / max(row["pofilter_cpu_s"], 1e-9), 2)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000], help="source words per project")
    ap.add_argument("--concepts", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")), help="where projects are generated")
    ap.add_argument("--words-per-file", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each tool per project (median reported)")
    ap.add_argument("--termqa", help='command that runs termqa (default: "termqa" on PATH, else python -m termqa)')
    ap.add_argument("--pofilter", help="command that runs pofilter (default: pofilter on PATH)")
    ap.add_argument("--check-args", default="", help='extra arguments for termqa check, e.g. "--jobs 1"')
    ap.add_argument("--cold", action="store_true", help="empty termqa's index cache before every run")
    ap.add_argument("--new-text", action="store_true",
                    help="forget the analysed text (not the termbase) before every run: a delivery never seen")
    ap.add_argument("--no-samples", action="store_true", help="skip the bundled samples")
    ap.add_argument("--start-words", type=int, default=1_000,
                    help="also time a short delivery of this many words against the same termbase: the cost of "
                         "starting on a big termbase (0: skip)")
    ap.add_argument("--results", type=Path, help="also write the measurements as JSON here")
    a = ap.parse_args(argv)

    termqa = bench_run.termqa_command(a.termqa)
    pofilter = pofilter_command(a.pofilter)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")  # never a paid judge call
           and k != "PYTHONDONTWRITEBYTECODE"}
    rows = []
    with tempfile.TemporaryDirectory(prefix="termqa-bench-cache-") as cache:
        env["TERMQA_CACHE_DIR"] = cache
        extra = shlex.split(a.check_args)
        if not a.no_samples:
            samples = HERE.parent / "samples"
            rows.append(side_by_side("samples/", samples, samples / "pump-terms.tbx", termqa, pofilter, a.repeat,
                                     env, a.cold, extra, with_pofilter=False, new_text=a.new_text))
        if a.start_words:
            project = bench_run.project_for(a.start_words, a.concepts, a.seed, a.out, a.words_per_file)
            rows.append(side_by_side(f"{a.start_words} words", project / "xliff", project / "glossary.tbx", termqa,
                                     pofilter, a.repeat, env, a.cold, extra, new_text=a.new_text))
            rows[-1]["start_words"] = a.start_words
        for words in a.sizes:
            project = bench_run.project_for(words, a.concepts, a.seed, a.out, a.words_per_file)
            rows.append(side_by_side(f"{words} words", project / "xliff", project / "glossary.tbx", termqa,
                                     pofilter, a.repeat, env, a.cold, extra, new_text=a.new_text))
            rows[-1]["words"] = words

    state = "cold" if a.cold else "warm, text never seen" if a.new_text else "warm"
    print(f"termqa check ({state} index cache, {a.concepts} concepts) vs pofilter "
          f"{' '.join(POFILTER_CHECKS)}; medians of {a.repeat}")
    print(f"{'project':>16} {'termqa s':>9} {'cpu s':>6} {'MB':>7} {'pofilter s':>10} {'cpu s':>6} {'MB':>7} "
          f"{'ratio':>6} {'cpu ratio':>9}")
    nan = float("nan")
    for r in rows:
        print(f"{r['project']:>16} {r['termqa_s']:>9.2f} {r['termqa_cpu_s']:>6.2f} {r['termqa_peak_mb']:>7.1f} "
              f"{r.get('pofilter_s', nan):>10.2f} {r.get('pofilter_cpu_s', nan):>6.2f} "
              f"{r.get('pofilter_peak_mb', nan):>7.1f} {r.get('ratio', nan):>6.2f} {r.get('cpu_ratio', nan):>9.2f}")
    verdicts = []
    for r in rows:
        if r["project"] == "samples/":
            verdicts.append((f"samples/ under {TARGET_SAMPLES_S:.0f} s", r["termqa_s"] < TARGET_SAMPLES_S))
        elif r.get("words") in TARGETS:
            goal = TARGETS[r["words"]]
            verdicts.append((f"{r['project']}: termqa <= {goal}x pofilter", r["ratio"] <= goal))
            if r["words"] == 1_000_000:
                verdicts.append((f"{r['project']}: peak <= {TARGET_PEAK_MB_1M} MB", r["termqa_peak_mb"] <= TARGET_PEAK_MB_1M))
    for name, ok in verdicts:
        print(f"  {'PASS' if ok else 'FAIL'}  {name}")
    if a.results:
        a.results.write_text(json.dumps({"rows": rows, "targets": dict(verdicts), "cold": a.cold,
                                         "new_text": a.new_text,
                                         "check_args": a.check_args}, indent=2) + "\n", encoding="utf-8")
    return 0 if all(ok for _n, ok in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
