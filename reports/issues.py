"""What the reports say to a person: short document names, "what to do" for one occurrence, and the
flags grouped so that one problem repeated forty times is one line, not forty.

Shared by the HTML report, the CSV and the spreadsheet, so the three say the same thing. Reads only
the result dict (`termqa check --json`).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Optional

from termqa.docnames import base_name, document_names as display_names  # base_name: re-exported for the reports
from termqa.labels import label_info
from termqa.problems import document_languages, problem_id

ISSUE_OUTCOMES = ("error", "unjustified")  # what the translator has to fix
FLAGGED_OUTCOMES = ("error", "unjustified", "unjudged", "justified")


def form_displays(result: dict) -> dict:
    """(concept_id, source_form) -> the source form as people read it.

    `source_form` is termqa's lemma key ("1 nation" for "First Nations") and is never shown: the
    result's per-concept `forms` carry its display text (the surface the documents use most); an
    older or hand-made result without them falls back to the occurrences' own `source_display`,
    then to their most frequent `source_text`."""
    out: dict = {}
    for c in result.get("concepts") or []:
        for f in c.get("forms") or []:
            if f.get("source_display"):
                out[(c["id"], f["source_form"])] = f["source_display"]
    seen: dict = defaultdict(Counter)
    for o in result.get("occurrences") or []:
        key = (o["concept_id"], o["source_form"])
        if key in out:
            continue
        if o.get("source_display"):
            out[key] = o["source_display"]
        elif o.get("source_text"):
            seen[key][o["source_text"]] += 1
    for key, c in seen.items():
        out.setdefault(key, c.most_common(1)[0][0])
    return out


def expected_text(o: dict, refs: dict, concepts: dict, tgt_lang: str = "") -> Optional[str]:
    """What the target should say: the reference of this source form in this document, else the
    glossary's preferred (or first) target term."""
    ref = o.get("reference") or refs.get((o["doc_id"], o["concept_id"], o["source_form"])) or {}
    if ref.get("text"):
        return ref["text"]
    c = concepts.get(o["concept_id"]) or {}
    terms = [t for t in c.get("terms") or [] if tgt_lang and (t.get("lang") or "").split("-")[0] == tgt_lang.split("-")[0]]
    for t in terms:
        if t.get("status") == "preferred":
            return t.get("text")
    return terms[0].get("text") if terms else None


def what_to_do(o: dict, expected: Optional[str]) -> str:
    """One imperative line for the translator (empty when nothing is to be done)."""
    outcome, found = o["outcome"], o.get("target_text")
    info = label_info(o.get("label")) or {}
    if outcome in ISSUE_OUTCOMES:
        if o.get("label") == "A5":
            return f"keep “{o.get('source_text')}” unchanged" + (f" (found “{found}”)" if found else "")
        if found and expected and found != expected:
            return f"replace “{found}” with “{expected}”"
        if not found and expected:
            return f"translate the term as “{expected}”"
        if info.get("name"):
            return f"fix: {info['name']}"
        return "fix the term"
    if outcome == "unjudged":
        return "check: not judged" + (f" ({o['reason']})" if o.get("reason") else "")
    return ""


def group_flags(result: dict, *, outcomes=FLAGGED_OUTCOMES, names: Optional[dict] = None,
                tgt_lang: str = "") -> list[dict]:
    """Flagged occurrences grouped by problem (termqa.problems: concept, source form, rendering,
    rule, language) and verdict, worst first.

    Each group: problem (its id), concept_id, found (target text or None), expected, outcome, label, count,
    penalty (sum), units [(doc name, unit id)...] in document order, occurrences (the dicts), surfaces."""
    refs = {(r["doc_id"], r["concept_id"], r["source_form"]): r for r in result.get("references") or []}
    concepts = {c["id"]: c for c in result.get("concepts") or []}
    names = names or display_names(result.get("documents") or [])
    # several target languages: a flag is grouped, and its expected term read, within its own language
    doc_lang = document_languages(result)
    groups: dict = {}
    for o in result.get("occurrences") or []:
        if o["outcome"] not in outcomes:
            continue
        pid = problem_id(o, doc_lang.get(o["doc_id"]))
        key = (pid, o["outcome"], o.get("label"))
        g = groups.get(key)
        if g is None:
            g = groups[key] = {"problem": pid, "concept_id": o["concept_id"], "found": o.get("target_text"),
                               "outcome": o["outcome"], "label": o.get("label"), "occurrences": [],
                               "expected": Counter(), "surfaces": Counter(), "reasons": Counter(),
                               "founds": Counter(), "penalty": 0.0}
        g["occurrences"].append(o)
        g["founds"][o.get("target_text")] += 1
        exp = expected_text(o, refs, concepts, doc_lang.get(o["doc_id"]) or tgt_lang)
        if exp:
            g["expected"][exp] += 1
        g["surfaces"][o["source_text"]] += 1
        if o.get("reason"):
            g["reasons"][o["reason"]] += 1
        g["penalty"] += o.get("penalty") or 0.0
    out = []
    rank = {k: i for i, k in enumerate(("error", "unjustified", "unjudged", "justified"))}
    for g in groups.values():
        occs = g["occurrences"]
        units = list(dict.fromkeys((names.get(o["doc_id"], o["doc_id"]), o["unit_id"]) for o in occs))
        found = g["founds"].most_common(1)[0][0] if g["founds"] else g["found"]
        out.append({
            "problem": g["problem"], "concept_id": g["concept_id"], "found": found, "outcome": g["outcome"],
            "label": g["label"], "count": len(occs), "penalty": g["penalty"],
            "expected": g["expected"].most_common(1)[0][0] if g["expected"] else None,
            "surfaces": [s for s, _ in g["surfaces"].most_common()],
            "reason": g["reasons"].most_common(1)[0][0] if g["reasons"] else "",
            "units": units, "occurrences": occs,
        })
    out.sort(key=lambda g: (rank.get(g["outcome"], 9), -g["penalty"], -g["count"], str(g["concept_id"]),
                            g["found"] or ""))
    return out


def units_text(units: list, limit: int = 12) -> str:
    """'manual.xlf: 12, 14, 20; guide.xlf: 3 (+4 more)' — units grouped by document."""
    by_doc: dict = defaultdict(list)
    for doc, unit in units[:limit]:
        by_doc[doc].append(str(unit))
    text = "; ".join(f"{doc}: {', '.join(us)}" for doc, us in by_doc.items())
    if len(units) > limit:
        text += f" (+{len(units) - limit} more)"
    return text

