"""The first run against the second: `termqa check` with an empty index cache (cold) and with the cache the
cold run left (warm), in fresh child processes, several runs each.

    python bench/bench_cold.py                        # samples/ and the three-language TICO-19 slice, 3 runs each
    python bench/bench_cold.py --repeat 5 --only tico --results cold.json

Cold: each run gets a new, empty cache folder (`$TERMQA_CACHE_DIR`), as on a new machine, a CI container
or a first run after an upgrade. Warm: one folder, filled by one unmeasured run first. Cold and warm runs
alternate, so a change of the machine's load falls on both. Per project and kind the minimum, median and
maximum of the wall time, the CPU time (user + system, children included: steadier than wall time on a
shared machine) and the peak resident memory (`os.wait4`: the child, or the largest of the processes it
waited for) are printed, with the load average before and after, and the goals are checked on the medians:

- samples/ cold <= 1.0 s;
- the TICO-19 slice cold <= 3x its warm time and <= 400 MB.

The TICO-19 slice is a three-language delivery of 1,500 segments: the first 500 units of the English to
Spanish, Russian and Portuguese memories of ../shared/corpus/eval/tico19-multi, each language with its two
glossaries as delivered (what tests/reports/test_report_size.py checks). Without ../shared it is skipped.
Exit code 1 when a goal is missed or a run fails.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_pofilter import measure as child_measure  # noqa: E402  (one child process, as ab.py measures it)

HERE = Path(__file__).resolve().parent
SAMPLES_COLD_S = 1.0
TICO_COLD_OVER_WARM = 3.0
TICO_COLD_MB = 400.0
UNITS = 500
TICO = {"es": ("all.en-es-LA.tmx", "g_en_es-419.csv", "f_en-es_XX.csv"),
        "ru": ("all.en-ru.tmx", "g_en_ru.csv", "f_en-ru_RU.csv"),
        "pt": ("all.en-pt-BR.tmx", "g_en_pt-BR.csv", "f_en-pt_XX.csv")}


def shared_folder() -> Path | None:
    """../shared beside the checkout (or $TERMQA_SHARED), when it holds the corpus."""
    env = os.environ.get("TERMQA_SHARED")
    base = Path(env) if env else HERE.parent.parent / "shared"
    return base if (base / "corpus").is_dir() else None


def slice_tmx(src: Path, out: Path, n: int) -> None:
    """The first `n` units of a TMX file, header kept."""
    from lxml import etree

    tree = etree.parse(str(src), etree.XMLParser(resolve_entities=False, no_network=True))
    body = tree.getroot().find("body")
    for tu in list(body)[n:]:
        body.remove(tu)
    out.parent.mkdir(parents=True, exist_ok=True)
    tree.write(str(out), xml_declaration=True, encoding="UTF-8")


def tico_slice(out: Path) -> tuple[list[Path], list[Path]] | None:
    """(memories, glossaries) of the three-language slice, written under `out`; None without the corpus."""
    shared = shared_folder()
    if shared is None:
        return None
    data = shared / "corpus" / "eval" / "tico19-multi" / "data"
    files, glossaries = [], []
    for lang, (memory, *gls) in TICO.items():
        files.append(out / f"{lang}.tmx")
        if not files[-1].is_file():
            slice_tmx(data / "TM" / memory, files[-1], UNITS)
        for g in gls:
            glossaries.append(out / lang / g)
            glossaries[-1].parent.mkdir(parents=True, exist_ok=True)
            glossaries[-1].write_bytes((data / "terminologies" / g).read_bytes())
    return files, glossaries


def measure(argv: list[str], env: dict) -> dict:
    """One child process (vs_pofilter.measure): wall and CPU seconds, peak RSS in MB, exit code, stderr."""
    r = child_measure(argv, env)
    return {"wall": r["seconds"], "cpu": r["cpu"], "mb": r["peak_mb"], "code": r["code"], "stderr": r["stderr"]}


def child_env(cache: Path) -> dict:
    env = dict(os.environ)
    env["TERMQA_CACHE_DIR"] = str(cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as an installed package runs
    return env


def bench(name: str, args: list[str], termqa: list[str], repeat: int, work: Path) -> dict:
    """Cold and warm runs of `termqa check ARGS`, alternately."""
    warm_cache = work / f"{name}-warm"
    shutil.rmtree(warm_cache, ignore_errors=True)
    json_out = work / f"{name}.json"
    argv = [*termqa, "check", *args, "-q", "--json", str(json_out)]
    first = measure(argv, child_env(warm_cache))  # fills the warm folder (a cold run, not counted)
    if first["code"] not in (0, 1):
        raise SystemExit(f"{name}: termqa exited {first['code']}: {first['stderr'][-2000:]}")
    runs: dict[str, list[dict]] = {"cold": [], "warm": []}
    for i in range(repeat):
        cold_cache = work / f"{name}-cold-{i}"
        shutil.rmtree(cold_cache, ignore_errors=True)
        for kind, cache in (("cold", cold_cache), ("warm", warm_cache)):
            r = measure(argv, child_env(cache))
            if r["code"] != first["code"]:
                raise SystemExit(f"{name} {kind}: exit {r['code']} (first run {first['code']}): {r['stderr'][-2000:]}")
            runs[kind].append(r)
        shutil.rmtree(cold_cache, ignore_errors=True)
    out = {}
    for kind, rs in runs.items():
        out[kind] = {f: {"min": min(r[f] for r in rs), "median": statistics.median(r[f] for r in rs),
                         "max": max(r[f] for r in rs)} for f in ("wall", "cpu", "mb")}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="cold and warm runs each (default 3)")
    ap.add_argument("--only", choices=["samples", "tico"], help="one project only")
    ap.add_argument("--termqa", default=None, help="the command to run (default: this Python's -m termqa)")
    ap.add_argument("--work", type=Path, default=None,
                    help="folder for caches and the slice (default: a temporary one)")
    ap.add_argument("--results", type=Path, help="write the figures as JSON here")
    a = ap.parse_args(argv)
    termqa = a.termqa.split() if a.termqa else [sys.executable, "-m", "termqa"]
    work = a.work or Path(tempfile.mkdtemp(prefix="termqa-cold-"))
    work.mkdir(parents=True, exist_ok=True)
    projects = {}
    if a.only in (None, "samples"):
        samples = HERE.parent / "samples"
        projects["samples"] = [str(samples), "--glossary", str(samples / "pump-terms.tbx")]
    if a.only in (None, "tico"):
        got = tico_slice(work / "tico")
        if got is None:
            print("TICO-19 slice skipped: ../shared/corpus is not present", file=sys.stderr)
        else:
            files, glossaries = got
            projects["tico"] = [str(f) for f in files] + [x for g in glossaries for x in ("--glossary", str(g))]
    load_before = os.getloadavg()
    results = {name: bench(name, args, termqa, a.repeat, work) for name, args in projects.items()}
    load_after = os.getloadavg()
    print(f"load average before {' '.join(f'{x:.2f}' for x in load_before)}, "
          f"after {' '.join(f'{x:.2f}' for x in load_after)}; {a.repeat} runs each, min / median / max")
    print(f"{'project':<8} {'kind':<5} {'wall s':>20} {'CPU s':>20} {'peak MB':>20}")
    for name, r in results.items():
        for kind in ("cold", "warm"):
            cells = [" / ".join(f"{r[kind][f][s]:.2f}" if f != "mb" else f"{r[kind][f][s]:.0f}"
                                for s in ("min", "median", "max")) for f in ("wall", "cpu", "mb")]
            print(f"{name:<8} {kind:<5} {cells[0]:>20} {cells[1]:>20} {cells[2]:>20}")
    goals = []
    if "samples" in results:
        s = results["samples"]["cold"]
        text = f"samples cold <= {SAMPLES_COLD_S} s (wall {s['wall']['median']:.2f}, CPU {s['cpu']['median']:.2f})"
        goals.append((text, s["wall"]["median"] <= SAMPLES_COLD_S))
    if "tico" in results:
        c, w = results["tico"]["cold"], results["tico"]["warm"]
        ratio_wall = c["wall"]["median"] / w["wall"]["median"]
        ratio_cpu = c["cpu"]["median"] / w["cpu"]["median"]
        text = f"TICO-19 slice cold <= {TICO_COLD_OVER_WARM:.0f}x warm (wall {ratio_wall:.2f}x, CPU {ratio_cpu:.2f}x)"
        goals.append((text, ratio_wall <= TICO_COLD_OVER_WARM))
        goals.append((f"TICO-19 slice cold <= {TICO_COLD_MB:.0f} MB ({c['mb']['median']:.0f})",
                      c["mb"]["median"] <= TICO_COLD_MB))
    for text, ok in goals:
        print(f"{'met' if ok else 'MISSED'}: {text}")
    if a.results:
        a.results.write_text(json.dumps({"load_before": load_before, "load_after": load_after, "repeat": a.repeat,
                                         "results": results}, indent=1), encoding="utf-8")
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(ok for _t, ok in goals) else 1


if __name__ == "__main__":
    sys.exit(main())
