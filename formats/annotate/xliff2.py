"""XLIFF 2.0-2.2: `<note category="termqa" appliesTo="target" priority="N" id="termqa-K">` in the unit's
`<notes>` (reused when present, else created after the unit's extension elements and before
`originalData`/segments), ids unique within that `<notes>`, in the file's own namespace. The note's
text is the sentence for the translator; termqa's own data goes into attributes of its namespace,
which XLIFF 2 allows on a note: `termqa:outcome`, `termqa:label`, `termqa:penalty`, `termqa:run` (the
id of the run's signature), `termqa:problem` (the problem id, as in the report, CSV and spreadsheet),
with `xmlns:termqa="urn:x-termqa:note"` declared on the note itself.

With ITS: `<mrk id="termqa-mN" type="its:any" its:locQualityIssueType=.. its:locQualityIssueComment=..
its:locQualityIssueSeverity=..>` around the span; issues that cannot be placed inline go into one
standoff block referenced from the unit's start tag.
"""
from __future__ import annotations

from typing import Optional

from termqa.formats.splice import Element, esc_attr, esc_text

from . import its
from .names import ID_PREFIX, TERMQA, TERMQA_NS
from .notes import Annotation, num, priority, with_segment
from .place import Ids, Placement, XFile, fresh_prefix, qn


class Xliff2Writer(Placement):
    def unit(self, unit: Element, doc_key: str, anns: list[Annotation]) -> None:
        f = self.f
        notes = next((k for k in unit.elements() if k.is_(f.uri, "notes")), None)
        note_ids = Ids(n.get("id") for n in (notes.elements() if notes is not None else ()) if n.get("id"))
        inline_ids = Ids(e.get("id") for e in unit.iter() if e.get("id"))
        multi = self.multi_segment(unit)
        qnote = qn(unit, "note")
        new_notes = []
        for a in anns:
            nid = note_ids.next(ID_PREFIX)
            new_notes.append(f'<{qnote} category="{TERMQA}" appliesTo="target" priority="{priority(a)}" '
                             f'id="{nid}"{machine_attrs(notes or unit, a)}>{esc_text(with_segment(a, multi))}</{qnote}>')
            self.counts.written += 1
        mrk = qn(unit, "mrk")
        unit_issues = its.mark_spans(self, unit, anns, lambda a, p, decl: (
            f'<{mrk} id="{inline_ids.next(ID_PREFIX + "m")}" type="its:any"{decl} {its.lqi_attrs(a, p)}>'
        )) if self.its else []
        first_xliff = next((k for k in unit.elements() if k.ns == f.uri), None)
        standoff = its.unit_ref(self, unit, unit_issues) if unit_issues else []
        if notes is not None:
            if standoff:
                self.insert_before(notes, standoff)
            self.append_child(notes, new_notes)
            return
        block = [self.block(unit, first_xliff, qn(unit, "notes"), new_notes)]
        if first_xliff is not None:
            self.insert_before(first_xliff, standoff + block)
        else:
            self.append_child(unit, standoff + block)


def machine_attrs(parent: Element, a: Annotation) -> str:
    """termqa's own attributes of a note: outcome, label, penalty, run id and problem id, in termqa's
    namespace (declared on the note itself, so removing the note removes every trace of it)."""
    p: Optional[str] = parent.prefix_for(TERMQA_NS)
    decl = ""
    if not p:
        p = fresh_prefix(parent, TERMQA)
        decl = f' xmlns:{p}="{TERMQA_NS}"'
    values = (("outcome", a.outcome), ("label", a.label), ("penalty", None if a.penalty is None else num(a.penalty)),
              ("run", a.run), ("problem", a.problem))
    return decl + "".join(f' {p}:{k}="{esc_attr(str(v))}"' for k, v in values if v is not None)


def strip(el: Element, f: XFile, r) -> bool:
    """Recognise termqa's XLIFF 2 notes (category="termqa" in a <notes>) and queue their removal."""
    if not f.v2 or el.local != "note" or el.ns != f.uri or el.parent is None:
        return False
    if el.parent.is_(f.uri, "notes") and el.get("category") == TERMQA:
        r.remove(el, collapse=True)
    return True
