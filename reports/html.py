"""The HTML report: one self-contained file a project manager opens from disk or an e-mail.

It renders the `termqa check` result object (notes/result-json.md), never pipeline internals.
Everything from files (segments, terms, ids, reasons) reaches the page through jinja2
autoescaping, piece by piece: highlighted spans are made by splitting the raw text at the
offsets and escaping each piece, never by building markup from text. The data the script needs
(the occurrences themselves among it, reports/compact.py; the script writes them as text, never as
markup) travels as JSON inside `<script type="application/json">`, with `<`, `>` and `&`
written as \\u escapes so no text can close the element. A CSP meta tag allows only our own
inline script (by its sha256 hash) and inline styles; no network access at all.

Reviewer decisions are made in the page (Accept / Reject on a flag) and downloaded as the decisions
file of termqa.formats.decisions (reports/decide_view.py): everything that needs hashing or Unicode folding (segment keys,
document names, decision ids) is computed here and embedded, so the script only assembles records.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable, Optional

from termqa.errors import TermqaError, UsageError
from termqa.results.backlog import backlog
from termqa.fileio import atomic_write
from termqa.formats.decisions import DecisionBook
from termqa.labels import (
    ALIGN_METHOD_TEXT, CODE_DESCRIPTIONS, CONSISTENCY_DESCRIPTIONS, ERROR_CODES, METRIC_TEXT,
    OUTCOME_TEXT, OUTCOMES, PLAIN_WORDS, PROVENANCE_TEXT, RULE_NAMES, label_info, label_name, setting_text,
)
from termqa.results.gate import nothing_checked
from termqa.results.verdict import run_verdict
from termqa.results.langslice import language_of
from termqa.shownpath import result_names, scrub_all

from .compact import Folder, drop_indentation, reference_tables
from .decide_view import decide_data, occurrence_rows, run_book
from .issues import (
    FIX_FIRST_OUTCOMES, FLAGGED_OUTCOMES, ISSUE_OUTCOMES, base_name, display_names, form_displays, group_flags, units_text,
)
from .languages_view import combined_gate, language_views

RESULT_VERSION = 1

STATUS_CLASS = {
    "preferred": "good", "admitted": "info", "deprecated": "bad", "forbidden": "bad",
    "superseded": "warn", "unknown": "plain",
}



# ---------------------------------------------------------------------------- small helpers




def slug(text: Any) -> str:
    """ASCII slug safe in an id and a URL fragment: lowercase letters, digits and dashes."""
    s = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    s = re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")
    return s or "x"


class _Ids:
    """Stable, unique element ids: the slug, plus a short hash of the raw key when two
    different keys slug alike (so the id never depends on rendering order)."""

    def __init__(self, prefix: str, keys: Iterable[tuple]):
        keys = list(dict.fromkeys(keys))
        base = {k: prefix + "-" + "-".join(slug(p) for p in k if p not in ("", None)) for k in keys}
        clash = Counter(base.values())
        self._ids = {}
        for k, b in base.items():
            if clash[b] > 1:
                digest = hashlib.sha1("\x1f".join(map(str, k)).encode("utf-8")).hexdigest()[:6]
                b = f"{b}-{digest}"
            self._ids[k] = b

    def __getitem__(self, key: tuple) -> str:
        return self._ids[key]


def json_for_script(data: Any) -> str:
    """JSON that is safe inside <script type="application/json">: no `<`, `>`, `&` survive,
    and U+2028/U+2029 are escaped too, so no string can end the element or start a comment."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def split_at_span(text: str, span) -> list[dict]:
    """Pieces of `text` with the [start, end) span marked; the whole text unmarked when the
    span is missing or does not fit the text (never guess: a wrong highlight misleads)."""
    if text is None:
        return []
    ok = (isinstance(span, (list, tuple)) and len(span) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) for v in span)
          and 0 <= span[0] < span[1] <= len(text))
    if not ok:
        return [_shown({"text": text, "mark": False})] if text else []
    a, b = span
    pieces = [{"text": text[:a], "mark": False}, {"text": text[a:b], "mark": True},
              {"text": text[b:], "mark": False}]
    return [_shown(p) for p in pieces if p["text"]]


def _shown(piece: dict) -> dict:
    # U+2028 is where an inline code separates two words (formats.inline): shown as the space a
    # reader sees there, never glued ("contenu de", not "contenude"); offsets were applied above
    if "\u2028" in piece["text"]:
        piece["text"] = piece["text"].replace("\u2028", " ")
    return piece


