"""The spreadsheet of `termqa check --xlsx`: a QA list a translator can filter, answer and send back, and
that a vendor who gets nothing else can read the verdict from.

Sheets:

- Summary (first): the run's verdict in the words every output uses (termqa.results.verdict: PASS only
  when every occurrence was decided), the words checked and not checked, the occurrences by outcome, the
  gate, and one row per target language.
- Issues: one row per occurrence that is not conforming (errors, unjustified variants, occurrences
  not decided, justified variants), worst first: the problems in the order of the Problems sheet, each
  problem's occurrences in document order; the same human columns as the CSV (reports/csvout.py) and
  empty "status" and "comment" columns for the translator's reply. The header row is frozen, an
  auto-filter is on, each row is coloured by its verdict.
- Problems: one row per problem (termqa.problems: the occurrences with the same concept, source form,
  rendering and rule), exactly the report's "Fix first" then "Review first" (reports.issues.fix_first):
  same problems, same counts, same order; what to do as an instruction, the class of a question
  ("different word", "inflected form") and in how many units it is.
- Concepts: one row per concept and target language, with its occurrences per verdict and its penalty.
- Run: the run signature, the inputs, the glossaries and the warnings.

Written with XlsxWriter (write-only, pure Python). Cells are written as strings or numbers, never
as formulas, so text from translated files cannot run anything in the spreadsheet.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from termqa.errors import UsageError
from termqa.fileio import atomic_write
from termqa.labels import OUTCOME_TEXT, OUTCOMES
from termqa.results.langslice import language_of
from termqa.results.verdict import run_verdict, with_verdicts
from termqa.shownpath import result_names, scrub, shown_path

from .csvout import rows as csv_rows
from .html import _concept_name
from .issues import display_names, fix_first, units_text

ISSUE_COLUMNS = (
    # (column key in the CSV rows, header, width)
    ("document", "Document", 22), ("unit_id", "Unit", 10), ("source_text", "Source term", 22),
    ("target_text", "Found", 22), ("expected", "Expected", 22), ("outcome", "Verdict", 12),
    ("label", "Label", 14), ("what_to_do", "What to do", 40), ("status", "Status", 12),
    ("comment", "Comment", 30), ("reason", "Why", 40), ("penalty", "Penalty", 9), ("language", "Language", 10),
    ("source_segment", "Source segment", 50), ("target_segment", "Target segment", 50),
    ("concept_id", "Concept id", 14), ("doc_id", "Document id", 24), ("segment", "Segment", 10),
    ("problem", "Problem", 12),
)
PROBLEM_COLUMNS = (
    # (header, width)
    ("Problem", 12), ("Verdict", 12), ("Label", 8), ("Why to review", 18), ("Source term", 22), ("Found", 22),
    ("Expected", 22), ("What to do", 44), ("Occurrences", 11), ("Units", 8), ("Where", 50), ("Language", 10),
    ("Concept id", 14),
)
VERDICT_COLOURS = {"error": "#FFE6E4", "unjustified": "#FFF3C4", "unjudged": "#EAEEF2",
                   "justified": "#DDF4FF", "conforming": "#DAFBE1"}
_ORDER = {k: i for i, k in enumerate(("error", "unjustified", "unjudged", "justified", "conforming"))}


def _writer():
    try:
        import xlsxwriter
    except ImportError:
        raise UsageError("--xlsx needs the XlsxWriter package, which is not installed",
                         fix="pip install XlsxWriter (or pip install 'termqa[xlsx]')") from None
    return xlsxwriter


def _issues(ws, rows, head, wrap, fills) -> None:
    """One Issues sheet: a row per occurrence, coloured by verdict, with filters and a status column."""
    for col, (_key, title, width) in enumerate(ISSUE_COLUMNS):
        ws.write_string(0, col, title, head)
        ws.set_column(col, col, width, wrap)
    for i, r in enumerate(rows, start=1):
        for col, (key, _title, _w) in enumerate(ISSUE_COLUMNS):
            value = r.get(key)
            fmt = fills.get(r["outcome"]) if key == "outcome" else None
            if key == "outcome":
                value = OUTCOME_TEXT.get(value, (value,))[0]
            if value is None:
                if fmt:
                    ws.write_blank(i, col, None, fmt)
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                ws.write_number(i, col, value)
            else:
                ws.write_string(i, col, str(value), fmt) if fmt else ws.write_string(i, col, str(value))
    ws.freeze_panes(1, 0)
    ws.autofilter(0, 0, max(len(rows), 1), len(ISSUE_COLUMNS) - 1)
    # the whole row takes the verdict's colour, so a filtered list still reads at a glance
    if rows:
        for outcome, fmt in fills.items():
            ws.conditional_format(1, 0, len(rows), len(ISSUE_COLUMNS) - 1, {
                "type": "formula", "criteria": f'=$F2="{OUTCOME_TEXT[outcome][0]}"', "format": fmt})
    ws.data_validation(1, 8, max(len(rows), 1), 8, {
        "validate": "list", "source": ["fixed", "won't fix", "query", "false alarm"], "ignore_blank": True,
        "error_type": "information"})


def _groups(result: dict) -> list[dict]:
    """The problems of the Problems sheet: the report's Fix first, then Review first (one list)."""
    docs = result.get("documents") or []
    names = display_names(docs, [o["doc_id"] for o in result.get("occurrences") or []])
    tgt = ((result.get("signature") or {}).get("settings") or {}).get("tgt_lang") or \
        (docs[0].get("tgt_lang") if docs else "") or ""
    return fix_first(result, names=names, tgt_lang=tgt)


