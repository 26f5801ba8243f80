"""Write-back of verdicts into XLIFF (formats.annotate, formats.splice).

Every valid corpus file is annotated (notes, and ITS markup) and checked: the output parses, adds no
schema error, re-reads to the same plain text, strips back to the exact input bytes, is idempotent,
and leaves everyone else's notes and comments alone.
"""
from __future__ import annotations

import codecs
import dataclasses
import os
import re
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import pytest
from lxml import etree

from termqa.config import Settings
from termqa.formats import inline, read_bilingual
from termqa.formats.annotate import (ITS_NS, MQ_NS, OUTCOMES_BY_LEVEL, SDL_NS, AnnotateReport, Annotation, Place,
                                    annotate, annotate_bytes, annotations_from_result, merged, note_text, priority,
                                    trados_severity)
from termqa.formats.xmlsafe import parse_bytes
from termqa.pipeline.check import check
from termqa.problems import occurrence_problems
from termqa.errors import InputError, UsageError
from termqa.labels import NOTE_LEAD

from tests.conftest import CORPUS, SAMPLES, corpus_files, is_invalid_name
from tests.notecheck import repeated_notes

FOLDERS = ("formats/xliff12", "formats/sdlxliff", "formats/mqxliff", "formats/xliff2")
VALID = [p for sub in FOLDERS for p in corpus_files(sub) if not is_invalid_name(p)]
X12 = "urn:oasis:names:tc:xliff:document:1.2"
X20 = "urn:oasis:names:tc:xliff:document:2.0"
X22 = "urn:oasis:names:tc:xliff:document:2.2"
T0 = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc)
T1 = datetime(2025, 1, 1, tzinfo=timezone.utc)
HOSTILE = 'error A4 (left untranslated), penalty 4: "a & b" -> "<x>"; expected "\u00e9t\u00e9 \u2192 \u6f22".'

# Corpus inputs the schemas reject before we touch them (recorded, and then checked for no NEW errors).
KNOWN_INVALID = {
    "okapi_lqiExtensions.xlf",  # its:locQualityIssues as a child of <xliff> after <file>
    "okapi_segmented_nonamespace.xlf",  # no namespace: no schema applies
    "passolo_PAS-10-Test01_xliff10.xlf",  # XLIFF 1.0, no namespace
    "ttk_odf2xliff_inline.xlf",  # XLIFF 1.1 namespace
    "ttk_states.xlf",  # XLIFF 1.1 namespace
}


# --- helpers ----------------------------------------------------------------------------------------


def _parser():
    return etree.XMLParser(no_network=True, resolve_entities=False, load_dtd=False)


@lru_cache(maxsize=None)
def _schema(uri: str):
    """The core schema for a namespace, loaded from ../shared without network; None when none applies."""
    rel = {X12: "xliff12/xliff-core-1.2-transitional.xsd", X20: "xliff20/xliff_core_2.0.xsd",
           X22: "xliff22/xliff_core_2.2.xsd"}.get(uri)
    if rel is None or CORPUS is None:
        return None
    return etree.XMLSchema(etree.parse(str(CORPUS / "schemas" / rel), _parser()))


def _errors(data: bytes) -> set | None:
    root = etree.fromstring(data, _parser())
    uri = etree.QName(root).namespace or ""
    if CORPUS is None and uri in (X12, X20, X22):
        pytest.skip("the XLIFF schemas live in ../shared/corpus/schemas, which is absent")
    schema = _schema(uri)
    if schema is None:
        return None
    schema.validate(root)
    return {e.message for e in schema.error_log}


def _ns(root) -> str:
    return etree.QName(root).namespace or ""


def _pick(path: Path, n: int = 4) -> list[Annotation]:
    """A few annotations on the file's units, chosen by reading it with lxml here (not the reader).

    Spans cover the last word of the segment's plain target (as formats.inline flattens it); units
    without a target text get an annotation without span. One annotation names a unit that does
    not exist.
    """
    data = path.read_bytes()
    root = etree.fromstring(data, _parser())
    uri = _ns(root)
    q = (lambda t: f"{{{uri}}}{t}") if uri else (lambda t: t)
    v2 = uri.startswith("urn:oasis:names:tc:xliff:document:2")
    files = root.findall(q("file"))
    out = []
    outcomes = ["error", "unjudged", "unjustified", "error"]
    for k, f in enumerate(files, start=1):
        doc_id = str(path) if len(files) == 1 else f"{path}#{k}"
        for unit in f.iter(q("unit" if v2 else "trans-unit")):
            if unit.get("translate") == "no":
                continue
            segs = []  # (seg_id, target element or None)
            if v2:
                for i, s in enumerate(unit.findall(q("segment")), start=1):
                    segs.append((s.get("id") or f"s{i}", s.find(q("target"))))
            else:
                target = unit.find(q("target"))
                ss = unit.find(q("seg-source"))
                mids = [m.get("mid") for m in ss.iter(q("mrk")) if m.get("mtype") == "seg"] if ss is not None else []
                tm = {m.get("mid"): m for m in target.iter(q("mrk")) if m.get("mtype") == "seg"} if target is not None else {}
                if mids:
                    segs = [(mid, tm.get(mid, target if not tm and len(mids) == 1 else None)) for mid in mids[:2]]
                else:
                    segs = [("", target)]
            for seg_id, tgt in segs[:2]:
                span = text = None
                if tgt is not None:
                    plain, _ = inline.flatten(tgt, inline.XLIFF2 if v2 else inline.XLIFF12, namespace=uri)
                    words = list(re.finditer(r"\w{3,}", plain))
                    if words:
                        span, text = (words[-1].start(), words[-1].end()), words[-1].group(0)
                outcome = outcomes[len(out) % len(outcomes)]
                out.append(Annotation(
                    doc_id=doc_id, unit_id=unit.get("id"), seg_id=seg_id, outcome=outcome,
                    label="A4" if outcome == "error" else None, penalty=4.0 if outcome == "error" else None,
                    text=f"{HOSTILE} #{len(out) + 1}", its_type="untranslated", severity=100.0,
                    target_span=span, target_text=text))
                if len(out) >= n:
                    break
            if len(out) >= n:
                break
        if len(out) >= n:
            break
    out.append(Annotation(str(path), "no-such-unit-id", "", "error", "A1", 1.0, "x", "terminology", 55.0, None))
    return out


def _is_ours(el) -> bool:
    name = etree.QName(el).localname
    if name == "note":
        return el.get("from") == "termqa" or el.get("category") == "termqa"
    if name == "cmt-def":
        comments = list(el.iter("{*}Comment"))
        return bool(comments) and all(c.get("user") == "termqa" for c in comments)
    if name == "comment" and etree.QName(el).namespace == MQ_NS:
        return el.get("creatoruser") == "termqa"
    if name == "locQualityIssues":
        return (el.get("{http://www.w3.org/XML/1998/namespace}id") or "").startswith("termqa-")
    return False


