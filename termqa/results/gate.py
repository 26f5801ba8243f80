"""`--fail-on`: turn a result into a CI verdict (exit 1 when any condition holds).

Conditions, any number of them:
- an outcome name (`error`, `unjustified`, `unjudged`, `justified`): fails when any occurrence has it;
- `outcome>N`: fails when more than N occurrences have it (e.g. `error>3`);
- a label (`A4`, `F`, `neutralisation`, ...): fails when any occurrence carries it;
- `score>X` / `micro>X` / `by_concept>X` / `by_source_form>X`: fails when that score exceeds X;
- `coverage<X`: fails when less than X of the occurrences could be scored; occurrences in untranslated
  segments count as not scored.

Whatever the conditions, a run that could check no occurrence (`nothing_checked`: no glossary term occurs
in the source, or the targets are missing or untranslated) never passes: it is the first failure, and `termqa check` exits 2 ("nothing checked").
"""
from __future__ import annotations

import re

from termqa.errors import UsageError
from termqa.labels import CONSISTENCY_LABELS, ERROR_CODES, NOTHING_CHECKED
from termqa.model import OUTCOMES

_SCORES = {"score": "system", "system": "system", "micro": "micro", "by_concept": "by_concept",
           "by_source_form": "by_source_form"}
_COND = re.compile(r"^\s*([A-Za-z_0-9]+)\s*(?:([<>]=?)\s*([0-9.]+))?\s*$")


def parse(conditions) -> list[tuple[str, str, float]]:
    out = []
    for raw in conditions:
        for cond in str(raw).split(","):
            if not cond.strip():
                continue
            m = _COND.match(cond)
            if not m:
                raise UsageError(f"--fail-on: cannot read '{cond}'", fix="e.g. error, unjudged, error>3, score>0.2")
            name, op, num = m.group(1), m.group(2), m.group(3)
            known = set(OUTCOMES) | set(ERROR_CODES) | set(CONSISTENCY_LABELS) | set(_SCORES) | {"coverage"}
            if name not in known:
                raise UsageError(f"--fail-on: unknown condition '{name}'",
                                 fix="use an outcome, a label, score/micro/by_concept/by_source_form or coverage")
            if name in _SCORES and not op:
                raise UsageError(f"--fail-on: '{name}' needs a threshold", fix=f"e.g. '{name}>0.2'")
            if name == "coverage" and not op:
                raise UsageError("--fail-on: 'coverage' needs a threshold", fix="e.g. 'coverage<0.9'")
            out.append((name, op or ">", float(num) if num else 0.0))
    return out


def _cmp(value, op, limit) -> bool:
    return {"<": value < limit, "<=": value <= limit, ">": value > limit, ">=": value >= limit}[op]


def not_checked(result: dict) -> int:
    """Occurrences found in the source but not checked (their segment has no translation)."""
    return int((result.get("summary") or {}).get("occurrences_in_untranslated_segments") or 0)


def nothing_checked(result: dict) -> str:
    """Why no occurrence of `result` could be checked (the run's alert), or '' when some were."""
    summary = result.get("summary") or {}
    if summary.get("occurrences"):
        return ""
    for alert in result.get("alerts") or []:
        if str(alert).startswith(NOTHING_CHECKED):
            return str(alert)
    n = not_checked(result)
    if n:
        return f"{NOTHING_CHECKED}: the {n} term occurrences are all in untranslated segments"
    if "occurrences" in summary:  # a run (or one language of it) in which no glossary term occurs
        return f"{NOTHING_CHECKED}: no glossary term occurs in the source text"
    return ""


def coverage(result: dict):
    """The share of the occurrences found that could be scored, those in untranslated segments counted as
    not scored (None when no occurrence was found at all)."""
    s = result.get("scores") or {}
    total = (s.get("scored") or 0) + (s.get("unjudged") or 0) + not_checked(result)
    return (s.get("scored") or 0) / total if total else None


def failures(result: dict, conditions) -> list[str]:
    """The conditions that hold for `result`, as readable strings (empty: the gate passes). A run that
    checked nothing fails first, whatever the conditions."""
    empty = nothing_checked(result)
    failed = [NOTHING_CHECKED + (f" ({not_checked(result)} occurrences in untranslated segments)"
                                 if not_checked(result) else "")] if empty else []
    summary = result["summary"]
    for name, op, limit in parse(conditions):
        if name in OUTCOMES:
            value = summary["outcomes"].get(name, 0)
        elif name in _SCORES:
            value = result["scores"].get(_SCORES[name])
            if value is None:
                continue
        elif name == "coverage":
            value = coverage(result)
            if value is None:
                continue
        else:
            value = summary["labels"].get(name, 0)
        if _cmp(value, op, limit):
            failed.append(f"{name}{op}{limit:g} (found {value:g})")
    return failed
