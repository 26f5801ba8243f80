"""Reviewer decisions applied before the judge: what a person settled is not asked again.

A decision (termqa.formats.decisions) matches occurrences of its concept and source form whose
rendering is the one decided, within its scope; the most specific decision wins (segment, then
document, then project). Accepted: `justified` (this segment or document) or `conforming` (the whole
project: the rendering is right wherever it occurs). Rejected: an error with the reviewer's label
(or `unjustified` for an inconsistency label). Either way `judge` is `reviewer`, the rule is
`reviewer`, and the judge never sees the occurrence. Decisions that match nothing any more are stale:
listed, so the file can be tidied. Two decisions of one scope for the same occurrence that disagree
contradict each other: the newer is applied and the run warns, naming both (a segment decision
against a project one is not a contradiction but an exception).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Mapping, Optional, Sequence

from termqa.formats.annotate.replies import Reply
from termqa.formats.decisions import (
    ACCEPT, REJECT, Decision, DecisionBook, document_name, newest, segment_key,
)
from termqa.labels import CONFORMING, ERROR, ERROR_CODES, JUSTIFIED, UNJUSTIFIED
from termqa.model import Document, Verdict
from termqa.score import penalty_for

REVIEWER = "reviewer"
_SPECIFIC = {"segment": 0, "document": 1, "project": 2}


@dataclass(frozen=True)
class ReviewReport:
    path: Optional[str]
    sha256: Optional[str]  # of the decisions file and the answers read from the files: in the signature
    decisions: int
    applied: Mapping[str, int] = field(default_factory=dict)  # decision id -> occurrences it decided
    stale: tuple[Decision, ...] = ()
    replies: tuple[dict, ...] = ()  # translators' answers read back from the XLIFF files, and what they did

    def to_dict(self) -> dict:
        return {"path": self.path, "sha256": self.sha256, "decisions": self.decisions,
                "occurrences_decided": sum(self.applied.values()), "applied": dict(self.applied),
                "stale": [d.to_dict() for d in self.stale], "replies": list(self.replies)}


def _same_rendering(a: Optional[str], b: Optional[str]) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def verdict_from(decision: Decision, v: Verdict, table: Mapping[str, float]) -> Verdict:
    """The verdict a decision gives an occurrence."""
    if decision.decision == ACCEPT:
        outcome, label = (CONFORMING if decision.scope == "project" else JUSTIFIED), None
        what = "accepted"
    else:
        outcome = ERROR if decision.label in ERROR_CODES else UNJUSTIFIED
        label, what = decision.label, "rejected"
    who = f" {decision.by}" if decision.by else ""
    when = f" on {decision.at[:10]}" if decision.at else ""
    where = {"segment": "this segment", "document": "this document", "project": "the whole project"}[decision.scope]
    why = f": {decision.comment}" if decision.comment else ""
    return replace(v, outcome=outcome, label=label, penalty=penalty_for(outcome, label, table),
                   reason=f"{what} by reviewer{who}{when} for {where}{why}", judge=REVIEWER,
                   prompt_version=None, extra=(("rule", REVIEWER), ("decision", decision.id)))


def apply_decisions(verdicts: Sequence[Verdict], documents: Sequence[Document], book: DecisionBook,
                    table: Mapping[str, float]) -> tuple[list[Verdict], ReviewReport]:
    """Verdicts with the reviewer's decisions applied, and what was applied or is stale."""
    by_form: dict[tuple, list[Decision]] = defaultdict(list)
    for d in book.decisions:
        by_form[(d.concept, d.source_form)].append(d)
    for ds in by_form.values():
        ds.sort(key=lambda d: _SPECIFIC[d.scope])
    docs = {d.doc_id: d for d in documents}
    names: dict[str, str] = {}
    seg_keys: dict[tuple, str] = {}
    by_index: dict[str, dict] = {}
    applied: dict[str, int] = defaultdict(int)
    out = []
    for v in verdicts:
        o = v.occurrence
        cands = by_form.get((o.concept_id, o.source_form))
        if not cands:
            out.append(v)
            continue
        if o.doc_id not in names:
            doc = docs[o.doc_id]
            names[o.doc_id] = document_name({"doc_id": doc.doc_id, "original": doc.original})
        sk = (o.doc_id, o.segment_index)
        if sk not in seg_keys:
            if o.doc_id not in by_index:
                by_index[o.doc_id] = {s.index: s for s in docs[o.doc_id].segments}
            seg = by_index[o.doc_id][o.segment_index]
            seg_keys[sk] = segment_key(seg.source, seg.target)
        matching = []
        for d in cands:
            if matching and _SPECIFIC[d.scope] > _SPECIFIC[matching[0].scope]:
                break  # a more specific decision matched: the wider ones are its exceptions' rule
            if not _same_rendering(d.rendering, o.target_text):
                continue
            if d.scope == "segment" and d.segment != seg_keys[sk]:
                continue
            if d.scope == "document" and d.document != names[o.doc_id]:
                continue
            matching.append(d)
        # several of one scope answer the same question (a file edited by hand or joined in a merge):
        # the newer stands, as `termqa decide merge` keeps it; the file's reader warned about it
        chosen = newest(matching) if matching else None
        if chosen is None:
            out.append(v)
            continue
        applied[chosen.id] += 1
        out.append(verdict_from(chosen, v, table))
    stale = tuple(d for d in book.decisions if d.id not in applied)
    return out, ReviewReport(book.path, book.sha256, len(book), dict(applied), stale)