def _remove_keep_tail(el, unwrap: bool = False):
    """Remove `el` as the writer does: with the whitespace-only text right before it; or unwrap it."""
    parent = el.getparent()
    prev = el.getprevious()
    tail = el.tail or ""
    if unwrap:
        idx = parent.index(el)
        kids = list(el)
        if prev is not None:
            prev.tail = (prev.tail or "") + (el.text or "")
        else:
            parent.text = (parent.text or "") + (el.text or "")
        for i, c in enumerate(kids):
            parent.insert(idx + i, c)
        last = kids[-1] if kids else prev
        if last is not None:
            last.tail = (last.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
        el.tail = None
        parent.remove(el)
        return
    if prev is not None:
        prev.tail = (prev.tail if (prev.tail or "").strip() else "") + tail
    else:
        parent.text = (parent.text if (parent.text or "").strip() else "") + tail
    el.tail = None
    parent.remove(el)


def _lxml_strip(data: bytes) -> bytes:
    """Remove termqa's additions with lxml (independently of the writer) and canonicalise (C14N 2.0)."""
    root = etree.fromstring(data, _parser())
    cids = _our_cids(root)
    for el in list(root.iter("{*}mrk", "{*}trans-unit", "{*}unit", "mrk", "trans-unit", "unit")):
        name = etree.QName(el).localname
        ref = el.get(f"{{{ITS_NS}}}locQualityIssuesRef") or ""
        if name == "mrk" and (ref.startswith("#termqa-") or (el.get("id") or "").startswith("termqa-")
                              or (el.get("mtype") == "x-sdl-comment" and el.get(f"{{{SDL_NS}}}cid") in cids)):
            _remove_keep_tail(el, unwrap=True)
        elif name in ("trans-unit", "unit") and ref.startswith("#termqa-"):
            del el.attrib[f"{{{ITS_NS}}}locQualityIssuesRef"]
    for el in [e for e in root.iter("{*}note", "note", "{*}cmt-def", "{*}locQualityIssues", f"{{{MQ_NS}}}comment")
               if _is_ours(e)]:
        parent = el.getparent()
        _remove_keep_tail(el)
        if etree.QName(parent).localname in ("notes", "cmt-defs", "comments") and len(parent) == 0:
            gp = parent.getparent()
            _remove_keep_tail(parent)
            if etree.QName(gp).localname == "doc-info" and len(gp) == 0:
                _remove_keep_tail(gp)
    return etree.tostring(root, method="c14n2")


def _our_cids(root) -> set:
    return {d.get("id") for d in root.iter(f"{{{SDL_NS}}}cmt-def") if _is_ours(d)}


def _canon(data: bytes) -> bytes:
    return etree.tostring(etree.fromstring(data, _parser()), method="c14n2")


def _foreign(data: bytes) -> list[bytes]:
    """Everyone else's notes and comment definitions, serialised."""
    root = etree.fromstring(data, _parser())
    return [etree.tostring(e, with_tail=False) for e in root.iter()
            if isinstance(e.tag, str) and (etree.QName(e).localname in ("note", "cmt-def") or e.tag == f"{{{MQ_NS}}}comment")
            and not _is_ours(e)]


def _plain_targets(path: Path, data: bytes, tmp_path: Path) -> list:
    p = tmp_path / ("reread" + path.suffix)
    p.write_bytes(data)
    try:
        bf = read_bilingual(str(p))
    except InputError:
        bf = read_bilingual(str(p), tgt_lang="fr")
    return [(s.unit_id, s.seg_id, s.source, s.target) for s in bf.segments]


# --- every valid corpus file -----------------------------------------------------------------------


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
@pytest.mark.parametrize("its", [False, True], ids=["notes", "its"])
def test_corpus_roundtrip(path: Path, its: bool, tmp_path: Path):
    data = path.read_bytes()
    anns = _pick(path)
    real = [a for a in anns if a.unit_id != "no-such-unit-id"]
    out, rep = annotate_bytes(data, anns, its=its, path=str(path), now=T0)

    # (1) it parses, with the hardened parser too
    parse_bytes(out, str(path))
    assert out != data or not real
    assert rep.written == len(real)
    assert rep.units_not_found == 1 and rep.unmatched == (f"{path} no-such-unit-id",)
    assert rep.removed == 0

    # (2) no new schema errors (and none at all when the input was valid)
    before, after = _errors(data), _errors(out)
    if before is None:
        assert path.name in KNOWN_INVALID
    else:
        assert after <= before, after - before
        assert (not before) == (path.name not in KNOWN_INVALID)

    # (3) removing termqa's additions gives exactly the input bytes, and the same C14N done by lxml
    stripped, rep0 = annotate_bytes(out, [], path=str(path))
    assert stripped == data
    assert rep0.removed == len(real) and rep0.written == 0
    assert _lxml_strip(out) == _canon(data)

    # (4) running twice gives the same bytes as once (Trados comment dates are kept from the first run)
    again, rep2 = annotate_bytes(out, anns, its=its, path=str(path), now=T1)
    assert again == out
    assert rep2.removed == len(real)

    # (5) foreign notes and comments untouched; ours are there with the exact text
    assert _foreign(out) == _foreign(data)
    root = etree.fromstring(out, _parser())
    sdl = SDL_NS in root.nsmap.values()
    if sdl:
        texts = [c.text for c in root.iter("{*}Comment") if c.get("user") == "termqa"]
        texts += [n.text for n in root.iter(f"{{{X12}}}note") if n.get("from") == "termqa"]
    else:
        texts = [n.text for n in root.iter() if isinstance(n.tag, str) and _is_ours(n)
                 and etree.QName(n).localname in ("note", "comment")]
    assert sorted(t.split(": ", 1)[-1] if t.startswith("Segment ") else t for t in texts) == sorted(a.text for a in real)

    # the target text the tools see is unchanged: markers only wrap it
    if not path.name.startswith(("passolo", "ttk_")):
        assert _plain_targets(path, out, tmp_path) == _plain_targets(path, data, tmp_path)

    # every inline marker wraps exactly the flagged rendering (or, for Trados, the whole segment)
    markers = _markers(root)
    assert len(markers) == rep.spans_marked + (rep.unit_level if sdl else 0)
    wanted = {a.target_text for a in real if a.target_text}
    assert all(text in wanted or whole for text, whole in markers)
    if its and not sdl:
        assert rep.spans_marked + rep.unit_level <= len(real)


def _markers(root) -> list[tuple[str, bool]]:
    """(text, wraps the whole content of its parent) of each termqa inline marker."""
    out = []
    cids = _our_cids(root)
    for el in root.iter("{*}mrk", "mrk"):
        ref = el.get(f"{{{ITS_NS}}}locQualityIssuesRef") or ""
        if ref.startswith("#termqa-") or (el.get("id") or "").startswith("termqa-") or (
                el.get("mtype") == "x-sdl-comment" and el.get(f"{{{SDL_NS}}}cid") in cids):
            whole = (el.getprevious() is None and el.getnext() is None and not (el.getparent().text or "")
                     and not (el.tail or ""))
            out.append(("".join(el.itertext()), whole))
    return out


def _marked_texts(root) -> list[str]:
    return [t for t, _ in _markers(root)]


def test_corpus_report_of_schema_status():
    """Which real inputs fail the schemas before termqa touches them (documented, not hidden)."""
    if not VALID:
        pytest.skip("../shared/corpus is not present")
    invalid = set()
    for p in VALID:
        errs = _errors(p.read_bytes())
        if errs is None or errs:
            invalid.add(p.name)
    assert invalid == KNOWN_INVALID


# --- exact output on small files ---------------------------------------------------------------------


def _ann(unit="1", seg="", span=(0, 3), text="error A4: x", outcome="error", doc="f.xlf", target=None, penalty=4.0):
    return Annotation(doc, unit, seg, outcome, "A4" if outcome == "error" else None,
                      penalty if outcome == "error" else None, text, "untranslated", 100.0, span, target)


X12_DOC = """<?xml version="1.0" encoding="UTF-8"?>
<!-- keep me -->
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:sdl="urn:vendor">
  <file original="a" source-language="en" target-language="fr" datatype="plaintext">
    <body>
      <trans-unit id="1">
        <source>Replace the oil filter &amp; seal.</source>
        <target>Remplacez le <g id="1">filtre &#224; huile</g> &amp; le joint.</target>
        <note from="translator">keep this note</note>
        <sdl:seg-defs><sdl:seg id="1"/></sdl:seg-defs>
      </trans-unit>
    </body>
  </file>
</xliff>
"""


def test_xliff12_note_placement_and_exact_text():
    data = X12_DOC.encode()
    out, rep = annotate_bytes(data, [_ann(span=(13, 27), text=HOSTILE)], now=T0)
    text = out.decode()
    assert rep.written == 1 and rep.spans_marked == 0
    expected_note = ('<note from="termqa" annotates="target" priority="1">error A4 (left untranslated), penalty 4: '
                     '"a &amp; b" -&gt; "&lt;x&gt;"; expected "\u00e9t\u00e9 \u2192 \u6f22".</note>')
    # after the foreign note, before the vendor element, with the file's indentation
    assert (f'<note from="translator">keep this note</note>\n        {expected_note}\n'
            f'        <sdl:seg-defs>') in text
    assert text.replace(f"\n        {expected_note}", "") == X12_DOC
    assert _errors(out) == set()


def test_xliff12_its_wraps_span_inside_inline_code():
    data = X12_DOC.encode()
    # plain target: "Remplacez le filtre à huile & le joint." -> "filtre à huile" is 13..27, inside <g>
    out, rep = annotate_bytes(data, [_ann(span=(13, 27), target="filtre \u00e0 huile")], its=True, now=T0)
    text = out.decode()
    assert rep.spans_marked == 1 and rep.unit_level == 0
    assert ('<g id="1"><mrk mtype="x-its" xmlns:its="http://www.w3.org/2005/11/its" '
            'its:locQualityIssuesRef="#termqa-lqi-1">filtre &#224; huile</mrk></g>') in text
    assert ('<its:locQualityIssues xmlns:its="http://www.w3.org/2005/11/its" xml:id="termqa-lqi-1">'
            '<its:locQualityIssue locQualityIssueType="untranslated" locQualityIssueComment="error A4: x" '
            'locQualityIssueSeverity="100"/></its:locQualityIssues>') in text
    assert _errors(out) == set()
    assert annotate_bytes(out, [])[0] == data


def test_span_across_code_boundary_goes_to_the_unit():
    data = X12_DOC.encode()
    # "le filtre" starts outside <g> and ends inside it: no well-formed wrapping exists
    out, rep = annotate_bytes(data, [_ann(span=(10, 19))], its=True, now=T0)
    text = out.decode()
    assert rep.spans_marked == 0 and rep.unit_level == 1
    assert ('<trans-unit id="1" its:locQualityIssuesRef="#termqa-lqi-1" '
            'xmlns:its="http://www.w3.org/2005/11/its">') in text
    assert annotate_bytes(out, [])[0] == data
    assert _errors(out) == set()


def test_overlapping_spans_do_not_cross():
    data = X12_DOC.encode()
    anns = [_ann(span=(0, 12)), _ann(span=(10, 12)), _ann(span=(3, 9)), _ann(span=(0, 12))]
    # plain: "Remplacez le ..." [0,12) "Remplacez le", [10,12) "le" nested, [3,9) crosses nothing
    out, rep = annotate_bytes(data, anns, its=True, now=T0)
    assert rep.spans_marked == 4
    parse_bytes(out, "x")
    root = etree.fromstring(out)
    assert _marked_texts(root) == ["Remplacez le", "Remplacez le", "placez", "le"]
    # (notes of their own: the same line twice in a unit is one note, below)
    crossing = [_ann(span=(0, 5), text="a"), _ann(span=(3, 9), text="b")]
    out, rep = annotate_bytes(data, crossing, its=True, now=T0)
    assert (rep.spans_marked, rep.unit_level) == (1, 1)
    assert annotate_bytes(out, [])[0] == data


def test_utf16_crlf_bom_entities_cdata_comments_preserved():
    doc = X12_DOC.replace('encoding="UTF-8"', 'encoding="UTF-16"').replace("\n", "\r\n").replace(
        "<source>", "<source><![CDATA[a<b]]>").replace("<body>", "<body><!-- c -->")
    data = codecs.BOM_UTF16_LE + doc.encode("utf-16-le")
    out, rep = annotate_bytes(data, [_ann(span=(13, 27), target="filtre \u00e0 huile")], its=True, now=T0)
    assert out.startswith(codecs.BOM_UTF16_LE)
    text = out[2:].decode("utf-16-le")
    assert "<![CDATA[a<b]]>" in text and "&#224;" in text and "<!-- c -->" in text
    assert "\r\n        <note from=\"termqa\"" in text
    assert annotate_bytes(out, [])[0] == data
    assert rep.spans_marked == 1


def test_latin1_file_gets_character_references():
    doc = X12_DOC.replace("UTF-8", "ISO-8859-1").replace("&#224;", "\u00e0")
    data = doc.encode("latin-1")
    out, _ = annotate_bytes(data, [_ann(text="\u2192 \u6f22 \u00e9")], now=T0)
    assert b"&#8594; &#28450; \xe9" in out
    root = etree.fromstring(out)
    assert [n.text for n in root.iter(f"{{{X12}}}note") if n.get("from") == "termqa"] == ["\u2192 \u6f22 \u00e9"]


def test_span_inside_cdata_falls_back_to_unit():
    doc = X12_DOC.replace("<target>Remplacez le", "<target><![CDATA[Remplacez le]]>")
    out, rep = annotate_bytes(doc.encode(), [_ann(span=(0, 9))], its=True, now=T0)
    assert (rep.spans_marked, rep.unit_level) == (0, 1)
    # a span that starts and ends on the CDATA's edges is fine
    out, rep = annotate_bytes(doc.encode(), [_ann(span=(0, 12))], its=True, now=T0)
    assert rep.spans_marked == 1
    assert b'its:locQualityIssuesRef="#termqa-lqi-1"><![CDATA[Remplacez le]]></mrk>' in out


def test_target_text_mismatch_searches_the_text():
    data = X12_DOC.encode()
    out, rep = annotate_bytes(data, [_ann(span=(0, 5), target="joint")], its=True, now=T0)
    assert _marked_texts(etree.fromstring(out)) == ["joint"]


def test_priorities_and_outcomes():
    assert [priority(_ann(outcome=o, penalty=p)) for o, p in
            [("error", 4.0), ("error", 1.0), ("unjustified", None), ("unjudged", None), ("justified", None)]] == [1, 2, 3, 5, 8]


def test_priority_follows_certainty():
    """An error outranks a question; among questions, those "Review first" ranks first (a different word
    than the glossary's, no rendering, kept in the source language) come before those termqa cannot call,
    and a form of the glossary term comes last. Trados gets the same order in its three severities."""
    def ann(outcome, reason=None, penalty=None):
        return dataclasses.replace(_ann(outcome=outcome, penalty=penalty or 4.0), reason=reason)

    order = [ann("error", penalty=4.0), ann("error", penalty=1.0), ann("unjustified"),
             ann("unjudged", "rendering diverges from the glossary term"), ann("unjudged", R_MISSING),
             ann("unjudged", "kept as in the source; it is also a word of the target language"),
             ann("unjudged", "rendering diverges from the document's majority rendering"),
             ann("unjudged", "not judged: the judge failed (timeout)"),
             ann("unjudged", "single occurrence with no glossary reference"),
             ann("unjudged", "spelling differs from the document's majority rendering"),
             ann("unjudged", "an inflected form of the glossary term (same stem; likely fine, check that the form fits)"),
             ann("unjudged", "a word derived from the glossary term (an adjective from the noun, ...; likely fine, "
                             "check it)"),
             ann("justified")]
    assert [priority(a) for a in order] == [1, 2, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 8]
    assert [trados_severity(a) for a in order] == ["High"] * 2 + ["Medium"] * 5 + ["Low"] * 6
    # the same order as the classes of "Review first" (termqa.results.triage)
    from termqa.results.triage import review_class
    ranks = [review_class({"reason": a.reason}).rank for a in order[3:-1]]
    assert [priority(a) for a in sorted(order[3:-1], key=lambda a: review_class({"reason": a.reason}).rank)] == \
        sorted(priority(a) for a in order[3:-1]) and len(set(ranks)) > 3


X2_DOC = """<?xml version="1.0"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.2" version="2.2" srcLang="en" trgLang="fr"
       xmlns:mda="urn:oasis:names:tc:xliff:metadata:2.0">
 <file id="f1">
  <unit id="u1">
   <mda:metadata><mda:metaGroup><mda:meta type="k">v</mda:meta></mda:metaGroup></mda:metadata>
   <originalData><data id="d1">&lt;b&gt;</data></originalData>
   <segment id="s1">
    <source>The <ph id="1" dataRef="d1"/>oil filter</source>
    <target>Le <ph id="1" dataRef="d1"/>filtre<cp hex="00A0"/>à huile</target>
   </segment>
  </unit>
  <unit id="u2">
   <notes><note id="1">a</note><note id="1">b</note><note id="termqa-1">someone else's id</note></notes>
   <segment><source>Two</source><target>Deux</target></segment>
   <segment><source>Three</source><target>Trois</target></segment>
  </unit>
 </file>
 <file id="f2"><unit id="u1"><segment><source>x</source><target>y</target></segment></unit></file>
</xliff>
"""


def test_xliff2_notes_created_after_extensions_and_ids_unique():
    data = X2_DOC.encode()
    anns = [_ann("u1", "s1", (3, 9), doc="p.xlf#1"), _ann("u2", "s2", (0, 5), doc="p.xlf#1", outcome="unjudged"),
            _ann("u1", "", None, doc="moved/elsewhere.xlf#2", outcome="unjustified")]
    out, rep = annotate_bytes(data, anns, its=True, now=T0)
    text = out.decode()
    assert rep.written == 3 and rep.units_not_found == 0
    # notes between mda:metadata and originalData; termqa's own data in attributes of its namespace
    assert ('</mda:metadata>\n   <notes>\n    <note category="termqa" appliesTo="target" priority="1" '
            'id="termqa-1" xmlns:termqa="urn:x-termqa:note" termqa:outcome="error" termqa:label="A4" '
            'termqa:penalty="4">error A4: x</note>\n   </notes>\n   <originalData>') in text
    # reused <notes>, fresh id avoiding the existing ones, segment named
    assert ('<note id="termqa-1">someone else\'s id</note><note category="termqa" appliesTo="target" '
            'priority="5" id="termqa-2" xmlns:termqa="urn:x-termqa:note" termqa:outcome="unjudged">'
            'Segment s2: error A4: x</note></notes>') in text
    # the k-th <file>: matched on "#2" whatever the path; no span, so the ITS issue hangs on the unit
    assert ('<unit id="u1" its:locQualityIssuesRef="#termqa-lqi-1" xmlns:its="http://www.w3.org/2005/11/its">'
            '<its:locQualityIssues xmlns:its="http://www.w3.org/2005/11/its" xml:id="termqa-lqi-1">'
            '<its:locQualityIssue locQualityIssueType="untranslated" locQualityIssueComment="error A4: x" '
            'locQualityIssueSeverity="100"/></its:locQualityIssues><notes><note category="termqa" '
            'appliesTo="target" priority="3" id="termqa-1" xmlns:termqa="urn:x-termqa:note" '
            'termqa:outcome="unjustified">') in text
    # ITS mrk around "filtre" after the placeholder; the cp character counts as one plain character
    assert ('<ph id="1" dataRef="d1"/><mrk id="termqa-m1" type="its:any" xmlns:its="http://www.w3.org/2005/11/its" '
            'its:locQualityIssueType="untranslated" its:locQualityIssueComment="error A4: x" '
            'its:locQualityIssueSeverity="100">filtre</mrk><cp hex="00A0"/>') in text
    assert _errors(out) == set()
    assert annotate_bytes(out, [])[0] == data
    assert annotate_bytes(out, anns, its=True, now=T1)[0] == out


# The Trados comment shape asserted below is the one in real Trados Studio files:
#   RWS/Sdl-Community, "XLIFF Manager for Trados Studio/XLIFF.Manager.UnitTests/TestFiles/Sdlxliff/
#     QuotesSample.docx.sdlxliff" (a range-level and a segment-level comment), and
#   translate5/translate5, application/modules/editor/testcases/editorAPI/SegmentCommentRoundtripTest/
#     testfiles/workfiles/01-sdlxliff-en-de.sdlxliff (Low/Medium/High comments, doc-info with rev-defs).
# There, doc-info is the first child of <xliff> and declares the SDL namespace as default; <Comments> and
# <Comment> carry no namespace declaration (so they are SDL elements); dates are .NET xs:dateTime with up
# to 7 fraction digits; a segment-level comment is an x-sdl-comment mrk around the whole content of the
# segment's <mrk mtype="seg">; cmt-defs comes before rev-defs.
SDL_DOC = """\ufeff<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2" sdl:version="1.0"><file original="a.docx" datatype="x-sdlfilterframework2" source-language="en-US" target-language="fr-FR"><body><trans-unit id="tu1"><source>Oil filter</source><seg-source><mrk mtype="seg" mid="1">Oil filter</mrk></seg-source><target><mrk mtype="seg" mid="1">Filtre <mrk mtype="x-sdl-comment" sdl:cid="aaaa">huile</mrk></mrk></target><sdl:seg-defs><sdl:seg id="1" conf="Translated"/></sdl:seg-defs></trans-unit></body></file></xliff>"""
SDL_INFO = ('<doc-info xmlns="http://sdl.com/FileTypes/SdlXliff/1.0"><cmt-defs><cmt-def id="aaaa"><Comments>'
            '<Comment severity="Low" user="reviewer" date="2020-02-25T10:34:00.5134646+01:00" version="1.0">check</Comment>'
            '</Comments></cmt-def></cmt-defs><cmt-meta-defs/></doc-info>')


def _sdl_comments(data: bytes) -> list[tuple[str, str, dict, str]]:
    """(namespace of <Comments>, of <Comment>, attributes, text) of every Trados comment, read with lxml."""
    root = etree.fromstring(data, _parser())
    return [(etree.QName(c.getparent()).namespace, etree.QName(c).namespace, dict(c.attrib), c.text)
            for c in root.iter("{*}Comment")]


def test_sdlxliff_comment_structure_created():
    data = SDL_DOC.encode("utf-8")
    out, rep = annotate_bytes(data, [_ann("tu1", "1", (0, 6), doc="a.sdlxliff", text="error A4: Filtre")], now=T0)
    text = out.decode("utf-8")
    assert out.startswith(codecs.BOM_UTF8)
    m = re.search(r'<mrk mtype="x-sdl-comment" sdl:cid="([0-9a-f-]{36})">Filtre</mrk>', text)
    assert m, text
    cid = m.group(1)
    assert (f'version="1.2" sdl:version="1.0"><doc-info xmlns="http://sdl.com/FileTypes/SdlXliff/1.0"><cmt-defs>'
            f'<cmt-def id="{cid}"><Comments><Comment severity="High" user="termqa" '
            f'date="2024-05-06T07:08:09.123456+00:00" version="1.0">error A4: Filtre</Comment></Comments></cmt-def>'
            f'</cmt-defs></doc-info><file ') in text
    assert 'xmlns=""' not in text and "<note" not in text
    # <Comments>/<Comment> are SDL elements, as in Trados's own files (not in no namespace)
    assert _sdl_comments(out) == [(SDL_NS, SDL_NS, {"severity": "High", "user": "termqa",
                                   "date": "2024-05-06T07:08:09.123456+00:00", "version": "1.0"}, "error A4: Filtre")]
    assert annotate_bytes(out, [])[0] == data
    # a second run at another time keeps the first date and GUID
    assert annotate_bytes(out, [_ann("tu1", "1", (0, 6), doc="a.sdlxliff", text="error A4: Filtre")], now=T1)[0] == out
    assert _errors(out) == set()


def test_sdlxliff_date_is_dotnet_datetime():
    data = SDL_DOC.encode("utf-8")
    dates = []
    for now in (datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc), datetime(2024, 5, 6, 7, 8, 9, 120000, tzinfo=timezone.utc)):
        out, _ = annotate_bytes(data, [_ann("tu1", "1", (0, 6), doc="a.sdlxliff")], now=now)
        dates += [a["date"] for _, _, a, _ in _sdl_comments(out)]
    assert dates == ["2024-05-06T07:08:09+00:00", "2024-05-06T07:08:09.12+00:00"]


