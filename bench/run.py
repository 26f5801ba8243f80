"""End-to-end benchmark of `termqa check` on synthetic projects of growing size.

    python bench/run.py                      # 100k, 300k and 1M source words, 20k concepts
    python bench/run.py --sizes 100000 --concepts 5000 --repeat 3

For each size: generate the project with bench/generate.py unless it already exists (same words,
concepts and seed), run `termqa check <xliff dir> --glossary <tbx> --json <file>` in a fresh child
process, and record its wall time and peak resident memory (`os.wait4` gives the rusage of that one
child, so earlier runs never inflate the figure). Prints a table with the growth factor of time and
memory against the growth of the input, and checks the targets: at least 100k source words/s end to
end, peak below 500 MB, growth close to linear.

The child runs without OPENAI_* variables (unless --keep-env) so a benchmark can never spend money
on judge calls: it measures counting mode.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate as gen  # noqa: E402

TARGET_WORDS_PER_S = 100_000
TARGET_PEAK_MB = 500
# Time may grow this much faster than the input before we call the growth non-linear.
LINEAR_SLACK = 1.3


def termqa_command(explicit: str | None) -> list[str]:
    if explicit:
        return shlex.split(explicit)
    exe = shutil.which("termqa")
    if exe:
        return [exe]
    return [sys.executable, "-m", "termqa"]


def project_for(words: int, concepts: int, seed: int, out: Path, words_per_file: int) -> Path:
    """The generated project folder, generating it when missing or made with other settings."""
    target = out / f"termqa-bench-{words}w-{concepts}c-s{seed}"
    manifest = target / "manifest.json"
    if manifest.exists():
        m = json.loads(manifest.read_text(encoding="utf-8"))
        if m.get("generator_version") == gen.GENERATOR_VERSION and m.get("words_requested") == words \
                and m.get("seed") == seed and m.get("concept_request") == concepts and all(
            (target / "xliff" / f).exists() for f in m.get("files", ())
        ):
            return target
    return gen.generate(words, concepts, out, seed=seed, words_per_file=words_per_file)


def run_measured(cmd: list[str], project: Path, json_out: Path, keep_env: bool, extra: list[str] = ()) -> dict:
    """Run the child and measure its wall time and peak RSS from its own rusage."""
    env = dict(os.environ)
    if not keep_env:
        for k in list(env):
            if k.startswith("OPENAI_"):
                del env[k]
    argv = cmd + ["check", str(project / "xliff"), "--glossary", str(project / "glossary.tbx"), "--json", str(json_out)]
    argv += list(extra)
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out_f, stderr=err_f, env=env)
        # os.wait4 reaps exactly this child and gives its own rusage, so the peak RSS is this run's,
        # not the maximum over every child this benchmark started (RUSAGE_CHILDREN would be that).
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_f.seek(0)
        err_f.seek(0)
        stdout, stderr = out_f.read().decode("utf-8", "replace"), err_f.read().decode("utf-8", "replace")
    return {
        "argv": argv,
        "returncode": proc.returncode,
        "seconds": wall,
        "peak_mb": usage.ru_maxrss / 1024.0,  # Linux reports KiB
        "stdout": stdout,
        "stderr": stderr,
    }


def _summary(json_out: Path) -> dict:
    try:
        data = json.loads(json_out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    s = data.get("summary") or {}
    return {"segments": s.get("segments"), "occurrences": s.get("occurrences"), "outcomes": s.get("outcomes")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 1_000_000], help="source words per run")
    ap.add_argument("--concepts", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")), help="where projects are generated")
    ap.add_argument("--words-per-file", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=1, help="runs per size; the fastest is reported")
    ap.add_argument("--termqa", help='command that runs termqa (default: "termqa" on PATH, else python -m termqa)')
    ap.add_argument("--keep-env", action="store_true", help="pass OPENAI_* variables to the child")
    ap.add_argument("--ok-codes", default="0,1", help="exit codes that mean the check ran (default 0,1: 1 = findings)")
    ap.add_argument("--check-args", default="", help='extra arguments for termqa check, e.g. "--lemmatiser lookup"')
    ap.add_argument("--results", type=Path, help="also write the measurements as JSON here")
    a = ap.parse_args(argv)

    cmd = termqa_command(a.termqa)
    ok_codes = {int(x) for x in a.ok_codes.split(",") if x.strip()}
    rows = []
    failed = False
    for words in a.sizes:
        project = project_for(words, a.concepts, a.seed, a.out, a.words_per_file)
        manifest = json.loads((project / "manifest.json").read_text(encoding="utf-8"))
        best = None
        for _ in range(a.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                json_out = Path(tmp) / "result.json"
                r = run_measured(cmd, project, json_out, a.keep_env, shlex.split(a.check_args))
                r["summary"] = _summary(json_out)
                r["json_written"] = json_out.exists()
            if r["returncode"] not in ok_codes or not r["json_written"]:
                print(f"termqa check failed on {project} (exit {r['returncode']}):", file=sys.stderr)
                print("  " + " ".join(shlex.quote(x) for x in r["argv"]), file=sys.stderr)
                print((r["stderr"] or r["stdout"]).strip()[-2000:], file=sys.stderr)
                failed = True
                break
            if best is None or r["seconds"] < best["seconds"]:
                best = r
        if best is None:
            break
        rows.append({
            "words": manifest["source_words"],
            "concepts": manifest["concepts"],
            "segments": manifest["segments"],
            "occurrences_generated": manifest["occurrences"],
            "occurrences_found": best["summary"].get("occurrences"),
            "seconds": round(best["seconds"], 3),
            "words_per_s": round(manifest["source_words"] / best["seconds"]),
            "peak_mb": round(best["peak_mb"], 1),
        })

    if rows:
        print(f"termqa check, counting mode, {a.concepts} concepts ({' '.join(cmd)} check ... {a.check_args})".rstrip())
        print(f"{'words':>10} {'segments':>9} {'occ. found':>10} {'seconds':>8} {'words/s':>9} {'peak MB':>8} "
              f"{'x words':>8} {'x time':>7} {'x mem':>6}")
        prev = None
        for r in rows:
            if prev:
                fw, ft, fm = r["words"] / prev["words"], r["seconds"] / prev["seconds"], r["peak_mb"] / prev["peak_mb"]
                growth = f"{fw:8.2f} {ft:7.2f} {fm:6.2f}"
                r["growth"] = {"words": round(fw, 3), "time": round(ft, 3), "memory": round(fm, 3)}
            else:
                growth = f"{'':>8} {'':>7} {'':>6}"
            occ = r["occurrences_found"] if r["occurrences_found"] is not None else "?"
            print(f"{r['words']:>10} {r['segments']:>9} {occ:>10} {r['seconds']:>8.2f} {r['words_per_s']:>9} "
                  f"{r['peak_mb']:>8.1f} {growth}")
            prev = r
        verdicts = []
        if len(rows) >= 2:
            # what each extra word costs, and the start-up every run pays (spaCy, glossary, imports)
            a0, a1 = rows[0], rows[-1]
            marginal = (a1["words"] - a0["words"]) / max(a1["seconds"] - a0["seconds"], 1e-9)
            startup = a0["seconds"] - a0["words"] / marginal
            print(f"  marginal speed {marginal:,.0f} words/s; start-up about {startup:.1f} s per run")
        # the goal is about throughput at scale: judged on the largest project, where start-up is amortised
        slow = [r for r in rows[-1:] if r["words_per_s"] < TARGET_WORDS_PER_S]
        big = [r for r in rows if r["peak_mb"] >= TARGET_PEAK_MB]
        nonlinear = [r for r in rows if "growth" in r and r["growth"]["time"] > LINEAR_SLACK * r["growth"]["words"]]
        verdicts.append((f"speed >= 100k words/s on the largest project ({rows[-1]['words']:,} words)", not slow))
        verdicts.append(("peak < 500 MB", not big))
        verdicts.append(("time grows linearly", not nonlinear))
        for name, ok in verdicts:
            print(f"  {'PASS' if ok else 'FAIL'}  {name}")
        if a.results:
            a.results.write_text(json.dumps({"command": cmd, "rows": rows,
                                             "targets": {n: ok for n, ok in verdicts}}, indent=2) + "\n", encoding="utf-8")
        if not all(ok for _, ok in verdicts):
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
