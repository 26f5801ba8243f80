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
from termqa.lang.langtags import language_name, primary
from termqa.problems import document_languages, problem_id
from termqa.results import triage
from termqa.results.triage import review_class

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


def what_to_do(o: dict, expected: Optional[str], provenance: Optional[str] = None) -> str:
    """One instruction for the translator (empty when nothing is to be done): "Replace X with Y (glossary)"
    for an error, "Check whether X is right for S" for a question termqa could not decide, by its class
    (termqa.results.triage). `provenance`: where `expected` comes from (the glossary, the document's own
    usage, the judge); default: the occurrence's reference."""
    outcome, found, src = o["outcome"], o.get("target_text"), o.get("source_text") or ""
    info = label_info(o.get("label")) or {}
    prov = provenance or (o.get("reference") or {}).get("provenance") or ("glossary" if expected else None)
    whence = f" ({_WHENCE.get(prov, prov)})" if prov and expected else ""
    if outcome in ISSUE_OUTCOMES:
        if o.get("label") == "A5":
            return f"Keep “{src}” unchanged" + (f" (found “{found}”)" if found else "")
        if found and expected and found != expected:
            return f"Replace “{found}” with “{expected}”{whence}"
        if not found and expected:
            return f"Translate “{src}” as “{expected}”{whence}"
        if info.get("name"):
            return f"Fix: {info['name']}" + (f" (“{found}” for “{src}”)" if found else f" (“{src}”)")
        return f"Fix the translation of “{src}”"
    if outcome == "unjudged":
        return _question(review_class(o), found, src, expected)
    return ""


# where an expected rendering comes from, in words (a reference's provenance)
_WHENCE = {"glossary": "glossary", "validated": "as elsewhere in the document", "pseudo": "as elsewhere in the document",
           "generated": "the judge's suggestion"}


def _question(c, found: Optional[str], src: str, expected: Optional[str]) -> str:
    """The instruction for an undecided occurrence: a question, never an order."""
    exp = f"; the glossary says “{expected}”" if expected else ""
    if c is triage.NOT_FOUND or not found:
        return f"Check how “{src}” is translated" + (f": “{expected}” (glossary) was not found" if expected else "")
    if c is triage.KEPT:
        return f"Check whether “{found}” may stay untranslated here" + exp
    if c is triage.SPELLING:
        return f"Check the spelling of “{found}”" + (f"; the glossary writes “{expected}”" if expected else "")
    if c is triage.INFLECTED:
        return f"Check that “{found}” is a right form of “{expected or src}”"
    if c is triage.DERIVED:
        return f"Check that “{found}”, made from “{expected or src}”, is right here"
    if c is triage.MISALIGNED:
        return f"Check that this target segment translates its source (“{src}” → “{found}”)"
    return f"Check whether “{found}” is right for “{src}”" + exp


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
    refs_prov = {k: r.get("provenance") for k, r in refs.items()}
    doc_src = {d["doc_id"]: d.get("src_lang") for d in result.get("documents") or ()}
    for g in groups.values():
        occs = g["occurrences"]
        units = list(dict.fromkeys((names.get(o["doc_id"], o["doc_id"]), o["unit_id"]) for o in occs))
        found = g["founds"].most_common(1)[0][0] if g["founds"] else g["found"]
        first = occs[0]
        review = review_class(first) if g["outcome"] == "unjudged" else None
        expected = g["expected"].most_common(1)[0][0] if g["expected"] else None
        prov = (first.get("reference") or {}).get("provenance") or \
            refs_prov.get((first["doc_id"], first["concept_id"], first["source_form"]))
        out.append({
            "problem": g["problem"], "concept_id": g["concept_id"], "found": found, "outcome": g["outcome"],
            "label": g["label"], "count": len(occs), "penalty": g["penalty"],
            "expected": expected,
            "surfaces": [s for s, _ in g["surfaces"].most_common()],
            "reason": g["reasons"].most_common(1)[0][0] if g["reasons"] else "",
            "units": units, "occurrences": occs,
            # an undecided problem's class ("different word", "inflected form"...) and how likely it is wrong
            "review": _review_text(review, doc_src.get(first["doc_id"])) if review else None, "review_key": review.key if review else None,
            "likely": review.likely if review else None,
            "what_to_do": what_to_do(dict(first, target_text=found), expected, prov),
            "_rank": review.rank if review else 0,
        })
    # errors worst first; then the questions, those most likely wrong first (termqa.results.triage), the
    # most repeated first within a class
    out.sort(key=lambda g: (rank.get(g["outcome"], 9), g.pop("_rank"), -g["penalty"], -g["count"],
                            str(g["concept_id"]), g["found"] or ""))
    return out


def _review_text(c, src_lang: Optional[str]) -> str:
    """The class in words; "kept in English" rather than "kept in the source language" when it is known."""
    if c is triage.KEPT and src_lang:
        name = language_name(primary(src_lang))
        if name and name != primary(src_lang):
            return f"kept in {name}"
    return c.text


FIX_FIRST_OUTCOMES = ("error", "unjustified", "unjudged")


def fix_first(result: dict, *, names: Optional[dict] = None, tgt_lang: str = "") -> list[dict]:
    """The problems a person has to act on, in the order to act: the errors to fix (worst first), then the
    questions termqa could not decide (most likely wrong first). The report's "Fix first" and "Review
    first" panels, the spreadsheet's Problems sheet and the console read this one list, so they agree on
    which problems there are, how many and in which order. Each group has `kind`: "fix" or "review"."""
    groups = group_flags(result, outcomes=FIX_FIRST_OUTCOMES, names=names, tgt_lang=tgt_lang)
    for g in groups:
        g["kind"] = "review" if g["outcome"] == "unjudged" else "fix"
    return groups


def units_text(units: list, limit: int = 12) -> str:
    """'manual.xlf: 12, 14, 20; guide.xlf: 3 (+4 more)' — units grouped by document."""
    by_doc: dict = defaultdict(list)
    for doc, unit in units[:limit]:
        by_doc[doc].append(str(unit))
    text = "; ".join(f"{doc}: {', '.join(us)}" for doc, us in by_doc.items())
    if len(units) > limit:
        text += f" (+{len(units) - limit} more)"
    return text