def _problems(ws, result: dict, groups: list, head, wrap, fills) -> None:
    """The Problems sheet: one row per problem to fix or to review, in the report's order."""
    docs = result.get("documents") or []
    doc_lang = {d["doc_id"]: d.get("tgt_lang") or "" for d in docs}
    tgt = ((result.get("signature") or {}).get("settings") or {}).get("tgt_lang") or \
        (docs[0].get("tgt_lang") if docs else "") or ""
    for col, (title, width) in enumerate(PROBLEM_COLUMNS):
        ws.write_string(0, col, title, head)
        ws.set_column(col, col, width, wrap)
    for i, g in enumerate(groups, start=1):
        first = g["occurrences"][0]
        values = (g["problem"], OUTCOME_TEXT.get(g["outcome"], (g["outcome"],))[0], g["label"], g.get("review"),
                  g["surfaces"][0] if g["surfaces"] else first.get("source_text"), g["found"], g["expected"],
                  g["what_to_do"], g["count"], len(g["units"]), units_text(g["units"], limit=40),
                  doc_lang.get(first["doc_id"]) or tgt, str(g["concept_id"]))
        for col, value in enumerate(values):
            if value is None:
                continue
            if isinstance(value, int):
                ws.write_number(i, col, value)
            elif col == 1:
                ws.write_string(i, col, value, fills.get(g["outcome"]))
            else:
                ws.write_string(i, col, str(value))
    ws.freeze_panes(1, 1)
    ws.autofilter(0, 0, max(len(groups), 1), len(PROBLEM_COLUMNS) - 1)


