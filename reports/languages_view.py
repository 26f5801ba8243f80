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

from .issues import ISSUE_OUTCOMES, group_flags, units_text


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
                   todo_line: Callable, limit: int = 5) -> Optional[list[dict]]:
    """One view per target language of a multilingual result (None for a single-language one)."""
    langs = result.get("languages")
    if not langs:
        return None
    out = []
    for lang, part in langs.items():
        sub = slice_result(result, lang)
        todo = [dict(g, line=todo_line(g, concept_name.get(g["concept_id"], str(g["concept_id"]))),
                     name=concept_name.get(g["concept_id"], str(g["concept_id"])),
                     anchor=concept_anchor.get(g["concept_id"]), units_text=units_text(g["units"], limit=6))
                for g in group_flags(sub, names=names, tgt_lang=lang) if g["outcome"] in ISSUE_OUTCOMES]
        g = gate(sub, fail_on)
        out.append({
            "lang": lang, "name": language_name(lang), "gate": g, "failed": g["state"] == "fail",
            "headline": headline(sub, part.get("source_words")),
            "top_problem": _top_problem(part["summary"]), "documents": len(part["documents"]),
            "occurrences": part["summary"]["occurrences"], "scores": part["scores"],
            "todo": todo[:limit], "todo_more": max(0, len(todo) - limit), "todo_total": len(todo),
            "backlog": backlog_view(sub, limit),
        })
    return out


def combined_gate(overall: dict, views: Optional[list]) -> dict:
    """The first screen's verdict over several languages: under `--fail-on`, FAIL when any language
    fails (the gate holds per language), naming the languages; else the totals' plain state."""
    if not views or not overall.get("conditions"):
        return overall
    failed = [f"{lv['lang']}: {f}" for lv in views for f in lv["gate"]["failed"]]
    bad = [lv["name"] for lv in views if lv["gate"]["failed"]]
    return dict(overall, state="fail" if failed else "pass", word="FAIL" if failed else "PASS", failed=failed,
                found=overall["found"] + (f"; failed: {', '.join(bad)}" if bad else "; every language passes"))


__all__ = ["language_views", "combined_gate"]
