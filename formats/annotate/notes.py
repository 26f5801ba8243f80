"""Which occurrences of a result become annotations, and what each one says.

An `Annotation` is the dialect-free record the writers place: where (document, unit, the segments and
target spans of its occurrences), what (the note: one line in the translator's terms, its ITS type and
severity) and how urgent (outcome, penalty, the reason an occurrence was left undecided). The note
opens with words that say how sure termqa is, then says what was found, what the glossary (or the
document's own usage) wants, and why, e.g.

    termqa error: "strainer" is left in English: use "crépine" (glossary).
    termqa question: check that "pump" is translated: no rendering found (glossary: "pompe").

One note per problem per unit (`termqa.problems`): the occurrences of one problem in a unit share a
note ("×2 in this unit."), which names the other places of the problem in units ("Also in 3 other
units: 12, 40, 41."). It carries no penalty and no run id: those are machine data, written as
attributes where the format allows them (`outcome`, `label`, `penalty`, `run`, `problem` on the
record). The sentences are in termqa.labels.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import islice
from typing import Iterable, Optional

from termqa.errors import InputError
from termqa.config import AnnotateLevel, Settings
from termqa.labels import (
    CODE_DESCRIPTIONS, CONSISTENCY_DESCRIPTIONS, ITS_DEFAULT, ITS_OMISSION, ITS_TYPES, ITS_TYPES_BY_RULE, ITS_UNJUDGED,
    NOTE_LEAD, NOTE_ORIGIN, NOTE_REFERENCE, NOTE_SOURCE_LANGUAGE, NOTE_TEXT, OUTCOME_TEXT, R_ACRONYM_KEPT,
    R_COPIED_WORD, R_COPY_UNKNOWN, R_DERIVED, R_HAPAX, R_IN_KEPT_NAME, R_INFLECTED, R_MISALIGNED, R_NO_REFERENCE,
    R_SHORT_FORM_KEPT, R_SPELLING_INFLECTED, R_SPELLING_PSEUDO, Rule,
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
class Place:
    """One more occurrence of an annotation's problem in its unit: its segment and target span."""

    seg_id: str
    target_span: Optional[tuple[int, int]]
    target_text: Optional[str] = None


@dataclass(frozen=True)
class Annotation:
    """One note for a unit: a flagged occurrence and the other occurrences of its problem there.

    `doc_id` names the `<file>`: the reader's path for a single-file XLIFF, f"{path}#{k}" for the k-th
    (1-based) of several. `seg_id` is the mrk mid (1.2) / segment id (2.x), "" for the whole unit.
    `target_span` is in the plain target text of the segment. `target_text`, when given, is checked
    against the file's text at that span (and searched for when the offsets disagree). `text` is the
    note (one line); `run` the id of the run's signature and `problem` the problem id, for formats that
    can carry them apart; `reason` why an occurrence was left unjudged (it sets the priority of a
    question); `also` the other occurrences of the same problem in this unit (ITS markup marks them all).
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
    reason: Optional[str] = None
    problem: Optional[str] = None
    also: tuple[Place, ...] = ()

    def places(self) -> list[Annotation]:
        """This annotation once per occurrence in its unit (the first as it is), for span markup."""
        return [replace(self, also=())] + [replace(self, seg_id=p.seg_id, target_span=p.target_span,
                                                   target_text=p.target_text, also=()) for p in self.also]

    def segments(self) -> list[str]:
        """The segment ids of its occurrences, each once, in order ("" = the whole unit)."""
        return list(dict.fromkeys([self.seg_id] + [p.seg_id for p in self.also]))


def num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)


def question_tier(reason: Optional[str]) -> int:
    """How likely an undecided occurrence is wrong, by the class "Review first" ranks it in
    (`termqa.results.triage`): 0 for a different word than the glossary's, a term not found or kept in
    the source language; 2 for an inflected or derived form of the glossary term; 1 for the rest
    (spelling, nothing to compare with, a segment that may not match, a judge that did not answer)."""
    # Imported here: every check loads this module (reading translators' replies), and the pipeline
    # loads nothing of termqa.results (tests/test_dependencies.py); only writing notes needs the classes.
    from termqa.results.triage import INFLECTED, KEPT, review_class

    rank = review_class({"reason": reason}).rank
    return 0 if rank <= KEPT.rank else 2 if rank >= INFLECTED.rank else 1


def _severity(outcome: str, penalty, reason: Optional[str] = None) -> float:
    # ITS severity is 0-100. Errors scale with the penalty (A4/A5/A6/C at 4 points reach 100); a question
    # sits below any decided problem, by how likely it is wrong.
    if outcome == "error":
        p = float(penalty) if penalty is not None else 1.0
        return float(min(100.0, 40.0 + 15.0 * p))
    if outcome == "unjudged":
        return (20.0, 10.0, 5.0)[question_tier(reason)]
    return {"unjustified": 30.0}.get(outcome, 0.0)


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
    """The note for one occurrence: one line in the translator's terms, opening with the words that say
    whether it is an error or a question (see the module docstring).

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
    return with_lead(outcome, _one_line(NOTE_TEXT[key].format(**fields)))