def fmt_score(value) -> str:
    return "—" if value is None else f"{value:.2f}"


def fmt_pct(value) -> str:
    """A share as a whole percentage, never "0%" for a share above zero nor "100%" for one below."""
    if value is None:
        return "—"
    if 0 < value < 0.005:
        return "< 1%"
    if 0.995 <= value < 1:
        return "> 99%"
    return f"{100 * value:.0f}%"


def fmt_rate(per_k: float) -> str:
    """Issues per 1,000 words, with enough precision to be non-zero when something was found."""
    if per_k == 0:
        return "0"
    if per_k < 0.01:
        return "< 0.01"
    if per_k < 0.1:
        return f"{per_k:.2f}"
    return f"{per_k:.1f}" if per_k < 10 else f"{per_k:.0f}"


def _num(value) -> str:
    """A sort key for data-sort attributes: numbers as numbers, missing ones sort last."""
    return "" if value is None else repr(float(value))


# ---------------------------------------------------------------------------- the view model

def _concept_name(concept: dict, src_lang: str) -> str:
    terms = concept.get("terms") or []
    for wanted in ((src_lang, "preferred"), (src_lang, None), (None, None)):
        for t in terms:
            if (wanted[0] is None or t.get("lang") == wanted[0]) and \
                    (wanted[1] is None or t.get("status") == wanted[1]):
                return t.get("text") or concept["id"]
    return str(concept["id"])


def _lang_order(langs: Iterable[str], src: str, tgt: str) -> list[str]:
    langs = set(langs)
    head = [l for l in (src, tgt) if l in langs]
    return head + sorted(langs - set(head))


def _outcome_counts(occs: list[dict]) -> list[dict]:
    c = Counter(o["outcome"] for o in occs)
    return [{"outcome": k, "count": c[k], "text": OUTCOME_TEXT.get(k, (k, "", ""))[0],
             "icon": OUTCOME_TEXT.get(k, (k, "•", ""))[1]} for k in OUTCOMES if c[k]] + \
        [{"outcome": k, "count": n, "text": k, "icon": "•"} for k, n in sorted(c.items())
         if k not in OUTCOMES]


def _outcome_counts_from(counts: dict) -> list[dict]:
    """Badges for a precomputed {outcome: count} mapping (zero counts left out)."""
    return [{"outcome": k, "count": counts[k], "text": OUTCOME_TEXT[k][0], "icon": OUTCOME_TEXT[k][1]}
            for k in OUTCOMES if counts.get(k)]


def _refline(ov: dict) -> tuple:
    o = ov["o"]
    return (ov["ref_text"], ov["ref_provenance"], o.get("source_text"), o.get("variation"), ov["align_text"],
            o.get("chain_size"), o.get("judge"), o.get("prompt_version"))


def _shared_refline(views: list) -> Optional[dict]:
    """The occurrence whose reference line (reference, source, chain, judge) every occurrence of a flag
    shares: the group shows it once above them. None when they differ: each shows its own."""
    return views[0] if views and len({_refline(ov) for ov in views}) == 1 else None


ACCOUNTING_TEXT = (
    ("calls", "LLM calls made"), ("cached", "Answers from the cache"), ("failed", "Failed calls"),
    ("tokens_in", "Tokens in"), ("tokens_in_cached", "Tokens in, from the provider's prompt cache"),
    ("tokens_out", "Tokens out"), ("cost_usd", "Estimated cost"),
    ("calls_per_scored_occurrence", "Calls per scored occurrence"),
    ("unusable_answers", "Unusable answers (asked again, never a verdict, never cached)"),
    ("schema_breaking_answers", "Schema-breaking answers (a label outside the registry, a missing field...)"),
    ("failed_by_reason", "Failed questions by reason"),
)


def _accounting(acc: Optional[dict]) -> Optional[list]:
    """Rows (name, value text) of the judge's account, known keys first, in a fixed order."""
    if not acc:
        return None
    rows = []
    for key, name in ACCOUNTING_TEXT + tuple((k, k.replace("_", " ")) for k in sorted(acc)
                                             if k not in dict(ACCOUNTING_TEXT)):
        if key in acc:
            val = acc[key]
            if val is None:
                text = "—"
            elif key == "cost_usd":
                text = f"${val:.4f}"
            elif isinstance(val, float):
                text = f"{val:.2f}"
            elif isinstance(val, dict):  # counts by reason: "not JSON 3, outage 1"
                text = ", ".join(f"{k} {n}" for k, n in val.items()) or "—"
            else:
                text = f"{val:,}" if isinstance(val, int) and not isinstance(val, bool) else str(val)
            rows.append((name, text))
    return rows


