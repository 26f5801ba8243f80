"""Write termqa's verdicts back into the bilingual file, leaving every other byte as it was.

    annotations_from_result(result, level="flagged") -> [Annotation]
    annotate(path_in, annotations, out=..., in_place=False, its=False, backup=True) -> AnnotateReport
    annotate_bytes(data, annotations, its=False) -> (bytes, AnnotateReport)

What is written, per flagged occurrence:

- XLIFF 1.2 (also 1.0/1.1, Phrase/Memsource MXLIFF): `<note from="termqa" annotates="target"
  priority="N">` in the `<trans-unit>`, right after its last XLIFF child element (so after
  source/seg-source/target and any context-group/prop-group/note/alt-trans, and before vendor elements
  such as `sdl:seg-defs`, as the 1.2 schema requires). The note uses the trans-unit's own prefix.
  MXLIFF has an `m:comment` element of its own, but termqa does not write it: the format holds one per
  trans-unit, its author is a Phrase user id from the file, and there is no public statement that an
  uploaded MXLIFF brings it back into Phrase, so the note is the channel.
- memoQ MQXLIFF: memoQ's own comment, `<mq:comments><mq:comment id=GUID creatoruser="termqa" time=UTC
  deleted="false" category="0" appliesto="Target" origin="User">`, as the trans-unit's last child (or
  appended to the unit's existing `<mq:comments>`), instead of a note. The XLIFF elements stay
  unprefixed (memoQ rejects prefixed XLIFF elements). A unit whose `<mq:comments>` is empty gets a note.
- XLIFF 2.x: `<note category="termqa" appliesTo="target" priority="N" id="termqa-K">` in the unit's
  `<notes>` (reused when present, else created after the unit's extension elements and before
  `originalData`/segments), ids unique within that `<notes>`, in the file's own namespace.
- SDLXLIFF: a Trados comment: `<mrk mtype="x-sdl-comment" sdl:cid="GUID">` around the target span inside
  the segment's `<mrk mtype="seg">` (around the whole segment when the span cannot be placed), and its
  `<cmt-def id="GUID"><Comments><Comment severity=.. user="termqa" date=.. version="1.0">` in
  `/xliff/doc-info/cmt-defs`, all SDL-namespace elements as in Trados's own files (created when
  missing: doc-info as the first child of `<xliff>` declaring the SDL default namespace, cmt-defs as
  the first child of doc-info). Dates are .NET xs:dateTime in UTC (fraction without trailing zeros).
  GUIDs (and memoQ comment ids) are derived from the annotation, and a comment that is re-written
  keeps its first date, so re-running termqa on an unchanged file gives the same bytes.
- `its=True` adds ITS 2.0 Localization Quality Issue markup (not for SDLXLIFF, where the comment is the
  native channel). 1.2: a standoff `<its:locQualityIssues xml:id="termqa-lqi-N">` in the trans-unit,
  referenced by `<mrk mtype="x-its" its:locQualityIssuesRef="#termqa-lqi-N">` around the target span.
  2.x: `<mrk id="termqa-mN" type="its:any" its:locQualityIssueType=.. its:locQualityIssueComment=..
  its:locQualityIssueSeverity=..>` around the span. When a span does not map cleanly onto the file's
  text (no span, text inside CDATA, a span crossing an inline code boundary or another marker), the
  issues of that unit go into one standoff block referenced from the unit's start tag
  (`its:locQualityIssuesRef` on trans-unit/unit); the report counts these as `unit_level`.

In a unit with several segments, notes start with "segment <id>: ". Units are found by id within the
`<file>` the annotation's doc_id names (the first unit when a file repeats an id, as XLIFF 1.0 tools do).

Note priority (XLIFF 1 to 10, 1 = most important): error with penalty >= 3 -> 1, other error -> 2,
unjustified -> 3, unjudged -> 5, justified -> 8, conforming -> 10. Trados severity (its three levels
are shown as Error, Warning and For your information): error -> High, unjustified -> Medium, anything
else -> Low.

Idempotent: before writing, termqa's own earlier annotations are removed (notes from="termqa" /
category="termqa", cmt-defs whose comments are all by user "termqa" and their markers, memoQ comments by
creatoruser "termqa", ITS markup whose ids start with "termqa-"); nothing written by anyone else is
touched. `annotate_bytes(data, [])` therefore strips termqa's annotations and returns the original bytes.

Offsets (`target_span`) are characters of the segment's PLAIN target text as the readers build it
(`formats.inline`): inline codes removed, native code inside bpt/ept/ph/it not text, `cp` a character,
line ends normalised as an XML parser does.
"""
from __future__ import annotations

import dataclasses
import html
import os
import re
import shutil
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from termqa.errors import InputError, TermqaError, UsageError
from termqa.fileio import atomic_write
from termqa.formats.xmlsafe import local, parse_bytes
from termqa.labels import CODE_DESCRIPTIONS, ITS_TYPES

from . import splice
from .splice import Edit, Element, Leaf, esc_attr, esc_text

ITS_NS = "http://www.w3.org/2005/11/its"
SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
MQ_NS = "MQXliff"  # memoQ's namespace name is literally this string
XLIFF12_NS = "urn:oasis:names:tc:xliff:document:1.2"
TERMQA = "termqa"
_ID_PREFIX = "termqa-"
# Fixed namespace for deterministic Trados comment GUIDs (uuid5 of the annotation's identity).
_GUID_NS = uuid.UUID("6f1c2a4e-3b8d-5c7e-9a10-2b3c4d5e6f70")

OUTCOMES_BY_LEVEL = {
    "errors": ("error",),
    "flagged": ("error", "unjustified", "unjudged"),
    "all": ("error", "unjustified", "unjudged", "justified"),
}