def with_lead(outcome: str, sentence: str) -> str:
    """The sentence after the words that say what kind of note it is ("termqa error: ...")."""
    return NOTE_TEXT["lead"].format(lead=NOTE_LEAD.get(outcome, NOTE_LEAD["unjudged"]), note=sentence)


def _error_key(rule, label, found, expected, fields: dict, concept, target_lang) -> str:
    if rule == Rule.FORBIDDEN_TERM and found:
        t = _glossary_term(found, concept, target_lang) or {}
        fields["status"] = t.get("status") if t.get("status") in ("deprecated", "superseded") else "deprecated"
        return Rule.FORBIDDEN_TERM.note if expected else "forbidden_term_alone"
    if rule == Rule.SPELLING and found:
        # the glossary term misspelt (an admitted term is named as such), else the reference
        fields["expected"] = (_glossary_term(found, concept, target_lang) or {}).get("text") or expected
        return Rule.SPELLING.note if fields["expected"] else "error"
    if (rule in _DNT_RULES or label == Rule.DNT_MISSING.label) and (expected or fields["term"]):
        fields["expected"] = expected or fields["term"]
        return Rule.DNT_MISSING.note if not found else Rule.DNT_ALTERED.note
    if (rule == Rule.UNTRANSLATED or label == Rule.UNTRANSLATED.label) and found and expected and expected != found:
        return Rule.UNTRANSLATED.note
    return "error"


# the rules that find a do-not-translate item changed: one note, whether found altered, translated or not at all
_DNT_RULES = frozenset({Rule.DNT_ALTERED, Rule.DNT_TRANSLATED, Rule.DNT_MISSING})


def _unjudged_key(reason: str, found: Optional[str], expected: Optional[str]) -> str:
    if not found:
        if reason == R_MISALIGNED and expected:
            return "misaligned"
        return "missing" if expected and reason not in (R_HAPAX, R_NO_REFERENCE) else "missing_alone"
    if reason == R_IN_KEPT_NAME and expected:
        return "in_kept_name"
    if reason == R_ACRONYM_KEPT and expected:
        return "abbreviation_kept"
    if reason in (R_SPELLING_PSEUDO, R_SPELLING_INFLECTED) and expected:
        return "spelling_document"
    if reason in (R_COPIED_WORD, R_COPY_UNKNOWN, R_SHORT_FORM_KEPT) and expected and expected != found:
        return "kept"
    if reason in (R_INFLECTED, R_DERIVED) and expected and expected != found:
        return "inflected" if reason == R_INFLECTED else "derived"
    if expected and expected != found:
        return "diverges"
    return "diverges_alone"


