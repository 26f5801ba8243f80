"""How much of the judge's prompts a provider can cache, and what caching saves.

    python bench/bench_prompt_cache.py                       # samples/ + bench_judge's 100k-word project
    python bench/bench_prompt_cache.py --words 40000 --concepts 800 --price-model gpt-4.1

Runs `termqa check` with a judge against the scripted OpenAI-compatible server (tests/llm_server.py)
in its prompt-caching mode: it counts tokens by a fixed rule (a word with the whitespace before it, or
one other character, is a token; per message a role and an end token) and reports
`usage.prompt_tokens_details.cached_tokens` the way OpenAI documents it: the prefix shared with an
earlier request, if it is 1,024 tokens or more, rounded down to a multiple of 128. The scripted
answers depend on the data block only (never on the wording of our prompts), so a prompt edit does not
change the verdicts. Each run starts from an empty verdict cache and one server per run.

Reported, on samples/ and on the generated project:
- per question kind: questions, mean prompt tokens, the prefix every prompt of the kind shares
  (tokens, and its share of the kind's prompt tokens), and the share the server reported cached;
- for the run: prompt tokens, of which cached (goal >= 50 % on the generated project), output tokens,
  and the estimated cost per 1,000 source words at the chosen model's list price, with and without
  provider caching ((input - cached) x IN + cached x CACHED_IN + output x OUT, against input x IN +
  output x OUT).
"""
from __future__ import annotations

from termqa.config import Settings
import argparse
import contextlib
import json
import os
import shlex
import shutil
import sqlite3
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # tests.llm_server, and termqa when not installed
sys.path.insert(0, str(HERE))

import bench_judge as bj  # noqa: E402  (after the sys.path set-up above)
from tests.llm_server import ScriptedLLM, data_of, prompt_token_list  # noqa: E402

MODEL = "scripted-judge"
CACHED_SHARE_GOAL = 0.5


def answer(body: dict) -> dict:
    """bench_judge's scripted judge, with the error-judge label drawn from the data block alone."""
    if bj._schema(body) == "term_error_verdict":
        data = data_of(body) or {}
        b = bj._bucket(json.dumps(data, sort_keys=True, ensure_ascii=False))
        label = "no_error" if b >= 12 else bj.ERROR_LABELS_SAMPLE[b % len(bj.ERROR_LABELS_SAMPLE)]
        return {"justification": "Scripted error verdict.", "label": label}
    return bj.answer(body)


