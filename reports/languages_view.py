"""The report's view of a delivery in several target languages: one row per language on the first
screen, and each language's own "Fix first" and "What to add to the glossary".

Each language is the result sliced to its documents (termqa.results.languages.slice_result); its
verdict, headline figures, problems and backlog are made by the report's own functions, handed in by
html.py (`parts`), so a language reads exactly as a report of that language alone would.
"""
from __future__ import annotations

from typing import Callable, Mapping, Optional

from termqa.labels import CODE_DESCRIPTIONS
from termqa.lang.langtags import language_name
from termqa.results.langslice import slice_result
from termqa.results.verdict import STATES

from .issues import fix_first


def _top_problem(summary: Mapping) -> str:
    """The most frequent problem of a language, in words ("—" when there is none)."""
    labels = summary.get("labels") or {}
    if labels:
        code, n = max(labels.items(), key=lambda kv: (kv[1], kv[0]))
        return f"{CODE_DESCRIPTIONS.get(code, code.replace('_', ' '))} ×{n}"
    reasons = summary.get("unjudged_reasons") or {}
    if reasons:
        reason, n = max(reasons.items(), key=lambda kv: (kv[1], kv[0]))
        return f"not judged: {reason} ×{n}"
    return "—"


def language_views(result: Mapping, fail_on, *, gate: Callable, headline: Callable, backlog_view: Callable,
                   names: Mapping, concept_name: Mapping, concept_anchor: Mapping,
                   todo_views: Callable, limit: int = 5) -> Optional[list[dict]]:
    """One view per target language of a multilingual result (None for a single-language one)."""
    langs = result.get("languages")
    if not langs:
        return None
    out = []
    for lang, part in langs.items():
        sub = slice_result(result, lang)
        todo, review = todo_views(fix_first(sub, names=names, tgt_lang=lang), concept_name, concept_anchor)
        g = gate(sub, fail_on)
        out.append({
            "lang": lang, "name": language_name(lang), "gate": g, "failed": g["state"] == "fail",
            "headline": headline(sub, None),  # over its checked words, as the whole run
            "top_problem": _top_problem(part["summary"]), "documents": len(part["documents"]),
            "occurrences": part["summary"]["occurrences"], "scores": part["scores"],
            "todo": todo[:limit], "todo_more": max(0, len(todo) - limit), "todo_total": len(todo),
            "review": review[:limit], "review_more": max(0, len(review) - limit), "review_total": len(review),
            "review_occurrences": sum(g["count"] for g in review),
            "backlog": backlog_view(sub, limit),
        })
    return out


def combined_gate(overall: dict, views: Optional[list]) -> dict:
    """The first screen's verdict over several languages: the worst language's word (a language nothing
    was checked in, or one that fails the gate, is never hidden by the totals), naming the languages."""
    if not views:
        return overall
    rank = {k: r for k, (_w, r) in STATES.items()}
    bad = max(views, key=lambda lv: rank[lv["gate"]["state"]])["gate"]
    failed = [f"{lv['lang']}: {f}" for lv in views for f in lv["gate"]["failed"]]
    if rank[bad["state"]] <= rank[overall["state"]]:
        return dict(overall, failed=failed or overall["failed"])
    langs = [lv["name"] for lv in views if lv["gate"]["state"] == bad["state"]]
    return dict(overall, state=bad["state"], word=bad["word"], failed=failed,
                found=f"{bad['word']} in {', '.join(langs)}; " + overall["found"])


__all__ = ["language_views", "combined_gate"]