def test_sdlxliff_existing_doc_info_and_foreign_comment_kept():
    data = SDL_DOC.replace('sdl:version="1.0">', 'sdl:version="1.0">' + SDL_INFO).encode("utf-8")
    anns = [_ann("tu1", "1", (7, 12), doc="a.sdlxliff", text="unjudged: huile", outcome="unjudged"),
            _ann("tu1", "1", None, doc="a.sdlxliff", text="whole segment", outcome="unjustified")]
    out, rep = annotate_bytes(data, anns, now=T0)
    text = out.decode("utf-8")
    assert (rep.written, rep.spans_marked, rep.unit_level) == (2, 1, 1)
    # ours go after the reviewer's cmt-def, cmt-meta-defs stays last
    assert re.search(r'</Comment></Comments></cmt-def><cmt-def id="[0-9a-f-]{36}"><Comments><Comment '
                     r'severity="Low" user="termqa"[^>]*>unjudged: huile</Comment>.*</cmt-defs><cmt-meta-defs/>', text)
    assert [(a["severity"], t) for _, _, a, t in _sdl_comments(out)] == [
        ("Low", "check"), ("Low", "unjudged: huile"), ("Medium", "whole segment")]
    # nested inside the reviewer's marker; the segment-level comment wraps the whole segment content
    assert re.search(r'<mrk mtype="seg" mid="1"><mrk mtype="x-sdl-comment" sdl:cid="[0-9a-f-]{36}">Filtre '
                     r'<mrk mtype="x-sdl-comment" sdl:cid="aaaa"><mrk mtype="x-sdl-comment" sdl:cid="[0-9a-f-]{36}">'
                     r'huile</mrk></mrk></mrk></mrk>', text)
    assert annotate_bytes(out, [])[0] == data
    assert _foreign(out) == _foreign(data)


