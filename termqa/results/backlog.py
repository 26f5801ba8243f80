"""`termqa backlog`: what a terminologist should look at after a run.

From a saved result (`termqa check --json`):

* candidates: renderings that are not in the glossary but were accepted by a reviewer for the whole
  project (`termqa decide ... --scope project`: the strongest evidence, kept whatever the count) or
  judged sound and consistent —
  with a judge, occurrences Justified as `document_usage`, and renderings that conform to a
  reference the judge validated, used at least `min_count` times; in counting mode (no judge, so no
  Justified verdict exists) renderings that conform to the document's own majority rendering
  (pseudo or validated reference) of a chain of 2+ occurrences, used at least `min_count` times. A
  rendering that any occurrence of the concept got an error verdict for is left out.
* glossary terms never found in the source (needs the glossary itself);
* forbidden (deprecated/superseded) target terms that were used anyway, by how often.

The candidates can be written as TBX v3 (TBX-Basic, DCA style) with each rendering as an admitted
term and a note saying where it comes from, or as CSV together with the two other lists.
"""
from __future__ import annotations

import csv
import io
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

from termqa.errors import UsageError
from termqa.fileio import atomic_write
from termqa.labels import Rule
from termqa.lang.langtags import lang_matches
from termqa.results.langslice import slice_result

JUDGE_BASES = ("document_usage", "validated")
COUNTING_BASES = ("pseudo", "validated")


def _key(text: Optional[str]) -> str:
    """Renderings compare case-folded, with typographic apostrophes and spacing unified."""
    return " ".join((text or "").replace("\u2019", "'").casefold().split())


@dataclass
class Entry:
    concept_id: str
    rendering: str
    count: int = 0
    documents: list = field(default_factory=list)
    basis: list = field(default_factory=list)
    source_terms: list = field(default_factory=list)
    glossary_terms: list = field(default_factory=list)
    examples: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"concept_id": self.concept_id, "rendering": self.rendering, "count": self.count,
                "documents": self.documents, "basis": self.basis, "source_terms": self.source_terms,
                "glossary_terms": self.glossary_terms, "examples": self.examples}


def _mode(result: Mapping) -> str:
    sig = result.get("signature") or {}
    mode = (sig.get("settings") or {}).get("mode")
    if mode in ("judge", "counting"):
        return mode
    return "judge" if sig.get("judge") else "counting"


def _lang_terms(concept: Mapping, lang: Optional[str], statuses=None) -> list:

    out = []
    for t in concept.get("terms", []):
        if lang and t.get("lang") and not lang_matches(t["lang"], lang):
            continue
        if statuses and t.get("status") not in statuses:
            continue
        if t["text"] not in out:
            out.append(t["text"])
    return out


def _examples(rows, segments, n):
    out = []
    seen = set()
    for o in rows:
        k = (o["doc_id"], o["unit_id"], o["segment_id"])
        if k in seen:
            continue
        seen.add(k)
        s = segments.get(k, {})
        out.append({"doc_id": o["doc_id"], "unit_id": o["unit_id"], "source": s.get("source"),
                    "target": s.get("target")})
        if len(out) >= n:
            break
    return out


def _entries(groups, concepts, segments, src, tgt, examples, basis_of):
    out = []
    for (cid, _k), rows in groups.items():
        c = concepts.get(cid, {})
        surface = Counter(o["target_text"] for o in rows).most_common(1)[0][0]
        out.append(Entry(
            concept_id=cid, rendering=surface, count=len(rows),
            documents=sorted({o["doc_id"] for o in rows}),
            basis=sorted({basis_of(o) for o in rows}),
            source_terms=_lang_terms(c, src) or sorted({o["source_text"] for o in rows}),
            glossary_terms=_lang_terms(c, tgt, ("preferred", "admitted", "unknown")),
            examples=_examples(rows, segments, examples),
        ))
    out.sort(key=lambda e: (-e.count, -len(e.documents), e.concept_id, e.rendering))
    return out


