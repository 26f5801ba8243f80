"""What keeps the HTML report small enough to e-mail (issue 34: a three-language delivery of 1,500
segments must stay under 2 MB; it made 3.9 to 4.3 MB when every occurrence was written out).

The page shows every flag (what was found, what was expected, how often, in which units, why) and, per
concept, its conforming occurrences as counts per rendering (source form, rendering). The occurrences
themselves travel once, as compact rows in the page's JSON, and the page's script makes them into a
flag's cards or a rendering's rows when those are opened (or searched, filtered, printed or linked to):
each segment text is written once however many occurrences it holds, and what the occurrences of a
flag or a rendering share (its reason, its reference line, the concept, source form and decision ids
of the Accept / Reject buttons, decide_view) is written once for them. A concept's references and
renderings tables are made the same way from `reference_tables`. Without the script the page still
reads as a list of problems; one note says what the script would add.

`drop_indentation` removes the template's indentation between tags, a fifth of a big page and no
part of what a browser shows.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Callable, Optional

from termqa.labels import PROVENANCE_TEXT

# one row of a folded occurrence in the page's JSON (report.js reads it by these positions); what
# deciding it needs beyond them (decide_view.OCC_FIELDS) is its rendering's: concept, source form,
# project decision id, and per document its decision name and document decision id
ROW_FIELDS = ("k", "doc", "unit", "segment", "source_text", "reason", "anchor", "own_anchor",
              "segment_key", "id_segment")


# one flagged occurrence in the page's JSON: what its card shows (report.js makes the card when its flag
# is opened), "seg" being the position of its segment in the page's one list of segment texts; and what
# deciding it needs (decide_view.OCC_FIELDS) beyond its own keys and ids: "part", the position of its
# concept, source form, rendering and project decision id in its flag's list of them (its document's
# decision name is the flag's, per document)
CARD_FIELDS = ("k", "doc", "unit", "segment", "anchor", "own_anchor", "seg", "source_span", "target_span",
               "missing", "source_text", "target_text", "penalty", "first_mention", "reason", "reference",
               "part", "segment_key", "id_segment", "id_document")


class Folder:
    """The conforming occurrences of every concept as counts per rendering (the view the template
    shows) and one table of rows for the script; the flagged occurrences of every flag as cards the
    script makes from one list of segment texts (`data()`)."""

    def __init__(self, doc_index: dict, names: dict, doc_langs: Optional[dict] = None):
        self._doc_index = doc_index  # doc_id -> position in the filter's documents list
        self._names = names
        self._doc_langs = doc_langs or {}
        self._reasons: dict = {}
        self._by_concept: dict = {}
        self._segments: dict = {}  # id(segment record) -> position, each text written once
        self._segment_texts: list = []
        self._cards: dict = {}

    def _segment(self, seg: dict) -> int:
        if id(seg) not in self._segments:
            self._segments[id(seg)] = len(self._segment_texts)
            self._segment_texts.append([seg["source"], seg.get("target")])
        return self._segments[id(seg)]

    def cards(self, views: list, *, reason: str, shared_refline: bool, decide: Callable[[int], list]) -> str:
        """The cards of one flag's occurrences (occurrence views of reports/html.py, each with its
        segment record as "seg"), kept for `data()`; returns the flag's key there. A card carries its
        own reason and reference line only where they differ from what its flag shows once, and its
        decide data (`decide`: decide_view.occurrence_rows) with the parts the flag's occurrences share
        written once for the flag."""
        key = f"g{len(self._cards)}"
        rows, parts, doc_names = [], {}, {}
        for ov in views:
            o, seg = ov["o"], ov["seg"]
            d = decide(ov["k"])
            part = parts.setdefault((d[0], d[1], d[3], d[9]), len(parts))
            doc_names[self._doc_index[o["doc_id"]]] = d[5]
            where = [ov["k"], self._doc_index[o["doc_id"]], o.get("unit_id") or "", o.get("segment_id") or "",
                     ov["anchor"], 1 if ov["own_anchor"] else 0]
            if seg is not None:
                text = [self._segment(seg), _span(seg["source"], o.get("source_span")),
                        _span(seg.get("target"), o.get("target_span"))]
            else:
                text = [-1, None, None]
            ref = None
            if not shared_refline:
                judge = o.get("judge")
                ref = [ov["ref_text"], ov["ref_provenance"], o.get("variation") if o.get("variation") != "none" else None,
                       ov["align_text"], o.get("chain_size"), "rule (deterministic)" if judge == "rule" else judge,
                       o.get("prompt_version")]
            rows.append(where + text + [1 if o.get("target_span") is None else 0, o.get("source_text"),
                                        o.get("target_text"), ov["penalty"] if o.get("penalty") is not None else "",
                                        1 if o.get("is_first_mention") else 0,
                                        (o.get("reason") or "") if o.get("reason") != reason else None, ref,
                                        part, d[4], d[7], d[8]])
        self._cards[key] = {"rows": rows, "parts": [list(p) for p in parts], "docs": doc_names}
        return key

    def _reason(self, text: Optional[str]) -> int:
        return self._reasons.setdefault(text or "", len(self._reasons))

    def fold(self, concept_key: str, occurrences: list, *, form: Callable[[dict], str],
             position: Callable[[dict], int], anchor: Callable[[dict], tuple],
             decide: Callable[[int], list]) -> list[dict]:
        """The renderings of one concept's conforming occurrences (given in document order), most
        frequent first: {"form", "target", "count", "docs", "lang", "fold"}. `form` gives the source form
        as people read it, `position` the occurrence's position in the result (what a decision names),
        `anchor` its segment anchor and whether the row is the element that anchor names, `decide` its
        row of decide_view.occurrence_rows (by position)."""
        groups: dict = {}
        for o in occurrences:
            groups.setdefault((o["source_form"], o.get("target_text")), []).append(o)
        ordered = sorted(groups.values(), key=lambda os: (-len(os), form(os[0]), os[0].get("target_text") is None,
                                                          os[0].get("target_text") or ""))
        views, table = [], []
        for i, occs in enumerate(ordered):
            docs = list(dict.fromkeys(self._names.get(o["doc_id"], o["doc_id"]) for o in occs))
            langs = {self._doc_langs.get(o["doc_id"]) for o in occs}
            rows, per_doc, shared = [], {}, set()
            for o in occs:
                a, own = anchor(o)
                d = decide(position(o))
                shared.add((d[0], d[1], d[3], d[9]))
                per_doc[self._doc_index[o["doc_id"]]] = [d[5], d[8]]
                rows.append([position(o), self._doc_index[o["doc_id"]], o.get("unit_id") or "",
                             o.get("segment_id") or "", o.get("source_text") or "", self._reason(o.get("reason")),
                             a, 1 if own else 0, d[4], d[7]])
            # one concept, source form and rendering: one project decision (its id hashes exactly those)
            [(concept, source_form, _rendering, id_project)] = shared
            table.append({"target": occs[0].get("target_text"), "rows": rows, "concept": concept,
                          "source_form": source_form, "id_project": id_project, "docs": per_doc})
            views.append({"form": form(occs[0]), "target": occs[0].get("target_text"), "count": len(occs),
                          "surfaces": [s for s, _ in Counter(o.get("source_text") for o in occs).most_common()],
                          "docs": _docs_text(docs), "lang": langs.pop() if len(langs) == 1 else None,
                          "fold": f"{concept_key}.{i}"})
        if table:
            self._by_concept[concept_key] = table
        return views

    def data(self) -> dict:
        """The rows for the page's script: per concept key its renderings, each {"target", "rows"}
        (rows as ROW_FIELDS), and the reasons the rows refer to by position; per flag key its cards
        (CARD_FIELDS), and the segment texts [source, target] they refer to by position."""
        return {"fields": list(ROW_FIELDS), "reasons": list(self._reasons), "concepts": self._by_concept,
                "card_fields": list(CARD_FIELDS), "cards": self._cards, "segments": self._segment_texts}


def _span(text: Optional[str], span) -> Optional[list]:
    """The span when it fits the text (offsets in code points, as report.js counts them), else None:
    the text is shown unmarked, never with a guessed highlight (html.split_at_span's rule)."""
    ok = (text is not None and isinstance(span, (list, tuple)) and len(span) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) for v in span) and 0 <= span[0] < span[1] <= len(text))
    return list(span) if ok else None