@dataclass(frozen=True)
class Annotation:
    """One flagged occurrence, ready to be written into the bilingual file.

    `doc_id` names the `<file>`: the reader's path for a single-file XLIFF, f"{path}#{k}" for the k-th
    (1-based) of several. `seg_id` is the mrk mid (1.2) / segment id (2.x), "" for the whole unit.
    `target_span` is in the plain target text of the segment. `target_text`, when given, is checked
    against the file's text at that span (and searched for when the offsets disagree).
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


@dataclass(frozen=True)
class AnnotateReport:
    written: int = 0  # notes / Trados comments written
    spans_marked: int = 0  # annotations whose target span was marked inline
    unit_level: int = 0  # ITS issues (or Trados comments) that could only be attached to the unit/segment
    units_not_found: int = 0  # annotations whose document/unit id matched nothing in the file
    unmatched: tuple[str, ...] = ()  # "doc_id unit_id" of those
    removed: int = 0  # earlier termqa notes/comments replaced
    out: Optional[str] = None
    backup: Optional[str] = None


# --- from the result object -------------------------------------------------------------------------



def _num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)


def _severity(outcome: str, penalty) -> float:
    # ITS severity is 0-100. Errors scale with the penalty (A4/A5/A6/C at 4 points reach 100).
    if outcome == "error":
        p = float(penalty) if penalty is not None else 1.0
        return float(min(100.0, 40.0 + 15.0 * p))
    return {"unjustified": 30.0, "unjudged": 10.0}.get(outcome, 0.0)


def _its_type(occ: dict) -> str:
    label = occ.get("label")
    if label in ITS_TYPES:
        return ITS_TYPES[label]
    if occ.get("target_span") is None and occ.get("outcome") in ("unjudged", "error"):
        return "omission"
    return "terminology"


def note_text(occ: dict) -> str:
    """The concise note: verdict and label, source term -> target rendering, expected, justification."""
    outcome = occ.get("outcome") or "unjudged"
    label = occ.get("label")
    head = outcome
    if label:
        desc = CODE_DESCRIPTIONS.get(label) or str(label).replace("_", " ")
        head += f" {label}" if label in CODE_DESCRIPTIONS else ""
        head += f" ({desc})"
    if occ.get("penalty") is not None and outcome in ("error", "unjustified"):
        head += f", penalty {_num(occ['penalty'])}"
    src = occ.get("source_text") or occ.get("source_form") or ""
    tgt = occ.get("target_text")
    body = f'"{src}" -> "{tgt}"' if tgt else f'"{src}" -> not found in the target'
    ref = (occ.get("reference") or {}).get("text")
    if ref and ref != tgt:
        body += f'; expected "{ref}"'
    reason = (occ.get("reason") or "").strip()
    return f"{head}: {body}." + (f" {reason}" if reason else "")


def annotations_from_result(result: dict, *, level: str = "flagged") -> list[Annotation]:
    """Annotations for the occurrences of a `termqa check` result object at `level`.

    levels: "errors" (error only), "flagged" (error, unjustified, unjudged), "all" (every
    non-conforming occurrence: justified too).
    """
    if level not in OUTCOMES_BY_LEVEL:
        raise UsageError(f"unknown annotation level {level!r}", fix="use errors, flagged or all")
    if not isinstance(result, dict) or "occurrences" not in result:
        raise InputError("result", "is not a termqa result object (no 'occurrences')")
    wanted = OUTCOMES_BY_LEVEL[level]
    run = (result.get("signature") or {}).get("id")
    tag = f" [termqa run {run}]" if run else ""  # the run's full signature is in its JSON/HTML report
    out = []
    for occ in result["occurrences"]:
        outcome = occ.get("outcome")
        if outcome not in wanted:
            continue
        span = occ.get("target_span")
        out.append(Annotation(
            doc_id=str(occ.get("doc_id", "")),
            unit_id=str(occ.get("unit_id", "")),
            seg_id=str(occ.get("segment_id") or ""),
            outcome=outcome,
            label=occ.get("label"),
            penalty=occ.get("penalty"),
            text=note_text(occ) + tag,
            its_type=_its_type(occ),
            severity=_severity(outcome, occ.get("penalty")),
            target_span=(int(span[0]), int(span[1])) if span else None,
            target_text=occ.get("target_text"),
        ))
    return out


def priority(a: Annotation) -> int:
    if a.outcome == "error":
        return 1 if (a.penalty or 0) >= 3 else 2
    return {"unjustified": 3, "unjudged": 5, "justified": 8}.get(a.outcome, 10)


def trados_severity(a: Annotation) -> str:
    return {"error": "High", "unjustified": "Medium"}.get(a.outcome, "Low")


# --- plain text <-> offsets ---------------------------------------------------------------------------

# How the readers treat inline elements (see formats.inline): containers hold text, native codes hold
# code that is never text, empty codes hold nothing, `cp` is one character.
_KINDS_12 = {"g": "container", "mrk": "container", "sub": "container", "x": "empty", "bx": "empty",
             "ex": "empty", "bpt": "native", "ept": "native", "ph": "native", "it": "native"}
_KINDS_2 = {"pc": "container", "mrk": "container", "ph": "empty", "sc": "empty", "ec": "empty",
            "sm": "empty", "em": "empty", "cp": "char"}
_PIECE = re.compile(r"&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][\w.-]*);|\r\n|\r|[^&\r]+")


class PlainMap:
    """The plain text of a segment's content and, for each plain offset, the places in the file text
    where a tag could be inserted there: (position, element whose content it is in), document order."""

    def __init__(self, doc: splice.Document, container: Element, kinds: dict, xliff_ns: str):
        self.doc = doc
        self.kinds = kinds
        self.xliff_ns = xliff_ns
        self.parts: list[str] = []
        self.cands: list[list[tuple[int, Element]]] = [[]]
        self._walk(container)
        self.text = "".join(self.parts)

    def _add(self, ch: str, raw_end: int, el: Element):
        self.parts.append(ch)
        self.cands.append([(raw_end, el)] if raw_end >= 0 else [])

    def _walk(self, el: Element):
        text = self.doc.text
        self.cands[-1].append((el.content_start, el))
        for c in el.children:
            if isinstance(c, Leaf):
                if c.kind == "text":
                    for m in _PIECE.finditer(text, c.start, c.end):
                        s = m.group(0)
                        if m.group(1) is not None:
                            self._add(html.unescape(s), m.end(), el)
                        elif s in ("\r\n", "\r"):
                            self._add("\n", m.end(), el)
                        else:
                            for k, ch in enumerate(s):
                                self._add(ch, m.start() + k + 1, el)
                elif c.kind == "cdata":
                    body = text[c.start + 9:c.end - 3].replace("\r\n", "\n").replace("\r", "\n")
                    for ch in body:  # no tag can go inside a CDATA section
                        self._add(ch, -1, el)
                    self.cands[-1].append((c.end, el))
                else:
                    self.cands[-1].append((c.end, el))
                continue
            kind = self.kinds.get(c.local, "container") if c.ns == self.xliff_ns else "container"
            if kind == "container":
                if c.empty:
                    self.cands[-1].append((c.end, el))
                    continue
                self._walk(c)
            elif kind == "char":
                try:
                    self.parts.append(chr(int(c.get("hex", default=""), 16)))
                    self.cands.append([])
                except (ValueError, OverflowError):
                    pass
            self.cands[-1].append((c.end, el))
        self.cands[-1].append((el.content_end, el))

    def place(self, start: int, end: int) -> Optional[tuple[int, int, Element]]:
        """File positions for a start and an end tag around plain[start:end] in one parent, or None."""
        if not (0 <= start < end <= len(self.text)):
            return None
        for rs, ps in reversed(self.cands[start]):
            for re_, pe in self.cands[end]:
                if ps is pe and rs <= re_:
                    return rs, re_, ps
        return None


# --- the document model the writer needs --------------------------------------------------------------


class _Ids:
    """Unique ids: avoids every value already used, hands out prefix+N in order."""

    def __init__(self, used):
        self.used = set(used)
        self.n = 0

    def next(self, prefix: str) -> str:
        while True:
            self.n += 1
            cand = f"{prefix}{self.n}"
            if cand not in self.used:
                self.used.add(cand)
                return cand


def _fresh_prefix(el: Element, want: str) -> str:
    p, k = want, 0
    while p in el.nsmap:
        k += 1
        p = f"{want}{k}"
    return p


def _its_prefix(el: Element) -> tuple[str, str]:
    """(prefix, declaration to add) for the ITS namespace at `el`."""
    p = el.prefix_for(ITS_NS)
    if p:
        return p, ""
    p = _fresh_prefix(el, "its")
    return p, f' xmlns:{p}="{ITS_NS}"'


def _qn(el: Element, local: str) -> str:
    """`local` in the same namespace and with the same prefix as `el`."""
    return f"{el.prefix}:{local}" if el.prefix else local


class _File:
    """One decoded, tokenized XLIFF file and what kind it is."""

    def __init__(self, doc: splice.Document):
        self.doc = doc
        root = doc.root
        self.root = root
        self.uri = root.ns
        self.v2 = self.uri.startswith("urn:oasis:names:tc:xliff:document:2") or (root.get("version") or "").startswith("2")
        self.sdl = SDL_NS in root.nsmap.values()
        self.files = [e for e in root.elements() if e.is_(self.uri, "file")]
        self.unit_name = "unit" if self.v2 else "trans-unit"

    def units(self, file_el: Element) -> dict:
        found: dict = {}
        for e in file_el.iter():
            if e.is_(self.uri, self.unit_name):
                found.setdefault(e.get("id", default=""), e)
        return found


_FILE_SUFFIX = re.compile(r"#(\d+)$")


def _file_for(f: _File, doc_id: str) -> Optional[Element]:
    # The path part is not compared: the user may have moved or renamed the file since the check.
    if not f.files:
        return None
    m = _FILE_SUFFIX.search(doc_id)
    if m and len(f.files) > 1:
        k = int(m.group(1))
        return f.files[k - 1] if 1 <= k <= len(f.files) else None
    return f.files[0]


# --- removing earlier termqa annotations ----------------------------------------------------------------


def _strip(f: _File) -> tuple[list[Edit], int, dict]:
    """Edits that remove termqa's own annotations; (edits, notes/comments removed, old comment dates)."""
    doc = f.doc
    edits: list[Edit] = []
    removed_ids: set = set()
    count = 0
    dates: dict = {}

    def remove(el: Element):
        removed_ids.add(id(el))

    def unwrap(el: Element):
        if el.empty:
            edits.append(Edit(el.start, end=el.end))
        else:
            edits.append(Edit(el.start, end=el.content_start))
            edits.append(Edit(el.content_end, end=el.end))

    our_cids: set = set()
    collapsible: list[Element] = []
    for el in f.root.iter():
        loc = el.local
        if loc == "cmt-def" and el.ns == SDL_NS:
            comments = [c for c in el.iter() if c.local == "Comment"]
            ours = [c for c in comments if c.get("user") == TERMQA]
            if comments and len(ours) == len(comments):
                remove(el)
                count += 1
                our_cids.add(el.get("id"))
                dates[el.get("id")] = ours[0].get("date")
                collapsible.append(el.parent)
            else:
                for c in ours:  # someone answered our comment in Trados: keep the thread, drop our part
                    remove(c)
                    count += 1
            continue
        # Everything else of ours carries "termqa" in its attributes: skip the rest without parsing them.
        if TERMQA not in el.raw_attrs:
            continue
        if loc == "comment" and el.ns == MQ_NS and el.get("creatoruser") == TERMQA:
            remove(el)
            count += 1
            dates[el.get("id")] = el.get("time")
            collapsible.append(el.parent)  # an <mq:comments> holding only ours was written by us
            continue
        if loc == "note" and el.ns == f.uri and el.parent is not None:
            if not f.v2 and el.parent.is_(f.uri, "trans-unit") and el.get("from") == TERMQA:
                remove(el)
                count += 1
            elif f.v2 and el.parent.is_(f.uri, "notes") and el.get("category") == TERMQA:
                remove(el)
                count += 1
                collapsible.append(el.parent)
        elif loc == "locQualityIssues" and el.ns == ITS_NS:
            if (el.get("id", splice.XML_NS) or "").startswith(_ID_PREFIX):
                remove(el)
        elif loc == "mrk" and el.ns == f.uri:
            ref = el.get("locQualityIssuesRef", ITS_NS) or ""
            if ref.startswith("#" + _ID_PREFIX) or (f.v2 and (el.get("id") or "").startswith(_ID_PREFIX)):
                unwrap(el)
        elif loc in ("trans-unit", "unit") and el.ns == f.uri:
            edits.extend(_strip_unit_ref(el))
    if our_cids:
        for el in f.root.iter():
            if (el.local == "mrk" and "x-sdl-comment" in el.raw_attrs and el.get("mtype") == "x-sdl-comment"
                    and el.get("cid", SDL_NS) in our_cids):
                unwrap(el)
    # A <notes>/<cmt-defs>/<doc-info>/<mq:comments> left with nothing but whitespace was ours: remove it whole.
    for parent in collapsible:
        _collapse(doc, parent, removed_ids)
    for el in f.root.iter():
        if id(el) in removed_ids and (el.parent is None or id(el.parent) not in removed_ids):
            s, e = splice.removal_range(doc, el)
            edits.append(Edit(s, end=e))
    return edits, count, dates