def annotations_from_result(result: dict, *, level: str = Settings.annotate_level) -> list[Annotation]:
    """Annotations for the occurrences of a `termqa check` result object at `level`: one per problem
    per unit (its other occurrences there in `Annotation.also`), the most urgent first in each unit.

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
    where: dict = {}  # problem id -> doc_id -> {unit_id} of its occurrences, in result order
    for pid, occ in zip(pids, result["occurrences"]):
        where.setdefault(pid, {}).setdefault(occ.get("doc_id"), {})[str(occ.get("unit_id", ""))] = None
    # (doc_id, unit_id) -> the notes of the unit as they gather, in result order: (outcome, text, problem
    # ids, occurrences)
    units: dict = {}
    for pid, occ in zip(pids, result["occurrences"]):
        outcome = occ.get("outcome")
        if outcome not in wanted:
            continue
        doc = docs.get(occ.get("doc_id")) or {}
        text = note_text(occ, source_lang=doc.get("src_lang"), target_lang=doc.get("tgt_lang"),
                         concept=concepts.get(occ.get("concept_id")))
        groups = units.setdefault((occ.get("doc_id"), str(occ.get("unit_id", ""))), [])
        # One note per problem; and two problems whose notes read the same (two glossaries' entries for
        # one term, say) are one note too: a translator would see the same line twice.
        g = next((g for g in groups if g[0] == outcome and (pid in g[2] or g[1] == text)), None)
        if g is None:
            groups.append((outcome, text, [pid], [occ]))
        else:
            g[2].append(pid)
            g[3].append(occ)
    out = []
    for (doc_id, unit_id), groups in units.items():
        made = []
        for outcome, text, note_pids, occs in groups:
            first, rest = occs[0], occs[1:]
            made.append(Annotation(
                doc_id=str(doc_id or ""),
                unit_id=unit_id,
                seg_id=str(first.get("segment_id") or ""),
                outcome=outcome,
                label=first.get("label"),
                penalty=first.get("penalty"),
                text=same_problem(text, len(occs), *_other_places(where, note_pids, doc_id, unit_id)),
                its_type=its_type(first),
                severity=_severity(outcome, first.get("penalty"), first.get("reason")),
                target_span=_span(first),
                target_text=first.get("target_text"),
                run=str(run) if run else None,
                reason=first.get("reason"),
                problem=note_pids[0],
                also=tuple(Place(str(o.get("segment_id") or ""), _span(o), o.get("target_text")) for o in rest),
            ))
        out += sorted(made, key=priority)  # stable: the most urgent note of a unit first
    return out


def _span(occ: dict) -> Optional[tuple[int, int]]:
    span = occ.get("target_span")
    return (int(span[0]), int(span[1])) if span else None


def _other_places(where: dict, pids: list, doc_id, unit_id: str, limit: int = 8) -> tuple[list, int, int, int]:
    """The other units of a note's problem(s): (the first `limit` + 1 other unit ids of this document, how
    many other units this document has, how many units other documents have, how many other documents).
    Counted, not listed, so that a problem in thousands of units costs each note little."""
    by_doc = where[pids[0]]
    if len(pids) > 1:  # problems that read the same: their places together
        by_doc = {}
        for pid in pids:
            for d, units in where[pid].items():
                by_doc.setdefault(d, {}).update(units)
    mine = by_doc.get(doc_id, {})
    ids = list(islice((u for u in mine if u != unit_id), limit + 1))
    others = [d for d in by_doc if d != doc_id]
    return ids, len(mine) - (unit_id in mine), sum(len(by_doc[d]) for d in others), len(others)


def same_problem(note: str, here: int, ids: list, in_doc: int, in_others: int, other_docs: int,
                 limit: int = 8) -> str:
    """The note followed by where else its problem is, counted in units: "×2 in this unit." when the
    unit has it `here` times, then "Also in 3 other units: 12, 40, 41." (`in_doc` other units of this
    document, the first of them by id, `ids`; `in_others` units of `other_docs` other documents,
    counted). A problem seen once keeps its note."""
    parts = [note]
    if here > 1:
        parts.append(NOTE_TEXT["times_here"].format(count=here))
    count = in_doc + in_others
    if count:
        fields = {"count": count, "units": NOTE_TEXT["unit" if count == 1 else "units"], "elsewhere": in_others,
                  "files": NOTE_TEXT["file" if other_docs == 1 else "files"],
                  "ids": ", ".join(ids) if in_doc <= limit else NOTE_TEXT["ids_more"].format(
                      shown=", ".join(ids[:limit]), more=in_doc - limit)}
        parts.append(NOTE_TEXT["also_files" if not in_doc else "also_and_files" if in_others else "also"].format(
            **fields))
    return " ".join(parts)


def merged(anns: Iterable[Annotation]) -> list[Annotation]:
    """The annotations of one unit with every repeated note made one: an annotation whose outcome and
    text equal an earlier one's becomes one more place of it. `annotations_from_result` already gives
    one note per problem; this keeps any caller's list from writing the same line twice in a unit."""
    out: list[Annotation] = []
    index: dict = {}
    for a in anns:
        k = (a.outcome, a.text)
        if k not in index:
            index[k] = len(out)
            out.append(a)
            continue
        first = out[index[k]]
        more = tuple(Place(p.seg_id, p.target_span, p.target_text) for p in a.places())
        out[index[k]] = replace(first, also=first.also + more)
    return out


def priority(a: Annotation) -> int:
    """XLIFF note priority (1 = most important): an error outranks a question.

    error with penalty >= 3: 1, other error: 2, unjustified: 3; unjudged: 4, 5 or 6 as `question_tier`
    (4: often wrong, as the first classes of "Review first"; 6: likely fine); justified: 8; else 10.
    """
    if a.outcome == "error":
        return 1 if (a.penalty or 0) >= 3 else 2
    if a.outcome == "unjudged":
        return 4 + question_tier(a.reason)
    return {"unjustified": 3, "justified": 8}.get(a.outcome, 10)


def trados_severity(a: Annotation) -> str:
    """Trados comment severity (shown as Error, Warning, For your information): an error is High; a
    decided divergence, and a question that is often wrong (priority 4), Medium; anything else Low."""
    if a.outcome == "error":
        return "High"
    return "Medium" if a.outcome == "unjustified" or priority(a) == 4 else "Low"


def with_segment(a: Annotation, multi: bool) -> str:
    """The note text, naming its segments when its unit has several: after the lead ("termqa error
    (segment 2): ..."), or before a text of the caller's own ("Segment 2: ...")."""
    segs = [s for s in a.segments() if s]
    if not multi or not segs:
        return a.text
    shown = ", ".join(segs)
    for lead in NOTE_LEAD.values():
        if a.text.startswith(lead + ": "):
            return NOTE_TEXT["segment" if len(segs) == 1 else "segments"].format(
                lead=lead, segments=shown, note=a.text[len(lead) + 2:])
    return NOTE_TEXT["segment_plain"].format(segments=shown, note=a.text)
