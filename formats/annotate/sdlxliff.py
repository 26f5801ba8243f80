"""Trados SDLXLIFF: a Trados comment instead of a note.

`<mrk mtype="x-sdl-comment" sdl:cid="GUID">` around the target span inside the segment's
`<mrk mtype="seg">` (around the whole segment when the span cannot be placed), and its
`<cmt-def id="GUID"><Comments><Comment severity=.. user="termqa" date=.. version="1.0">` in
`/xliff/doc-info/cmt-defs`, all SDL-namespace elements as in Trados's own files (created when missing:
doc-info as the first child of `<xliff>` declaring the SDL default namespace, cmt-defs as the first
child of doc-info). Dates are .NET xs:dateTime in UTC (fraction without trailing zeros). GUIDs are
derived from the annotation, and a comment that is re-written keeps its first date, so re-running
termqa on an unchanged file gives the same bytes. No ITS markup: the comment is the native channel.
A unit with no target to hang a comment on gets an XLIFF 1.2 note, which Trados keeps. A note that
stands for several occurrences in the unit (`Annotation.also`) is one comment, on the first of them
that can be marked: a comment is one marker with one definition, and its text says how often.
"""
from __future__ import annotations

from datetime import timezone

from termqa.formats.splice import Element, esc_attr, esc_text

from .names import SDL_NS, TERMQA
from .notes import Annotation, trados_severity
from .place import Placement, XFile, fresh_prefix, guid, qn
from .xliff1 import note_xml


class SdlWriter(Placement):
    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.its = False
        self.cmt_defs: list[tuple[str, str, str, str]] = []  # (id, severity, date, text), written last

    def unit(self, unit: Element, doc_key: str, anns: list[Annotation]) -> None:
        taken: dict = {}
        notes = []
        for i, a in enumerate(anns):
            # One comment per note, on the first of its occurrences that can be marked (a Trados comment
            # is one marker with one definition); the note itself says how often the unit has it.
            container, placed = None, None
            for k, one in enumerate(a.places()):
                c, placed = self.place_span(unit, one, taken)
                container = container if k else c
                if placed is not None:
                    break
            cid = guid(doc_key, a, i)
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
                notes.append((kids[-1] if kids else None, note_xml(unit, a, a.text)))
                self.counts.written += 1
                continue
            sp = parent.prefix_for(SDL_NS)
            decl = ""
            if not sp:
                sp = fresh_prefix(parent, "sdl")
                decl = f' xmlns:{sp}="{SDL_NS}"'
            mrk = qn(unit, "mrk")
            self.wrap(rs, re_, f'<{mrk} mtype="x-sdl-comment"{decl} {sp}:cid="{cid}">', f"</{mrk}>")
            date = self.dates.get(cid) or self._date()
            self.cmt_defs.append((cid, trados_severity(a), date, a.text))
            self.counts.written += 1
        for anchor, xml in notes:
            if anchor is not None:
                self.insert_after(anchor, [xml], anchor)

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

    def finish(self) -> None:
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
        qname = f"{p}:cmt-defs" if p else "cmt-defs"
        xml = f"<{qname}>{''.join(self._cmt_defs_xml(p, self.cmt_defs))}</{qname}>"
        # Trados puts cmt-defs first in doc-info (before rev-defs) in the real files we have seen.
        first = next(info.elements(), None)
        if first is not None:
            self.insert_before(first, [xml])
        else:
            self.append_child(info, [xml])


# --- removal ----------------------------------------------------------------------------------------


def strip(el: Element, f: XFile, r) -> bool:
    """Recognise cmt-defs whose comments are all by user "termqa" (removed whole, their markers later
    unwrapped) and our comments in a thread someone answered (only ours removed)."""
    if el.local != "cmt-def" or el.ns != SDL_NS:
        return False
    comments = [c for c in el.iter() if c.local == "Comment"]
    ours = [c for c in comments if c.get("user") == TERMQA]
    if comments and len(ours) == len(comments):
        r.remove(el, collapse=True)
        r.sdl_cids.add(el.get("id"))
        r.dates[el.get("id")] = ours[0].get("date")
    else:
        for c in ours:  # someone answered our comment in Trados: keep the thread, drop our part
            r.remove(c)
    return True


def strip_markers(f: XFile, r) -> None:
    """Unwrap the x-sdl-comment markers of the cmt-defs removed."""
    if not r.sdl_cids:
        return
    for el in f.root.iter():
        if (el.local == "mrk" and "x-sdl-comment" in el.raw_attrs and el.get("mtype") == "x-sdl-comment"
                and el.get("cid", SDL_NS) in r.sdl_cids):
            r.unwrap(el)
