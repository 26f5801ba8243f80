"""Benchmark of the LLM judge stage against the scripted OpenAI-compatible server (tests/llm_server.py).

    python bench/bench_judge.py                        # samples/ + a generated 100k-word project
    python bench/bench_judge.py --words 50000 --latency 0.3 --concurrency 16 --profile

The server answers every question after `--latency` seconds, choosing the answer by question kind
(align: words copied from the target segment, or none; error judge: mostly no_error; consistency:
mostly document_usage; reference: a rendering). It runs in a child process by default so that its
threads do not compete with termqa's for the GIL (`--server thread` keeps it in-process).

Measured, each with a fresh cache file:
1. calls per scored occurrence, on samples/ and on the generated project (goal < 0.3);
2. sustained calls per second of the judge stage at --concurrency (goal >= 75 % of
   concurrency / latency), from a cold cache;
3. the cost of a re-run after editing 1 % of the segments that hold occurrences (in a copy of the
   project, starting from a copy of the cold run's cache): calls as a share of the cold run's
   (goal < 3 %); an unchanged re-run is also measured (must be 0 calls).
"""
from __future__ import annotations

from termqa.config import Settings
import argparse
import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # tests.llm_server, and termqa when not installed
sys.path.insert(0, str(HERE))

MODEL = "scripted-judge"
CALLS_PER_OCC_GOAL = 0.3
THROUGHPUT_SHARE_GOAL = 0.75
RERUN_SHARE_GOAL = 0.03

# --- the scripted answers ------------------------------------------------------------------------

from tests.llm_server import data_of  # noqa: E402  (after the sys.path set-up above)

# Labels of the registry only: since #36 a label outside it ("wrong_term" was one) is an unusable
# answer, asked again and never a verdict, so a scripted judge that gives one is a broken judge.
ERROR_LABELS_SAMPLE = ("paraphrase_instead_of_term", "general_word_instead_of_term", "neighbouring_concept_term")
CONSISTENCY_OTHER = ("gratuitous_divergence", "synonym_inconsistency")  # "stylistic_variation" was outside it
_ARTICLES = {"le", "la", "les", "l", "un", "une", "des", "du", "de", "d", "au", "aux"}


def _bucket(text: str) -> int:
    """A stable number 0..99 per prompt, so the same question always gets the same answer."""
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16) % 100


def _prompt(body: dict) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


def _schema(body: dict) -> str:
    rf = body.get("response_format") or {}
    return ((rf.get("json_schema") or {}).get("name") or "") if isinstance(rf, dict) else ""


def _align_one(term: str, target: str) -> dict:
    """Words copied from the target sentence: as many as the term has, after the verb and articles;
    none for about 15 % of the questions (the rendering was dropped)."""
    if _bucket(term + target) < 15 or not target:
        return {"translation": "", "found": False}
    words = re.findall(r"[\w\-]+", target)
    content = [w for w in words[1:] if w.lower() not in _ARTICLES] or words
    n = max(1, min(len(term.split()), len(content)))
    start = _bucket(target) % max(1, len(content) - n + 1)
    # copy the span as written in the sentence (between the first and the last word chosen)
    first, last = content[start], content[start + n - 1]
    i = target.find(first)
    j = target.find(last, i) + len(last) if i >= 0 else -1
    text = target[i:j] if 0 <= i < j else first
    return {"translation": text, "found": True}


def _align_answer(data: dict) -> dict:
    """One rendering per term of the segment question."""
    target = data.get("target") or ""
    return {"renderings": [{"term": t.get("term"), **_align_one(t.get("source_form") or "", target)}
                           for t in data.get("terms", [])]}


def _consistency_answer(data: dict) -> dict:
    """One label per occurrence of the chain question, by the hash of its sentence and rendering."""
    sentences = {e.get("sentence"): e.get("source") or "" for e in data.get("excerpt", [])}
    out = []
    for o in data.get("occurrences", []):
        b = _bucket(f"{sentences.get(o.get('sentence'), '')}|{o.get('rendering')}")
        label = "document_usage" if b >= 15 else CONSISTENCY_OTHER[b % len(CONSISTENCY_OTHER)]
        out.append({"occurrence": o.get("occurrence"), "justification": "Scripted consistency verdict.",
                    "label": label})
    return {"verdicts": out}