def _chart(outcomes: dict) -> dict:
    """Geometry for the stacked verdict bar (an inline SVG; the legend is HTML text)."""
    total = sum(outcomes.get(k, 0) for k in OUTCOMES)
    width, x, bars = 640.0, 0.0, []
    for k in OUTCOMES:
        n = outcomes.get(k, 0)
        share = n / total if total else 0.0
        w = width * share
        bars.append({"outcome": k, "count": n, "share": share, "pct": fmt_pct(share) if total else "—",
                     "x": round(x, 2), "w": round(w, 2), "text": OUTCOME_TEXT[k][0],
                     "icon": OUTCOME_TEXT[k][1], "meaning": OUTCOME_TEXT[k][2]})
        x += w
    label = ", ".join(f"{b['text']}: {b['count']}" for b in bars)
    return {"total": total, "width": int(width), "bars": bars, "aria": f"Verdicts: {label}"}


def _minibar(outcomes: dict, width: float = 120.0) -> dict:
    """A small stacked verdict bar (per document, per concept): geometry plus its text."""
    total = sum(outcomes.get(k, 0) for k in OUTCOMES)
    x, bars = 0.0, []
    for k in OUTCOMES:
        n = outcomes.get(k, 0)
        if not n:
            continue
        w = width * n / total
        bars.append({"outcome": k, "x": round(x, 2), "w": round(w, 2), "count": n, "text": OUTCOME_TEXT[k][0]})
        x += w
    label = ", ".join(f"{b['text']} {b['count']}" for b in bars) or "no occurrences"
    return {"total": total, "width": int(width), "bars": bars, "aria": label}


def gate_view(result: dict, fail_on) -> dict:
    """The verdict on the first screen (termqa.results.verdict, the words every output uses): its state
    (the banner's colour), word, the gate's conditions and failures, and `found`, what the word rests on."""
    verdict = run_verdict(result, fail_on)
    line = verdict["line"]
    found = line[len(verdict["word"]) + 2:] if line.startswith(verdict["word"] + ": ") else line
    return {"state": verdict["state"], "word": verdict["word"], "conditions": ",".join(verdict["gate"] or ()),
            "failed": verdict["failed"], "found": found, "to_review": verdict["to_review"],
            "errors": verdict["errors"]}


def _headline(result: dict, source_words: Optional[int]) -> dict:
    """One figure with a plain reading: issues per 1,000 source words when the word count is
    known, and the share of term occurrences that are fine."""
    oc = (result.get("summary") or {}).get("outcomes") or {}
    total = sum(oc.get(k, 0) for k in OUTCOMES)
    issues = sum(oc.get(k, 0) for k in ISSUE_OUTCOMES)
    ok = oc.get("conforming", 0) + oc.get("justified", 0)
    summary = result.get("summary") or {}
    total_words = summary.get("source_words") if source_words is None else source_words
    if source_words is None:  # the one word count (termqa.wordcount), carried by the result: over the words
        # checked, since words nobody translated yet hold no issue and would make the rate read better
        source_words = summary.get("checked_words", summary.get("source_words"))
    per_k = (1000.0 * issues / source_words) if source_words else None
    if nothing_checked(result):  # "0 issues per 1,000 words" would read as a clean file
        per_k = None
    return {
        "issues": issues, "total": total, "ok": ok, "unjudged": oc.get("unjudged", 0),
        "words": source_words, "total_words": total_words,
        "unchecked_words": (total_words - source_words) if total_words and source_words is not None else 0,
        "per_k": None if per_k is None else fmt_rate(per_k),
        "ok_share": fmt_pct(ok / total) if total else "—",
    }


def _todo_line(g: dict, concept_name: str) -> str:
    found = f"found “{g['found']}”" if g["found"] is not None else "term missing in the target"
    expected = f", expected “{g['expected']}”" if g["expected"] else ""
    why = f" [to review: {g['review']}]" if g.get("review") else ""
    return f"{concept_name}: {found}{expected}{why}, ×{g['count']}, in units {units_text(g['units'])}"