def _collapse(doc, parent: Optional[Element], removed_ids: set) -> None:
    while parent is not None and id(parent) not in removed_ids and splice.only_space_besides(doc, parent, removed_ids):
        if not any(isinstance(c, Element) for c in parent.children):
            return  # an element that was empty to begin with is not ours to remove
        removed_ids.add(id(parent))
        if not (parent.parent is not None and parent.parent.is_(SDL_NS, "doc-info")):
            return
        parent = parent.parent


def _strip_unit_ref(unit: Element) -> list[Edit]:
    """Our `its:locQualityIssuesRef` on a unit start tag, with the namespace declaration we added after it."""
    out = []
    for i, a in enumerate(unit.attrs):
        p, _, loc = a.qname.rpartition(":")
        if loc == "locQualityIssuesRef" and p and unit.nsmap.get(p) == ITS_NS and a.value.startswith("#" + _ID_PREFIX):
            end = a.end
            if i + 1 < len(unit.attrs):
                nxt = unit.attrs[i + 1]
                if nxt.start == a.end and nxt.qname == f"xmlns:{p}" and nxt.value == ITS_NS:
                    end = nxt.end
            out.append(Edit(a.start, end=end))
    return out


# --- writing ---------------------------------------------------------------------------------------------


@dataclass
class _Counts:
    written: int = 0
    spans: int = 0
    unit_level: int = 0
    not_found: list = field(default_factory=list)


