"""Which occurrences of a result become annotations, and what each one says.

An `Annotation` is the dialect-free record the writers place: where (document, unit, segment, target
span), what (the note: one line in the translator's terms, its ITS type and severity) and how urgent
(outcome, penalty). The note says what was found, what the glossary (or the document's own usage)
wants, and why, e.g.

    "strainer" is left in English: use "crépine" (glossary).

It carries no penalty and no run id: those are machine data, written as attributes where the format
allows them (`outcome`, `label`, `penalty`, `run` on the record). The sentences are in termqa.labels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from termqa.errors import InputError
from termqa.config import DEFAULT_ANNOTATE_LEVEL, AnnotateLevel
from termqa.labels import (
    CODE_DESCRIPTIONS, CONSISTENCY_DESCRIPTIONS, ITS_DEFAULT, ITS_OMISSION, ITS_TYPES, ITS_TYPES_BY_RULE, ITS_UNJUDGED,
    NOTE_ORIGIN, NOTE_REFERENCE, NOTE_SOURCE_LANGUAGE, NOTE_TEXT, OUTCOME_TEXT, R_ACRONYM_KEPT, R_HAPAX, R_IN_KEPT_NAME,
    R_MISALIGNED, R_NO_REFERENCE, R_SPELLING_PSEUDO,
)
from termqa.lang.fold import loose
from termqa.lang.langtags import lang_matches, language_name, normalise_tag, primary
from termqa.problems import occurrence_problems

OUTCOMES_BY_LEVEL = {
    AnnotateLevel.ERRORS: ("error",),
    AnnotateLevel.FLAGGED: ("error", "unjustified", "unjudged"),
    AnnotateLevel.ALL: ("error", "unjustified", "unjudged", "justified"),
}


@dataclass(frozen=True)
class Annotation:
    """One flagged occurrence, ready to be written into the bilingual file.

    `doc_id` names the `<file>`: the reader's path for a single-file XLIFF, f"{path}#{k}" for the k-th
    (1-based) of several. `seg_id` is the mrk mid (1.2) / segment id (2.x), "" for the whole unit.
    `target_span` is in the plain target text of the segment. `target_text`, when given, is checked
    against the file's text at that span (and searched for when the offsets disagree). `text` is the
    note (one line); `run` the id of the run's signature, for formats that can carry it apart.
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
    run: Optional[str] = None


def num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)


def _severity(outcome: str, penalty) -> float:
    # ITS severity is 0-100. Errors scale with the penalty (A4/A5/A6/C at 4 points reach 100).
    if outcome == "error":
        p = float(penalty) if penalty is not None else 1.0
        return float(min(100.0, 40.0 + 15.0 * p))
    return {"unjustified": 30.0, "unjudged": 10.0}.get(outcome, 0.0)


def its_type(occ: dict) -> str:
    """The ITS 2.0 Localization Quality Issue type of an occurrence (see termqa.labels for the map)."""
    outcome, label = occ.get("outcome"), occ.get("label")
    if outcome == "unjudged":
        return ITS_UNJUDGED
    if occ.get("rule") in ITS_TYPES_BY_RULE:
        return ITS_TYPES_BY_RULE[occ["rule"]]
    if outcome == "error" and label == "G" and not occ.get("target_text"):
        return ITS_OMISSION
    return ITS_TYPES.get(label, ITS_DEFAULT)


def source_language(tag: Optional[str]) -> str:
    """The source language in words ("English"), or a neutral phrase when termqa cannot name it."""
    p = primary(tag or "")
    name = language_name(p) if p else ""
    return name if name and name != normalise_tag(p) else NOTE_SOURCE_LANGUAGE


def _glossary_term(found: str, concept: Optional[dict], tgt_lang: Optional[str]) -> Optional[dict]:
    """The concept's target-language term that `found` matches loosely (case, accents, apostrophes)."""
    for t in (concept or {}).get("terms", ()):
        if (not tgt_lang or lang_matches(t.get("lang"), tgt_lang)) and loose(t.get("text") or "") == loose(found):
            return t
    return None


