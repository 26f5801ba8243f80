"""ITS 2.0 Localization Quality Issue markup, shared by the XLIFF 1.2 and 2.x writers.

Inline: a marker around the target span (the dialect writer builds it with the attributes below).
Standoff: `<its:locQualityIssues xml:id="termqa-lqi-N">`, referenced from a 1.2 marker or, when a span
does not map cleanly onto the file's text, from the unit's start tag (`its:locQualityIssuesRef`).
"""
from __future__ import annotations

from termqa.formats import splice
from termqa.formats.splice import Edit, Element, esc_attr

from .names import ID_PREFIX, ITS_NS
from .notes import Annotation, num
from .place import Placement, XFile, fresh_prefix, qn


def its_prefix(el: Element) -> tuple[str, str]:
    """(prefix, declaration to add) for the ITS namespace at `el`."""
    p = el.prefix_for(ITS_NS)
    if p:
        return p, ""
    p = fresh_prefix(el, "its")
    return p, f' xmlns:{p}="{ITS_NS}"'


def lqi_attrs(a: Annotation, p: str) -> str:
    """The three LQI attributes, prefixed with `p:` (local markup) or bare (standoff) when p is ''."""
    q = f"{p}:" if p else ""
    return (f'{q}locQualityIssueType="{esc_attr(a.its_type)}" '
            f'{q}locQualityIssueComment="{esc_attr(a.text)}" '
            f'{q}locQualityIssueSeverity="{num(round(a.severity, 2))}"')


def standoff(unit: Element, xml_id: str, anns: list[Annotation]) -> str:
    p, decl = its_prefix(unit)
    issues = "".join(f"<{p}:locQualityIssue {lqi_attrs(a, '')}/>" for a in anns)
    return f'<{p}:locQualityIssues{decl} xml:id="{xml_id}">{issues}</{p}:locQualityIssues>'


def mark_spans(w: Placement, unit: Element, anns: list[Annotation], open_tag) -> list[Annotation]:
    """Wrap the target span of every occurrence an annotation stands for (`Annotation.places`) in the
    unit's ITS marker, `open_tag(a, prefix, declaration)` (always given the annotation itself, so a
    writer can point the markers of one note at one issue); returns the annotations none of whose spans
    could be marked (for a standoff block on the unit)."""
    taken: dict = {}
    left = []
    mrk = qn(unit, "mrk")
    for a in anns:
        marked = False
        for one in a.places():
            _, placed = w.place_span(unit, one, taken)
            if placed is None:
                continue
            rs, re_, parent = placed
            p, decl = its_prefix(parent)
            w.wrap(rs, re_, open_tag(a, p, decl), f"</{mrk}>")
            w.counts.spans += 1
            marked = True
        if not marked:
            left.append(a)
    return left


def unit_ref(w: Placement, unit: Element, anns: list[Annotation]) -> list[str]:
    """A standoff block for issues that could not be placed inline, referenced from the unit.

    Nothing when the unit already carries someone else's reference (one per element): the notes
    still say everything.
    """
    if unit.get("locQualityIssuesRef", ITS_NS) is not None:
        return []
    xml_id = w.xml_ids.next(ID_PREFIX + "lqi-")
    p, decl = its_prefix(unit)
    pos = unit.attrs[-1].end if unit.attrs else unit.start + 1 + len(unit.qname)
    # Our attribute first, then any declaration it needs, so removal can recognise both.
    w.edits.append(Edit(pos, f' {p}:locQualityIssuesRef="#{xml_id}"{decl}', key=w.key(5)))
    w.counts.unit_level += len(anns)
    return [standoff(unit, xml_id, anns)]


# --- removal ----------------------------------------------------------------------------------------


def strip(el: Element, f: XFile, r) -> bool:
    """Recognise termqa's ITS markup (ids starting with "termqa-") and queue its removal."""
    loc = el.local
    if loc == "locQualityIssues" and el.ns == ITS_NS:
        if (el.get("id", splice.XML_NS) or "").startswith(ID_PREFIX):
            r.remove(el, counted=False)
        return True
    if loc == "mrk" and el.ns == f.uri:
        ref = el.get("locQualityIssuesRef", ITS_NS) or ""
        if ref.startswith("#" + ID_PREFIX) or (f.v2 and (el.get("id") or "").startswith(ID_PREFIX)):
            r.unwrap(el)
        return True
    if loc in ("trans-unit", "unit") and el.ns == f.uri:
        r.edits.extend(_strip_unit_ref(el))
        return True
    return False


def _strip_unit_ref(unit: Element) -> list[Edit]:
    """Our `its:locQualityIssuesRef` on a unit start tag, with the namespace declaration we added after it."""
    out = []
    for i, a in enumerate(unit.attrs):
        p, _, loc = a.qname.rpartition(":")
        if loc == "locQualityIssuesRef" and p and unit.nsmap.get(p) == ITS_NS and a.value.startswith("#" + ID_PREFIX):
            end = a.end
            if i + 1 < len(unit.attrs):
                nxt = unit.attrs[i + 1]
                if nxt.start == a.end and nxt.qname == f"xmlns:{p}" and nxt.value == ITS_NS:
                    end = nxt.end
            out.append(Edit(a.start, end=end))
    return out
