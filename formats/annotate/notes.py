"""Which occurrences of a result become annotations, and what each one says.

An `Annotation` is the dialect-free record the writers place: where (document, unit, segment, target
span), what (the note text, ITS type and severity) and how urgent (outcome, penalty).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from termqa.errors import InputError, UsageError
from termqa.labels import CODE_DESCRIPTIONS, ITS_TYPES

OUTCOMES_BY_LEVEL = {
    "errors": ("error",),
    "flagged": ("error", "unjustified", "unjudged"),
    "all": ("error", "unjustified", "unjudged", "justified"),
}


@dataclass(frozen=True)
class Annotation:
    """One flagged occurrence, ready to be written into the bilingual file.

    `doc_id` names the `<file>`: the reader's path for a single-file XLIFF, f"{path}#{k}" for the k-th
    (1-based) of several. `seg_id` is the mrk mid (1.2) / segment id (2.x), "" for the whole unit.
    `target_span` is in the plain target text of the segment. `target_text`, when given, is checked
    against the file's text at that span (and searched for when the offsets disagree).
    """

    doc_id: str
    unit_id: str
    seg_id: str
    outcome: str
    label: Optional[str]
    penalty: Optional[float]
    text: str
    its_type: str
    severity: float
    target_span: Optional[tuple[int, int]]
    target_text: Optional[str] = None


def num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)


def _severity(outcome: str, penalty) -> float:
    # ITS severity is 0-100. Errors scale with the penalty (A4/A5/A6/C at 4 points reach 100).
    if outcome == "error":
        p = float(penalty) if penalty is not None else 1.0
        return float(min(100.0, 40.0 + 15.0 * p))
    return {"unjustified": 30.0, "unjudged": 10.0}.get(outcome, 0.0)


def _its_type(occ: dict) -> str:
    label = occ.get("label")
    if label in ITS_TYPES:
        return ITS_TYPES[label]
    if occ.get("target_span") is None and occ.get("outcome") in ("unjudged", "error"):
        return "omission"
    return "terminology"


def note_text(occ: dict) -> str:
    """The concise note: verdict and label, source term -> target rendering, expected, justification."""
    outcome = occ.get("outcome") or "unjudged"
    label = occ.get("label")
    head = outcome
    if label:
        desc = CODE_DESCRIPTIONS.get(label) or str(label).replace("_", " ")
        head += f" {label}" if label in CODE_DESCRIPTIONS else ""
        head += f" ({desc})"
    if occ.get("penalty") is not None and outcome in ("error", "unjustified"):
        head += f", penalty {num(occ['penalty'])}"
    src = occ.get("source_text") or occ.get("source_form") or ""
    tgt = occ.get("target_text")
    body = f'"{src}" -> "{tgt}"' if tgt else f'"{src}" -> not found in the target'
    ref = (occ.get("reference") or {}).get("text")
    if ref and ref != tgt:
        body += f'; expected "{ref}"'
    reason = (occ.get("reason") or "").strip()
    return f"{head}: {body}." + (f" {reason}" if reason else "")


def annotations_from_result(result: dict, *, level: str = "flagged") -> list[Annotation]:
    """Annotations for the occurrences of a `termqa check` result object at `level`.

    levels: "errors" (error only), "flagged" (error, unjustified, unjudged), "all" (every
    non-conforming occurrence: justified too).
    """
    if level not in OUTCOMES_BY_LEVEL:
        raise UsageError(f"unknown annotation level {level!r}", fix="use errors, flagged or all")
    if not isinstance(result, dict) or "occurrences" not in result:
        raise InputError("result", "is not a termqa result object (no 'occurrences')")
    wanted = OUTCOMES_BY_LEVEL[level]
    run = (result.get("signature") or {}).get("id")
    tag = f" [termqa run {run}]" if run else ""  # the run's full signature is in its JSON/HTML report
    out = []
    for occ in result["occurrences"]:
        outcome = occ.get("outcome")
        if outcome not in wanted:
            continue
        span = occ.get("target_span")
        out.append(Annotation(
            doc_id=str(occ.get("doc_id", "")),
            unit_id=str(occ.get("unit_id", "")),
            seg_id=str(occ.get("segment_id") or ""),
            outcome=outcome,
            label=occ.get("label"),
            penalty=occ.get("penalty"),
            text=note_text(occ) + tag,
            its_type=_its_type(occ),
            severity=_severity(outcome, occ.get("penalty")),
            target_span=(int(span[0]), int(span[1])) if span else None,
            target_text=occ.get("target_text"),
        ))
    return out


def priority(a: Annotation) -> int:
    """XLIFF note priority (1 = most important)."""
    if a.outcome == "error":
        return 1 if (a.penalty or 0) >= 3 else 2
    return {"unjustified": 3, "unjudged": 5, "justified": 8}.get(a.outcome, 10)


def trados_severity(a: Annotation) -> str:
    return {"error": "High", "unjustified": "Medium"}.get(a.outcome, "Low")


def with_segment(a: Annotation, multi: bool) -> str:
    """The note text, naming the segment when its unit has several."""
    return f"segment {a.seg_id}: {a.text}" if multi and a.seg_id else a.text