def _summary(ws, result: dict, head, wrap, bold) -> None:
    """The Summary sheet: the verdict first, then what it rests on, then one row per language."""
    verdict = result.get("verdict") or run_verdict(result)
    sm = result.get("summary") or {}
    ws.set_column(0, 0, 30)
    ws.set_column(1, 1, 90, wrap)
    words, checked = sm.get("source_words"), sm.get("checked_words")
    rows = [("Verdict", verdict["word"]), ("In words", verdict["line"]),
            ("Quality gate", f"--fail-on {','.join(verdict['gate'])}: " + (
                "failed on " + "; ".join(verdict["failed"]) if verdict["failed"] else "no condition holds")
             if verdict.get("gate") else "none set (termqa check --fail-on turns the verdict into PASS/FAIL)"),
            ("Errors (to fix)", verdict["errors"]), ("Not decided (to review)", verdict["to_review"]),
            ("Occurrences found", sm.get("occurrences", 0)),
            ("In untranslated segments (not checked)", sm.get("occurrences_in_untranslated_segments") or 0)]
    rows += [(f"  {OUTCOME_TEXT[k][0]}", (sm.get("outcomes") or {}).get(k, 0)) for k in OUTCOMES]
    if words is not None:
        rows.append(("Source words", words))
        if checked is not None:
            rows += [("  checked (translated)", checked), ("  not checked (not translated yet)", words - checked)]
    if sm.get("units_not_translated"):
        rows.append(("Units not translated yet", sm["units_not_translated"]))
    for i, (k, val) in enumerate(rows):
        ws.write_string(i, 0, k, head)
        if isinstance(val, (int, float)) and not isinstance(val, bool):
            ws.write_number(i, 1, val)
        else:
            ws.write_string(i, 1, str(val), bold if i == 0 else None)
    langs = result.get("languages") or {}
    if not langs:
        return
    top = len(rows) + 1
    titles = ("Language", "Verdict", "In words", "Errors", "To review", "Occurrences", "Source words",
              "Words checked")
    for col, t in enumerate(titles):
        ws.write_string(top, col, t, head)
    for r, (lang, part) in enumerate(langs.items(), start=top + 1):
        v = part.get("verdict") or run_verdict(part)
        psm = part.get("summary") or {}
        values = (lang, v["word"], v["line"], v["errors"], v["to_review"], psm.get("occurrences", 0),
                  psm.get("source_words"), psm.get("checked_words"))
        for col, val in enumerate(values):
            if val is None:
                continue
            if isinstance(val, int):
                ws.write_number(r, col, val)
            else:
                ws.write_string(r, col, str(val))


