"""The shared placement helper of the XLIFF writers: find a unit, its segment and the target span in
the file's own text, and record insertions as edits, so every byte outside them stays as it was.

Offsets (`target_span`) are characters of the segment's PLAIN target text as the readers build it
(`formats.inline`): inline codes removed, native code inside bpt/ept/ph/it not text, `cp` a character,
line ends normalised as an XML parser does. `PlainMap` maps them back to positions in the file.
"""
from __future__ import annotations

import html
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Optional

from termqa.errors import InputError
from termqa.formats import inline, splice
from termqa.formats.splice import Edit, Element, Leaf

from .names import MQ_NS, SDL_NS
from .notes import Annotation
# Fixed namespace for deterministic comment GUIDs (uuid5 of the annotation's identity).
_GUID_NS = uuid.UUID("6f1c2a4e-3b8d-5c7e-9a10-2b3c4d5e6f70")


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
        self.parts: list = []  # characters, and inline.Stand where a code stands until settled
        self.cands: list[list[tuple[int, Element]]] = [[]]
        self._walk(container)
        if any(not isinstance(p, str) for p in self.parts):
            self._settle()
        self.text = "".join(self.parts)

    def _settle(self):
        """Give each code's stand-in the text the reader gives it (`inline.settle`); a stand-in that
        leaves nothing is taken out, the file positions on both of its sides joined."""
        got = inline.settle(self.parts)
        for i in range(len(got) - 1, -1, -1):
            if isinstance(self.parts[i], str):
                continue
            if got[i]:
                self.parts[i] = got[i]
            else:
                del self.parts[i]
                self.cands[i].extend(self.cands.pop(i + 1))

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
            if c.local == "mrk" and c.get("mtype") in inline.DELETED_MARKS:
                # a tracked deletion: no plain text (as inline.flatten reads it), nothing goes inside it
                self.cands[-1].append((c.end, el))
                continue
            known = c.ns == self.xliff_ns and c.local in self.kinds
            kind = self.kinds[c.local] if known else "container"
            stand = inline.stand_in(c.local, kind, lambda n, c=c: c.get(n)) if known else None
            if kind == "container":
                if stand is not None:  # the opening edge (as inline.flatten places it)
                    self.parts.append(stand)
                    self.cands.append([])
                if c.empty:
                    self.cands[-1].append((c.end, el))
                else:
                    self._walk(c)
                if stand is not None:  # the closing edge
                    self.parts.append(inline.Stand())
                    self.cands.append([(c.end, el)])
                    continue
            elif kind == "char":
                try:
                    self.parts.append(chr(int(c.get("hex", default=""), 16)))
                    self.cands.append([])
                except (ValueError, OverflowError):
                    pass
            elif stand is not None:
                self.parts.append(stand)
                self.cands.append([(c.end, el)])
                continue
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


# --- names and ids ------------------------------------------------------------------------------------


class Ids:
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


def fresh_prefix(el: Element, want: str) -> str:
    p, k = want, 0
    while p in el.nsmap:
        k += 1
        p = f"{want}{k}"
    return p


def qn(el: Element, local: str) -> str:
    """`local` in the same namespace and with the same prefix as `el`."""
    return f"{el.prefix}:{local}" if el.prefix else local


def guid(doc_key: str, a: Annotation, i: int) -> str:
    """A GUID derived from the annotation, so a re-run on the same file writes the same one."""
    return str(uuid.uuid5(_GUID_NS, "|".join((doc_key, a.unit_id, a.seg_id, str(i), a.text))))


# --- the file ---------------------------------------------------------------------------------------


class XFile:
    """One decoded, tokenized XLIFF file and what kind it is."""

    def __init__(self, doc: splice.Document):
        self.doc = doc
        root = doc.root
        self.root = root
        self.uri = root.ns
        self.v2 = self.uri.startswith("urn:oasis:names:tc:xliff:document:2") or (root.get("version") or "").startswith("2")
        self.sdl = SDL_NS in root.nsmap.values()
        # memoQ's namespace anywhere in the text (a superset: the memoQ writer checks each unit again)
        self.memoq = not self.v2 and not self.sdl and MQ_NS in doc.text
        self.files = [e for e in root.elements() if e.is_(self.uri, "file")]
        self.unit_name = "unit" if self.v2 else "trans-unit"

    def units(self, file_el: Element) -> dict:
        found: dict = {}
        for e in file_el.iter():
            if e.is_(self.uri, self.unit_name):
                found.setdefault(e.get("id", default=""), e)
        return found


