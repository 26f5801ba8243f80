"""Per-occurrence verdicts of two `termqa check --json` results side by side: how outcomes moved, and the
occurrences that conformed before and are errors now (a change must never make those).

    python bench/verdict_diff.py BEFORE.json AFTER.json [--show N]

An occurrence is keyed by its document, unit, segment, concept and source span; the tally counts
(before, after) pairs of "outcome[/label] reason" and the undecided share of each side is printed.
"""
from __future__ import annotations

import argparse
import json
from collections import Counter


def _key(o: dict) -> tuple:
    return (o["doc_id"].rsplit("/", 1)[-1], o.get("unit_id"), o.get("segment_id"), o.get("segment_index"),
            o["concept_id"], tuple(o.get("source_span") or ()))


def _verdict(o: dict) -> str:
    out = o["outcome"] + (f"/{o['label']}" if o.get("label") else "")
    return out if o["outcome"] != "unjudged" else f"{out}: {o['reason']}"


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return {_key(o): o for o in json.load(f)["occurrences"]}


def compare(before: dict, after: dict) -> dict:
    """{'moves': Counter of (before, after) verdicts that changed, 'regressions': keys that conformed before and
    are errors now, 'undecided': (before share, after share), 'counts': (before n, after n), 'conforming_lost': conforming occurrences a segment's concept lost}."""
    moves: Counter = Counter()
    regressions = []
    for k in before.keys() | after.keys():
        b, a = before.get(k), after.get(k)
        vb = _verdict(b) if b else "(absent)"
        va = _verdict(a) if a else "(absent)"
        if vb != va:
            moves[(vb, va)] += 1
        if b and a and b["outcome"] == "conforming" and a["outcome"] == "error":
            regressions.append(k)

    # an occurrence that conformed may lose its rendering to another occurrence of the same concept in its
    # segment (which rendering answers which occurrence): count a loss only where the segment has fewer
    # conforming occurrences of the concept than before
    def per_segment(d: dict) -> Counter:
        return Counter(k[:5] for k, o in d.items() if o["outcome"] == "conforming")

    pb, pa = per_segment(before), per_segment(after)
    lost = sum(max(0, n - pa.get(k, 0)) for k, n in pb.items())

    def share(d: dict) -> float:
        return sum(o["outcome"] == "unjudged" for o in d.values()) / max(1, len(d))

    return {"moves": moves, "regressions": regressions, "conforming_lost": lost, "undecided": (share(before), share(after)),
            "counts": (len(before), len(after))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--show", type=int, default=15, help="changes to list, most frequent first")
    args = ap.parse_args()
    before, after = load(args.before), load(args.after)
    r = compare(before, after)
    print(f"occurrences {r['counts'][0]} -> {r['counts'][1]}; undecided {r['undecided'][0]:.1%} -> "
          f"{r['undecided'][1]:.1%}; conforming -> error: {len(r['regressions'])}; conforming lost per segment and "
          f"concept: {r['conforming_lost']}")
    for (vb, va), n in r["moves"].most_common(args.show):
        print(f"  {n:5d}  {vb[:80]}  ->  {va[:80]}")
    for k in r["regressions"][:args.show]:
        print("  REGRESSION", k, _verdict(after[k]), after[k].get("target_text"))


if __name__ == "__main__":
    main()