def backlog(result: Mapping, glossary=None, *, min_count: int = 2, examples: int = 3) -> dict:
    """The backlog of one result. `glossary`: concepts (termqa.model.Concept) of the glossary the run
    used, to list the terms never found; None skips that list."""
    if not isinstance(result, Mapping) or "occurrences" not in result:
        raise UsageError("not a termqa result", fix="pass the JSON written by termqa check --json")
    if result.get("languages"):  # several target languages: each language's backlog from its own documents
        return _by_language(result, glossary, min_count=min_count, examples=examples)
    mode = _mode(result)
    docs = result.get("documents", [])
    src = docs[0].get("src_lang") if docs else None
    tgt = docs[0].get("tgt_lang") if docs else None
    concepts = {c["id"]: c for c in result.get("concepts", [])}
    segments = {(s["doc_id"], s["unit_id"], s["segment_id"]): s for s in result.get("segments", [])}
    occ = list(result.get("occurrences", []))  # read three times below: a streamed result's rows made once

    in_glossary = {cid: {_key(t) for t in _lang_terms(c, tgt)} for cid, c in concepts.items()}
    erroneous = {(o["concept_id"], _key(o["target_text"])) for o in occ
                 if o["outcome"] == "error" and o.get("target_text")}

    def basis_of(o):
        if o.get("judge") == "reviewer":
            return "reviewer"
        if o["outcome"] == "justified":
            return o.get("label") or "justified"
        return ((o.get("reference") or {}).get("provenance")) or "pseudo"

    groups: dict = defaultdict(list)
    for o in occ:
        text = o.get("target_text")
        # a reviewer who accepted a rendering for the whole project said it is right wherever it occurs:
        # the strongest evidence a candidate can have, whatever the counting made of it
        accepted = o.get("judge") == "reviewer" and o["outcome"] == "conforming"
        if accepted and text and o.get("align_method") not in ("glossary", "dnt"):
            k = (o["concept_id"], _key(text))
            if k[1] not in in_glossary.get(o["concept_id"], set()):
                groups[k].append(o)
            continue
        if not text or o.get("align_method") in ("glossary", "dnt", "forbidden", "untranslated", "copied_word"):
            continue
        k = (o["concept_id"], _key(text))
        if k[1] in in_glossary.get(o["concept_id"], set()) or k in erroneous:
            continue
        prov = (o.get("reference") or {}).get("provenance")
        if mode == "judge":
            ok = (o["outcome"] == "justified" and o.get("label") == "document_usage") or (
                o["outcome"] == "conforming" and prov == "validated")
        else:
            ok = o["outcome"] == "conforming" and prov in COUNTING_BASES and (o.get("chain_size") or 0) >= 2
        if ok:
            groups[k].append(o)
    cands = _entries(groups, concepts, segments, src, tgt, examples, basis_of)
    cands = [e for e in cands if "document_usage" in e.basis or "reviewer" in e.basis or e.count >= min_count]

    forb: dict = defaultdict(list)
    for o in occ:
        if o.get("align_method") == "forbidden" or (o.get("label") == Rule.FORBIDDEN_TERM.label
                                                    and o.get("judge") == "rule"):
            forb[(o["concept_id"], _key(o.get("target_text")))].append(o)
    forbidden = _entries(forb, concepts, segments, src, tgt, examples, lambda o: Rule.FORBIDDEN_TERM.value)
    for e in forbidden:
        e.basis = [Rule.FORBIDDEN_TERM.value]

    never = None
    if glossary is not None:
        found = {o["concept_id"] for o in occ}
        never = []
        for c in glossary:
            if c.id in found:
                continue
            s_terms = [t.text for t in c.terms if not src or _lang_ok(t.lang, src)]
            t_terms = [t.text for t in c.terms if tgt and _lang_ok(t.lang, tgt)]
            never.append({"concept_id": c.id, "source_terms": s_terms, "glossary_terms": t_terms})
    note = ("counting mode: no judge ran, so no rendering was judged; candidates are renderings that "
            "conform to their document's own majority rendering in chains of 2+ occurrences"
            if mode == "counting" else
            "judge mode: candidates were justified as document usage or conform to a validated reference")
    return {
        "termqa_backlog": 1,
        "mode": mode,
        "note": note,
        "source_language": src,
        "target_language": tgt,
        "min_count": min_count,
        "signature": (result.get("signature") or {}).get("string"),
        "candidates": [e.as_dict() for e in cands],
        "forbidden": [e.as_dict() for e in forbidden],
        "never_found": never,
    }