def test_sdlxliff_cmt_defs_go_first_in_doc_info_and_follow_its_prefix():
    rev = '<rev-defs><rev-def id="r1" author="A" date="08/29/2019 10:31:38"/></rev-defs>'
    plain = SDL_DOC.replace('sdl:version="1.0">', f'sdl:version="1.0"><doc-info xmlns="{SDL_NS}">{rev}</doc-info>')
    prefixed = SDL_DOC.replace('sdl:version="1.0">', 'sdl:version="1.0"><sdl:doc-info>'
                               + rev.replace("<rev", "<sdl:rev").replace("</rev", "</sdl:rev") + "</sdl:doc-info>")
    for doc, pre in ((plain, ""), (prefixed, "sdl:")):
        data = doc.encode("utf-8")
        out, _ = annotate_bytes(data, [_ann("tu1", "1", (0, 6), doc="a.sdlxliff", text="t")], now=T0)
        text = out.decode("utf-8")
        assert re.search(f'<{pre}doc-info[^>]*><{pre}cmt-defs><{pre}cmt-def id="[0-9a-f-]{{36}}"><{pre}Comments>'
                         f'<{pre}Comment severity="High" user="termqa" date="[^"]+" version="1.0">t</{pre}Comment>'
                         f'</{pre}Comments></{pre}cmt-def></{pre}cmt-defs><{pre}rev-defs>', text), text
        assert [(c, cc) for c, cc, _, _ in _sdl_comments(out)] == [(SDL_NS, SDL_NS)]
        assert annotate_bytes(out, [])[0] == data


def test_sdlxliff_output_of_earlier_versions_is_still_replaced():
    # Before the shape was checked against real files, termqa wrote <Comments xmlns="">: a re-run removes it.
    data = SDL_DOC.encode("utf-8")
    out, _ = annotate_bytes(data, [_ann("tu1", "1", (0, 6), doc="a.sdlxliff", text="old")], now=T0)
    legacy = out.replace(b"<Comments>", b'<Comments xmlns="">')
    assert legacy != out
    stripped, rep = annotate_bytes(legacy, [], now=T0)
    assert stripped == data and rep.removed == 1


def test_sdlxliff_reply_to_our_comment_is_kept():
    data = SDL_DOC.encode("utf-8")
    out, _ = annotate_bytes(data, [_ann("tu1", "1", (0, 6), doc="a.sdlxliff", text="ours")], now=T0)
    # a reviewer answers in Trados: their Comment joins ours in the same cmt-def
    replied = out.replace(b"</Comment></Comments>",
                          b'</Comment><Comment severity="Low" user="rev" date="d" version="1.0">fixed</Comment></Comments>')
    stripped, rep = annotate_bytes(replied, [], now=T0)
    assert rep.removed == 1
    assert b">ours<" not in stripped and b">fixed<" in stripped
    assert b'mtype="x-sdl-comment"' in stripped  # the thread keeps its marker


# memoQ's own segment comments, as in a memoQ 9 export used by translate5's comment round-trip test:
#   translate5/translate5, application/modules/editor/testcases/editorAPI/SegmentCommentRoundtripTest/
#     testfiles/workfiles/02-memoq-de-en.mqxliff
# <mq:comments> is the trans-unit's last child, after memoQ's other mq: elements; each <mq:comment> has
# unprefixed attributes id (GUID), creatoruser, time (UTC, to the second, "Z"), deleted, category,
# appliesto, origin, and the comment as text.
MQ_DOC = """<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns:mq="MQXliff" version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="a" source-language="en" target-language="fr" datatype="x-mq"><body>
<trans-unit id="1" mq:status="NotStarted"><source>Oil</source><target>Huile</target></trans-unit>
</body></file></xliff>"""