class _Writer:
    def __init__(self, f: _File, its: bool, dates: dict, now: datetime, path: str):
        self.path = path
        self.f = f
        self.doc = f.doc
        self.its = its and not f.sdl
        self.dates = dates
        self.now = now
        self.edits: list[Edit] = []
        self.counts = _Counts()
        self.seq = 0
        # Every xml:id value in the file (a regex over the text: a superset is fine, we only avoid them).
        self.xml_ids = _Ids(re.findall(r"""\sxml:id\s*=\s*["']([^"']*)""", f.doc.text))
        self.cmt_defs: list[tuple[str, str, str, str]] = []  # (id, severity, date, text), written last

    def _key(self, *k) -> tuple:
        self.seq += 1
        return k + (self.seq,)

    # generic placement ----------------------------------------------------------------------------

    def insert_after(self, el: Element, xml: list[str], indent_from: Element) -> None:
        """Insert elements right after `el`, each preceded by the indentation of `indent_from`."""
        _, ws = splice.space_before(self.doc, indent_from)
        for x in xml:
            self.edits.append(Edit(el.end, ws + x, key=self._key(5)))

    def insert_before(self, el: Element, xml: list[str]) -> None:
        """Insert elements right before `el`, each followed by the whitespace that precedes `el`."""
        start, ws = splice.space_before(self.doc, el)
        for x in xml:
            self.edits.append(Edit(start, ws + x, key=self._key(5)))

    def append_child(self, parent: Element, xml: list[str]) -> None:
        kids = list(parent.elements())
        if kids:
            self.insert_after(kids[-1], xml, kids[-1])
            return
        if parent.empty:
            # <notes/>, <cmt-defs/>...: rewriting the tag would break the byte-exact removal. Invalid
            # XLIFF anyway (these need children), so say so rather than guess.
            raise InputError(self.path, f"<{parent.qname}/> at character {parent.start} is empty; "
                             "termqa cannot add its annotations there", fix="remove the empty element")
        for x in xml:
            self.edits.append(Edit(parent.content_start, x, key=self._key(5)))

    def wrap(self, rs: int, re_: int, open_tag: str, close_tag: str) -> None:
        n = re_ - rs
        k = self._key()
        self.edits.append(Edit(rs, open_tag, key=(1, -n) + k))
        self.edits.append(Edit(re_, close_tag, key=(0, n) + tuple(-x for x in k)))

    # targets ----------------------------------------------------------------------------------------

    def segment_container(self, unit: Element, seg_id: str) -> Optional[Element]:
        f = self.f
        if f.v2:
            segs = [s for s in unit.elements() if s.is_(f.uri, "segment")]
            seg = None
            if seg_id:
                seg = next((s for s in segs if s.get("id") == seg_id), None)
                m = re.fullmatch(r"s(\d+)", seg_id)
                if seg is None and m and 1 <= int(m.group(1)) <= len(segs) and not segs[int(m.group(1)) - 1].get("id"):
                    seg = segs[int(m.group(1)) - 1]
            elif len(segs) == 1:
                seg = segs[0]
            if seg is None:
                return None
            return next((t for t in seg.elements() if t.is_(f.uri, "target")), None)
        target = next((t for t in unit.elements() if t.is_(f.uri, "target")), None)
        if target is None:
            return None
        segs = [m for m in target.iter() if m.is_(f.uri, "mrk") and m.get("mtype") == "seg"]
        if seg_id:
            hit = next((m for m in segs if m.get("mid") == seg_id), None)
            if hit is not None:
                return hit
            return target if not segs else None
        return target

    def locate(self, container: Optional[Element], a: Annotation, taken: list) -> Optional[tuple[int, int, Element]]:
        """File positions around the annotation's target span, nested properly with spans already taken."""
        if container is None or a.target_span is None or container.empty:
            return None
        pm = PlainMap(self.doc, container, _KINDS_2 if self.f.v2 else _KINDS_12, self.f.uri)
        s, e = a.target_span
        if a.target_text and pm.text[s:e] != a.target_text:
            # The reader and this map disagree on offsets (whitespace handling, say): trust the text
            # when it occurs exactly once.
            hits = [m.start() for m in re.finditer(re.escape(a.target_text), pm.text)]
            if len(hits) != 1:
                return None
            s, e = hits[0], hits[0] + len(a.target_text)
        placed = pm.place(s, e)
        if placed is None:
            return None
        rs, re_, _ = placed
        for ts, te in taken:
            nested = (ts <= rs and re_ <= te) or (rs <= ts and te <= re_)
            if not nested and rs < te and ts < re_:
                return None  # would cross another marker: tags must nest
        taken.append((rs, re_))
        return placed

    # one unit ----------------------------------------------------------------------------------------

    def unit(self, unit: Element, doc_key: str, anns: list[Annotation]) -> None:
        if self.f.sdl:
            self.sdl_unit(unit, doc_key, anns)
        elif self.f.v2:
            self.v2_unit(unit, anns)
        else:
            self.v1_unit(unit, doc_key, anns)

    def v1_unit(self, unit: Element, doc_key: str, anns: list[Annotation]) -> None:
        f = self.f
        kids = [k for k in unit.elements() if k.ns == f.uri]
        anchor = kids[-1] if kids else None
        # All notes first: the schema wants XLIFF elements before the ITS (foreign) blocks.
        blocks, standoff, unit_issues = [], [], []
        taken: dict = {}
        multi = self._multi_segment(unit)
        mq = self._memoq_comments(unit)
        mq_comments = []
        for i, a in enumerate(anns):
            text = self._with_segment(a, multi)
            if mq is not None:
                mq_comments.append(self._mq_comment(mq[0], self._guid(doc_key, a, i), a, text))
            else:
                blocks.append(f'<{_qn(unit, "note")} from="{TERMQA}" annotates="target" '
                              f'priority="{priority(a)}">{esc_text(text)}</{_qn(unit, "note")}>')
            self.counts.written += 1
            if not self.its:
                continue
            container = self.segment_container(unit, a.seg_id)
            placed = self.locate(container, a, taken.setdefault(id(container), []))
            if placed is None:
                unit_issues.append(a)
                continue
            rs, re_, parent = placed
            lqi = self.xml_ids.next(_ID_PREFIX + "lqi-")
            p, decl = _its_prefix(parent)
            mrk = _qn(unit, "mrk")
            self.wrap(rs, re_, f'<{mrk} mtype="x-its"{decl} {p}:locQualityIssuesRef="#{lqi}">', f"</{mrk}>")
            standoff.append(self._standoff(unit, lqi, [a]))
            self.counts.spans += 1
        if unit_issues:
            standoff.extend(self._unit_ref(unit, unit_issues))
        blocks += standoff
        if blocks:
            if anchor is not None:
                self.insert_after(anchor, blocks, anchor)
            else:
                self.append_child(unit, blocks)
        if mq_comments:
            self._add_mq_comments(unit, mq, mq_comments)

    # memoQ ----------------------------------------------------------------------------------------

    def _memoq_comments(self, unit: Element) -> Optional[tuple[str, Optional[Element]]]:
        """(mq prefix, existing <mq:comments> to append to or None) when the unit gets memoQ comments.

        None (plain XLIFF notes instead) outside memoQ files, and when the unit's <mq:comments> has no
        comment in it: appending into an element we did not create and that has nothing else in it
        could not be told apart from our own block on the next run.
        """
        p = unit.prefix_for(MQ_NS)
        if not p:
            return None
        existing = next((k for k in unit.elements() if k.is_(MQ_NS, "comments")), None)
        if existing is not None and not any(True for _ in existing.elements()):
            return None
        return p, existing

    def _mq_comment(self, p: str, cid: str, a: Annotation, text: str) -> str:
        # Shape of memoQ's own segment comments (see tests/test_annotate.py for the real file it
        # follows): a GUID id, the author, a UTC time to the second, a live (not deleted) comment of
        # the default category that applies to the target, entered by a user.
        t = self.dates.get(cid) or f"{self.now.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%SZ}"
        return (f'<{p}:comment id="{cid}" creatoruser="{TERMQA}" time="{esc_attr(t)}" deleted="false" '
                f'category="0" appliesto="Target" origin="User">{esc_text(text)}</{p}:comment>')

    def _add_mq_comments(self, unit: Element, mq: tuple, comments: list[str]) -> None:
        p, existing = mq
        if existing is not None:
            self.append_child(existing, comments)
            return
        # A new <mq:comments> as the unit's last child, where memoQ writes it (after its other mq:
        # elements, so after every XLIFF element too, as the 1.2 schema wants for foreign elements).
        last = list(unit.elements())[-1] if any(True for _ in unit.elements()) else None
        _, ws = splice.space_before(self.doc, last) if last is not None else (0, "")
        _, outer = splice.space_before(self.doc, unit)
        step = ws[len(outer):] if ws.startswith(outer) and len(ws) > len(outer) else ""
        inner = ws + step if ws and step else ws
        block = f"<{p}:comments>" + "".join(inner + c for c in comments) + ws + f"</{p}:comments>"
        if last is not None:
            self.insert_after(last, [block], last)
        else:
            self.append_child(unit, [block])

    def v2_unit(self, unit: Element, anns: list[Annotation]) -> None:
        f = self.f
        notes = next((k for k in unit.elements() if k.is_(f.uri, "notes")), None)
        note_ids = _Ids(n.get("id") for n in (notes.elements() if notes is not None else ()) if n.get("id"))
        inline_ids = _Ids(e.get("id") for e in unit.iter() if e.get("id"))
        multi = self._multi_segment(unit)
        new_notes, unit_issues = [], []
        taken: dict = {}
        qnote = _qn(unit, "note")
        for a in anns:
            nid = note_ids.next(_ID_PREFIX)
            text = self._with_segment(a, multi)
            new_notes.append(f'<{qnote} category="{TERMQA}" appliesTo="target" priority="{priority(a)}" '
                             f'id="{nid}">{esc_text(text)}</{qnote}>')
            self.counts.written += 1
            if not self.its:
                continue
            container = self.segment_container(unit, a.seg_id)
            placed = self.locate(container, a, taken.setdefault(id(container), []))
            if placed is None:
                unit_issues.append(a)
                continue
            rs, re_, parent = placed
            p, decl = _its_prefix(parent)
            mid = inline_ids.next(_ID_PREFIX + "m")
            mrk = _qn(unit, "mrk")
            self.wrap(rs, re_, f'<{mrk} id="{mid}" type="its:any"{decl} {self._lqi_attrs(a, p)}>', f"</{mrk}>")
            self.counts.spans += 1
        first_xliff = next((k for k in unit.elements() if k.ns == f.uri), None)
        standoff = self._unit_ref(unit, unit_issues) if unit_issues else []
        if notes is not None:
            if standoff:
                self.insert_before(notes, standoff)
            self.append_child(notes, new_notes)
            return
        block = [self._notes_block(unit, first_xliff, new_notes)]
        if first_xliff is not None:
            self.insert_before(first_xliff, standoff + block)
        else:
            self.append_child(unit, standoff + block)

    def _notes_block(self, unit: Element, anchor: Optional[Element], notes: list[str]) -> str:
        _, ws = splice.space_before(self.doc, anchor) if anchor is not None else (0, "")
        _, outer = splice.space_before(self.doc, unit)
        # One more level than the unit's children, measured as the step from the unit to its children.
        step = ws[len(outer):] if ws.startswith(outer) and len(ws) > len(outer) else ("\t" if "\t" in ws else "  ")
        inner = ws + step if ws else ""
        qn = _qn(unit, "notes")
        return f"<{qn}>" + "".join(inner + n for n in notes) + ws + f"</{qn}>"

    def sdl_unit(self, unit: Element, doc_key: str, anns: list[Annotation]) -> None:
        taken: dict = {}
        notes = []
        for i, a in enumerate(anns):
            container = self.segment_container(unit, a.seg_id)
            placed = self.locate(container, a, taken.setdefault(id(container), []))
            cid = self._guid(doc_key, a, i)
            if placed is not None:
                rs, re_, parent = placed
                self.counts.spans += 1
            elif container is not None and not container.empty:
                # Whole-segment comment, as Trados writes one for a segment; it nests outside any span.
                rs, re_, parent = container.content_start, container.content_end, container
                taken[id(container)].append((rs, re_))
                self.counts.unit_level += 1
            else:
                # No target to hang a comment on: fall back to an XLIFF note Trados keeps.
                kids = [k for k in unit.elements() if k.ns == self.f.uri]
                notes.append((kids[-1] if kids else None, f'<{_qn(unit, "note")} from="{TERMQA}" annotates="target" '
                              f'priority="{priority(a)}">{esc_text(a.text)}</{_qn(unit, "note")}>'))
                self.counts.written += 1
                continue
            sp = parent.prefix_for(SDL_NS)
            decl = ""
            if not sp:
                sp = _fresh_prefix(parent, "sdl")
                decl = f' xmlns:{sp}="{SDL_NS}"'
            mrk = _qn(unit, "mrk")
            self.wrap(rs, re_, f'<{mrk} mtype="x-sdl-comment"{decl} {sp}:cid="{cid}">', f"</{mrk}>")
            date = self.dates.get(cid) or self._date()
            self.cmt_defs.append((cid, trados_severity(a), date, a.text))
            self.counts.written += 1
        for anchor, xml in notes:
            if anchor is not None:
                self.insert_after(anchor, [xml], anchor)

    @staticmethod
    def _guid(doc_key: str, a: Annotation, i: int) -> str:
        return str(uuid.uuid5(_GUID_NS, "|".join((doc_key, a.unit_id, a.seg_id, str(i), a.text))))

    def _date(self) -> str:
        # As Trados writes it (.NET xs:dateTime): fraction to 7 digits with trailing zeros dropped,
        # then the offset; ours is always UTC.
        d = self.now.astimezone(timezone.utc)
        frac = f"{d.microsecond:06d}".rstrip("0")
        return f"{d:%Y-%m-%dT%H:%M:%S}" + (f".{frac}" if frac else "") + "+00:00"

    @staticmethod
    def _cmt_defs_xml(p: str, defs: list) -> list[str]:
        """Our <cmt-def> elements, every element in the SDL namespace under prefix `p` ('' = default).

        Real Trados files write <Comments> and <Comment> with no namespace declaration of their own,
        so they inherit the SDL default namespace that <doc-info> declares.
        """
        def q(local: str) -> str:
            return f"{p}:{local}" if p else local

        return [f'<{q("cmt-def")} id="{cid}"><{q("Comments")}><{q("Comment")} severity="{sev}" '
                f'user="{TERMQA}" date="{esc_attr(date)}" version="1.0">{esc_text(text)}</{q("Comment")}>'
                f'</{q("Comments")}></{q("cmt-def")}>' for cid, sev, date, text in defs]

    def finish_sdl(self) -> None:
        """Put the collected cmt-defs into /xliff/doc-info/cmt-defs, creating what is missing."""
        if not self.cmt_defs:
            return
        root = self.f.root
        info = next((e for e in root.elements() if e.is_(SDL_NS, "doc-info")), None)
        if info is None:
            # Trados writes doc-info as the first child of <xliff>, declaring SDL as its default namespace.
            first = next(root.elements(), None)
            xml = (f'<doc-info xmlns="{SDL_NS}"><cmt-defs>{"".join(self._cmt_defs_xml("", self.cmt_defs))}'
                   f"</cmt-defs></doc-info>")
            if first is not None:
                self.insert_before(first, [xml])
            else:
                self.append_child(root, [xml])
            return
        defs = next((e for e in info.elements() if e.is_(SDL_NS, "cmt-defs")), None)
        if defs is not None:
            self.append_child(defs, self._cmt_defs_xml(defs.prefix_for(SDL_NS) or "", self.cmt_defs))
            return
        p = info.prefix_for(SDL_NS) or ""
        qn = f"{p}:cmt-defs" if p else "cmt-defs"
        xml = f"<{qn}>{''.join(self._cmt_defs_xml(p, self.cmt_defs))}</{qn}>"
        # Trados puts cmt-defs first in doc-info (before rev-defs) in the real files we have seen.
        first = next(info.elements(), None)
        if first is not None:
            self.insert_before(first, [xml])
        else:
            self.append_child(info, [xml])

    # pieces ------------------------------------------------------------------------------------------

    def _multi_segment(self, unit: Element) -> bool:
        f = self.f
        if f.v2:
            return sum(1 for s in unit.elements() if s.is_(f.uri, "segment")) > 1
        segsrc = next((k for k in unit.elements() if k.is_(f.uri, "seg-source")), None)
        return segsrc is not None and sum(
            1 for m in segsrc.iter() if m.is_(f.uri, "mrk") and m.get("mtype") == "seg") > 1

    @staticmethod
    def _with_segment(a: Annotation, multi: bool) -> str:
        return f"segment {a.seg_id}: {a.text}" if multi and a.seg_id else a.text

    @staticmethod
    def _lqi_attrs(a: Annotation, p: str) -> str:
        """The three LQI attributes, prefixed with `p:` (local markup) or bare (standoff) when p is ''."""
        q = f"{p}:" if p else ""
        return (f'{q}locQualityIssueType="{esc_attr(a.its_type)}" '
                f'{q}locQualityIssueComment="{esc_attr(a.text)}" '
                f'{q}locQualityIssueSeverity="{_num(round(a.severity, 2))}"')

    def _standoff(self, unit: Element, xml_id: str, anns: list[Annotation]) -> str:
        p, decl = _its_prefix(unit)
        issues = "".join(f"<{p}:locQualityIssue {self._lqi_attrs(a, '')}/>" for a in anns)
        return f'<{p}:locQualityIssues{decl} xml:id="{xml_id}">{issues}</{p}:locQualityIssues>'

    def _unit_ref(self, unit: Element, anns: list[Annotation]) -> list[str]:
        """A standoff block for issues that could not be placed inline, referenced from the unit.

        Nothing when the unit already carries someone else's reference (one per element): the notes
        still say everything.
        """
        if unit.get("locQualityIssuesRef", ITS_NS) is not None:
            return []
        xml_id = self.xml_ids.next(_ID_PREFIX + "lqi-")
        p, decl = _its_prefix(unit)
        pos = unit.attrs[-1].end if unit.attrs else unit.start + 1 + len(unit.qname)
        # Our attribute first, then any declaration it needs, so removal can recognise both.
        self.edits.append(Edit(pos, f' {p}:locQualityIssuesRef="#{xml_id}"{decl}', key=self._key(5)))
        self.counts.unit_level += len(anns)
        return [self._standoff(unit, xml_id, anns)]


