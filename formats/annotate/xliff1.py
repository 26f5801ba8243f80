"""XLIFF 1.2 (also 1.0/1.1, Phrase/Memsource MXLIFF): `<note from="termqa" annotates="target"
priority="N">` in the `<trans-unit>`, right after its last XLIFF child element (so after
source/seg-source/target and any context-group/prop-group/note/alt-trans, and before vendor elements
such as `sdl:seg-defs`, as the 1.2 schema requires). The note uses the trans-unit's own prefix.

The note holds the sentence for the translator and nothing else. A 1.2 `<note>` takes no attribute
of ours (only `from`, `priority`, `annotates`, `xml:lang`), and whatever text is added to it is shown
as part of the note, so the penalty and the run id are not written: `priority` carries the urgency,
and the run that wrote the notes is named in its JSON/HTML report (each run replaces the notes of
the one before). termqa knows its notes by `from="termqa"`, as every earlier version wrote them, so
notes in the older wording are replaced too.

MXLIFF has an `m:comment` element of its own, but termqa does not write it: the format holds one per
trans-unit, its author is a Phrase user id from the file, and there is no public statement that an
uploaded MXLIFF brings it back into Phrase, so the note is the channel.

With ITS: a standoff `<its:locQualityIssues xml:id="termqa-lqi-N">` in the trans-unit, referenced by
`<mrk mtype="x-its" its:locQualityIssuesRef="#termqa-lqi-N">` around the target span.
"""
from __future__ import annotations

from typing import Optional

from termqa.formats.splice import Element, esc_text

from . import its
from .names import ID_PREFIX, TERMQA
from .notes import Annotation, priority, with_segment
from .place import Placement, XFile, qn


def note_xml(unit: Element, a: Annotation, text: str) -> str:
    """termqa's XLIFF 1.2 note for `a`, in the unit's namespace prefix."""
    q = qn(unit, "note")
    return f'<{q} from="{TERMQA}" annotates="target" priority="{priority(a)}">{esc_text(text)}</{q}>'


class Xliff1Writer(Placement):
    def unit(self, unit: Element, doc_key: str, anns: list[Annotation]) -> None:
        f = self.f
        kids = [k for k in unit.elements() if k.ns == f.uri]
        anchor = kids[-1] if kids else None
        multi = self.multi_segment(unit)
        channel = self.comment_channel(unit)
        blocks, comments = [], []
        for i, a in enumerate(anns):
            text = with_segment(a, multi)
            if channel is not None:
                comments.append(self.comment(channel, doc_key, a, i, text))
            else:
                blocks.append(note_xml(unit, a, text))
            self.counts.written += 1
        # All notes first: the schema wants XLIFF elements before the ITS (foreign) blocks.
        blocks += self._its(unit, anns) if self.its else []
        if blocks:
            if anchor is not None:
                self.insert_after(anchor, blocks, anchor)
            else:
                self.append_child(unit, blocks)
        if comments:
            self.add_comments(unit, channel, comments)

    def _its(self, unit: Element, anns: list[Annotation]) -> list[str]:
        """Markers around the spans, the markers of one note referring to its own standoff issue; the
        standoff blocks."""
        standoff = []
        issue: dict = {}  # id(annotation) -> the xml:id of its standoff issue
        mrk = qn(unit, "mrk")

        def marker(a: Annotation, p: str, decl: str) -> str:
            if id(a) not in issue:
                issue[id(a)] = self.xml_ids.next(ID_PREFIX + "lqi-")
                standoff.append(its.standoff(unit, issue[id(a)], [a]))
            return f'<{mrk} mtype="x-its"{decl} {p}:locQualityIssuesRef="#{issue[id(a)]}">'

        left = its.mark_spans(self, unit, anns, marker)
        return standoff + (its.unit_ref(self, unit, left) if left else [])

    # A vendor comment channel instead of notes (memoQ); plain XLIFF 1.2 has none.

    def comment_channel(self, unit: Element) -> Optional[tuple]:
        return None

    def comment(self, channel: tuple, doc_key: str, a: Annotation, i: int, text: str) -> str:
        raise NotImplementedError

    def add_comments(self, unit: Element, channel: tuple, comments: list[str]) -> None:
        raise NotImplementedError


def strip(el: Element, f: XFile, r) -> bool:
    """Recognise termqa's XLIFF 1.2 notes (from="termqa" on a trans-unit's note) and queue their removal."""
    if f.v2 or el.local != "note" or el.ns != f.uri or el.parent is None:
        return False
    if el.parent.is_(f.uri, "trans-unit") and el.get("from") == TERMQA:
        r.remove(el)
    return True
