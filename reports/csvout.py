"""CSV export of a `termqa check` result: one row per occurrence, for spreadsheets and CAT-tool QA
lists. Written as UTF-8 with a BOM (so Excel detects the encoding) and CRLF line ends.

Columns, in order (`CSV_COLUMNS`):

- doc_id, unit_id, segment_id, segment_index: where the occurrence is; unit_id is what a
  translator searches for in the CAT tool.
- concept_id, source_form, source_text, source_start, source_end: the glossary concept, the
  normalised source form (its chain key), the surface text and its character offsets in the
  plain source segment (end-exclusive).
- target_text, target_start, target_end: the aligned rendering and its offsets; empty when no
  rendering was found.
- variation, chain_size, is_first_mention, via, align_method: how the source form relates to the
  head term, the size of its chain in the document, whether this is its first mention, how the
  form was found and how the target span was aligned.
- outcome (conforming | justified | unjustified | error | unjudged), label, penalty (empty when
  unjudged: never a silent 0), reason, judge ("rule" or the model), prompt_version.
- reference_text, reference_provenance: R(s) for this source form in this document.
- source_segment, target_segment: the full plain text of the segment pair.
- run_signature: the run's signature (tool, glossary, lemmatiser, judge, prompts, penalties), the
  same on every row, so a spreadsheet cut from the file still says how it was scored.

Empty cell = null. Booleans are `true`/`false`. A text cell that starts with `=`, `+`, `-`, `@`,
tab or carriage return gets a leading apostrophe so that spreadsheets show it instead of
evaluating it as a formula (text from translated files is untrusted); `unescape_cell` undoes it.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from termqa.errors import UsageError
from termqa.fileio import atomic_write

CSV_COLUMNS = (
    "doc_id", "unit_id", "segment_id", "segment_index",
    "concept_id", "source_form", "source_text", "source_start", "source_end",
    "target_text", "target_start", "target_end",
    "variation", "chain_size", "is_first_mention", "via", "align_method",
    "outcome", "label", "penalty", "reason", "judge", "prompt_version",
    "reference_text", "reference_provenance",
    "source_segment", "target_segment", "run_signature",
)

# Columns whose values are numbers or fixed vocabularies we produce: never formula-escaped.
_NUMERIC = {"segment_index", "source_start", "source_end", "target_start", "target_end",
            "chain_size", "penalty", "is_first_mention"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(column: str, value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if column not in _NUMERIC and text.startswith(_FORMULA_START):
        return "'" + text
    return text


def unescape_cell(text: str) -> str:
    """Undo the formula guard of a text cell read back from the CSV."""
    if text.startswith("'") and text[1:].startswith(_FORMULA_START):
        return text[1:]
    return text


def _span(span, i):
    return span[i] if isinstance(span, (list, tuple)) and len(span) == 2 else None


def rows(result: dict):
    """The CSV rows as dicts of raw values (before cell formatting), in result order."""
    if not isinstance(result, dict) or result.get("termqa_result") != 1:
        raise UsageError("the CSV export needs a termqa result object of version 1",
                         fix="export a result written by this termqa version (termqa check --json)")
    signature = (result.get("signature") or {}).get("string")
    full, short = {}, {}
    for s in result.get("segments") or []:
        full[(s["doc_id"], s["unit_id"], s["segment_id"], s["index"])] = s
        short.setdefault((s["doc_id"], s["unit_id"], s["segment_id"]), s)
    refs = {(r["doc_id"], r["concept_id"], r["source_form"]): r for r in result.get("references") or []}
    for o in result.get("occurrences") or []:
        key = (o["doc_id"], o["unit_id"], o["segment_id"])
        seg = full.get(key + (o.get("segment_index"),)) or short.get(key) or {}
        ref = o.get("reference") or refs.get((o["doc_id"], o["concept_id"], o["source_form"])) or {}
        yield {
            "doc_id": o["doc_id"], "unit_id": o["unit_id"], "segment_id": o["segment_id"],
            "segment_index": o.get("segment_index"),
            "concept_id": o["concept_id"], "source_form": o["source_form"], "source_text": o["source_text"],
            "source_start": _span(o.get("source_span"), 0), "source_end": _span(o.get("source_span"), 1),
            "target_text": o.get("target_text"),
            "target_start": _span(o.get("target_span"), 0), "target_end": _span(o.get("target_span"), 1),
            "variation": o.get("variation"), "chain_size": o.get("chain_size"),
            "is_first_mention": o.get("is_first_mention"), "via": o.get("via"),
            "align_method": o.get("align_method"),
            "outcome": o["outcome"], "label": o.get("label"), "penalty": o.get("penalty"),
            "reason": o.get("reason"), "judge": o.get("judge"), "prompt_version": o.get("prompt_version"),
            "reference_text": ref.get("text"), "reference_provenance": ref.get("provenance"),
            "source_segment": seg.get("source"), "target_segment": seg.get("target"),
            "run_signature": signature,
        }


def write_csv(result: dict, path) -> Path:
    """Write one row per occurrence to `path` (UTF-8 with BOM) and return the path."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf, dialect="excel")  # CRLF, minimal quoting: what Excel expects
    w.writerow(CSV_COLUMNS)
    for row in rows(result):
        w.writerow([_cell(c, row[c]) for c in CSV_COLUMNS])
    return atomic_write(path, buf.getvalue(), encoding="utf-8-sig")