def decisions_from_replies(replies: Sequence[Reply], verdicts: Sequence[Verdict],
                           documents: Sequence[Document]) -> tuple[list[Decision], list[dict]]:
    """Segment decisions from translators' answers, and what became of each answer.

    An answer is about the flagged occurrences of its unit (or segment); when it names one of them (its
    source term or rendering), about that one only. A rejection without a label takes the flag's own
    error label; where the flag has none, the answer is reported, not applied.
    """
    docs = {d.doc_id: d for d in documents}
    by_unit: dict[tuple, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        o = v.occurrence
        if v.outcome != CONFORMING:
            by_unit[(o.doc_id, o.unit_id)].append(v)
    decisions: list[Decision] = []
    report = []
    for r in replies:
        entry = r.to_dict()
        flagged = [v for v in by_unit.get((r.doc_id, r.unit_id), ())
                   if not r.seg_id or v.occurrence.seg_id == r.seg_id]
        named = [v for v in flagged if _names(r.text, v)]
        targets = named or flagged
        if r.decision is None:
            entry["result"] = "a comment, not a decision (start with accept or reject to decide)"
        elif not targets:
            entry["result"] = "no flagged occurrence in this unit any more"
        else:
            made = 0
            for v in targets:
                label = r.label or (v.label if v.label in ERROR_CODES else None)
                if r.decision == REJECT and label is None:
                    continue
                o = v.occurrence
                seg = next(s for s in docs[o.doc_id].segments if s.index == o.segment_index)
                decisions.append(Decision(
                    concept=o.concept_id, source_form=o.source_form, rendering=o.target_text, decision=r.decision,
                    scope="segment", segment=segment_key(seg.source, seg.target),
                    document=document_name({"doc_id": o.doc_id, "original": docs[o.doc_id].original}),
                    label=label if r.decision == REJECT else None, source=o.source_text,
                    by=r.author or "translator", at=r.date, comment=f"answer in the file: {r.text}", unit=o.unit_id))
                made += 1
            entry["applied"] = made
            entry["result"] = (f"{r.decision}ed {made} occurrence(s)" if made else
                               "reject needs a label (A1-A7, C-H): not applied")
        report.append(entry)
    return decisions, report


def _names(text: str, v: Verdict) -> bool:
    t = text.casefold()
    o = v.occurrence
    return any(x and x.casefold() in t for x in (o.source_text, o.target_text))
