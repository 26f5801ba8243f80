"""The result object every writer consumes (`--json`, HTML, CSV, XLIFF notes).

Its shape is documented in docs/outputs.md ("JSON output") and versioned by `termqa_result`; keep it stable.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterator

from termqa.errors import InputError
from termqa.fileio import Rows
from termqa.model import OUTCOMES, UNJUDGED
from termqa.metrics import all_metrics, per_document, variation_shares
from termqa.score import scores
from termqa.results.languages import per_language, target_languages, totals_only
from termqa.results.verdict import with_verdicts
from termqa.wordcount import source_and_checked_words

RESULT_VERSION = 1


def occurrence_dict(v) -> dict:
    o = v.occurrence
    ref = v.reference
    return {
        "doc_id": o.doc_id,
        "unit_id": o.unit_id,
        "segment_id": o.seg_id,
        "segment_index": o.segment_index,
        "concept_id": o.concept_id,
        "source_form": o.source_form,
        "source_text": o.source_text,
        "source_span": [o.source_span.start, o.source_span.end],
        "target_text": o.target_text,
        "target_span": [o.target_span.start, o.target_span.end] if o.target_span else None,
        "variation": o.variation,
        **({"variation_subtype": o.variation_subtype} if o.variation_subtype else {}),
        **({"target_variant": o.target_variant} if o.target_variant else {}),
        "chain_size": o.chain_size,
        "is_first_mention": o.is_first_mention,
        "via": o.via,
        "align_method": o.align_method,
        "reference": {"text": ref.text, "provenance": ref.provenance} if ref else None,
        "outcome": v.outcome,
        "label": v.label,
        "penalty": v.penalty,
        "reason": v.reason,
        "judge": v.judge,
        "rule": dict(v.extra).get("rule"),  # which deterministic rule decided, e.g. forbidden_term
        "prompt_version": v.prompt_version,
    }


def concept_dict(c) -> dict:
    return {
        "id": c.id,
        "definition": c.definition,
        "subject": c.subject,
        "dnt": c.dnt,
        "terms": [{"text": t.text, "lang": t.lang, "status": t.status, "raw_status": t.raw_status,
                   "type": t.term_type} for t in c.terms],
    }


def source_displays(rows) -> dict:
    """(doc_id, concept_id, source_form) -> the source form as people read it.

    `source_form` is a key (lemmas: "1 nation" for "First Nations"); what is shown is the surface
    text the document uses most often for it, the first one seen on a tie. Occurrences opening their
    segment count only when there are no others: "Slings" in a heading is not how the term is written.
    """
    seen: dict = defaultdict(list)
    for r in rows:
        seen[(r["doc_id"], r["concept_id"], r["source_form"])].append(r)
    return {k: _display(v) for k, v in seen.items()}


def _display(rows) -> str:
    inner = [r["source_text"] for r in rows if r["source_span"][0] > 0]
    c = Counter(inner or [r["source_text"] for r in rows])
    return c.most_common(1)[0][0]  # most_common keeps first-seen order on ties


def _forms(rows) -> list:
    """A concept's source forms across documents: key, display text (as `source_displays`), count."""
    by_form: dict = defaultdict(list)
    for r in rows:
        by_form[r["source_form"]].append(r)
    return [{"source_form": f, "source_display": _display(v), "occurrences": len(v)} for f, v in by_form.items()]


def _outcome_counts(rows) -> dict:
    c = Counter(r["outcome"] for r in rows)
    return {k: c.get(k, 0) for k in OUTCOMES}


# What the summaries read of an occurrence row, straight from its verdict (`_Row`), so that they can be
# computed before any row is made.
_ROW_FIELDS = {
    "doc_id": lambda v: v.occurrence.doc_id,
    "concept_id": lambda v: v.occurrence.concept_id,
    "source_form": lambda v: v.occurrence.source_form,
    "source_text": lambda v: v.occurrence.source_text,
    "source_span": lambda v: [v.occurrence.source_span.start, v.occurrence.source_span.end],
    "segment_index": lambda v: v.occurrence.segment_index,
    "outcome": lambda v: v.outcome,
    "label": lambda v: v.label,
    "penalty": lambda v: v.penalty,
    "reason": lambda v: v.reason,
}


class _Row:
    """An occurrence row as the summaries read it (`row["penalty"]`...), read from the verdict itself:
    one small object per occurrence instead of the row's dict of 27 members."""

    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __getitem__(self, key: str):
        return _ROW_FIELDS[key](self.v)


def result_dict(res) -> dict:
    """The whole result as one dict (the shape of docs/outputs.md's "JSON output"). Its callers (the
    result's `to_dict`, termqa.run) run it with the collector paused (termqa.store.gcpause): it builds
    records in bulk."""
    data = streamed_result(res)
    data["segments"] = list(data["segments"])
    data["occurrences"] = list(data["occurrences"])
    return data


