"""The verdict of a run in words: what was decided, the same in the console, the report, the JSON and
the spreadsheet.

A run is PASS only when every occurrence it checked was decided, by a rule, the judge or a reviewer, and
nothing it decided is a problem (or, under `--fail-on`, no condition holds). Occurrences termqa could not
decide are never hidden under a PASS: without a judge (counting mode, the default) they are what a person
has to look at, so they make the run REVIEW. The states, worst first:

- NOT CHECKED: no occurrence could be checked: no glossary term occurs in the source, or every segment
  holding one is untranslated (`termqa.results.gate.nothing_checked`). `termqa check` exits 2.
- FAIL: a `--fail-on` condition holds. Exit 1.
- ERRORS: no gate was given, and errors or unjustified variants were found. Exit 0.
- REVIEW: nothing failed, but occurrences are left undecided ("REVIEW: 69 to check"). Exit 0, also when a
  `--fail-on` gate passed: the gate's condition held, the words still say what is left.
- PASS: every checked occurrence was decided, and no error was found (or the gate passed). Exit 0.

Reads only the result dict (`termqa check --json`), so a saved result gets the same words again.
"""
from __future__ import annotations

from typing import Iterable, Optional

from termqa.results.gate import failures, nothing_checked, not_checked

# state -> (the word people read, how bad it is: the worst state of several languages is the run's)
STATES = {
    "not_checked": ("NOT CHECKED", 4),
    "fail": ("FAIL", 3),
    "errors": ("ERRORS", 2),
    "review": ("REVIEW", 1),
    "pass": ("PASS", 0),
}


def _plural(n: int, one: str, many: Optional[str] = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _conditions(fail_on) -> list[str]:
    return [c.strip() for raw in (fail_on or ()) for c in str(raw).split(",") if c.strip()]


def run_verdict(result: dict, fail_on: Iterable[str] = ()) -> dict:
    """The verdict of `result` (a whole result, or one language's part of it): state, word, the counts
    behind it and `line`, the one sentence every output shows.

    `fail_on`: the `--fail-on` conditions (none: the verdict says what was found, with no gate)."""
    summary = result.get("summary") or {}
    oc = summary.get("outcomes") or {}
    errors = int(oc.get("error", 0)) + int(oc.get("unjustified", 0))
    to_review = int(oc.get("unjudged", 0))
    found = int(summary.get("occurrences") or 0)
    skipped = not_checked(result)
    decided = found - to_review
    conditions = _conditions(fail_on)
    empty = nothing_checked(result)
    failed = failures(result, conditions) if conditions else []  # nothing checked is the first failure
    if empty:
        state = "not_checked"
    elif failed:
        state = "fail"
    elif errors and not conditions:
        state = "errors"
    elif to_review:
        state = "review"
    else:
        state = "pass"
    word = STATES[state][0]
    words, checked = summary.get("source_words"), summary.get("checked_words")
    counts = {
        "errors": errors, "to_review": to_review, "decided": decided, "occurrences": found,
        "not_checked": skipped, "decided_share": (decided / (found + skipped)) if found + skipped else None,
        "source_words": words, "checked_words": checked,
        "units_not_translated": int(summary.get("units_not_translated") or 0),
    }
    return {"state": state, "word": word, **counts, "gate": conditions or None, "failed": failed,
            "reason": empty[empty.find(":") + 1:].strip() if empty else "",
            "line": _line(state, word, counts, failed, empty)}


def _line(state: str, word: str, c: dict, failed: list, empty: str) -> str:
    """"REVIEW: 0 errors, 69 to review; 1,840 of 1,909 occurrences decided (96%); 5,810 of 11,020 source
    words checked" — the verdict first, then what it rests on."""
    if state == "not_checked":
        return f"{word}: {empty[empty.find(':') + 1:].strip()}" if empty else word
    head = f"{word}: {_plural(c['errors'], 'error')}, {c['to_review']:,} to review"
    if failed:
        head += f" (--fail-on: {'; '.join(failed)})"
    total = c["occurrences"] + c["not_checked"]
    share = c["decided_share"]
    pct = "" if share is None else f" ({_pct(share)})"
    parts = [head, f"{c['decided']:,} of {_plural(total, 'occurrence')} decided{pct}"]
    words, checked = c["source_words"], c["checked_words"]
    if words and checked is not None and checked < words:
        parts.append(f"{checked:,} of {words:,} source words checked ({_pct(checked / words)}; the rest is not "
                     "translated yet)")
    return "; ".join(parts)


def _pct(x: float) -> str:
    """A share as people read it: never "0%" or "100%" for what is not exactly that."""
    if 0 < x < 0.01:
        return "< 1%"
    if 0.99 < x < 1:
        return "> 99%"
    return f"{round(100 * x)}%"


def worst(verdicts: Iterable[dict]) -> Optional[dict]:
    """The worst of several verdicts (one per language): the run's state is its worst language's."""
    vs = list(verdicts)
    return max(vs, key=lambda v: STATES[v["state"]][1]) if vs else None


def with_verdicts(data: dict, fail_on: Iterable[str] = ()) -> dict:
    """`data` with its verdict (`data["verdict"]`) and each language's own (`languages[L]["verdict"]`), under
    the gate `fail_on`. A run of several languages reads as its worst language, never better: the
    totals' own verdict could hide a language nothing was checked in."""
    langs = data.get("languages") or {}
    for part in langs.values():
        part["verdict"] = run_verdict(part, fail_on)
    whole = run_verdict(data, fail_on)
    if langs:
        bad = worst(p["verdict"] for p in langs.values())
        if bad is not None and STATES[bad["state"]][1] > STATES[whole["state"]][1]:
            names = [lang for lang, p in langs.items() if p["verdict"]["state"] == bad["state"]]
            whole = dict(whole, state=bad["state"], word=bad["word"],
                         line=f"{bad['word']} in {', '.join(names)}; " + whole["line"].split(": ", 1)[-1])
    data["verdict"] = whole
    return data