def todo_views(groups: list, concept_name: dict, concept_anchor: dict) -> tuple[list, list]:
    """The first screen's two lists from `fix_first`'s one: (errors to fix, questions to review), each
    group with its line, concept name and anchor."""
    fix, review = [], []
    for g in groups:
        name = concept_name.get(g["concept_id"], str(g["concept_id"]))
        view = dict(g, line=_todo_line(g, name), name=name, anchor=concept_anchor.get(g["concept_id"]),
                    units_text=units_text(g["units"], limit=6), unit_count=len(g["units"]))
        (review if g["kind"] == "review" else fix).append(view)
    return fix, review


def _backlog_view(result: dict, limit: int = 10) -> Optional[dict]:
    """The glossary backlog (termqa.results.backlog) cut to what fits on a first screen."""
    try:
        b = backlog(result)
    except (TermqaError, KeyError, TypeError):  # a hand-made or older result: leave the panel out
        return None
    return {"candidates": b["candidates"][:limit], "more": max(0, len(b["candidates"]) - limit),
            "forbidden": b["forbidden"][:limit], "note": b["note"], "total": len(b["candidates"])}


def _pair_text(documents: list, src_lang: str, tgt_lang: str) -> str:
    """The header's language pair: every source and target language the documents have ("en → de, ru")."""
    src = src_lang or ", ".join(dict.fromkeys(d.get("src_lang") for d in documents if d.get("src_lang"))) or "?"
    tgt = tgt_lang or ", ".join(dict.fromkeys(language_of(d) for d in documents if d.get("tgt_lang"))) or "?"
    return f"{src} → {tgt}"