def streamed_result(res) -> dict:
    """`result_dict`, except that its two long lists, "segments" and "occurrences", are `Rows`: made one
    record at a time while they are written (`termqa.fileio.dump_json`, `atomic_write(json_data=...)`),
    so the result of a big translation memory never sits in memory as dicts. Everything else (summaries,
    scores, concepts, references) is computed here, from the verdicts."""
    verdicts = res.verdicts
    occ = [_Row(v) for v in verdicts]
    shown = source_displays(occ)
    sc = scores(occ)
    by_doc = defaultdict(list)
    for r in occ:
        by_doc[r["doc_id"]].append(r)
    docs = []
    for d in res.documents:
        rows = by_doc.get(d.doc_id, [])
        s = sc["documents"].get(d.doc_id, {"score": None, "scored": 0, "unjudged": 0})
        docs.append({
            "doc_id": d.doc_id, "path": d.path, "original": d.original, "format": d.format, "dialect": d.dialect,
            "src_lang": d.src_lang, "tgt_lang": d.tgt_lang, "segments": len(d.segments),
            "skipped_units": d.skipped, "occurrences": len(rows), **s,
            "outcomes": _outcome_counts(rows),
        })
    del by_doc
    labels = Counter(r["label"] for r in occ if r["label"])
    reasons = Counter(r["reason"] for r in occ if r["outcome"] == UNJUDGED)
    per_concept = defaultdict(list)
    for r in occ:
        per_concept[r["concept_id"]].append(r)
    concepts = []
    for cid, rows in per_concept.items():
        cd = concept_dict(res.concepts[cid])
        pens = [r["penalty"] for r in rows if r["penalty"] is not None]
        cd["occurrences"] = len(rows)
        cd["forms"] = _forms(rows)
        cd["worst_penalty"] = max(pens) if pens else None
        cd["total_penalty"] = sum(pens)
        concepts.append(cd)
    n_concepts = len(per_concept)
    del per_concept, occ
    seg_keys: dict = defaultdict(set)  # doc_id -> indexes of its segments holding occurrences
    for v in verdicts:
        seg_keys[v.occurrence.doc_id].add(v.occurrence.segment_index)
    seg_keys = dict(seg_keys)
    metrics_overall = {k: v.as_dict() for k, v in all_metrics(res.metric_items).items()}
    metrics_docs = {d: {k: v.as_dict() for k, v in m.items()} for d, m in per_document(res.metric_items).items()}
    acc = res.accounting
    if acc is not None and sc["scored"]:
        acc = {**acc, "calls_per_scored_occurrence": round(acc.get("calls", 0) / sc["scored"], 4)}
    documents = list(res.documents)
    words, checked_words = source_and_checked_words(documents)

    def segment_rows() -> Iterator[dict]:
        for d in documents:
            wanted = seg_keys.get(d.doc_id)
            if not wanted:
                continue
            for s in d.segments:
                if s.index in wanted:
                    yield {"doc_id": s.doc_id, "unit_id": s.unit_id, "segment_id": s.seg_id, "index": s.index,
                           "source": s.source, "target": s.target}

    def occurrence_rows() -> Iterator[dict]:
        for v in verdicts:
            r = occurrence_dict(v)
            r["source_display"] = shown[(r["doc_id"], r["concept_id"], r["source_form"])]
            yield r

    out = {
        "termqa_result": RESULT_VERSION,
        "kind": "check",
        "signature": res.signature.to_dict(),
        "inputs": [{"path": f.path, "format": f.format, "dialect": f.dialect, "documents": len(f.documents),
                    "segments": sum(len(d.segments) for d in f.documents)} for f in res.files],
        "documents": docs,
        "summary": {
            "documents": len(res.documents),
            "segments": sum(len(d.segments) for d in res.documents),
            "occurrences": len(verdicts),
            "concepts_found": n_concepts,
            "outcomes": _outcome_counts(_Row(v) for v in verdicts),
            "labels": dict(labels.most_common()),
            "unjudged_reasons": dict(reasons.most_common()),
            "needs_judge": sum(reasons.values()),
            "occurrences_in_untranslated_segments": res.skipped_untranslated,
            # units whose state says they are not translated yet (termqa.formats.unitstate): not checked
            "units_not_translated": res.units_not_translated,
            "segments_not_translated": res.segments_not_translated,
            "not_translated_states": dict(res.not_translated_states),
            "source_words": words,  # the one definition (termqa.wordcount)
            "checked_words": checked_words,  # of those, the words of segments with a translation
            # labelled verdicts a deterministic rule settled, by rule: they read better by the rule's name
            "rules": dict(Counter(r for r in (dict(v.extra).get("rule") for v in verdicts if v.label) if r)
                          .most_common()),
        },
        "scores": {k: v for k, v in sc.items() if k != "documents"},
        "metrics": {"overall": metrics_overall, "documents": metrics_docs,
                    "variation": variation_shares(res.metric_items)},
        "concepts": concepts,
        "references": [{"doc_id": r.doc_id, "concept_id": r.concept_id, "source_form": r.source_form,
                        "source_display": shown.get((r.doc_id, r.concept_id, r.source_form), r.source_form),
                        "text": r.text, "provenance": r.provenance} for r in res.references],
        "segments": Rows(segment_rows, bool(seg_keys)),
        "occurrences": Rows(occurrence_rows, bool(verdicts)),
        "accounting": acc,
        "warnings": list(res.warnings),
        "alerts": list(res.alerts),
        "decisions": res.review.to_dict() if res.review else None,
    }
    if len(target_languages(res.documents)) > 1:  # a delivery in several languages: figures per language
        out["languages"] = per_language(res, streamed_result)
        totals_only(out)
    return with_verdicts(out)  # without a gate; `termqa check --fail-on` makes it again under its conditions


def load_result(path) -> dict:
    """A saved result (`termqa check --json`, or any termqa JSON output) read back; a file that is not
    JSON is an InputError naming it (a missing file is the OSError the caller reports)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(path, f"is not a termqa JSON result: {exc}") from None