MQ_PRETTY = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:mq="MQXliff" version="1.2">
  <file original="t.idml" source-language="de" target-language="en-us" datatype="x-chained">
    <body>
      <trans-unit id="1" mq:status="ManuallyConfirmed">
        <source xml:space="preserve">Das Haus</source>
        <target xml:space="preserve">The house</target>
        <context-group>
          <context context-type="x-mmq-structural-context">P#1</context>
        </context-group>
        <mq:nosplitjoins/>
        <mq:comments>
            <mq:comment id="4a3f1dad-d417-4266-b832-6d6721e2e9bf" creatoruser="user1" time="2020-01-27T06:21:07Z" deleted="false" category="0" appliesto="Target" origin="User">Bitte prüfen.</mq:comment>
        </mq:comments>
      </trans-unit>
      <trans-unit id="2" mq:status="ManuallyConfirmed">
        <source xml:space="preserve">Das Dach</source>
        <target xml:space="preserve">The roof</target>
        <mq:nosplitjoins/>
      </trans-unit>
      <trans-unit id="3" mq:status="NotStarted">
        <source>Leer</source>
        <target>Empty</target>
        <mq:comments/>
      </trans-unit>
    </body>
  </file>
</xliff>
"""


def _mq_comments(data: bytes) -> list[tuple[str, dict, str]]:
    root = etree.fromstring(data, _parser())
    return [(c.getparent().getparent().get("id"), dict(c.attrib), c.text) for c in root.iter(f"{{{MQ_NS}}}comment")]


def test_mqxliff_gets_memoq_comments():
    data = MQ_DOC.encode()
    out, rep = annotate_bytes(data, [_ann(doc="x")], now=T0)
    assert rep.written == 1
    m = re.search(rb'<target>Huile</target><mq:comments><mq:comment id="([0-9a-f-]{36})" creatoruser="termqa" '
                  rb'time="2024-05-06T07:08:09Z" deleted="false" category="0" appliesto="Target" origin="User">'
                  rb'error A4: x</mq:comment></mq:comments></trans-unit>', out)
    assert m, out
    # no XLIFF note as well (memoQ would show the verdict twice), nothing prefixed in the XLIFF namespace
    assert b"<note" not in out and b"xlf:" not in out and b"<x:" not in out
    assert _mq_comments(out)[0][1] == {"id": m.group(1).decode(), "creatoruser": "termqa", "time": "2024-05-06T07:08:09Z",
                                       "deleted": "false", "category": "0", "appliesto": "Target", "origin": "User"}
    assert annotate_bytes(out, [])[0] == data
    assert annotate_bytes(out, [_ann(doc="x")], now=T1)[0] == out  # same GUID and first time on a re-run
    assert _errors(out) == set()


def test_mqxliff_comments_appended_to_memoqs_own_and_indented():
    data = MQ_PRETTY.encode()
    anns = [_ann("1", "", (4, 9), text="first", doc="t"), _ann("2", "", (4, 8), text="second", doc="t"),
            _ann("3", "", None, text="third", doc="t", outcome="unjudged")]
    out, rep = annotate_bytes(data, anns, its=True, now=T0)
    text = out.decode()
    assert rep.written == 3
    # appended after the user's comment in the existing <mq:comments>
    assert re.search(r'>Bitte prüfen\.</mq:comment>\n            <mq:comment id="[0-9a-f-]{36}" creatoruser="termqa" '
                     r'[^>]*>first</mq:comment>\n        </mq:comments>', text), text
    # a new block after the unit's last mq: element, indented like the unit's children
    assert re.search(r'<mq:nosplitjoins/>\n        <mq:comments>\n          <mq:comment id="[0-9a-f-]{36}" '
                     r'creatoruser="termqa" [^>]*>second</mq:comment>\n        </mq:comments>\n      </trans-unit>', text), text
    # an empty <mq:comments/> (nothing of memoQ's to sit beside) gets a plain XLIFF note instead
    assert '<target>Empty</target>\n        <note from="termqa" annotates="target" priority="5">third</note>' in text
    assert [(u, a["creatoruser"], t) for u, a, t in _mq_comments(out)] == [
        ("1", "user1", "Bitte prüfen."), ("1", "termqa", "first"), ("2", "termqa", "second")]
    # ITS markup still goes inline, its standoff block before memoQ's own elements
    assert _marked_texts(etree.fromstring(out, _parser())) == ["house", "roof"]
    assert annotate_bytes(out, [])[0] == data
    assert annotate_bytes(out, anns, its=True, now=T1)[0] == out
    assert _foreign(out) == _foreign(data)
    assert _lxml_strip(out) == _canon(data)
    assert _errors(out) == set()


def test_prefixed_xliff_uses_the_unit_prefix():
    doc = MQ_DOC.replace(' xmlns:mq="MQXliff"', "").replace(' mq:status="NotStarted"', "")
    doc = doc.replace('xmlns="urn:', 'xmlns:x="urn:').replace("<xliff ", "<x:xliff ").replace("</xliff>", "</x:xliff>")
    for t in ("file", "body", "trans-unit", "source", "target"):
        doc = doc.replace(f"<{t}", f"<x:{t}").replace(f"</{t}>", f"</x:{t}>")
    out, _ = annotate_bytes(doc.encode(), [_ann(doc="x")], its=True, now=T0)
    assert b'<x:note from="termqa"' in out
    assert b'<x:mrk mtype="x-its"' in out
    assert _errors(out) == set()


def test_idempotent_after_input_changed():
    data = X12_DOC.encode()
    first, _ = annotate_bytes(data, [_ann(text="one"), _ann(text="two")], its=True, now=T0)
    second, rep = annotate_bytes(first, [_ann(text="three")], its=True, now=T0)
    assert rep.removed == 2
    assert second == annotate_bytes(data, [_ann(text="three")], its=True, now=T0)[0]


def test_doc_id_suffix_out_of_range_is_not_found():
    out, rep = annotate_bytes(X2_DOC.encode(), [_ann("u1", doc="p.xlf#3")], now=T0)
    assert rep.units_not_found == 1 and rep.written == 0
    assert out == X2_DOC.encode()


def test_empty_notes_element_is_refused_with_a_fix():
    doc = X2_DOC.replace('<notes><note id="1">a</note><note id="1">b</note><note id="termqa-1">someone else\'s id</note></notes>',
                         "<notes/>")
    with pytest.raises(InputError, match="<notes/> at character .* is empty.*remove the empty element"):
        annotate_bytes(doc.encode(), [_ann("u2", "s1", None, doc="p#1")])


def test_non_xliff_is_refused():
    with pytest.raises(InputError, match="is not XLIFF"):
        annotate_bytes(b"<tmx version='1.4'/>", [])


# --- files on disk ------------------------------------------------------------------------------------


def test_annotate_to_out_leaves_input_untouched(tmp_path: Path):
    src = tmp_path / "p.xlf"
    src.write_bytes(X12_DOC.encode())
    before = src.stat().st_mtime_ns
    rep = annotate(src, [_ann()], out=tmp_path / "sub" / "o.xlf", now=T0)
    assert isinstance(rep, AnnotateReport) and rep.backup is None and rep.written == 1
    assert src.read_bytes() == X12_DOC.encode() and src.stat().st_mtime_ns == before
    assert b'from="termqa"' in (tmp_path / "sub" / "o.xlf").read_bytes()
    with pytest.raises(UsageError):
        annotate(src, [_ann()], out=src)
    with pytest.raises(UsageError):
        annotate(src, [_ann()])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.xlf", "sub"]


def test_in_place_is_atomic_and_keeps_a_backup(tmp_path: Path, monkeypatch):
    src = tmp_path / "p.xlf"
    src.write_bytes(X12_DOC.encode())
    rep = annotate(src, [_ann()], in_place=True, now=T0)
    assert rep.backup == str(src) + ".bak" and rep.out == str(src)
    assert Path(rep.backup).read_bytes() == X12_DOC.encode()
    annotated = src.read_bytes()
    assert b'from="termqa"' in annotated
    # a failure at the final rename leaves the file as it was and no temporary file behind
    def boom(a, b):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        annotate(src, [_ann(text="other")], in_place=True, backup=False, now=T0)
    assert src.read_bytes() == annotated
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.xlf", "p.xlf.bak"]


# --- from the result object -------------------------------------------------------------------------

R_MISSING = "no rendering found in the target (omitted, paraphrased or translated otherwise)"


def _occ(**kw):
    base = {"doc_id": "d.xlf", "unit_id": "u7", "segment_id": "", "concept_id": "c1", "source_text": "oil filter",
            "target_text": "oil filter", "target_span": [14, 24],
            "reference": {"text": "filtre \u00e0 huile", "provenance": "glossary"}, "outcome": "error", "label": "A4",
            "penalty": 4.0, "reason": "left untranslated; the glossary gives 'filtre \u00e0 huile'", "rule": "untranslated",
            "judge": "rule"}
    base.update(kw)
    return base


CONCEPT = {"id": "c1", "dnt": False, "terms": [
    {"text": "oil filter", "lang": "en", "status": "preferred"},
    {"text": "filtre \u00e0 huile", "lang": "fr", "status": "preferred"},
    {"text": "cartouche filtrante", "lang": "fr", "status": "admitted"},
    {"text": "filtre d'huile", "lang": "fr", "status": "superseded"},
    {"text": "h\u00e9lice", "lang": "fr", "status": "deprecated"}]}
PSEUDO = {"text": "filtre \u00e0 huile", "provenance": "pseudo"}

# (occurrence fields, the note) for every kind of note termqa writes: the first words say whether it is
# an error (decided), a warning (a divergence the judge found unjustified), a question (termqa could not
# decide: what to check first) or information (a divergence that is fine)
NOTE_CASES = [
    ({}, 'termqa error: "oil filter" is left in English: use "filtre \u00e0 huile" (glossary).'),
    ({"target_text": "h\u00e9lice", "label": "A1", "rule": "forbidden_term", "penalty": 1.0},
     'termqa error: "h\u00e9lice" is a deprecated term in the glossary: use "filtre \u00e0 huile".'),
    ({"target_text": "filtre d'huile", "label": "A1", "rule": "forbidden_term", "penalty": 1.0},
     'termqa error: "filtre d\'huile" is a superseded term in the glossary: use "filtre \u00e0 huile".'),
    ({"source_text": "ACME-Flow", "target_text": "ACME Flow", "reference": {"text": "ACME-Flow", "provenance": "glossary"},
      "label": "A5", "rule": "dnt_altered"}, 'termqa error: keep "ACME-Flow" as it is (do not translate); found "ACME Flow".'),
    ({"source_text": "ACME-Flow", "target_text": None, "target_span": None, "label": "A5", "rule": "dnt_missing",
      "reference": {"text": "ACME-Flow", "provenance": "glossary"}},
     'termqa error: keep "ACME-Flow" as it is (do not translate): it is not found in the target.'),
    ({"target_text": "filtre a huile", "label": "F", "rule": "spelling", "penalty": 1.0},
     'termqa error: write "filtre \u00e0 huile" as in the glossary, not "filtre a huile" (spelling).'),
    # the admitted term that was misspelt is named, not the preferred one
    ({"target_text": "Cartouche Filtrante", "label": "F", "rule": "spelling", "penalty": 1.0},
     'termqa error: write "cartouche filtrante" as in the glossary, not "Cartouche Filtrante" (spelling).'),
    ({"target_text": "filtre \u00e0 eau", "label": "A1", "rule": None, "judge": "m", "penalty": 1.0},
     'termqa error: "filtre \u00e0 eau" for "oil filter": a real term, but for a neighbouring concept. '
     'Use "filtre \u00e0 huile" (glossary).'),
    ({"target_text": "filtre", "outcome": "unjustified", "label": "gratuitous_divergence", "penalty": 0.5,
      "rule": None, "reference": PSEUDO},
     'termqa warning: "filtre" for "oil filter" differs from "filtre \u00e0 huile" used elsewhere in this document '
     "without a reason in context."),
    ({"target_text": "filtre", "outcome": "unjustified", "label": "neutralisation", "penalty": 0.5, "rule": None},
     'termqa warning: "filtre" for "oil filter" differs from the glossary term "filtre \u00e0 huile": a distinction '
     "the source makes is lost in the target."),
    ({"target_text": "filtre", "outcome": "justified", "label": "avoid_repetition", "penalty": 0.0, "rule": None,
      "reference": PSEUDO},
     'termqa info: "filtre" for "oil filter" differs from "filtre \u00e0 huile" used elsewhere in this document, '
     "which is fine here: a variant avoids repeating the same word too closely."),
    ({"target_text": None, "target_span": None, "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": R_MISSING},
     'termqa question: check that "oil filter" is translated: no rendering found (glossary: "filtre \u00e0 huile").'),
    ({"target_text": None, "target_span": None, "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": R_MISSING, "reference": PSEUDO},
     'termqa question: check that "oil filter" is translated: no rendering found (elsewhere in this document: '
     '"filtre \u00e0 huile").'),
    ({"target_text": None, "target_span": None, "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reference": None, "reason": "no reference: the glossary has no target term and no rendering was found"},
     'termqa question: check that "oil filter" is translated: no rendering found (the glossary gives no target '
     'term).'),
    ({"target_text": None, "target_span": None, "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "the target segment does not look like a translation of this source (misaligned?)"},
     'termqa question: check the segment: no rendering of "oil filter" found, and the target does not look like a '
     'translation of the source (glossary: "filtre \u00e0 huile").'),
    ({"target_text": "filtre", "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "rendering diverges from the glossary term"},
     'termqa question: check whether "filtre" is right for "oil filter" here: it differs from the glossary term '
     '"filtre \u00e0 huile".'),
    ({"target_text": "filtre a huile", "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "spelling differs from the document's majority rendering", "reference": PSEUDO},
     'termqa question: check the spelling of "filtre a huile": it is written differently from "filtre \u00e0 huile" '
     "used elsewhere in this document."),
    ({"source_text": "OF", "target_text": "OF", "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "abbreviation kept as in the source; the glossary gives only a full form"},
     'termqa question: check whether the abbreviation "OF", kept as in the English source, is acceptable here: the '
     'glossary gives "filtre \u00e0 huile".'),
    ({"outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "left in the source language inside a longer expression kept as it is (a name or title?)"},
     'termqa question: check whether "oil filter" is part of a name or title: it is left in English inside a '
     'longer expression kept as it is (otherwise use "filtre \u00e0 huile").'),
    ({"target_text": "filtre", "outcome": "unjudged", "label": None, "penalty": None, "rule": None, "reference": None,
      "reason": "single occurrence with no glossary reference"},
     'termqa question: check whether "filtre" is the right term for "oil filter": there is no glossary term or '
     "other rendering to compare with."),
    ({"target_text": "filtre", "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "not judged: the judge failed (timeout)"},
     'termqa question: check whether "filtre" is right for "oil filter" here: it differs from the glossary term '
     '"filtre \u00e0 huile".'),
    # kept as in the source although the glossary gives a translation
    ({"target_text": "oil filter", "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "kept as in the source; it is also a word of the target language"},
     'termqa question: check whether "oil filter", kept as in the English source, is right here (glossary: '
     '"filtre \u00e0 huile").'),
    # a form of the glossary term: likely fine, the question says so
    ({"target_text": "filtres \u00e0 huile", "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "an inflected form of the glossary term (same stem; likely fine, check that the form fits)"},
     'termqa question: check that the form "filtres \u00e0 huile" fits here: it is an inflected form of the '
     'glossary term "filtre \u00e0 huile".'),
    ({"target_text": "filtrant", "outcome": "unjudged", "label": None, "penalty": None, "rule": None,
      "reason": "a word derived from the glossary term (an adjective from the noun, ...; likely fine, check it)"},
     'termqa question: check that "filtrant" fits here: it is a word derived from the glossary term '
     '"filtre \u00e0 huile".'),
]


@pytest.mark.parametrize("fields,note", NOTE_CASES, ids=[f"{i}-{c.get('rule') or c.get('outcome') or 'A4'}"
                                                         for i, (c, _) in enumerate(NOTE_CASES)])
def test_note_text_in_the_translators_terms(fields, note):
    assert note_text(_occ(**fields), source_lang="en-US", target_lang="fr-FR", concept=CONCEPT) == note


def test_note_text_without_language_or_concept_says_less_not_wrong():
    assert note_text(_occ()) == (
        'termqa error: "oil filter" is left in the source language: use "filtre \u00e0 huile" (glossary).')
    assert note_text(_occ(), source_lang="x-klingon") == note_text(_occ())
    # an old result without `rule`: the label decides
    assert note_text(_occ(rule=None, judge="m"), source_lang="de") == (
        'termqa error: "oil filter" is left in German: use "filtre \u00e0 huile" (glossary).')
    # the status is not known without the concept: a forbidden term is "deprecated"
    assert note_text(_occ(target_text="garniture", label="A1", rule="forbidden_term")) == (
        'termqa error: "garniture" is a deprecated term in the glossary: use "filtre \u00e0 huile".')
    # no label to describe: the outcome's meaning
    assert note_text(_occ(target_text="filtre", label=None, rule=None)) == (
        'termqa error: "filtre" for "oil filter": a wrong or defective rendering of the term. '
        'Use "filtre \u00e0 huile" (glossary).')
    assert note_text(_occ(target_text="filtre", outcome="justified", label=None, rule=None, reference=None)) == (
        'termqa info: "filtre" for "oil filter" differs from the other renderings, which is fine here.')
    # line breaks in file text never break the note's line
    assert note_text(_occ(source_text="oil\nfilter", target_text="oil\r\nfilter")) == (
        'termqa error: "oil filter" is left in the source language: use "filtre \u00e0 huile" (glossary).')


def _result(occs, run="5feb4bf45538"):
    return {"signature": {"id": run}, "documents": [{"doc_id": "d.xlf", "src_lang": "en", "tgt_lang": "fr"}],
            "concepts": [CONCEPT], "occurrences": occs}


def test_annotations_from_result_levels():
    result = _result([_occ(), _occ(outcome="unjustified", label="gratuitous_divergence", penalty=0.5, rule=None),
                      _occ(outcome="unjudged", label=None, penalty=None, target_span=None, target_text=None, rule=None,
                           reason=R_MISSING),
                      _occ(outcome="justified", label="first_mention", penalty=0.0, rule=None),
                      _occ(outcome="conforming", label=None, penalty=0.0, rule="glossary")])
    assert [a.outcome for a in annotations_from_result(result, level="errors")] == ["error"]
    flagged = annotations_from_result(result)
    assert [(a.outcome, a.its_type, a.severity) for a in flagged] == [
        ("error", "untranslated", 100.0), ("unjustified", "terminology", 30.0), ("unjudged", "uncategorized", 20.0)]
    assert flagged[0].target_span == (14, 24) and flagged[2].target_span is None
    assert flagged[0].text == 'termqa error: "oil filter" is left in English: use "filtre \u00e0 huile" (glossary).'
    assert {a.run for a in flagged} == {"5feb4bf45538"} and not any("5feb4bf45538" in a.text for a in flagged)
    assert [a.outcome for a in annotations_from_result(result, level="all")] == [
        "error", "unjustified", "unjudged", "justified"]
    with pytest.raises(UsageError):
        annotations_from_result(result, level="some")


def test_its_types_follow_the_its_definitions():
    def its(**kw):
        return annotations_from_result(_result([_occ(**kw)]), level="all")[0].its_type

    assert its() == "untranslated"
    assert its(label="A1", rule="forbidden_term") == "terminology"
    assert its(label="A5", rule="dnt_altered") == "terminology"
    assert its(label="A5", rule="dnt_missing", target_text=None, target_span=None) == "terminology"
    assert its(label="F", rule="spelling") == "misspelling"
    assert its(label="F", rule=None) == "grammar"
    # ITS "inconsistency" is not for terminology inconsistency, "omission" is for missing text
    for label in ("gratuitous_divergence", "neutralisation", "synonym_inconsistency"):
        assert its(outcome="unjustified", label=label, rule=None) == "terminology"
    assert its(outcome="unjudged", label=None, rule=None, target_text=None, target_span=None) == "uncategorized"
    assert its(outcome="unjudged", label=None, rule=None) == "uncategorized"
    assert its(label="G", rule=None, target_text=None, target_span=None) == "omission"


def test_annotations_from_built_result():
    from tests.fixtures_result import build_result

    result = build_result()
    anns = annotations_from_result(result, level="all")
    want = [o for o in result["occurrences"] if o["outcome"] != "conforming"]
    assert len(anns) == len(want) > 0
    assert all(a.text and 0 <= a.severity <= 100 for a in anns)
    assert {a.doc_id for a in anns} <= {d["doc_id"] for d in result["documents"]}
    for a, o in zip(anns, want):
        _assert_plain_note(a.text, o, result)


# --- every note termqa writes ------------------------------------------------------------------------

_PENALTY = re.compile(r"penalt|\b\d+(\.\d+)?\s*(points?|pts)\b|\[termqa", re.I)


def _assert_plain_note(text: str, occ: dict, result: dict) -> None:
    """One line, no penalty, no run id, and the expected term named when there is one."""
    run = (result.get("signature") or {}).get("id")
    assert "\n" not in text and "\r" not in text and text == text.strip(), text
    assert not _PENALTY.search(text), text
    assert not run or run not in text, text
    # the first words say what kind of note it is: an error, a warning, a question, information
    assert text.startswith(NOTE_LEAD[occ["outcome"]] + ": "), text
    ref = " ".join(((occ.get("reference") or {}).get("text") or "").split())
    found = " ".join((occ.get("target_text") or "").split())
    if ref and ref != found:
        if occ.get("rule") == "spelling":  # the glossary term misspelt: the reference or an admitted term
            concept = next((c for c in result.get("concepts", ()) if c["id"] == occ.get("concept_id")), {"terms": []})
            assert any(f'"{t["text"]}"' in text for t in concept["terms"]) or f'"{ref}"' in text, text
        else:
            assert f'"{ref}"' in text, text


# Every kind of occurrence a result can hold, spread over a file's segments (see _synthetic_result).
KINDS = [
    {"outcome": "error", "label": "A4", "penalty": 4.0, "rule": "untranslated", "judge": "rule"},
    {"outcome": "unjudged", "reason": R_MISSING, "span": False},
    {"outcome": "unjustified", "label": "gratuitous_divergence", "penalty": 0.5, "judge": "m", "ref": "pseudo"},
    {"outcome": "error", "label": "A1", "penalty": 1.0, "rule": "forbidden_term", "judge": "rule"},
    {"outcome": "justified", "label": "first_mention", "penalty": 0.0, "judge": "m"},
    {"outcome": "error", "label": "F", "penalty": 1.0, "rule": "spelling", "judge": "rule"},
    {"outcome": "error", "label": "A5", "penalty": 4.0, "rule": "dnt_altered", "judge": "rule"},
    {"outcome": "unjustified", "label": "neutralisation", "penalty": 0.5, "judge": "m"},
    {"outcome": "error", "label": "A7", "penalty": 3.0, "judge": "m"},
    {"outcome": "unjudged", "reason": "rendering diverges from the glossary term"},
    {"outcome": "error", "label": "A5", "penalty": 4.0, "rule": "dnt_missing", "judge": "rule", "span": False},
    {"outcome": "unjudged", "reason": "single occurrence with no glossary reference", "ref": None},
    {"outcome": "unjudged", "reason": "not judged: the judge failed (HTTP 500)", "ref": "generated"},
]


def _synthetic_result(path: Path, bf) -> dict:
    """A result object on a real file's segments: each kind of occurrence in turn, on the target's last
    word; references with line breaks and markup, as file text can have. The first two kinds (an error
    and a term with no rendering) come twice in their segment, as a term repeated in a sentence does: the
    same problem twice in a unit (the second time on an earlier writing of the same word, when the
    target has one)."""
    occ = []
    for d in bf.documents:
        for s in d.segments:
            if len(occ) >= 26:
                break
            words = list(re.finditer(r"\w{3,}", s.target or ""))
            src = list(re.finditer(r"\w{3,}", s.source))
            k = KINDS[len(occ) % len(KINDS)]
            w = words[-1] if words and k.get("span", True) else None
            sw = src[0] if src else None
            prov = k.get("ref", "glossary")
            occ.append({
                "doc_id": d.doc_id, "unit_id": s.unit_id, "segment_id": s.seg_id, "segment_index": s.index,
                "concept_id": "c1", "source_form": sw.group(0) if sw else "term",
                "source_text": sw.group(0) if sw else "term", "source_span": [sw.start(), sw.end()] if sw else [0, 0],
                "target_text": w.group(0) if w else None, "target_span": [w.start(), w.end()] if w else None,
                "reference": {"text": f"r\u00e9f\u00e9rence\n<{len(occ)}> & \"co\"", "provenance": prov} if prov else None,
                "outcome": k["outcome"], "label": k.get("label"), "penalty": k.get("penalty"),
                "reason": k.get("reason", "the judge's reason,\nover two lines"), "judge": k.get("judge"),
                "rule": k.get("rule")})
            if k in KINDS[:2]:
                again = dict(occ[-1])
                same = [m for m in words[:-1] if w is not None and m.group(0) == w.group(0)]
                if same:
                    again["target_span"] = [same[0].start(), same[0].end()]
                occ.append(again)
    return {"signature": {"id": "0123456789ab"}, "concepts": [CONCEPT], "occurrences": occ,
            "documents": [{"doc_id": d.doc_id, "src_lang": d.src_lang, "tgt_lang": d.tgt_lang} for d in bf.documents]}


def _written_notes(data: bytes) -> tuple[list, list]:
    """(text, attributes) of every note and comment termqa wrote; the texts of its ITS issue comments."""
    root = etree.fromstring(data, _parser())
    notes, issues = [], []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        name = etree.QName(el).localname
        if name in ("note", "comment") and _is_ours(el):
            notes.append((el.text or "", dict(el.attrib)))
        elif name == "cmt-def" and _is_ours(el):
            notes += [(c.text or "", dict(c.attrib)) for c in el.iter(f"{{{SDL_NS}}}Comment")]
        elif name == "locQualityIssues" and _is_ours(el):
            issues += [i.get("locQualityIssueComment") for i in el]
        elif name == "mrk" and (el.get("id") or "").startswith("termqa-"):
            issues.append(el.get(f"{{{ITS_NS}}}locQualityIssueComment"))
    return notes, issues


@lru_cache(maxsize=None)
def _sample_result() -> dict:
    """A real `termqa check` of the sample project (counting mode)."""
    return check([str(SAMPLES / "pump-manual.xlf"), str(SAMPLES / "pump-service.xlf")],
                 [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup")).to_dict()


NOTE_FILES = VALID + sorted(SAMPLES.glob("*.xlf"))


@pytest.mark.parametrize("path", NOTE_FILES, ids=lambda p: p.name)
def test_every_written_note_is_one_plain_line(path: Path):
    data = path.read_bytes()
    if path.parent == SAMPLES:
        result = _sample_result()
    else:
        try:
            bf = read_bilingual(str(path))
        except InputError:
            bf = read_bilingual(str(path), tgt_lang="fr")
        result = _synthetic_result(path, bf)
    run = result["signature"]["id"]
    by_text = {}
    for level in ("errors", "flagged", "all"):  # a note's text does not depend on the level
        anns = annotations_from_result(result, level=level)
        occs = [o for o in result["occurrences"] if o["outcome"] in OUTCOMES_BY_LEVEL[level]]
        # every occurrence is one place of one note, and a unit has one note per problem
        places = [(a.doc_id, a.unit_id, p.seg_id, p.target_span) for a in anns for p in a.places()]
        assert sorted(places, key=repr) == sorted(((o["doc_id"], str(o["unit_id"]), o["segment_id"] or "",
                                                  tuple(o["target_span"]) if o["target_span"] else None)
                                                 for o in occs), key=repr)
        notes = [(a.doc_id, a.unit_id, a.problem, a.outcome) for a in anns]
        assert len(notes) == len(set(notes))
        pid = dict(zip(map(id, result["occurrences"]), occurrence_problems(result)))
        for a in anns:
            first = next(o for o in occs if (o["doc_id"], str(o["unit_id"]), o["segment_id"] or "") ==
                         (a.doc_id, a.unit_id, a.seg_id) and o["outcome"] == a.outcome and pid[id(o)] == a.problem
                         and (tuple(o["target_span"]) if o["target_span"] else None) == a.target_span)
            _assert_plain_note(a.text, first, result)
            by_text[a.text] = a
    if path.parent != SAMPLES:  # the repeated problems are there: "x2 in this unit", written once
        assert any(len(a.also) == 1 and "\u00d72 in this unit." in a.text for a in anns)
    sdl = SDL_NS in etree.fromstring(data, _parser()).nsmap.values()
    for its in (False,) if sdl else (False, True):  # (no ITS in SDLXLIFF) the widest level writes every note
        out, rep = annotate_bytes(data, anns, its=its, path=str(path), now=T0)
        notes, issues = _written_notes(out)
        assert len(notes) == rep.written
        assert bool(issues) == (its and rep.written > 0)
        assert repeated_notes(out) == []
        for text, attrs in notes + [(t, {}) for t in issues]:
            sentence = re.sub(r"^(termqa \w+) \(segments? [^)]+\):", r"\1:", text)
            assert sentence in by_text, text
            assert "\n" not in text and not _PENALTY.search(text) and run not in text, text
            if attrs.get("category") == "termqa":  # XLIFF 2: the machine part in termqa's attributes
                a = by_text[sentence]
                assert attrs["{urn:x-termqa:note}run"] == run
                assert attrs["{urn:x-termqa:note}outcome"] == a.outcome
                assert ("{urn:x-termqa:note}penalty" in attrs) == (a.penalty is not None)
                assert attrs["{urn:x-termqa:note}problem"] == a.problem
        # valid where the input was, idempotent, and removable to the exact input
        before, after = _errors(data), _errors(out)
        if before is not None:
            assert after <= before, after - before
        assert annotate_bytes(out, anns, its=its, path=str(path), now=T1)[0] == out
        assert annotate_bytes(out, [], path=str(path))[0] == data


# --- notes written by earlier versions ---------------------------------------------------------------

OLD_12 = ('<note from="termqa" annotates="target" priority="1">error A4 (left untranslated), penalty 4: '
          '"filter" -&gt; "filter"; expected "filtre". left untranslated [termqa run 5feb4bf45538]</note>')
OLD_2 = ('<note category="termqa" appliesTo="target" priority="1" id="termqa-1">error A4 (left untranslated), '
         'penalty 4: "x" -&gt; "y". [termqa run 5feb4bf45538]</note>')


def test_notes_in_the_old_wording_are_replaced():
    old = X12_DOC.replace('<note from="translator">keep this note</note>',
                          f'<note from="translator">keep this note</note>\n        {OLD_12}')
    new = _ann(text='"filter" is left in English: use "filtre" (glossary).')
    out, rep = annotate_bytes(old.encode(), [new], now=T0)
    assert rep.removed == 1 and b"[termqa run" not in out and b"penalty" not in out
    assert out == annotate_bytes(X12_DOC.encode(), [new], now=T0)[0]
    assert annotate_bytes(old.encode(), [])[0] == X12_DOC.encode()

    old2 = X2_DOC.replace("\n   <originalData>", f"\n   <notes>{OLD_2}</notes>\n   <originalData>", 1)
    stripped, rep = annotate_bytes(old2.encode(), [])
    assert rep.removed == 1 and stripped == X2_DOC.encode()
    out, _ = annotate_bytes(old2.encode(), [_ann("u1", "s1", (3, 9), doc="p.xlf#1", text="new")], now=T0)
    assert b"[termqa run" not in out and out == annotate_bytes(
        X2_DOC.encode(), [_ann("u1", "s1", (3, 9), doc="p.xlf#1", text="new")], now=T0)[0]


# --- one note per problem per unit (#34) -------------------------------------------------------------

def _twice(doc="f.xlf", unit="1", segs=("", ""), spans=((13, 27), (33, 38)), targets=("filtre \u00e0 huile", "joint"),
           text="termqa error: x."):
    """One note for a problem that occurs twice in the unit: the second occurrence is a Place."""
    first = dataclasses.replace(_ann(unit, segs[0], spans[0], text=text, doc=doc, target=targets[0]), problem="P-1")
    return dataclasses.replace(first, also=(Place(segs[1], spans[1], targets[1]),))


def test_twice_in_a_unit_is_one_note_and_its_markers_share_one_issue():
    data = X12_DOC.encode()
    out, rep = annotate_bytes(data, [_twice()], its=True, now=T0)
    text = out.decode()
    assert rep.written == 1 and rep.spans_marked == 2 and rep.unit_level == 0
    assert text.count('<note from="termqa"') == 1
    # both renderings marked, pointing at the one standoff issue of the note
    assert text.count('its:locQualityIssuesRef="#termqa-lqi-1"') == 2 and "termqa-lqi-2" not in text
    assert text.count("<its:locQualityIssue ") == 1
    assert _marked_texts(etree.fromstring(out)) == ["filtre \u00e0 huile", "joint"]
    assert _errors(out) == set() and repeated_notes(out) == []
    assert annotate_bytes(out, [])[0] == data
    assert annotate_bytes(out, [_twice()], its=True, now=T1)[0] == out


def test_the_same_line_twice_in_a_unit_is_written_once_whoever_asks():
    """A caller's own list with the same line twice for a unit: one note, every span still marked."""
    anns = [_ann(span=(13, 27), target="filtre \u00e0 huile", text="termqa error: same."),
            _ann(span=(32, 37), target="joint", text="termqa error: same."),
            _ann(span=(0, 9), target="Remplacez", text="termqa question: other.", outcome="unjudged")]
    assert [len(a.also) for a in merged(anns)] == [1, 0]
    out, rep = annotate_bytes(X12_DOC.encode(), anns, its=True, now=T0)
    assert rep.written == 2 and rep.spans_marked == 3
    assert repeated_notes(out) == [] and _errors(out) == set()
    # what the check finds in a file written before: the same note twice in one unit
    note = '<note from="termqa" annotates="target" priority="5">termqa error: same.</note>'
    twice = X12_DOC.replace("<sdl:seg-defs>", f"{note}\n        {note}\n        <sdl:seg-defs>").encode()
    assert repeated_notes(twice) == ["unit 1: 'termqa error: same.' x2"]