def answer(body: dict) -> dict:
    """The scripted judge: the answer depends only on the question kind and the prompt's hash."""
    name, p = _schema(body), _prompt(body)
    b = _bucket(p)
    data = data_of(body) or {}
    if name == "term_alignments":
        return _align_answer(data)
    if name == "term_reference":
        return {"justification": "Scripted reference.", "generatable": True,
                "reference": f"rendu de {data.get('source_form') or 'terme'}", "confidence": "high"}
    if name == "term_consistency_verdicts":
        return _consistency_answer(data)
    # error judge and reference check share the schema: mostly no_error, some error labels
    label = "no_error" if b >= 12 else ERROR_LABELS_SAMPLE[b % len(ERROR_LABELS_SAMPLE)]
    return {"justification": "Scripted error verdict.", "label": label}


# --- the server ----------------------------------------------------------------------------------


def serve(latency: float, nodelay: bool = False) -> None:
    """Child process: start the scripted server, print its URL, serve until stdin closes."""
    from tests import llm_server
    from tests.llm_server import ScriptedLLM

    if nodelay:
        # The test server writes the status+headers and the body of an answer in two send()s; with
        # Nagle's algorithm on, the body waits for the client's delayed ACK (~40 ms on Linux).
        llm_server._Handler.disable_nagle_algorithm = True

    server = ScriptedLLM(latency=latency, default=answer).start()
    print(server.url, flush=True)
    sys.stdin.read()  # the parent closes our stdin when it is done
    server.stop()