def _one_line(s: str) -> str:
    return " ".join(s.split())


def note_text(occ: dict, *, source_lang: Optional[str] = None, target_lang: Optional[str] = None,
              concept: Optional[dict] = None) -> str:
    """The note for one occurrence: one line in the translator's terms (see the module docstring).

    `source_lang`/`target_lang` are the document's languages and `concept` the glossary concept as the
    result object has them (`documents`, `concepts`); without them the note says less, not wrong.
    """
    outcome = occ.get("outcome") or "unjudged"
    label, rule = occ.get("label"), occ.get("rule")
    term = _one_line(occ.get("source_text") or occ.get("source_form") or "")
    found = _one_line(occ.get("target_text") or "") or None
    ref = occ.get("reference") or {}
    expected = _one_line(ref.get("text") or "") or None
    provenance = ref.get("provenance") or "glossary"
    fields = {
        "found": found, "term": term, "expected": expected, "language": source_language(source_lang),
        "origin": NOTE_ORIGIN.get(provenance, NOTE_ORIGIN["glossary"]),
        "reference": NOTE_REFERENCE.get(provenance, NOTE_REFERENCE["glossary"]).format(expected=expected),
        "description": CODE_DESCRIPTIONS.get(label) or CONSISTENCY_DESCRIPTIONS.get(label)
        or (str(label).replace("_", " ") if label else OUTCOME_TEXT["error"][2]),
    }
    fields["subject"] = NOTE_TEXT["subject" if found else "subject_alone"].format(**fields)
    fields["use"] = NOTE_TEXT["use"].format(**fields) if expected and expected != found else ""
    if outcome == "error":
        key = _error_key(rule, label, found, expected, fields, concept, target_lang)
    elif outcome in ("unjustified", "justified"):
        key = outcome if expected else "unjustified_alone"
        if outcome == "unjustified" and expected and label and label != "gratuitous_divergence":
            key = "unjustified_label"
        elif outcome == "justified" and not (expected and label):
            key = "justified_alone"
    else:
        key = _unjudged_key(occ.get("reason") or "", found, expected)
    return _one_line(NOTE_TEXT[key].format(**fields))


def _error_key(rule, label, found, expected, fields: dict, concept, target_lang) -> str:
    if rule == "forbidden_term" and found:
        t = _glossary_term(found, concept, target_lang) or {}
        fields["status"] = t.get("status") if t.get("status") in ("deprecated", "superseded") else "deprecated"
        return "forbidden_term" if expected else "forbidden_term_alone"
    if rule == "spelling" and found:
        # the glossary term misspelt (an admitted term is named as such), else the reference
        fields["expected"] = (_glossary_term(found, concept, target_lang) or {}).get("text") or expected
        return "spelling" if fields["expected"] else "error"
    if (rule in ("dnt_altered", "dnt_translated", "dnt_missing") or label == "A5") and (expected or fields["term"]):
        fields["expected"] = expected or fields["term"]
        return "dnt_missing" if not found else "dnt_altered"
    if (rule == "untranslated" or label == "A4") and found and expected and expected != found:
        return "untranslated"
    return "error"


def _unjudged_key(reason: str, found: Optional[str], expected: Optional[str]) -> str:
    if not found:
        if reason == R_MISALIGNED and expected:
            return "misaligned"
        return "missing" if expected and reason not in (R_HAPAX, R_NO_REFERENCE) else "missing_alone"
    if reason == R_IN_KEPT_NAME and expected:
        return "in_kept_name"
    if reason == R_ACRONYM_KEPT and expected:
        return "abbreviation_kept"
    if reason == R_SPELLING_PSEUDO and expected:
        return "spelling_document"
    if expected and expected != found:
        return "diverges"
    return "diverges_alone"