# --- entry points ----------------------------------------------------------------------------------------


def annotate_bytes(data: bytes, annotations, *, its: bool = False, path: str = "<bytes>",
                   now: Optional[datetime] = None) -> tuple[bytes, AnnotateReport]:
    """Annotated bytes of an XLIFF file (see the module docstring) and what was done."""

    tree = parse_bytes(data, path)  # hardened: no entities, well-formed, or a typed error
    if local(tree.tag) != "xliff":
        raise InputError(path, f"is not XLIFF (root <{local(tree.tag)}>); only XLIFF files can be annotated")
    dec = splice.decode(data, path)
    f = _File(splice.parse(dec.text, path))
    strip_edits, removed, dates = _strip(f)
    text = dec.text
    if strip_edits:
        text = splice.apply(text, strip_edits)
        f = _File(splice.parse(text, path))
    writer = _Writer(f, its, dates, now or datetime.now(timezone.utc), path)
    by_unit: dict = {}
    for a in annotations:
        file_el = _file_for(f, a.doc_id)
        key = (id(file_el), a.unit_id)
        by_unit.setdefault(key, (file_el, a.doc_id, []))[2].append(a)
    unit_index: dict = {}
    for (fid, unit_id), (file_el, doc_id, anns) in by_unit.items():
        unit = None
        if file_el is not None:
            if fid not in unit_index:
                unit_index[fid] = f.units(file_el)
            unit = unit_index[fid].get(unit_id)
        if unit is None:
            writer.counts.not_found.extend(f"{doc_id} {unit_id}" for _ in anns)
            continue
        k = f.files.index(file_el) + 1
        writer.unit(unit, f"{k}", anns)
    writer.finish_sdl()
    text = splice.apply(text, writer.edits)
    out = dec.encode(text)
    try:
        parse_bytes(out, path)
    except InputError as exc:  # our own splice broke the file: never write that
        raise TermqaError(f"internal error: annotating {path} produced malformed XML ({exc.problem})") from None
    c = writer.counts
    return out, AnnotateReport(written=c.written, spans_marked=c.spans, unit_level=c.unit_level,
                               units_not_found=len(c.not_found), unmatched=tuple(c.not_found), removed=removed)