def _by_language(result: Mapping, glossary, *, min_count: int, examples: int) -> dict:
    """The backlog of a result of several target languages: each language's own (from its documents
    only), every candidate and forbidden term marked with its `language`; a glossary concept is
    "never found" when no language found it."""
    parts = {lang: backlog(slice_result(result, lang), glossary, min_count=min_count, examples=examples)
             for lang in result["languages"]}
    first = next(iter(parts.values()))
    never = None
    if glossary is not None:
        missing = [{r["concept_id"] for r in p["never_found"]} for p in parts.values()]
        everywhere = set.intersection(*missing) if missing else set()
        never = [r for r in first["never_found"] if r["concept_id"] in everywhere]
    return {
        **first,
        "target_language": None,
        "target_languages": list(parts),
        "candidates": [dict(c, language=lang) for lang, p in parts.items() for c in p["candidates"]],
        "forbidden": [dict(c, language=lang) for lang, p in parts.items() for c in p["forbidden"]],
        "never_found": never,
    }


def _lang_ok(a: Optional[str], b: str) -> bool:

    return not a or lang_matches(a, b)


# --- writers -------------------------------------------------------------------------------------

_ID_BAD = re.compile(r"[^A-Za-z0-9._-]")


def _xml_id(cid: str, used: set) -> str:
    """A valid xsd:ID (an NCName) from a concept id, unique in the file."""
    base = "c-" + _ID_BAD.sub("_", cid)
    out, n = base, 2
    while out in used:
        out, n = f"{base}-{n}", n + 1
    used.add(out)
    return out


def tbx_bytes(report: Mapping) -> bytes:
    """TBX v3, TBX-Basic dialect, DCA style: one conceptEntry per concept with candidates."""
    from lxml import etree

    T = "urn:iso:std:iso:30042:ed-2"
    XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
    src = report.get("source_language") or "und"
    tgt = report.get("target_language") or "und"
    root = etree.Element(f"{{{T}}}tbx", nsmap={None: T}, type="TBX-Basic", style="dca")
    root.set(XML_LANG, src)

    def sub(parent, name, text=None, **attrs):
        el = etree.SubElement(parent, f"{{{T}}}{name}", **attrs)
        if text is not None:
            el.text = text
        return el

    header = sub(root, "tbxHeader")
    fd = sub(header, "fileDesc")
    sub(sub(fd, "titleStmt"), "title", "termqa terminology backlog: candidate terms")
    sub(sub(fd, "sourceDesc"), "p", f"Generated by termqa backlog ({report.get('mode')} mode) from "
        f"{report.get('signature') or 'a termqa result'}. {report.get('note', '')}. "
        "Candidates are proposals for review, not approved terms.")
    body = sub(sub(root, "text"), "body")
    by_concept: dict = defaultdict(list)
    for c in report.get("candidates", []):
        by_concept[c["concept_id"]].append(c)
    used: set = set()
    for cid, cands in by_concept.items():
        entry = sub(body, "conceptEntry", id=_xml_id(cid, used))
        sub(entry, "note", f"termqa concept id: {cid}")
        ls = sub(entry, "langSec")
        ls.set(XML_LANG, src)
        for t in cands[0]["source_terms"] or [cid]:
            sub(sub(ls, "termSec"), "term", t)
        by_lang: dict = defaultdict(list)  # a multilingual result's candidates carry their own language
        for c in cands:
            by_lang[c.get("language") or tgt].append(c)
        for lang, lcands in by_lang.items():
            _target_terms(sub, entry, XML_LANG, lang, lcands)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _target_terms(sub, entry, xml_lang: str, lang: str, cands) -> None:
    """One target langSec of a concept entry: its candidate renderings as admitted terms with a note."""
    lt = sub(entry, "langSec")
    lt.set(xml_lang, lang)
    for c in cands:
        ts = sub(lt, "termSec")
        sub(ts, "term", c["rendering"])
        sub(ts, "termNote", "admittedTerm-admn-sts", type="administrativeStatus")
        sub(ts, "note", f"candidate ({', '.join(c['basis'])}): {c['count']} occurrence(s) in "
            f"{len(c['documents'])} document(s): {', '.join(c['documents'][:5])}"
            + (" ..." if len(c["documents"]) > 5 else "")
            + (f"; glossary has: {', '.join(c['glossary_terms'])}" if c["glossary_terms"] else ""))