def build_view(result: dict, *, fail_on=None, source_words: Optional[int] = None,
               decisions: Optional[DecisionBook] = None) -> dict:
    """Everything the template shows, precomputed and ordered (testable without HTML).

    `fail_on`: the `--fail-on` conditions, to show PASS/FAIL on the first screen; `source_words`:
    the number of source words, for the issues-per-1,000-words figure (default: the result's
    `summary.source_words`, termqa.wordcount's one definition); `decisions`: the
    decisions file the page's own decisions are merged into (default: the one the run used, read
    again from `result["decisions"]["path"]`)."""
    if not isinstance(result, dict) or result.get("termqa_result") != RESULT_VERSION:
        got = result.get("termqa_result") if isinstance(result, dict) else type(result).__name__
        raise UsageError(f"the report needs a termqa result object of version {RESULT_VERSION}, got {got!r}",
                         fix="render a result written by this termqa version (termqa check --json)")

    sig = result["signature"]
    settings = sig.get("settings") or {}
    documents = result.get("documents") or []
    # Languages the run was told, else the ones every document agrees on (auto-detected runs).
    src_lang, tgt_lang = settings.get("src_lang") or "", settings.get("tgt_lang") or ""
    if not src_lang and len({d.get("src_lang") for d in documents}) == 1:
        src_lang = documents[0].get("src_lang") or ""
    if not tgt_lang and len({d.get("tgt_lang") for d in documents}) == 1:
        tgt_lang = documents[0].get("tgt_lang") or ""
    occurrences = result.get("occurrences") or []
    summary = result["summary"]
    position = {id(o): k for k, o in enumerate(occurrences)}  # what a decision names an occurrence by
    decided: dict = {}  # id(o) -> position, for the flagged occurrences the page lets a reviewer decide

    doc_ids = [d["doc_id"] for d in documents]
    for o in occurrences:  # a document only referenced by occurrences still gets a filter entry
        if o["doc_id"] not in doc_ids:
            doc_ids.append(o["doc_id"])
    doc_key = {d: f"d{i}" for i, d in enumerate(doc_ids)}
    names = display_names(documents, doc_ids)

    # Segments by their full key, and by (doc, unit, seg) as a fallback.
    seg_full, seg_short = {}, {}
    for s in result.get("segments") or []:
        seg_full[(s["doc_id"], s["unit_id"], s["segment_id"], s["index"])] = s
        seg_short.setdefault((s["doc_id"], s["unit_id"], s["segment_id"]), s)

    refs = {(r["doc_id"], r["concept_id"], r["source_form"]): r for r in result.get("references") or []}
    shown = form_displays(result)  # source forms as written; the lemma key is never shown

    # Concepts: the glossary entries found, plus a stub for any id only occurrences mention.
    concepts = {c["id"]: c for c in result.get("concepts") or []}
    for o in occurrences:
        concepts.setdefault(o["concept_id"], {"id": o["concept_id"], "definition": "", "subject": "",
                                              "dnt": False, "terms": [], "occurrences": 0,
                                              "worst_penalty": None})
    by_concept = defaultdict(list)
    for o in occurrences:
        by_concept[o["concept_id"]].append(o)

    def doc_order(o):
        return (doc_ids.index(o["doc_id"]), o.get("segment_index") or 0, o["source_span"][0]
                if o.get("source_span") else 0)

    def sort_key(cid):
        occs = by_concept.get(cid, [])
        total = sum(o["penalty"] for o in occs if o.get("penalty") is not None)
        unjudged = sum(1 for o in occs if o["outcome"] == "unjudged")
        return (-total, -unjudged, -len(occs), str(cid))

    ordered_ids = sorted(concepts, key=sort_key)
    concept_key = {cid: f"k{i}" for i, cid in enumerate(ordered_ids)}
    concept_anchor = _Ids("concept", [(cid,) for cid in ordered_ids])

    # Segment anchors go to the first element rendered for that segment (ids stay unique), a flagged
    # occurrence rather than a conforming one: those are rows the script builds only when asked.
    seg_ids = _Ids("seg", [(o["doc_id"], o["unit_id"], o["segment_id"]) for o in occurrences])
    anchored: set = set()
    flagged_segments = {seg_ids[(o["doc_id"], o["unit_id"], o["segment_id"])] for o in occurrences
                        if o["outcome"] in FLAGGED_OUTCOMES}

    def anchor_of(o) -> tuple:
        anchor = seg_ids[(o["doc_id"], o["unit_id"], o["segment_id"])]
        own = anchor not in anchored and (o["outcome"] in FLAGGED_OUTCOMES or anchor not in flagged_segments)
        if own:
            anchored.add(anchor)
        return anchor, own

    decide_rows = occurrence_rows(result)
    folder = Folder({d: i for i, d in enumerate(doc_ids)}, names,
                    {d["doc_id"]: language_of(d) for d in documents if d.get("tgt_lang")})

    def occurrence_view(o):
        key3 = (o["doc_id"], o["unit_id"], o["segment_id"])
        seg = seg_full.get(key3 + (o.get("segment_index"),)) or seg_short.get(key3)
        anchor, own = anchor_of(o)
        ref = o.get("reference") or refs.get((o["doc_id"], o["concept_id"], o["source_form"])) or {}
        info = label_info(o.get("label"))
        if info and RULE_NAMES.get(o.get("rule"), info["name"]) != info["name"]:
            # a deterministic rule names the case beside the label it is scored as (one name per label)
            info = dict(info, rule=RULE_NAMES[o["rule"]])
        return {
            "o": o, "k": position[id(o)], "doc_key": doc_key[o["doc_id"]], "concept_key": concept_key[o["concept_id"]],
            "doc_name": names[o["doc_id"]],
            "anchor": anchor, "own_anchor": own, "seg": seg,
            "source": split_at_span(seg["source"], o.get("source_span")) if seg else None,
            "target": split_at_span(seg["target"], o.get("target_span")) if seg else None,
            "label": info, "align_text": ALIGN_METHOD_TEXT.get(o.get("align_method") or "", o.get("align_method")),
            "ref_text": ref.get("text"), "ref_provenance": ref.get("provenance"),
            "outcome_text": OUTCOME_TEXT.get(o["outcome"], (o["outcome"], "•", ""))[0],
            "outcome_icon": OUTCOME_TEXT.get(o["outcome"], (o["outcome"], "•", ""))[1],
            "penalty": fmt_score(o.get("penalty")),
        }

    all_groups = group_flags(result, names=names, tgt_lang=tgt_lang)
    concept_groups = defaultdict(list)
    for g in all_groups:
        concept_groups[g["concept_id"]].append(g)

    concept_views = []
    for cid in ordered_ids:
        c = concepts[cid]
        occs = sorted(by_concept.get(cid, []), key=doc_order)
        terms_by_lang = defaultdict(list)
        for t in c.get("terms") or []:
            # Glossary readers may leave the optional fields out; the template needs them all.
            terms_by_lang[t.get("lang") or "?"].append(
                dict(t, css=STATUS_CLASS.get(t.get("status") or "unknown", "plain"),
                     status=t.get("status") or "unknown", raw_status=t.get("raw_status") or "",
                     type=t.get("type")))
        # Source forms, with their reference in each document.
        forms: dict = {}
        for o in occs:
            # `source_form` is a lemma key ("1 nation"): people read the form as written
            f = forms.setdefault(o["source_form"], {"form": shown[(cid, o["source_form"])], "surfaces": Counter(),
                                                    "variations": set(), "docs": {}, "count": 0})
            f["count"] += 1
            f["surfaces"][o["source_text"]] += 1
            if o.get("variation") and o["variation"] != "none":
                f["variations"].add(o["variation"])
            if o["doc_id"] not in f["docs"]:
                ref = refs.get((o["doc_id"], cid, o["source_form"])) or o.get("reference") or {}
                f["docs"][o["doc_id"]] = {"doc_id": o["doc_id"], "name": names[o["doc_id"]], "text": ref.get("text"),
                                          "provenance": ref.get("provenance"),
                                          "provenance_text": PROVENANCE_TEXT.get(ref.get("provenance"), ""),
                                          "chain": o.get("chain_size"), "count": 0}
            f["docs"][o["doc_id"]]["count"] += 1
        form_views = [{"form": f["form"], "count": f["count"],
                       "surfaces": [s for s, _ in f["surfaces"].most_common()],
                       "variations": sorted(f["variations"]), "docs": list(f["docs"].values())}
                      for f in forms.values()]
        # Renderings: one row per (source form, target text), most frequent first.
        rend: dict = {}
        for o in occs:
            r = rend.setdefault((o["source_form"], o.get("target_text")),
                                {"form": shown[(cid, o["source_form"])], "target": o.get("target_text"), "occs": []})
            r["occs"].append(o)
        rend_views = []
        for r in rend.values():
            labels = Counter(o["label"] for o in r["occs"] if o.get("label"))
            rend_views.append({"form": r["form"], "target": r["target"], "count": len(r["occs"]),
                               "outcomes": _outcome_counts(r["occs"]),
                               "labels": [dict(label_info(l), count=n) for l, n in labels.most_common()],
                               "docs": len({o["doc_id"] for o in r["occs"]})})
        rend_views.sort(key=lambda r: (-r["count"], r["form"], r["target"] is None, r["target"] or ""))
        groups = []
        for g in concept_groups.get(cid, []):
            info = label_info(g["label"])
            first = g["occurrences"][0]
            if info and RULE_NAMES.get(first.get("rule"), info["name"]) != info["name"]:
                info = dict(info, rule=RULE_NAMES[first["rule"]])
            groups.append(dict(g, label_view=info, views=[occurrence_view(o) for o in sorted(g["occurrences"], key=doc_order)],
                               outcome_text=OUTCOME_TEXT.get(g["outcome"], (g["outcome"], "•", ""))[0],
                               outcome_icon=OUTCOME_TEXT.get(g["outcome"], (g["outcome"], "•", ""))[1],
                               units_text=units_text(g["units"], limit=8),
                               penalty_text=fmt_score(g["penalty"]) if any(o.get("penalty") is not None for o in g["occurrences"]) else "—"))
        flagged = [ov for g in groups for ov in g["views"]]
        for ov in flagged:
            decided[id(ov["o"])] = ov["k"]
        groups = [dict(g, refline=_shared_refline(g["views"])) for g in groups]
        for g in groups:  # the cards themselves are made by the page's script from shared segment texts
            g["cards"] = folder.cards(g["views"], reason=g["reason"], shared_refline=g["refline"] is not None,
                                      decide=decide_rows)
        # a conforming occurrence can be rejected too (the glossary term is wrong here): its decide
        # data travels with its folded row
        conforming = [o for o in occs if o["outcome"] == "conforming"]
        folded = folder.fold(concept_key[cid], conforming, form=lambda o: shown[(cid, o["source_form"])],
                             position=lambda o: position[id(o)], anchor=anchor_of, decide=decide_rows)
        penalties = [o["penalty"] for o in occs if o.get("penalty") is not None]
        concept_views.append({
            "c": c, "key": concept_key[cid], "anchor": concept_anchor[(cid,)],
            "name": _concept_name(c, src_lang),
            "langs": [{"lang": l, "terms": terms_by_lang[l]}
                      for l in _lang_order(terms_by_lang, src_lang, tgt_lang)],
            "forms": form_views, "renderings": rend_views,
            "flagged": flagged, "groups": groups, "conforming": len(conforming), "folded": folded,
            "bar": _minibar(Counter(o["outcome"] for o in occs)),
            "count": len(occs), "outcomes": _outcome_counts(occs),
            "total_penalty": sum(penalties), "total_penalty_text": fmt_score(sum(penalties)) if penalties else "—",
            "worst_penalty": fmt_score(max(penalties)) if penalties else "—",
            "unjudged": sum(1 for o in occs if o["outcome"] == "unjudged"),
        })

    # Documents table, joined with their counting metrics.
    metrics = result.get("metrics") or {}
    doc_metrics = metrics.get("documents") or {}
    doc_views = []
    for d in documents:
        m = doc_metrics.get(d["doc_id"]) or {}
        em = (m.get("em") or {}).get("value")
        doc_views.append({"d": d, "key": doc_key[d["doc_id"]], "name": names[d["doc_id"]],
                          "bar": _minibar(d.get("outcomes") or {}), "score": fmt_score(d.get("score")),
                          "score_sort": _num(d.get("score")), "em": fmt_pct(em), "em_sort": _num(em),
                          "outcomes": _outcome_counts_from(d.get("outcomes") or {})})

    overall = metrics.get("overall") or {}
    metric_views = []
    for k in list(METRIC_TEXT) + sorted(set(overall) - set(METRIC_TEXT)):
        if k in overall:
            m = overall[k] or {}
            name, meaning = METRIC_TEXT.get(k, (k, ""))
            total, scored = m.get("total"), m.get("scored")
            metric_views.append({"key": k, "name": name, "meaning": meaning,
                                 "value": fmt_pct(m.get("value")), "scored": scored, "total": total,
                                 "coverage": fmt_pct(scored / total) if total else "—"})

    problems = [dict(label_info(l), count=n, penalty=(sig.get("penalties") or {}).get(l))
                for l, n in sorted((summary.get("labels") or {}).items(),
                                   key=lambda kv: (-kv[1], -float((sig.get("penalties") or {}).get(kv[0]) or 0), kv[0]))]

    scores = result.get("scores") or {}
    unjudged_total = sum((summary.get("unjudged_reasons") or {}).values())
    reasons = sorted((summary.get("unjudged_reasons") or {}).items(), key=lambda kv: (-kv[1], kv[0]))

    filter_data = {
        "documents": [{"key": doc_key[d], "name": names[d], "id": d} for d in doc_ids],
        "concepts": [{"key": cv["key"], "name": cv["name"], "id": str(cv["c"]["id"])} for cv in concept_views],
        "labels": [{"code": p["code"], "name": p["name"], "count": p["count"]} for p in problems],
        "outcomes": [{"key": k, "name": OUTCOME_TEXT[k][0], "icon": OUTCOME_TEXT[k][1]} for k in OUTCOMES],
        "total": len(occurrences),
        "decide": decide_data(result, decided, *run_book(result, decisions), rows=decide_rows, in_page=True),
        "folded": folder.data(),
        "tables": reference_tables(concept_views, {d: i for i, d in enumerate(doc_ids)}),
        "langs": {"source": src_lang, "target": tgt_lang},
        "words": {"chain": PLAIN_WORDS["chain"], "first mention": PLAIN_WORDS["first mention"]},
    }

    concept_name = {cv["c"]["id"]: cv["name"] for cv in concept_views}
    concept_anchor_of = {cv["c"]["id"]: cv["anchor"] for cv in concept_views}
    # one list, as the spreadsheet's Problems sheet reads it (issues.fix_first): errors, then questions
    todo, review = todo_views([dict(g, kind="review" if g["outcome"] == "unjudged" else "fix")
                               for g in all_groups if g["outcome"] in FIX_FIRST_OUTCOMES],
                              concept_name, concept_anchor_of)
    inputs = [dict(i, name=base_name(i.get("path")) or i.get("path")) for i in result.get("inputs") or []]
    # a delivery in several target languages: a row, a "Fix first" and a backlog per language (languages_view)
    languages = language_views(result, fail_on, gate=gate_view, headline=_headline, backlog_view=_backlog_view,
                               names=names, concept_name=concept_name, concept_anchor=concept_anchor_of,
                               todo_views=todo_views)
    if languages:
        filter_data["languages"] = [{"lang": lv["lang"], "name": lv["name"]} for lv in languages]
        filter_data["doc_langs"] = {doc_key[d["doc_id"]]: language_of(d) for d in documents}

    gate = combined_gate(gate_view(result, fail_on), languages)

    # a report is forwarded: no path of the machine that ran the check in it (termqa.shownpath)
    return scrub_all({
        "languages": languages,
        "pair_text": _pair_text(documents, src_lang, tgt_lang),
        "gate": gate, "headline": _headline(result, source_words),
        "todo": todo[:10], "todo_more": max(0, len(todo) - 10), "todo_total": len(todo),
        "review": review[:10], "review_more": max(0, len(review) - 10), "review_total": len(review),
        "review_occurrences": sum(g["count"] for g in review),
        "todo_text": "\n".join(t["line"] for t in todo + review),
        "backlog": _backlog_view(result),
        "input_names": [i["name"] for i in inputs],
        "sig": sig, "settings": settings, "src_lang": src_lang, "tgt_lang": tgt_lang,
        "settings_rows": [setting_text(k, val) for k, val in sorted(settings.items())],
        "plain_words": dict(PLAIN_WORDS),
        "label_legend": [(c, label_name(c), CODE_DESCRIPTIONS[c]) for c in ERROR_CODES] +
                        [(l, label_name(l), CONSISTENCY_DESCRIPTIONS[l]) for l in CONSISTENCY_DESCRIPTIONS],
        "judge": sig.get("judge"),
        "lemmatiser": sorted((sig.get("lemmatiser") or {}).items()),
        "inputs": inputs, "documents": doc_views,
        "summary": summary, "scores": scores,
        "score_cards": [
            ("System score", fmt_score(scores.get("system")), "mean of the document scores"),
            ("Micro score", fmt_score(scores.get("micro")), "mean penalty over all scored occurrences"),
            ("Per source form", fmt_score(scores.get("by_source_form")), "macro-average over source forms"),
            ("Per concept", fmt_score(scores.get("by_concept")), "macro-average over concepts"),
        ],
        "coverage": fmt_pct(scores.get("coverage")),
        "chart": _chart(summary.get("outcomes") or {}),
        "metrics": metric_views, "problems": problems,
        "unjudged_reasons": reasons, "unjudged_total": unjudged_total,
        "accounting": _accounting(result.get("accounting")),
        "warnings": result.get("warnings") or [],
        "concepts": concept_views,
        "filter_json": json_for_script(filter_data),
        "outcome_text": OUTCOME_TEXT,
        "penalties": sorted((sig.get("penalties") or {}).items(), key=lambda kv: (kv[0] not in OUTCOMES, kv[0])),
    }, result_names(result))


