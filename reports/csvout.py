"""CSV export of a `termqa check` result: one row per occurrence, for spreadsheets and CAT-tool QA
lists. Written as UTF-8 with a BOM (so Excel detects the encoding) and CRLF line ends.

Columns, in order (`CSV_COLUMNS`): first what a translator or reviewer reads, then what a
script needs.

- document: the document's short name (its `original`, else the file name); unit_id: what a
  translator searches for in the CAT tool.
- source_text, target_text, expected: the term as it appears in the source, the rendering found
  in the target (empty: none found) and what the target should say (the reference of this source
  form in this document, else the glossary's preferred term).
- outcome (conforming | justified | unjustified | error | unjudged), label, what_to_do (one line:
  "replace X with Y", "check: not judged (...)", empty when nothing is to be done).
- status, comment: empty, for the translator's reply when the file travels as a QA list.
- reason, penalty (empty when unjudged: never a silent 0).
- language: the target language of the occurrence's document (a delivery checked in several
  languages at once is filtered on it).
- problem: the id of the problem the occurrence is one of (termqa.problems: same concept,
  source form, rendering and rule); the same id on every row of one problem and in the XLSX, so a
  list filtered on it shows one problem, however often it repeats.
- then for tools: doc_id (as given when relative, else the file name: termqa.shownpath), segment_id,
  segment_index, concept_id, source_display (the source form as
  the documents write it most often: what a person reads), source_start, source_end, target_start,
  target_end (end-exclusive offsets in the plain segment text), variation, chain_size,
  is_first_mention, via, align_method (`copied_word`: a source word kept that is also a word of the
  target language, never judged by a rule), judge ("rule" or the model), prompt_version,
  reference_text, reference_provenance, source_segment, target_segment;
- last, source_form: termqa's internal key of the source form (lemmas, e.g. "1 nation"), not for
  reading: it joins a row to the JSON result's references and to a decisions file.

The run signature is not repeated on every row: it is in the JSON result and the HTML report
(a cell identical on 10,000 rows is noise, and a value on the first row only breaks sorting and
filtering). `issues_only=True` (`--issues-only`) keeps the rows with something to do or look at:
errors, unjustified variants and occurrences not judged.

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
from termqa.problems import document_languages, problem_id
from termqa.shownpath import shown_path

from .issues import display_names, expected_text, form_displays, what_to_do

CSV_COLUMNS = (
    "document", "unit_id", "source_text", "target_text", "expected", "outcome", "label", "what_to_do",
    "status", "comment", "reason", "penalty", "language", "problem",
    "doc_id", "segment_id", "segment_index", "concept_id", "source_display", "source_start", "source_end",
    "target_start", "target_end", "variation", "chain_size", "is_first_mention", "via", "align_method",
    "judge", "prompt_version", "reference_text", "reference_provenance", "source_segment", "target_segment",
    "source_form",
)
ISSUE_ROWS = ("error", "unjustified", "unjudged")

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


def rows(result: dict, *, issues_only: bool = False):
    """The CSV rows as dicts of raw values (before cell formatting), in result order."""
    if not isinstance(result, dict) or result.get("termqa_result") != 1:
        raise UsageError("the CSV export needs a termqa result object of version 1",
                         fix="export a result written by this termqa version (termqa check --json)")
    full, short = {}, {}
    for s in result.get("segments") or []:
        full[(s["doc_id"], s["unit_id"], s["segment_id"], s["index"])] = s
        short.setdefault((s["doc_id"], s["unit_id"], s["segment_id"]), s)
    refs = {(r["doc_id"], r["concept_id"], r["source_form"]): r for r in result.get("references") or []}
    concepts = {c["id"]: c for c in result.get("concepts") or []}
    documents = result.get("documents") or []
    names = display_names(documents, [o["doc_id"] for o in result.get("occurrences") or []])
    shown = form_displays(result)
    tgt = ((result.get("signature") or {}).get("settings") or {}).get("tgt_lang") or \
        (documents[0].get("tgt_lang") if documents else "") or ""
    doc_lang = {d["doc_id"]: d.get("tgt_lang") or "" for d in documents}
    several = document_languages(result)  # a problem is one within its own language (termqa.problems)
    for o in result.get("occurrences") or []:
        if issues_only and o["outcome"] not in ISSUE_ROWS:
            continue
        key = (o["doc_id"], o["unit_id"], o["segment_id"])
        seg = full.get(key + (o.get("segment_index"),)) or short.get(key) or {}
        ref = o.get("reference") or refs.get((o["doc_id"], o["concept_id"], o["source_form"])) or {}
        expected = expected_text(o, refs, concepts, doc_lang.get(o["doc_id"]) or tgt if several else tgt)
        yield {
            "document": names.get(o["doc_id"], o["doc_id"]), "unit_id": o["unit_id"],
            "source_text": o["source_text"], "target_text": o.get("target_text"), "expected": expected,
            "outcome": o["outcome"], "label": o.get("label"), "what_to_do": what_to_do(o, expected),
            "status": None, "comment": None, "reason": o.get("reason"), "penalty": o.get("penalty"),
            "doc_id": shown_path(o["doc_id"]), "segment_id": o["segment_id"], "segment_index": o.get("segment_index"),
            "concept_id": o["concept_id"], "source_display": shown.get((o["concept_id"], o["source_form"])),
            "source_form": o["source_form"],
            "source_start": _span(o.get("source_span"), 0), "source_end": _span(o.get("source_span"), 1),
            "target_start": _span(o.get("target_span"), 0), "target_end": _span(o.get("target_span"), 1),
            "variation": o.get("variation"), "chain_size": o.get("chain_size"),
            "is_first_mention": o.get("is_first_mention"), "via": o.get("via"),
            "align_method": o.get("align_method"), "judge": o.get("judge"), "prompt_version": o.get("prompt_version"),
            "reference_text": ref.get("text"), "reference_provenance": ref.get("provenance"),
            "source_segment": seg.get("source"), "target_segment": seg.get("target"),
            "language": doc_lang.get(o["doc_id"]) or tgt,  # the target language of the occurrence's document
            "problem": problem_id(o, several.get(o["doc_id"])),
        }


def write_csv(result: dict, path, *, issues_only: bool = False) -> Path:
    """Write one row per occurrence (or per issue) to `path` (UTF-8 with BOM) and return the path."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf, dialect="excel")  # CRLF, minimal quoting: what Excel expects
    w.writerow(CSV_COLUMNS)
    for row in rows(result, issues_only=issues_only):
        w.writerow([_cell(c, row[c]) for c in CSV_COLUMNS])
    return atomic_write(path, buf.getvalue(), encoding="utf-8-sig")