CSV_COLUMNS = ("kind", "concept_id", "source_terms", "rendering", "count", "documents", "basis",
               "glossary_terms", "example_source", "example_target", "language")


def csv_text(report: Mapping) -> str:
    """One row per candidate, per forbidden term used, per glossary concept never found (`kind`)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for kind, rows in (("candidate", report.get("candidates") or []), ("forbidden", report.get("forbidden") or [])):
        for r in rows:
            ex = r["examples"][0] if r["examples"] else {}
            w.writerow([kind, r["concept_id"], " | ".join(r["source_terms"]), r["rendering"], r["count"],
                        " ".join(r["documents"]), " ".join(r["basis"]), " | ".join(r["glossary_terms"]),
                        ex.get("source") or "", ex.get("target") or "",
                        r.get("language") or report.get("target_language") or ""])
    for r in report.get("never_found") or []:
        w.writerow(["never_found", r["concept_id"], " | ".join(r["source_terms"]), "", 0, "", "",
                    " | ".join(r["glossary_terms"]), "", "", ""])
    return buf.getvalue()


def write(report: Mapping, path) -> str:
    """TBX for .tbx/.xml, CSV for .csv/.tsv (tab-separated for .tsv); returns the format written."""
    p = Path(path)
    ext = p.suffix.lower()
    if ext in (".tbx", ".xml"):
        data, fmt = tbx_bytes(report), "tbx-v3"
    elif ext in (".csv", ".tsv"):
        text = csv_text(report)
        if ext == ".tsv":
            rows = list(csv.reader(io.StringIO(text)))
            text = "".join("\t".join(c.replace("\t", " ").replace("\n", " ") for c in r) + "\n" for r in rows)
        data, fmt = text.encode("utf-8"), ext[1:]
    else:
        raise UsageError(f"{path}: unknown output type", fix="name the file .tbx, .csv or .tsv")
    atomic_write(p, data)
    return fmt


def render_text(report: Mapping, limit: int = 20) -> str:
    lines = [f"backlog ({report['mode']} mode): {len(report['candidates'])} candidate term(s), "
             f"{len(report['forbidden'])} forbidden term(s) used"
             + ("" if report.get("never_found") is None else
                f", {len(report['never_found'])} glossary concept(s) never found"),
             f"  {report['note']}"]
    if report["candidates"]:
        lines.append("candidates (count, documents, concept: source -> rendering):")
        for c in report["candidates"][:limit]:
            lines.append(f"  {c['count']:>4} {len(c['documents']):>3}  "
                         + (f"[{c['language']}] " if c.get("language") else "") + f"{c['concept_id']}: "
                         f"{' | '.join(c['source_terms'][:2])} -> {c['rendering']}"
                         + (f"  (glossary: {', '.join(c['glossary_terms'][:2])})" if c["glossary_terms"] else ""))
    if report["forbidden"]:
        lines.append("forbidden terms used (count, documents, concept: rendering):")
        for c in report["forbidden"][:limit]:
            lines.append(f"  {c['count']:>4} {len(c['documents']):>3}  {c['concept_id']}: {c['rendering']}"
                         + (f"  (use: {', '.join(c['glossary_terms'][:2])})" if c["glossary_terms"] else ""))
    if report.get("never_found"):
        names = [f"{r['concept_id']} ({(r['source_terms'] or ['?'])[0]})" for r in report["never_found"][:limit]]
        more = len(report["never_found"]) - len(names)
        lines.append("never found: " + ", ".join(names) + (f" and {more} more" if more > 0 else ""))
    return "\n".join(lines)


__all__ = ["backlog", "tbx_bytes", "csv_text", "write", "render_text"]