def common_prefix_len(a: list, b: list) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def run(inputs, glossary, cache: Path, concurrency: int, lemmatiser: str) -> dict:
    from termqa.judge.llm import settings_from_env
    from termqa.run import check  # the judge is called from the top floor

    server = ScriptedLLM(default=answer, prompt_caching=True).start()
    try:
        settings = settings_from_env(environ={}, model=MODEL, judge_base_url=server.url, cache=str(cache),
                                     concurrency=concurrency, judge_timeout=30.0)
        res = check([str(p) for p in inputs], [str(glossary)],
                    Settings(lemmatiser=lemmatiser), judge=settings).to_dict()
        usage_of = {json.dumps(r.body.get("messages"), ensure_ascii=False): r.usage
                    for r in server.completions if r.usage is not None}
    finally:
        server.stop()
    with contextlib.closing(sqlite3.connect(str(cache))) as db:
        rows = db.execute("SELECT prompt_id, messages FROM judgements ORDER BY created").fetchall()
    kinds: dict = defaultdict(lambda: {"questions": 0, "tokens": 0, "cached": 0, "prompts": []})
    for pid, messages in rows:
        msgs = [m if isinstance(m, dict) else {"role": m[0], "content": m[1]} for m in json.loads(messages)]
        tokens = prompt_token_list({"model": MODEL, "messages": msgs})
        k = kinds[pid]
        k["questions"] += 1
        k["tokens"] += len(tokens)
        k["prompts"].append(tokens)
        usage = usage_of.get(json.dumps(msgs, ensure_ascii=False)) or {}
        k["cached"] += (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    for k in kinds.values():
        first, *rest = k.pop("prompts")
        shared = len(first)
        for p in rest:
            shared = min(shared, common_prefix_len(first, p))
        k["shared_prefix"] = shared
        k["shared_share"] = shared * k["questions"] / k["tokens"] if k["tokens"] else 0.0
        k["cached_share"] = k["cached"] / k["tokens"] if k["tokens"] else 0.0
    acc = res["accounting"]
    judged = sum(1 for o in res["occurrences"] if o.get("judge") not in (None, "rule"))
    return {"kinds": dict(kinds), "accounting": acc, "scored": res["scores"]["scored"], "judged": judged,
            "occurrences": res["summary"]["occurrences"], "outcomes": res["summary"]["outcomes"]}


def costs(acc: dict, model: str) -> dict:
    from termqa.judge.costs import estimate_cost
    from termqa.judge.costs import DEFAULT_PRICES, price_for

    price = price_for(model, DEFAULT_PRICES)
    k = 1000.0 / max(1, acc["source_words"])
    tin, cached, tout = acc["tokens_in"], acc["tokens_in_cached"], acc["tokens_out"]
    return {"model": model, "price": list(price),
            "with_caching": estimate_cost(tin, cached, tout, price) * k,
            "without_caching": estimate_cost(tin, 0, tout, price) * k}


def report(name: str, r: dict, models) -> list[str]:
    acc = r["accounting"]
    lines = [f"{name}: {r['occurrences']} occurrences, {r['scored']} scored, {r['judged']} judged by the model, "
             f"{acc['calls']} calls "
             f"({acc['calls'] / max(1, r['scored']):.3f} per scored occurrence), {acc['source_words']} source words"]
    lines.append(f"    {'kind':<18} {'questions':>9} {'mean tokens':>11} {'shared prefix':>13} {'shared':>7} "
                 f"{'cached':>7}")
    for pid, k in sorted(r["kinds"].items()):
        lines.append(f"    {pid:<18} {k['questions']:>9} {k['tokens'] / max(1, k['questions']):>11.0f} "
                     f"{k['shared_prefix']:>13} {k['shared_share'] * 100:>6.1f}% {k['cached_share'] * 100:>6.1f}%")
    share = acc["tokens_in_cached"] / max(1, acc["tokens_in"])
    lines.append(f"    prompt tokens {acc['tokens_in']}, reported cached {acc['tokens_in_cached']} "
                 f"({share * 100:.1f} %), output tokens {acc['tokens_out']}")
    for m in models:
        c = costs(acc, m)
        saving = 1 - c["with_caching"] / c["without_caching"] if c["without_caching"] else 0.0
        lines.append(f"    {m} {c['price']}: per 1,000 source words ${c['with_caching']:.5f} with provider caching, "
                     f"${c['without_caching']:.5f} without ({saving * 100:.1f} % less)")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=100_000, help="source words of the generated project")
    ap.add_argument("--concepts", type=int, default=2000)
    ap.add_argument("--term-rate", type=float, default=0.12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "termqa-bench-judge")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--lemmatiser", default="lookup")
    ap.add_argument("--price-model", action="append", help="model whose list price is applied (repeatable; "
                                                           "default gpt-4.1-mini and gpt-4.1)")
    ap.add_argument("--skip-samples", action="store_true")
    ap.add_argument("--results", type=Path, help="also write the figures as JSON here")
    a = ap.parse_args(argv)
    models = a.price_model or ["gpt-4.1-mini", "gpt-4.1"]
    a.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="cache-", dir=a.out))
    figures, ok = {}, True
    try:
        if not a.skip_samples:
            s = run([ROOT / "samples"], ROOT / "samples" / "pump-terms.tbx", work / "samples.sqlite",
                     a.concurrency, a.lemmatiser)
            print("\n".join(report("samples/", s, models)))
            print()
            figures["samples"] = s
        proj = bj.generated_project(a.words, a.concepts, a.term_rate, a.seed, a.out)
        g = run([proj / "xliff"], proj / "glossary.tbx", work / "generated.sqlite", a.concurrency, a.lemmatiser)
        print("\n".join(report(f"generated {a.words // 1000}k words, {a.concepts} concepts", g, models)))
        figures["generated"] = g
        share = g["accounting"]["tokens_in_cached"] / max(1, g["accounting"]["tokens_in"])
        ok = share >= CACHED_SHARE_GOAL
        print()
        print(f"  {'PASS' if ok else 'MISS'}  prompt tokens reported cached on the generated project: "
              f"{share * 100:.1f} % (goal >= {CACHED_SHARE_GOAL * 100:.0f} %)")
        print("reproduce: " + " ".join(shlex.quote(x) for x in [
            "python", "bench/bench_prompt_cache.py", "--words", str(a.words), "--concepts", str(a.concepts),
            "--term-rate", str(a.term_rate), "--seed", str(a.seed), "--concurrency", str(a.concurrency),
            "--lemmatiser", a.lemmatiser]))
        if a.results:
            for r in figures.values():
                r["costs"] = [costs(r["accounting"], m) for m in models]
            a.results.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