@contextlib.contextmanager
def scripted_server(latency: float, where: str, nodelay: bool = False):
    """The URL of a running scripted server, in a child process (default) or a thread of this one."""
    if where == "thread":
        from tests import llm_server

        saved = llm_server._Handler.disable_nagle_algorithm
        llm_server._Handler.disable_nagle_algorithm = nodelay or saved
        server = llm_server.ScriptedLLM(latency=latency, default=answer).start()
        try:
            yield server.url
        finally:
            server.stop()
            llm_server._Handler.disable_nagle_algorithm = saved
        return
    argv = [sys.executable, str(Path(__file__).resolve()), "--serve", "--latency", str(latency)]
    proc = subprocess.Popen(argv + (["--nodelay"] if nodelay else []),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
    try:
        url = proc.stdout.readline().strip()
        if not url.startswith("http"):
            raise RuntimeError("the scripted server did not start")
        yield url
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


# --- instrumentation (wrappers around library functions, nothing changed in the library) ---------


class Probe:
    """Times each batch sent to the backend and the judge stage as a whole."""

    def __init__(self):
        self.batches = []  # (phase, questions, calls, seconds in complete_many, seconds in ask_many)
        self.judge_seconds = 0.0
        self.phase = None
        self._patches = []

    def __enter__(self):
        import threading

        import termqa.judge.llm as llm
        import termqa.judge.questions as asks
        import termqa.judge.stages as judge
        import termqa.pipeline.check as check

        probe = self
        local = threading.local()  # documents are judged side by side: each thread its own last batch
        orig_many = llm.Backend.complete_many
        orig_ask_many = asks.ask_many
        orig_run = judge.run_judge

        def complete_many(self, requests):
            requests = list(requests)
            before = self.account.calls
            t0 = time.perf_counter()
            out = orig_many(self, requests)
            local.last = (len(requests), self.account.calls - before, time.perf_counter() - t0)
            return out

        def ask_many(backend, questions, library=None):
            questions = list(questions)
            t0 = time.perf_counter()
            local.last = (0, 0, 0.0)
            out = orig_ask_many(backend, questions, library)
            kind = type(questions[0]).__name__ if questions else "-"
            n, calls, sec = local.last
            probe.batches.append((kind, len(questions), calls, sec, time.perf_counter() - t0))
            return out

        def run_judge(*a, **kw):
            t0 = time.perf_counter()
            try:
                return orig_run(*a, **kw)
            finally:
                probe.judge_seconds += time.perf_counter() - t0

        for mod, name, new in ((llm.Backend, "complete_many", complete_many), (asks, "ask_many", ask_many),
                               (judge, "ask_many", ask_many), (judge, "run_judge", run_judge),
                               (check, "run_judge", run_judge)):
            self._patches.append((mod, name, getattr(mod, name)))
            setattr(mod, name, new)
        return self

    def __exit__(self, *exc):
        for mod, name, old in reversed(self._patches):
            setattr(mod, name, old)


def run_check(inputs, glossary, url, cache, concurrency, lemmatiser, profile=None):
    from termqa.run import check  # the judge is called from the top floor
    from termqa.judge.llm import settings_from_env

    settings = settings_from_env(environ={}, model=MODEL, judge_base_url=url, cache=str(cache),
                                 concurrency=concurrency, judge_timeout=30.0)
    with Probe() as probe:
        t0 = time.perf_counter()
        if profile is not None:
            profile.enable()
        try:
            res = check([str(p) for p in inputs], [str(glossary)], Settings(lemmatiser=lemmatiser), judge=settings)
        finally:
            if profile is not None:
                profile.disable()
        wall = time.perf_counter() - t0
    data = res.to_dict()
    acc = data["accounting"] or {}
    sc = data["scores"]
    return {
        "occurrences": data["summary"]["occurrences"],
        "scored": sc["scored"],
        "unjudged": sc["unjudged"],
        "calls": acc.get("calls", 0),
        "cached": acc.get("cached", 0),
        "failed": acc.get("failed", 0),
        "questions": acc.get("questions", {}),
        "per_1000_source_words": acc.get("per_1000_source_words"),
        "wall": wall,
        "judge_seconds": probe.judge_seconds,
        "batches": probe.batches,
        "outcomes": data["summary"]["outcomes"],
        "segments": data["segments"],
        "occ_rows": data["occurrences"],
        "lemmatiser": data["signature"]["lemmatiser"],
    }


# --- projects ------------------------------------------------------------------------------------


def generated_project(words, concepts, term_rate, seed, out: Path) -> Path:
    target = out / f"termqa-bench-{words}w-{concepts}c-s{seed}"
    if not (target / "manifest.json").exists():
        gen_args = [sys.executable, str(HERE / "generate.py"), "--words", str(words), "--concepts", str(concepts),
                    "--out", str(out), "--seed", str(seed), "--words-per-file", "25000",
                    "--term-rate", str(term_rate)]
        subprocess.run(gen_args, check=True, stdout=subprocess.DEVNULL)
    return target


def copy_cache(src: Path, dst: Path) -> None:
    """A consistent copy of a SQLite cache (WAL included) through the backup API."""
    with contextlib.closing(sqlite3.connect(str(src))) as a, contextlib.closing(sqlite3.connect(str(dst))) as b:
        a.backup(b)


def edit_copy(project_xliff: Path, dest: Path, result: dict, share: float, kind: str) -> int:
    """Copy the XLIFF folder and change the target of `share` of the translated segments that hold
    occurrences (every 1/share-th one, in document order). `kind`: "sentence" appends a clause to
    the target (the term renderings stay), "term" replaces one rendering in it with the concept's
    most frequent rendering in the project (a reviewer's terminology fix; where every rendering in the
    segment already is that one, the sentence edit is made instead). Returns (segments edited,
    renderings swapped)."""
    from lxml import etree

    shutil.copytree(project_xliff, dest)
    segs = [s for s in result["segments"] if s.get("target")]
    step = max(1, round(1 / share))
    chosen = segs[step // 2::step]
    by_seg = defaultdict(list)
    for o in result["occ_rows"]:
        by_seg[(o["doc_id"], o["unit_id"])].append(o)
    common = Counter((o["concept_id"], o["target_text"]) for o in result["occ_rows"] if o["target_text"])
    top = {}
    for (cid, text), n in common.most_common():
        top.setdefault(cid, text)
    by_file = defaultdict(list)
    for s in chosen:
        path = s["doc_id"].split("#", 1)[0]
        by_file[path].append(s)
    edited = swapped = 0
    ns = "{urn:oasis:names:tc:xliff:document:1.2}"
    for path, items in by_file.items():
        rel = Path(path).resolve().relative_to(project_xliff.resolve())
        f = dest / rel
        tree = etree.parse(str(f))
        units = {u.get("id"): u for u in tree.iter(f"{ns}trans-unit")}
        for s in items:
            unit = units.get(s["unit_id"])
            tgt = unit.find(f"{ns}target") if unit is not None else None
            if tgt is None:
                continue
            done = False
            if kind == "term":
                for o in by_seg[(s["doc_id"], s["unit_id"])]:
                    new = top.get(o["concept_id"])
                    old = o["target_text"]
                    if not old or not new or new == old:
                        continue
                    for node, attr in [(tgt, "text")] + [(c, "tail") for c in tgt.iter() if c is not tgt]:
                        val = getattr(node, attr)
                        if val and old in val:
                            setattr(node, attr, val.replace(old, new, 1))
                            done = True
                            swapped += 1
                            break
                    if done:
                        break
            if not done:  # "sentence", or no rendering to swap: the sentence changes around the terms
                last = tgt[-1] if len(tgt) else None
                if last is None:
                    tgt.text = (tgt.text or "") + " Voir aussi la note."
                else:
                    last.tail = (last.tail or "") + " Voir aussi la note."
            edited += 1
        tree.write(str(f), xml_declaration=True, encoding="UTF-8")
    return edited, swapped


def reasked(cold_cache: Path, new_cache: Path) -> Counter:
    """Why the re-run asked again: per prompt, questions whose prompt differs from a cold-run prompt
    only in the rendering counts ("x23" -> "x24") of the document evidence, and the others."""
    count = re.compile(r'(["»”]) x\d+')

    def prompts(path):
        with contextlib.closing(sqlite3.connect(str(path))) as db:
            return {k: (pid, "\n".join(m[1] for m in json.loads(msgs)))
                    for k, pid, msgs in db.execute("SELECT key, prompt_id, messages FROM judgements")}

    old, new = prompts(cold_cache), prompts(new_cache)
    norm_old = {count.sub(r"\1 xN", t) for _pid, t in old.values()}
    out = Counter()
    for k, (pid, text) in new.items():
        if k not in old:
            out[(pid, "counts only" if count.sub(r"\1 xN", text) in norm_old else "other")] += 1
    return out


# --- report --------------------------------------------------------------------------------------


def phase_table(batches) -> list[str]:
    names = {"AlignQuestion": "align", "ReferenceCheckQuestion": "reference check", "ReferenceQuestion": "reference",
             "ErrorQuestion": "error judge (Q1)", "ConsistencyQuestion": "consistency (Q2)"}
    lines = [f"    {'phase':<18} {'questions':>9} {'calls':>6} {'HTTP s':>7} {'calls/s':>8} {'render+read s':>13}"]
    for kind, q, calls, sec, total in batches:
        rate = calls / sec if sec > 0 and calls else 0.0
        lines.append(f"    {names.get(kind, kind):<18} {q:>9} {calls:>6} {sec:>7.2f} {rate:>8.1f} {total - sec:>13.2f}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=100_000, help="source words of the generated project")
    ap.add_argument("--concepts", type=int, default=2000)
    ap.add_argument("--term-rate", type=float, default=0.12,
                    help="share of source tokens inside term occurrences (bench/generate.py --term-rate)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "termqa-bench-judge")
    ap.add_argument("--latency", type=float, default=0.3, help="seconds the server takes per answer")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--lemmatiser", default="auto")
    ap.add_argument("--edit-share", type=float, default=0.01)
    ap.add_argument("--edit-kind", choices=("sentence", "term", "both"), default="both")
    ap.add_argument("--server", choices=("process", "thread"), default="process")
    ap.add_argument("--skip-samples", action="store_true")
    ap.add_argument("--profile", action="store_true", help="cProfile the cold run (main thread) and print the top")
    ap.add_argument("--results", type=Path, help="also write the figures as JSON here")
    ap.add_argument("--nodelay", action="store_true",
                    help="TCP_NODELAY on the scripted server's sockets (removes its ~40 ms Nagle/delayed-ACK stall)")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.serve:
        serve(a.latency, a.nodelay)
        return 0

    a.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=a.out))
    load_before = os.getloadavg()
    figures = {"latency": a.latency, "concurrency": a.concurrency, "server": a.server}
    rows = []
    with scripted_server(a.latency, a.server, a.nodelay) as url:
        # 1a. samples
        if not a.skip_samples:
            s = run_check([ROOT / "samples"], ROOT / "samples" / "pump-terms.tbx", url, work / "samples.sqlite",
                          a.concurrency, a.lemmatiser)
            rows.append(("samples/ (cold)", s))
            figures["samples"] = {k: s[k] for k in ("occurrences", "scored", "calls", "questions", "wall")}
        # 1b + 2. the generated project, cold
        proj = generated_project(a.words, a.concepts, a.term_rate, a.seed, a.out)
        gloss = proj / "glossary.tbx"
        prof = None
        if a.profile:
            import cProfile

            prof = cProfile.Profile()
        cold = run_check([proj / "xliff"], gloss, url, work / "cold.sqlite", a.concurrency, a.lemmatiser, prof)
        rows.append((f"generated {a.words // 1000}k (cold)", cold))
        # 3. re-runs from a copy of the cold cache
        copy_cache(work / "cold.sqlite", work / "same.sqlite")
        same = run_check([proj / "xliff"], gloss, url, work / "same.sqlite", a.concurrency, a.lemmatiser)
        rows.append(("unchanged re-run", same))
        reruns = {}
        for kind in (("sentence", "term") if a.edit_kind == "both" else (a.edit_kind,)):
            dest = work / f"edited-{kind}"
            n_edit, n_swap = edit_copy(proj / "xliff", dest, cold, a.edit_share, kind)
            copy_cache(work / "cold.sqlite", work / f"edit-{kind}.sqlite")
            r = run_check([dest], gloss, url, work / f"edit-{kind}.sqlite", a.concurrency, a.lemmatiser)
            r["edited"], r["swapped"] = n_edit, n_swap
            r["why"] = reasked(work / "cold.sqlite", work / f"edit-{kind}.sqlite")
            reruns[kind] = r
            label = f"{kind}" if kind == "sentence" else f"term, {n_swap} swapped"
            rows.append((f"re-run, {n_edit} segs edited ({label})", r))
    load_after = os.getloadavg()

    # --- table ---
    print(f"judge benchmark: scripted server ({a.server}), {a.latency * 1000:.0f} ms per answer, "
          f"concurrency {a.concurrency}; machine: {os.cpu_count()} CPUs")
    print()
    hdr = f"{'run':<42} {'occ':>6} {'scored':>6} {'calls':>6} {'cached':>6} {'calls/scored':>12} " \
          f"{'wall s':>7} {'judge s':>7} {'calls/s':>7}"
    print(hdr)
    print("-" * len(hdr))
    for name, r in rows:
        cps = r["calls"] / r["scored"] if r["scored"] else 0.0
        rate = r["calls"] / r["judge_seconds"] if r["judge_seconds"] and r["calls"] else 0.0
        print(f"{name:<42} {r['occurrences']:>6} {r['scored']:>6} {r['calls']:>6} {r['cached']:>6} {cps:>12.3f} "
              f"{r['wall']:>7.2f} {r['judge_seconds']:>7.2f} {rate:>7.1f}")
    print()
    ideal = a.concurrency / a.latency
    http_calls = sum(b[2] for b in cold["batches"])
    http_sec = sum(b[3] for b in cold["batches"])
    sustained = cold["calls"] / cold["judge_seconds"] if cold["judge_seconds"] else 0.0
    per = cold.get("per_1000_source_words") or {}
    print(f"cold run, per 1,000 source words: {per.get('calls')} calls, {per.get('tokens')} tokens "
          f"(the scripted server reports 110 tokens per answer; see docs/judge.md for real prompt sizes)")
    print(f"cold run, phases (lemmatiser {cold['lemmatiser']}):")
    print("\n".join(phase_table(cold["batches"])))
    print()
    results = []

    def goal(name, value, target, ok, fmt):
        results.append(ok)
        print(f"  {'PASS' if ok else 'MISS'}  {name}: {fmt.format(value)} (goal {target})")

    print("goals:")
    if "samples" in figures:
        s = rows[0][1]
        goal("calls per scored occurrence, samples/", s["calls"] / max(1, s["scored"]), f"< {CALLS_PER_OCC_GOAL}",
             s["calls"] / max(1, s["scored"]) < CALLS_PER_OCC_GOAL, "{:.3f}")
    cps = cold["calls"] / max(1, cold["scored"])
    goal(f"calls per scored occurrence, generated {a.words // 1000}k", cps, f"< {CALLS_PER_OCC_GOAL}",
         cps < CALLS_PER_OCC_GOAL, "{:.3f}")
    goal("sustained calls/s of the judge stage (cold)", sustained,
         f">= {THROUGHPUT_SHARE_GOAL * ideal:.1f} = 75 % of {ideal:.1f}", sustained >= THROUGHPUT_SHARE_GOAL * ideal,
         "{:.1f}")
    http_rate = http_calls / http_sec if http_sec else 0.0
    print(f"        (inside the backend's complete_many only: {http_rate:.1f} calls/s; "
          f"judge stage {cold['judge_seconds']:.2f} s of which HTTP batches {http_sec:.2f} s)")
    for kind, r in reruns.items():
        share = r["calls"] / max(1, cold["calls"])
        goal(f"re-run after editing {r['edited']} segments ({kind}): calls / cold calls", share * 100,
             f"< {RERUN_SHARE_GOAL * 100:.0f} %", share < RERUN_SHARE_GOAL, "{:.2f} %")
    print(f"  {'PASS' if same['calls'] == 0 else 'MISS'}  unchanged re-run sends nothing: {same['calls']} calls")
    for kind, r in reruns.items():
        why = ", ".join(f"{pid} {n} ({how})" for (pid, how), n in sorted(r["why"].items()))
        print(f"        re-asked after the {kind} edit: {why or 'nothing'}")
    print()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
          f"({os.cpu_count()} CPUs; other jobs share this machine)")
    print("reproduce: " + " ".join(shlex.quote(x) for x in [
        "python", "bench/bench_judge.py", "--words", str(a.words), "--concepts", str(a.concepts),
        "--term-rate", str(a.term_rate), "--seed", str(a.seed), "--latency", str(a.latency),
        "--concurrency", str(a.concurrency), "--lemmatiser", a.lemmatiser, "--server", a.server]
        + (["--nodelay"] if a.nodelay else [])))
    if prof is not None:
        import io
        import pstats

        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(35)
        print(buf.getvalue())
    if a.results:
        figures.update({
            "generated": {"words": a.words, "concepts": a.concepts, "term_rate": a.term_rate,
                          **{k: cold[k] for k in ("occurrences", "scored", "calls", "questions", "wall",
                                                   "judge_seconds", "per_1000_source_words")}},
            "sustained_calls_per_s": sustained,
            "reruns": {k: {"edited": r["edited"], "swapped": r["swapped"], "calls": r["calls"],
                           "share": r["calls"] / max(1, cold["calls"]),
                           "reasked": {f"{pid}/{how}": n for (pid, how), n in r["why"].items()}}
                       for k, r in reruns.items()},
            "unchanged_rerun_calls": same["calls"],
            "load": [load_before, load_after],
        })
        a.results.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