_FILE_SUFFIX = re.compile(r"#(\d+)$")


def file_for(f: XFile, doc_id: str) -> Optional[Element]:
    # The path part is not compared: the user may have moved or renamed the file since the check.
    if not f.files:
        return None
    m = _FILE_SUFFIX.search(doc_id)
    if m and len(f.files) > 1:
        k = int(m.group(1))
        return f.files[k - 1] if 1 <= k <= len(f.files) else None
    return f.files[0]


# --- placing edits -----------------------------------------------------------------------------------


@dataclass
class Counts:
    written: int = 0
    spans: int = 0
    unit_level: int = 0
    not_found: list = field(default_factory=list)


class Placement:
    """Collects the edits of one file: insertions after/before/inside elements, tags around spans.

    The dialect writers subclass it and add `unit()` (what one unit gets) and `finish()`.
    """

    def __init__(self, f: XFile, its: bool, dates: dict, now: datetime, path: str):
        self.path = path
        self.f = f
        self.doc = f.doc
        self.its = its
        self.dates = dates  # first dates of comments written by an earlier run, by comment id
        self.now = now
        self.edits: list[Edit] = []
        self.counts = Counts()
        self.seq = 0
        # Every xml:id value in the file (a regex over the text: a superset is fine, we only avoid them).
        self.xml_ids = Ids(re.findall(r"""\sxml:id\s*=\s*["']([^"']*)""", f.doc.text))

    def unit(self, unit: Element, doc_key: str, anns: list[Annotation]) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """What goes in once every unit is done (file-level blocks)."""

    def key(self, *k) -> tuple:
        self.seq += 1
        return k + (self.seq,)

    def insert_after(self, el: Element, xml: list[str], indent_from: Element) -> None:
        """Insert elements right after `el`, each preceded by the indentation of `indent_from`."""
        _, ws = splice.space_before(self.doc, indent_from)
        for x in xml:
            self.edits.append(Edit(el.end, ws + x, key=self.key(5)))

    def insert_before(self, el: Element, xml: list[str]) -> None:
        """Insert elements right before `el`, each followed by the whitespace that precedes `el`."""
        start, ws = splice.space_before(self.doc, el)
        for x in xml:
            self.edits.append(Edit(start, ws + x, key=self.key(5)))

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
            self.edits.append(Edit(parent.content_start, x, key=self.key(5)))

    def block(self, unit: Element, anchor: Optional[Element], qname: str, items: list[str],
              step: Optional[str] = None) -> str:
        """A new child of `unit` named `qname` holding `items`, each on its own line one level deeper.

        `anchor` is the unit child whose indentation the block takes. One level is the step from the
        unit to its children; when that cannot be measured, `step`, or (None) a tab or two spaces as
        the file indents.
        """
        _, ws = splice.space_before(self.doc, anchor) if anchor is not None else (0, "")
        _, outer = splice.space_before(self.doc, unit)
        if step is None:
            step = "\t" if "\t" in ws else "  "
        step = ws[len(outer):] if ws.startswith(outer) and len(ws) > len(outer) else step
        inner = ws + step if ws else ""
        return f"<{qname}>" + "".join(inner + x for x in items) + ws + f"</{qname}>"

    def wrap(self, rs: int, re_: int, open_tag: str, close_tag: str) -> None:
        n = re_ - rs
        k = self.key()
        self.edits.append(Edit(rs, open_tag, key=(1, -n) + k))
        self.edits.append(Edit(re_, close_tag, key=(0, n) + tuple(-x for x in k)))

    # targets ----------------------------------------------------------------------------------------

    def segment_container(self, unit: Element, seg_id: str) -> Optional[Element]:
        """The element holding the segment's target text: XLIFF 2 <target>, 1.2 <mrk mtype="seg"> or <target>."""
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

    def place_span(self, unit: Element, a: Annotation, taken: dict):
        """(segment container, file positions around the span or None); `taken` holds the spans
        already marked, per container, so that new tags nest with them."""
        container = self.segment_container(unit, a.seg_id)
        return container, self.locate(container, a, taken.setdefault(id(container), []))

    def multi_segment(self, unit: Element) -> bool:
        f = self.f
        if f.v2:
            return sum(1 for s in unit.elements() if s.is_(f.uri, "segment")) > 1
        segsrc = next((k for k in unit.elements() if k.is_(f.uri, "seg-source")), None)
        return segsrc is not None and sum(
            1 for m in segsrc.iter() if m.is_(f.uri, "mrk") and m.get("mtype") == "seg") > 1