def annotations_from_result(result: dict, *, level: str = DEFAULT_ANNOTATE_LEVEL) -> list[Annotation]:
    """Annotations for the occurrences of a `termqa check` result object at `level`.

    levels: "errors" (error only), "flagged" (error, unjustified, unjudged), "all" (every
    non-conforming occurrence: justified too).
    """
    level = AnnotateLevel.parse(level, "annotation level")
    if not isinstance(result, dict) or "occurrences" not in result:
        raise InputError("result", "is not a termqa result object (no 'occurrences')")
    wanted = OUTCOMES_BY_LEVEL[level]
    run = (result.get("signature") or {}).get("id")  # the run's full signature is in its JSON/HTML report
    docs = {d.get("doc_id"): d for d in result.get("documents") or ()}
    concepts = {c.get("id"): c for c in result.get("concepts") or ()}
    pids = occurrence_problems(result)
    places: dict = {}  # problem id -> [(doc_id, unit_id)] of its occurrences, in result order
    for pid, occ in zip(pids, result["occurrences"]):
        places.setdefault(pid, []).append((occ.get("doc_id"), str(occ.get("unit_id", ""))))
    out = []
    for pid, occ in zip(pids, result["occurrences"]):
        outcome = occ.get("outcome")
        if outcome not in wanted:
            continue
        span = occ.get("target_span")
        doc = docs.get(occ.get("doc_id")) or {}
        text = note_text(occ, source_lang=doc.get("src_lang"), target_lang=doc.get("tgt_lang"),
                         concept=concepts.get(occ.get("concept_id")))
        text = same_problem(text, occ.get("doc_id"), str(occ.get("unit_id", "")), places[pid])
        out.append(Annotation(
            doc_id=str(occ.get("doc_id", "")),
            unit_id=str(occ.get("unit_id", "")),
            seg_id=str(occ.get("segment_id") or ""),
            outcome=outcome,
            label=occ.get("label"),
            penalty=occ.get("penalty"),
            text=text,
            its_type=its_type(occ),
            severity=_severity(outcome, occ.get("penalty")),
            target_span=(int(span[0]), int(span[1])) if span else None,
            target_text=occ.get("target_text"),
            run=str(run) if run else None,
        ))
    return out


def same_problem(note: str, doc_id, unit_id: str, places: list, limit: int = 8) -> str:
    """The note followed by the other places of the same problem ("Same problem in units 12, 40 (3 in
    all)."): the other units of this document by id, then "other files" when it is in others too (the
    count in all says how many). A problem seen once keeps its note as it is."""
    if len(places) < 2:
        return note
    units = list(dict.fromkeys(u for d, u in places if d == doc_id and u != unit_id))
    elsewhere = any(d != doc_id for d, _u in places)
    parts = []
    if units:
        shown = ", ".join(units[:limit]) + (f" (+{len(units) - limit} more)" if len(units) > limit else "")
        parts.append(NOTE_TEXT["same_units" if len(units) == 1 else "same_units_many"].format(units=shown))
    if elsewhere:
        parts.append(NOTE_TEXT["same_other_files"])
    if not parts:
        parts.append(NOTE_TEXT["same_unit"])
    return NOTE_TEXT["same_problem"].format(note=note, places=" and in ".join(parts), count=len(places))


def priority(a: Annotation) -> int:
    """XLIFF note priority (1 = most important)."""
    if a.outcome == "error":
        return 1 if (a.penalty or 0) >= 3 else 2
    return {"unjustified": 3, "unjudged": 5, "justified": 8}.get(a.outcome, 10)


def trados_severity(a: Annotation) -> str:
    return {"error": "High", "unjustified": "Medium"}.get(a.outcome, "Low")


def with_segment(a: Annotation, multi: bool) -> str:
    """The note text, naming the segment when its unit has several."""
    return NOTE_TEXT["segment"].format(segment=a.seg_id, note=a.text) if multi and a.seg_id else a.text