def test_a_problem_in_two_segments_of_a_unit_names_both():
    data = X2_DOC.encode()
    a = dataclasses.replace(_twice("p.xlf#1", "u2", ("s1", "s2"), ((0, 4), (0, 5)), ("Deux", "Trois")),
                            run="5feb4bf45538")
    out, rep = annotate_bytes(data, [a], its=True, now=T0)
    text = out.decode()
    assert rep.written == 1 and rep.spans_marked == 2
    assert ('priority="1" id="termqa-2" xmlns:termqa="urn:x-termqa:note" termqa:outcome="error" termqa:label="A4" '
            'termqa:penalty="4" termqa:run="5feb4bf45538" termqa:problem="P-1">termqa error (segments s1, s2): x.'
            '</note></notes>') in text
    assert _marked_texts(etree.fromstring(out)) == ["Deux", "Trois"]
    assert _errors(out) == set() and repeated_notes(out) == []
    assert annotate_bytes(out, [])[0] == data
    # one segment: named after the lead
    one = dataclasses.replace(a, also=(Place("s2", (0, 5), "Trois"),), seg_id="s2", target_span=(0, 5),
                              target_text="Trois")
    assert b">termqa error (segment s2): x.</note>" in annotate_bytes(data, [one], now=T0)[0]


def test_trados_and_memoq_get_one_comment_per_note():
    sdl = SDL_DOC.replace("Filtre <mrk", "Filtre filtre <mrk").encode("utf-8")
    a = _twice("a.sdlxliff", "tu1", ("1", "1"), ((0, 6), (7, 13)), ("Filtre", "filtre"))
    out, rep = annotate_bytes(sdl, [a], now=T0)
    assert rep.written == 1 and [c[3] for c in _sdl_comments(out) if c[2]["user"] == "termqa"] == ["termqa error: x."]
    assert re.search(rb'<mrk mtype="x-sdl-comment" sdl:cid="[0-9a-f-]{36}">Filtre</mrk> filtre', out)
    assert repeated_notes(out) == [] and annotate_bytes(out, [])[0] == sdl
    mq = MQ_DOC.replace("<target>Huile</target>", "<target>Huile, huile</target>").encode()
    out, rep = annotate_bytes(mq, [_twice("x", "1", ("", ""), ((0, 5), (7, 12)), ("Huile", "huile"))], now=T0)
    assert rep.written == 1 and [t for _u, at, t in _mq_comments(out)] == ["termqa error: x."]
    assert repeated_notes(out) == [] and annotate_bytes(out, [])[0] == mq


def test_re_annotating_replaces_the_repeated_notes_of_an_earlier_version():
    old = ('<note from="termqa" annotates="target" priority="5">"EPI" for "PPE" differs from the glossary term '
           '"\u00e9quipement de protection individuelle": check it is acceptable here. Same problem in units 16, 31 '
           '(4 in all).</note>')
    before = X12_DOC.replace("<sdl:seg-defs>", f"{old}\n        {old}\n        <sdl:seg-defs>").encode()
    assert len(repeated_notes(before)) == 1
    out, rep = annotate_bytes(before, [_twice()], now=T0)
    assert rep.removed == 2 and rep.written == 1 and repeated_notes(out) == []
    assert out == annotate_bytes(X12_DOC.encode(), [_twice()], now=T0)[0]