def _docs_text(docs: list, limit: int = 3) -> str:
    more = len(docs) - limit
    return ", ".join(docs[:limit]) + (f" and {more} more" if more > 0 else "")


# our own script and style (the CSP hashes the script's exact text) and text whose spaces show
_KEEP = re.compile(r"(<(script|style|pre|textarea)\b.*?</\2>)", re.S | re.I)
_BETWEEN_TAGS = re.compile(r">[ \t]*\n[ \t\n]*<")
_SPACES_BETWEEN_TAGS = re.compile(r">[ \t]{2,}<")


def drop_indentation(page: str) -> str:
    """The page without the indentation between two tags: a line break, or one space, is kept (the
    same white space to the browser), the spaces around it go. Text never changes: autoescaping writes
    every `>` of a text or an attribute as `&gt;`, so a raw `>` only ends a tag."""
    parts = _KEEP.split(page)
    out = []
    # re.split with two groups yields [text, whole kept element, its tag name, text, ...]
    for i in range(0, len(parts), 3):
        out.append(_SPACES_BETWEEN_TAGS.sub("> <", _BETWEEN_TAGS.sub(">\n<", parts[i])))
        if i + 1 < len(parts):
            out.append(parts[i + 1])
    return "".join(out)


def reference_tables(concepts: list, doc_index: dict) -> dict:
    """The two tables under each concept's "Glossary entry, references and renderings" as the page's
    data (report.js makes them when the fold is opened): per concept key, its source forms with their
    reference in each document, and its renderings with their verdicts and labels; the label chips'
    words and the provenance words once for the page. Made from the concept views of reports/html.py."""
    out, labels = {}, {}
    for cv in concepts:
        forms = [[f["form"], f["surfaces"] if f["surfaces"] != [f["form"]] else [], f["variations"],
                  [[doc_index[d["doc_id"]], d["text"], d["provenance"], d["count"]] for d in f["docs"]]]
                 for f in cv["forms"]]
        rends = []
        for r in cv["renderings"]:
            for lab in r["labels"]:
                labels[lab["code"]] = [lab["name"], lab["kind"], lab["description"]]
            rends.append([r["form"], r["target"], r["count"], [[oc["outcome"], oc["count"]] for oc in r["outcomes"]],
                          [[lab["code"], lab["count"]] for lab in r["labels"]]])
        if forms or rends:
            out[cv["key"]] = {"forms": forms, "renderings": rends}
    return {"concepts": out, "labels": labels, "provenance": dict(PROVENANCE_TEXT)}