def annotate(path_in, annotations, *, out=None, in_place: bool = False, its: bool = False,
             backup: bool = True, now: Optional[datetime] = None) -> AnnotateReport:
    """Write annotations into a copy of `path_in` (`out`), or over it when `in_place`.

    In place: the original is first copied to `path_in + ".bak"` (when `backup`), then the new content
    is written to a temporary file in the same folder and moved over the original in one step, so an
    interrupted run never leaves a half-written file. Without `in_place`, `path_in` is never modified.
    """
    src = Path(path_in)
    if in_place and out is not None:
        raise UsageError("give either an output path or in-place, not both")
    if not in_place and out is None:
        raise UsageError("no output path for the annotated file", fix="pass out=... or in_place=True (--in-place)")
    if not src.is_file():
        raise InputError(path_in, "does not exist" if not src.exists() else "is not a file")
    dest = src if in_place else Path(out)
    if not in_place and dest.exists() and dest.resolve() == src.resolve():
        raise UsageError(f"the output path is the input file {path_in}", fix="use --in-place to overwrite it")
    data = src.read_bytes()
    new, report = annotate_bytes(data, annotations, its=its, path=str(path_in), now=now)
    bak = None
    if in_place and backup:
        bak = str(src) + ".bak"
        shutil.copy2(src, bak)
    atomic_write(dest, new, like=src, make_folder=True)
    return dataclasses.replace(report, out=str(dest), backup=bak)


