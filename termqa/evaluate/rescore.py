"""Re-score a saved result under another penalty table: no LLM call, no file re-read."""
from __future__ import annotations

from collections import Counter

from termqa.errors import TermqaError
from termqa.score import rescore_rows, scores, validate_table
from termqa.results.languages import totals_only
from termqa.signature import Signature


def rescore_result(data: dict, penalties: dict) -> dict:
    """A saved check result with every score recomputed under `penalties` and the derived signature."""
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
    out["signature"] = Signature.from_dict(data["signature"]).rescored(table).to_dict()
    out["summary"] = {**data["summary"], "labels": dict(Counter(r["label"] for r in rows if r["label"]).most_common())}
    if data.get("languages"):  # several target languages: each rescored on its own, no average across them
        langs = {}
        for lang, part in data["languages"].items():
            ids = set(part["documents"])
            mine = [r for r in rows if r["doc_id"] in ids]
            langs[lang] = {**part, "scores": {k: v for k, v in scores(mine).items() if k != "documents"},
                           "summary": {**part["summary"], "labels": dict(Counter(
                               r["label"] for r in mine if r["label"]).most_common())}}
            langs[lang].pop("gate", None)  # the gate was the old scores'
        out["languages"] = langs
        totals_only(out)
    return out
