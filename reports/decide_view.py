"""The data behind the report's Accept / Reject buttons (the "decide" part of the page).

Separate from the view model in reports/html.py because it is the one part of the page that writes
records of termqa.formats.decisions: the decisions file the run used, read again, and per flagged
occurrence everything that needs hashing or Unicode folding (segment key, document name, decision ids),
computed here so the page's script only assembles records.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable, Optional

from termqa.errors import TermqaError
from termqa.formats.decisions import (
    ACCEPT, DEFAULT_NAME, SCOPES, Decision, DecisionBook, document_name, read_decisions, segment_key,
)
from termqa.labels import ERROR_CODES, INCONSISTENT_LABELS, label_name


def run_book(result: dict, given: Optional[DecisionBook]) -> tuple[Optional[DecisionBook], str]:
    """The decisions file the run used, read again now (the page merges its own decisions into it),
    and a note for the page when it cannot be read or changed since the run."""
    if given is not None:
        return given, ""
    info = result.get("decisions") or {}
    path = info.get("path")
    if not path:
        return None, ""
    try:
        book = read_decisions(path)
    except TermqaError as exc:
        return None, f"The run's decisions file could not be read again ({exc}); download and merge by hand " \
                     f"with termqa decide merge."
    if info.get("sha256") and book.sha256 != info["sha256"]:
        return book, f"{Path(path).name} changed since the run: its current decisions are the ones merged."
    return book, ""


# what the page keeps per occurrence it lets a reviewer decide (report.js reads them by position)
OCC_FIELDS = ("concept", "source_form", "source", "rendering", "segment", "document", "unit",
              "id_segment", "id_document", "id_project")


def occurrence_rows(result: dict) -> Callable[[int], list]:
    """A function giving, for an occurrence (by its position in the result), its identity parts, its
    segment key and document name, and the decision id for each scope (OCC_FIELDS), all computed here
    so the page never re-implements hashing or Unicode folding."""
    docs = {d["doc_id"]: d for d in result.get("documents") or []}
    segs = {(s["doc_id"], s["index"]): s for s in result.get("segments") or []}

    made: dict = {}  # the report asks twice for a flagged occurrence (its card, the flags' digest)

    def row(k: int) -> list:
        if k not in made:
            made[k] = _row(k)
        return made[k]

    def _row(k: int) -> list:
        o = result["occurrences"][k]
        seg = segs.get((o["doc_id"], o.get("segment_index")))
        key = segment_key(seg["source"], seg.get("target")) if seg else None
        doc = document_name(docs.get(o["doc_id"], {"doc_id": o["doc_id"]}))
        ids = []
        for scope in SCOPES:
            if scope == "segment" and key is None:
                ids.append(None)  # no segment text in the result: no segment decision possible
                continue
            d = Decision(concept=str(o["concept_id"]), source_form=o["source_form"], rendering=o.get("target_text"),
                         decision=ACCEPT, scope=scope, segment=key if scope == "segment" else None,
                         document=doc if scope != "project" else None)
            ids.append(d.id)
        return [str(o["concept_id"]), o["source_form"], o.get("source_text"), o.get("target_text"),
                key, doc, o.get("unit_id"), *ids]
    return row


def decide_data(result: dict, positions: dict, book: Optional[DecisionBook], note: str,
                rows: Optional[Callable[[int], list]] = None, in_page: bool = False) -> dict:
    """What the page's Accept / Reject buttons need to write decisions exactly as
    termqa.formats.decisions does: per flagged occurrence (by its position in the result) its
    row of `occurrence_rows`. `in_page`: the page carries those rows in its cards, the parts an
    occurrence shares with others written once (reports/compact.py), and report.js puts them back in
    `occ`; they are only digested here. (A conforming occurrence's row is always in the page's folded
    table.)"""
    rows = rows or occurrence_rows(result)
    occ = {str(k): rows(k) for k in positions.values()}
    labels = [[c, f"{c} – {label_name(c)}"] for c in ERROR_CODES] + \
        [[l, label_name(l)] for l in INCONSISTENT_LABELS]
    info = result.get("decisions") or {}
    # The browser keeps the page's decisions under the run signature; the signature does not name the
    # input files, so a digest of the flags keeps two projects checked alike apart.
    flags = hashlib.sha256(json.dumps(occ, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:10]
    return {
        "sig": f"{(result.get('signature') or {}).get('id') or ''}-{flags}", "occ": {} if in_page else occ,
        "labels": labels,
        "run": {"name": Path(info["path"]).name if info.get("path") else "", "note": note,
                "decisions": [d.to_dict() for d in book.decisions] if book else []},
        "file": DEFAULT_NAME,
    }