def xlsx_bytes(result: dict, *, issues_only: bool = True) -> bytes:
    """The workbook as bytes. `issues_only=False` also lists the conforming occurrences."""
    import io

    xlsxwriter = _writer()
    rows = list(csv_rows(result))
    occurrences = result.get("occurrences") or []
    if len(rows) == len(occurrences):  # the machine id of each row's document, for document order
        for r, o in zip(rows, occurrences):
            r["_doc_id"] = o["doc_id"]
    for r in rows:  # the segment's own id when the file gives one (XLIFF 2), else its number in the document
        r["segment"] = r["segment_id"] if r.get("segment_id") not in (None, "") else (
            r["segment_index"] + 1 if isinstance(r.get("segment_index"), int) else None)
    if issues_only:
        rows = [r for r in rows if r["outcome"] != "conforming"]
    if "verdict" not in result:  # a result from the library or an older file: the words without a gate
        result = with_verdicts(dict(result))
    groups = _groups(result)
    # worst first: the problems in the Problems sheet's order, each problem's occurrences in document order
    place = {g["problem"]: i for i, g in enumerate(groups)}
    doc_order = {d["doc_id"]: i for i, d in enumerate(result.get("documents") or [])}
    rows.sort(key=lambda r: (place.get(r["problem"], len(place)), _ORDER.get(r["outcome"], 9),
                             doc_order.get(r.get("_doc_id"), len(doc_order)), r.get("segment_index") or 0,
                             r.get("source_start") or 0))

    buf = io.BytesIO()
    # strings_to_formulas/urls off: a cell that starts with '=' stays text, a URL stays plain text
    wb = xlsxwriter.Workbook(buf, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False,
                                   "strings_to_numbers": False})
    head = wb.add_format({"bold": True, "bg_color": "#13233A", "font_color": "#FFFFFF", "text_wrap": True,
                          "valign": "top"})
    wrap = wb.add_format({"text_wrap": True, "valign": "top"})
    fills = {k: wb.add_format({"bg_color": c, "valign": "top", "text_wrap": True}) for k, c in VERDICT_COLOURS.items()}

    bold = wb.add_format({"bold": True, "font_size": 14})
    _summary(wb.add_worksheet("Summary"), result, head, wrap, bold)
    _issues(wb.add_worksheet("Issues"), rows, head, wrap, fills)
    langs = list(result.get("languages") or {})
    if len(langs) > 1:  # a delivery in several languages: each language's issues on a sheet of its own too
        for lang in langs:
            _issues(wb.add_worksheet(f"Issues {lang}"[:31]), [r for r in rows if r["language"] == lang],
                    head, wrap, fills)

    _problems(wb.add_worksheet("Problems"), result, groups, head, wrap, fills)

    # per concept
    cs = wb.add_worksheet("Concepts")
    concepts = {c["id"]: c for c in result.get("concepts") or []}
    docs = result.get("documents") or []
    src = ((result.get("signature") or {}).get("settings") or {}).get("src_lang") or \
        (docs[0].get("src_lang") if docs else "") or ""
    # one row per concept and target language: renderings of two languages never share a cell
    doc_lang = {d["doc_id"]: language_of(d) for d in docs}
    per = defaultdict(list)
    for o in result.get("occurrences") or []:
        per[(o["concept_id"], doc_lang.get(o["doc_id"], ""))].append(o)
    titles = ["Concept", "Concept id", "Language", "Occurrences"] + [OUTCOME_TEXT[k][0] for k in OUTCOMES] + \
        ["Penalty (sum)", "Renderings found"]
    for col, t in enumerate(titles):
        cs.write_string(0, col, t, head)
    cs.set_column(0, 1, 24)
    cs.set_column(2, 2, 10)
    cs.set_column(3, 3 + len(OUTCOMES) + 1, 11)
    cs.set_column(4 + len(OUTCOMES), 4 + len(OUTCOMES), 60, wrap)

    def badness(item):
        (cid, lang), occs = item
        return (-sum(o.get("penalty") or 0 for o in occs), -len(occs), str(cid), lang)

    for i, ((cid, lang), occs) in enumerate(sorted(per.items(), key=badness), start=1):
        c = concepts.get(cid) or {"id": cid, "terms": []}
        oc = Counter(o["outcome"] for o in occs)
        rend = Counter(o.get("target_text") or "(none)" for o in occs)
        cs.write_string(i, 0, _concept_name(c, src))
        cs.write_string(i, 1, str(cid))
        cs.write_string(i, 2, lang)
        cs.write_number(i, 3, len(occs))
        for j, k in enumerate(OUTCOMES):
            cs.write_number(i, 4 + j, oc.get(k, 0))
        cs.write_number(i, 4 + len(OUTCOMES), round(sum(o.get("penalty") or 0 for o in occs), 4))
        cs.write_string(i, 5 + len(OUTCOMES), "; ".join(f"{t} ×{n}" for t, n in rend.most_common()))
    cs.freeze_panes(1, 1)
    cs.autofilter(0, 0, max(len(per), 1), len(titles) - 1)

    # the run
    rs = wb.add_worksheet("Run")
    rs.set_column(0, 0, 18)
    rs.set_column(1, 1, 100, wrap)
    sig = result.get("signature") or {}
    lines = [("Signature", sig.get("string") or ""), ("Tool", sig.get("tool") or "")]
    names = result_names(result)  # no path of the machine that ran the check (termqa.shownpath)
    lines += [("Input", f"{shown_path(i.get('path'))} ({i.get('format')})") for i in result.get("inputs") or []]
    lines += [("Glossary", f"{shown_path(g.get('path'))} ({g.get('format')})") for g in sig.get("glossaries") or []]
    lines += [("Warning", scrub(w, names)) for w in result.get("warnings") or []]
    for i, (k, val) in enumerate(lines):
        rs.write_string(i, 0, k, head)
        rs.write_string(i, 1, str(val))
    wb.close()
    return buf.getvalue()


def write_xlsx(result: dict, path, *, issues_only: bool = True) -> Path:
    """Write the workbook to `path` (atomically) and return the path."""
    data = xlsx_bytes(result, issues_only=issues_only)
    return atomic_write(path, data)