def annotate_files(files, annotations, *, out: Optional[str] = None, in_place: bool = False, its: bool = False,
                   backup: bool = True, now: Optional[datetime] = None) -> list[AnnotateReport]:
    """Write each XLIFF file's annotations: into `out` (a file for one input, a folder for several) or,
    with `in_place`, over the inputs themselves. `files` are the BilingualFile records of a run; files
    that are not XLIFF are skipped (notes go into XLIFF only).
    """
    if out and in_place:
        raise UsageError("--annotate and --in-place exclude each other", fix="choose one")
    if not out and not in_place:
        raise UsageError("no output for the annotated files", fix="pass --annotate OUT or --in-place")
    xliffs = [f for f in files if f.format.startswith("xliff")]
    if not xliffs:
        raise TermqaError("nothing to annotate: notes are written into XLIFF files only")
    out_dir = None
    if out and len(xliffs) > 1:
        out_dir = Path(out)
        if out_dir.exists() and not out_dir.is_dir() or not out_dir.exists() and out_dir.suffix.lower() in (
                ".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".mxliff"):
            raise UsageError(f"{out}: several files are annotated, so this must be a folder",
                             fix="name a folder (it is created if missing)")
        out_dir.mkdir(parents=True, exist_ok=True)
    reports = []
    for f in xliffs:
        doc_ids = {d.doc_id for d in f.documents}
        mine = [a for a in annotations if a.doc_id in doc_ids]
        if in_place:
            reports.append(annotate(f.path, mine, in_place=True, its=its, backup=backup, now=now))
            continue
        dest = out_dir / Path(f.path).name if out_dir else Path(out)
        if dest.is_dir():
            dest = dest / Path(f.path).name
        if os.path.realpath(dest) == os.path.realpath(f.path):
            raise UsageError(f"{dest}: refusing to overwrite the input", fix="use --in-place to annotate it")
        reports.append(annotate(f.path, mine, out=str(dest), its=its, now=now))
    return reports