# ---------------------------------------------------------------------------- rendering

_ENV = None


def _env():
    """The jinja2 environment (created once): autoescape always on, undefined is an error."""
    global _ENV
    if _ENV is None:
        import jinja2

        _ENV = jinja2.Environment(
            loader=jinja2.PackageLoader("termqa.reports", "templates"),
            autoescape=True,  # every template, whatever its name
            undefined=jinja2.StrictUndefined,
            trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        )
        _ENV.filters["score"] = fmt_score
        _ENV.filters["pct"] = fmt_pct
        _ENV.filters["num"] = _num
    return _ENV


def _asset(name: str, closing: str) -> str:
    env = _env()
    text = env.loader.get_source(env, name)[0]
    # Our own files, inserted verbatim: they must not be able to close their element (nor put
    # the HTML parser into a script's "escaped" states).
    if closing in text.lower() or "<!--" in text or "<script" in text.lower():
        raise UsageError(f"report asset {name} contains {closing!r}", fix="remove it from the asset")
    return text


def csp_hash(script: str) -> str:
    """The CSP source expression that allows exactly this inline script."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode() + "'"


def render_html(result: dict, *, fail_on=None, source_words: Optional[int] = None,
                decisions: Optional[DecisionBook] = None) -> str:
    """The report as one self-contained HTML string (see `build_view` for the keywords)."""
    from markupsafe import Markup

    view = build_view(result, fail_on=fail_on, source_words=source_words, decisions=decisions)
    script = _asset("report.js", "</script")
    css = _asset("report.css", "</style")
    csp = ("default-src 'none'; style-src 'unsafe-inline'; script-src " + csp_hash(script)
           + "; base-uri 'none'; form-action 'none'")
    return drop_indentation(_env().get_template("report.html.j2").render(
        v=view, csp=csp, css=Markup(css), script=Markup(script),
        filter_json=Markup(view["filter_json"]),
    ))


def write_html(result: dict, path, *, fail_on=None, source_words: Optional[int] = None,
               decisions: Optional[DecisionBook] = None) -> Path:
    """Write the report to `path` (UTF-8) and return the path."""
    path = Path(path)
    atomic_write(path, render_html(result, fail_on=fail_on, source_words=source_words, decisions=decisions))
    return path
