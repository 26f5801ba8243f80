"""Re-score a saved result under another penalty table: no LLM call, no file re-read."""
from __future__ import annotations

import hashlib
from collections import Counter

from termqa.errors import TermqaError
from termqa.labels import penalty_table_hash
from termqa.pipeline.score import rescore_rows, scores, validate_table


def rescore_result(data: dict, penalties: dict) -> dict:
    if not isinstance(data, dict) or data.get("kind") != "check" or "occurrences" not in data:
        raise TermqaError("not a termqa check result (expected the JSON written by `termqa check --json`)")
    table = validate_table(penalties)
    try:
        rows = rescore_rows(data["occurrences"], table)
    except KeyError as exc:
        raise TermqaError(f"cannot re-score: {exc.args[0]}") from None
    sc = scores(rows)
    out = dict(data)
    out["occurrences"] = rows
    out["scores"] = {k: v for k, v in sc.items() if k != "documents"}
    docs = []
    for d in data.get("documents", []):
        s = sc["documents"].get(d["doc_id"])
        docs.append({**d, **s} if s else d)
    out["documents"] = docs
    sig = dict(data["signature"])
    sig["penalties"] = table
    sig["penalties_hash"] = penalty_table_hash(table)
    parts = [p for p in sig.get("string", "").split("|") if not p.startswith("pen:")]
    sig["string"] = "|".join(parts + [f"pen:{sig['penalties_hash']}"])
    sig["id"] = hashlib.sha256(sig["string"].encode()).hexdigest()[:12]
    sig["rescored_from"] = data["signature"].get("penalties_hash")
    out["signature"] = sig
    out["summary"] = {**data["summary"], "labels": dict(Counter(r["label"] for r in rows if r["label"]).most_common())}
    return out
