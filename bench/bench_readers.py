"""Time and peak memory of the TBX and XLIFF 1.2 readers on the generated benchmark project.

    python bench/bench_readers.py                     # generates /tmp/tqbench/... if missing
    python bench/bench_readers.py --project DIR --repeat 5
    python bench/bench_readers.py --dump before.pickle     # save every reader result
    python bench/bench_readers.py --compare before.pickle  # ... and check a later version returns the same

Each measurement runs in a fresh child process, so imports, caches and the memory of one reading
never flatter another: the child imports termqa.formats and the reader modules, notes its resident
memory, reads the input `--repeat` times and reports the fastest wall time and the growth of its peak
resident memory (ru_maxrss) over what it held before the first read. Times are of the public entry
points `read_glossary` / `read_bilingual`, so they include the XML parse and the content hash.

`--dump` / `--compare` cover the generated inputs and every file of the shared corpus
(`../shared/corpus`), read with `read_any`; an input that raises keeps its error message, so a
change in what is refused is caught too. Results are frozen dataclasses compared with `==`.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_OUT = Path("/tmp/tqbench")
WORDS, CONCEPTS, SEED = 1_000_000, 20_000, 7
TARGETS = {"tbx": (1.0, 40.0), "xliff": (0.6, None)}  # seconds, peak MB growth


def _project(out: Path) -> Path:
    proj = out / f"termqa-bench-{WORDS}w-{CONCEPTS}c-s{SEED}"
    if not (proj / "glossary.tbx").exists():
        subprocess.run(
            [sys.executable, str(HERE / "generate.py"), "--words", str(WORDS), "--concepts", str(CONCEPTS),
             "--out", str(out)],
            check=True,
        )
    return proj


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0  # pragma: no cover - Linux only


def _child(kind: str, paths: list[str], repeat: int) -> None:
    """Runs in the child: measure one kind of read and print one JSON line."""
    import gc

    from termqa import formats
    from termqa.formats import tbx, xliff1  # noqa: F401  (imported before the baseline memory is noted)

    gc.collect()
    base = _rss_mb()
    times, cpu = [], []
    peak = 0.0
    for i in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        if kind == "tbx":
            result = [formats.read_glossary(p) for p in paths]
        else:
            result = [formats.read_bilingual(p) for p in paths]
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if i == 0:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base
        del result
        gc.collect()
    print(json.dumps({"kind": kind, "best": min(times), "times": times, "cpu": min(cpu), "peak_mb": peak,
                      "base_mb": base}))


def _measure(kind: str, paths: list[Path], repeat: int) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(REPO), env.get("PYTHONPATH", "")) if x)
    out = subprocess.run(
        [sys.executable, __file__, "--_child", kind, "--repeat", str(repeat), *map(str, paths)],
        check=True, capture_output=True, text=True, env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _corpus_files() -> list[Path]:
    root = REPO.parent / "shared" / "corpus"
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in
                  (".tbx", ".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".mxliff", ".tmx", ".xml"))


def _results(proj: Path) -> dict:
    from termqa.errors import TermqaError
    from termqa.formats import read_any

    inputs = [proj / "glossary.tbx", *sorted((proj / "xliff").glob("*.xlf")), *_corpus_files()]
    out = {}
    for p in inputs:
        try:
            out[str(p)] = read_any(p)
        except TermqaError as exc:
            out[str(p)] = ("error", type(exc).__name__, str(exc))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, help="a generated project folder (default: make one in /tmp/tqbench)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dump", type=Path, help="pickle every reader result to this file")
    ap.add_argument("--compare", type=Path, help="check results equal those pickled by --dump")
    ap.add_argument("--_child", help=argparse.SUPPRESS)
    ap.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args._child:
        _child(args._child, args.paths, args.repeat)
        return 0

    sys.path.insert(0, str(REPO))
    proj = args.project or _project(DEFAULT_OUT)
    xlfs = sorted((proj / "xliff").glob("*.xlf"))
    manifest = proj / "manifest.json"
    words = json.loads(manifest.read_text()).get("source_words") if manifest.exists() else None
    failed = False
    for kind, paths, label in (("tbx", [proj / "glossary.tbx"], "TBX glossary.tbx"),
                               ("xliff", xlfs, f"XLIFF 1.2 {len(xlfs)} files")):
        r = _measure(kind, paths, args.repeat)
        t_goal, m_goal = TARGETS[kind]
        ok = r["best"] < t_goal and (m_goal is None or r["peak_mb"] <= m_goal)
        failed |= not ok
        extra = f", {words / r['best']:,.0f} words/s" if kind == "xliff" and words else ""
        goal = f"< {t_goal} s" + (f", <= +{m_goal:.0f} MB" if m_goal else "")
        print(f"{label:20s} best {r['best']:.3f} s of {args.repeat} "
              f"({', '.join(f'{t:.3f}' for t in r['times'])}), best CPU {r['cpu']:.3f} s, "
              f"peak +{r['peak_mb']:.1f} MB{extra}"
              f"  [goal {goal}: {'ok' if ok else 'MISSED'}]")

    if args.dump or args.compare:
        res = _results(proj)
        if args.dump:
            args.dump.write_bytes(pickle.dumps(res, protocol=pickle.HIGHEST_PROTOCOL))
            print(f"dumped {len(res)} results to {args.dump}")
        if args.compare:
            old = pickle.loads(args.compare.read_bytes())
            diff = sorted(k for k in old.keys() | res.keys() if old.get(k) != res.get(k))
            for k in diff[:20]:
                print(f"DIFFERENT: {k}")
            print(f"compared {len(res)} results with {args.compare}: {len(diff)} different")
            failed |= bool(diff)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
