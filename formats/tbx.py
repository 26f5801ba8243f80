"""TBX glossaries: TBX 2008 (`martif`, termEntry/langSet/tig|ntig) and TBX v3 (`tbx`, ISO 30042:2019,
conceptEntry/langSec/termSec), in DCA style (`<termNote type="administrativeStatus">`) and DCT style
(`<min:administrativeStatus>`, `<basic:termType>`: the element name is the data category).

Every term of every language section is read (synonyms are separate tig/ntig/termSec), with its
status, term type and the entry's definition, subject field and do-not-translate marker. Spellings
are mapped to termqa's vocabulary by formats/status.py.

Besides reading, a few cheap structural checks catch what the TBX schemas would reject and what
matters to us (a termSec without a term, a language section without a language, values outside a
dialect's picklist, data categories at a level the dialect forbids). They go to
`Glossary.problems`; reading continues past them.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Optional

from termqa.langtags import normalise_tag
from termqa.model import Concept, Glossary, Term

from . import status as st
from .xmlsafe import XML_LANG, local, ns

_V3_NS_PREFIX = "urn:iso:std:iso:30042"

_ENTRIES = ("termEntry", "conceptEntry")
_LANGS = ("langSet", "langSec")
_HOLDERS = ("tig", "ntig", "termSec")
# Meta data-category elements: their `type` attribute names the data category and is required.
_TYPED = ("admin", "descrip", "termNote", "transac", "transacNote", "ref", "xref")
# Where the element's value is the data category's value (DCA style).
_VALUE_ELEMENTS = ("admin", "descrip", "termNote")
# Group elements and the one element each must start with (and contain exactly once).
_GROUPS = {"descripGrp": "descrip", "adminGrp": "admin", "termNoteGrp": "termNote", "transacGrp": "transac"}
# Header elements whose text must sit in <p> (or <title>) children, never directly inside them.
_HEADER_CONTAINERS = ("fileDesc", "titleStmt", "publicationStmt", "sourceDesc", "encodingDesc", "revisionDesc")

# Picklists of the TBX-Basic and TBX-Min dialects (TBX-Min uses the same values for the two
# categories it has). properNoun is in TBX-Basic since its 2008 edition.
_PICKLISTS = {
    "administrativeStatus": (
        "preferredTerm-admn-sts",
        "admittedTerm-admn-sts",
        "deprecatedTerm-admn-sts",
        "supersededTerm-admn-sts",
    ),
    "partOfSpeech": ("noun", "verb", "adjective", "adverb", "properNoun", "other"),
    "termType": ("fullForm", "acronym", "abbreviation", "shortForm", "variant", "phrase"),
    "grammaticalGender": ("masculine", "feminine", "neuter", "other"),
}
_PICKLIST_DIALECTS = ("tbx-basic", "tbx-min")

# How many instances of one kind of problem are listed before the rest are only counted.
_MAX_LISTED = 5


def _text(el) -> str:
    """The element's whole text (inline <hi> etc. included), whitespace collapsed."""
    return " ".join("".join(el.itertext()).split())


def _is_core(el) -> bool:
    uri = ns(el.tag)
    return uri == "" or uri.startswith(_V3_NS_PREFIX)


def _children(el) -> list:
    """Element children only (comments and processing instructions skipped)."""
    return [c for c in el if isinstance(c.tag, str)]


def _datcat(el) -> Optional[tuple[str, str]]:
    """(data category, value) for a DCA `<termNote type=...>` or a DCT `<min:termType>`, else None."""
    if not isinstance(el.tag, str):
        return None
    name = local(el.tag)
    if _is_core(el):
        if name in _VALUE_ELEMENTS:
            return (el.get("type") or "", _text(el))
        return None
    return (name, _text(el))


def _placeholder(text: str) -> bool:
    """Exports often write `-` or `n/a` where a field is empty."""
    return not re.search(r"\w", text) or text.strip().lower() in ("n/a", "na", "none", "tbd")


class _Problems:
    """Collects problems, listing a few of each kind and counting the rest."""

    def __init__(self) -> None:
        self.listed: list[str] = []
        self.counts: Counter = Counter()

    def add(self, kind: str, el, message: str) -> None:
        self.counts[kind] += 1
        if self.counts[kind] <= _MAX_LISTED:
            line = getattr(el, "sourceline", None)
            self.listed.append(f"line {line}: {message}" if line else message)

    def result(self) -> tuple[str, ...]:
        extra = [
            f"... and {n - _MAX_LISTED} more of the same kind as above ({kind})"
            for kind, n in self.counts.items()
            if n > _MAX_LISTED
        ]
        return tuple(self.listed + extra)


# --- structure checks ----------------------------------------------------------------------------


def _check_document(root, probs: _Problems, style: str) -> None:
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        name = local(el.tag)
        if not _is_core(el):
            if style == "dca":
                probs.add("dct-in-dca", el, f"DCT-style element <{name}> in a file declared style=\"dca\"")
            continue
        if name in _TYPED and not (el.get("type") or "").strip():
            probs.add("no-type", el, f"<{name}> has no type attribute (the data category is required)")
        elif name in _GROUPS:
            kids = _children(el)
            first = _GROUPS[name]
            if not kids or local(kids[0].tag) != first:
                probs.add("group-order", el, f"<{name}> must start with <{first}>")
            n = sum(1 for k in kids if local(k.tag) == first)
            if n > 1:
                probs.add("group-count", el, f"<{name}> holds {n} <{first}> elements; only one is allowed")
        elif name in _HEADER_CONTAINERS and (el.text or "").strip():
            probs.add("header-text", el, f"text directly inside <{name}> must be wrapped in <p>")
        elif name == "text":
            for c in _children(el):
                if local(c.tag) not in ("body", "back"):
                    probs.add("text-child", c, f"<{local(c.tag)}> is not allowed directly inside <text>")
        elif name == "body":
            for c in _children(el):
                if local(c.tag) not in _ENTRIES:
                    probs.add("body-child", c, f"<{local(c.tag)}> is not allowed directly inside <body>")


def _level(el) -> tuple[str, bool]:
    """('entry'|'lang'|'term'|'other', inside a *Grp) for a data-category element."""
    grouped = False
    p = el.getparent()
    while p is not None:
        name = local(p.tag)
        if name.endswith("Grp") and name != "termGrp":
            grouped = True
        elif name in _ENTRIES:
            return "entry", grouped
        elif name in _LANGS:
            return "lang", grouped
        elif name in _HOLDERS or name == "termGrp":
            return "term", grouped
        p = p.getparent()
    return "other", grouped


def _check_dialect(root, probs: _Problems, dialect_type: str) -> None:
    """TBX-Basic / TBX-Min rules: picklist values and the level each data category lives at."""
    basic = dialect_type.lower() == "tbx-basic"
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        name = local(el.tag)
        dc = _datcat(el)
        if dc is not None:
            cat, value = dc
            allowed = _PICKLISTS.get(cat)
            if allowed and value not in allowed:
                probs.add(
                    f"picklist-{cat}",
                    el,
                    f"{cat} value {value!r} is not in the {dialect_type} picklist ({', '.join(allowed)})",
                )
            level, grouped = _level(el)
            is_term_note = name == "termNote" or cat in _PICKLISTS
            if is_term_note and level != "term":
                probs.add("level-termnote", el, f"{cat} is a term-level data category but stands at {level} level")
            elif cat == "definition" and level == "term":
                probs.add("level-definition", el, "definition may only appear at concept or language level")
            elif cat == "subjectField" and level != "entry":
                probs.add("level-subject", el, f"subjectField may only appear at concept level, not {level} level")
            elif cat == "context" and level != "term":
                probs.add("level-context", el, f"context may only appear at term level, not {level} level")
            elif basic and cat == "source" and level == "entry" and not grouped:
                probs.add("level-source", el, "source at concept level must sit in a descripGrp with what it documents")
        # TBX-Basic has one data category for each of these two elements.
        required = {"transac": "transactionType", "transacNote": "responsibility"}.get(name)
        if basic and required and _is_core(el) and el.get("type") and el.get("type") != required:
            probs.add(
                f"{name}-type", el, f"<{name} type={el.get('type')!r}>: TBX-Basic allows only {required}"
            )


# --- reading -------------------------------------------------------------------------------------


def _holder_term(holder, probs: _Problems, entry_id: str):
    """The <term> of a tig/ntig/termSec, checking there is exactly one and that it comes first."""
    name = local(holder.tag)
    box = holder
    if name == "ntig":
        kids = _children(holder)
        grp = [k for k in kids if local(k.tag) == "termGrp"]
        if not grp:
            probs.add("no-term", holder, f"entry {entry_id}: <ntig> without <termGrp>")
            return None
        if local(kids[0].tag) != "termGrp":
            probs.add("term-order", holder, f"entry {entry_id}: <termGrp> must come first in <ntig>")
        box = grp[0]
    kids = _children(box)
    terms = [k for k in kids if local(k.tag) == "term"]
    where = local(box.tag)
    if not terms:
        probs.add("no-term", box, f"entry {entry_id}: <{where}> without <term>")
        return None
    if len(terms) > 1:
        probs.add(
            "many-terms", terms[1], f"entry {entry_id}: <{where}> holds {len(terms)} <term>s; only one is allowed"
        )
    if kids[0] is not terms[0]:
        probs.add("term-order", terms[0], f"entry {entry_id}: <term> must come first in <{where}>")
    return terms[0]


def _read_term(holder, term_el, lang: str, unknown_statuses: Counter) -> tuple[Optional[Term], bool]:
    """(Term or None if its text is empty, whether the term carries a do-not-translate marker)."""
    text = _text(term_el)
    found: dict[str, str] = {}
    dnt = False
    for el in holder.iter():
        if el is term_el:
            continue
        dc = _datcat(el)
        if dc is None:
            continue
        cat, value = dc
        found.setdefault(cat, value)
        if st.dnt_marker(cat, value):
            dnt = True
    if not text:
        return None, dnt
    raw = next((found[c] for c in st.STATUS_CATEGORIES if found.get(c)), None)
    if st.unrecognised_status(raw):
        unknown_statuses[raw] += 1
    term_type = st.normalise_term_type(found.get("termType"))
    if term_type is None and found.get("abbreviatedFormFor"):
        term_type = "abbreviation"  # "this term is the abbreviated form for X"
    return Term(text=text, lang=lang, status=st.normalise_status(raw), raw_status=raw, term_type=term_type), dnt


def _first_value(entry, category: str) -> Optional[str]:
    for el in entry.iter():
        dc = _datcat(el)
        if dc and dc[0] == category and dc[1] and not _placeholder(dc[1]):
            return dc[1]
    return None


def _read_entry(entry, entry_id: str, probs: _Problems, unknown_statuses: Counter, stats: Counter):
    terms: list[Term] = []
    dnt = any(st.dnt_marker(*dc) for dc in map(_datcat, entry.iter()) if dc)
    for sec in _children(entry):
        sec_name = local(sec.tag)
        if sec_name == "term":
            probs.add("stray-term", sec, f"entry {entry_id}: <term> directly inside <{local(entry.tag)}>")
            continue
        if sec_name not in _LANGS:
            continue
        raw_lang = sec.get(XML_LANG) or sec.get("lang")
        if not raw_lang:
            probs.add("no-lang", sec, f"entry {entry_id}: <{sec_name}> without xml:lang")
        lang = normalise_tag(raw_lang)
        for holder in _children(sec):
            hname = local(holder.tag)
            if hname == "term":
                probs.add("stray-term", holder, f"entry {entry_id}: <term> directly inside <{sec_name}>")
                holder_el, term_el = holder, holder
            elif hname in _HOLDERS:
                holder_el, term_el = holder, _holder_term(holder, probs, entry_id)
                if term_el is None:
                    continue
            else:
                continue
            term, term_dnt = _read_term(holder_el, term_el, lang, unknown_statuses)
            dnt = dnt or term_dnt
            if term is None:
                stats["empty_terms"] += 1
            else:
                terms.append(term)
    if not terms:
        return None
    notes = [_text(n) for n in _children(entry) if local(n.tag) == "note" and _text(n)]
    return Concept(
        id=entry_id,
        terms=tuple(terms),
        definition=_first_value(entry, "definition"),
        subject=_first_value(entry, "subjectField"),
        dnt=dnt,
        note="\n".join(notes) or None,
    )


def _entries(root) -> Iterable:
    for el in root.iter():
        if isinstance(el.tag, str) and local(el.tag) in _ENTRIES:
            yield el


def read(path: str, root, content_hash: str) -> Glossary:
    """Read a parsed TBX document (root `martif` or `tbx`) into a Glossary."""
    version = "tbx-v3" if local(root.tag) == "tbx" else "tbx-2008"
    dialect_type = (root.get("type") or "").strip()
    style = (root.get("style") or "").strip().lower()
    dialect = " ".join(x for x in (dialect_type, style.upper()) if x) or None

    probs = _Problems()
    _check_document(root, probs, style)
    if dialect_type.lower() in _PICKLIST_DIALECTS:
        _check_dialect(root, probs, dialect_type)

    concepts: list[Concept] = []
    seen_ids: Counter = Counter()
    unknown_statuses: Counter = Counter()
    stats: Counter = Counter()
    for n, entry in enumerate(_entries(root), start=1):
        raw_id = (entry.get("id") or "").strip()
        if not raw_id and version == "tbx-v3":
            probs.add("no-id", entry, "<conceptEntry> without the required id attribute")
        entry_id = raw_id or f"c{n}"
        seen_ids[entry_id] += 1
        if seen_ids[entry_id] > 1:
            probs.add("dup-id", entry, f"entry id {entry_id!r} is used more than once")
            entry_id = f"{entry_id}#{seen_ids[entry_id]}"
        concept = _read_entry(entry, entry_id, probs, unknown_statuses, stats)
        if concept is None:
            stats["empty_entries"] += 1
        else:
            concepts.append(concept)

    warnings: list[str] = []
    if unknown_statuses:
        listed = ", ".join(f"{v!r} ({c})" for v, c in unknown_statuses.most_common(8))
        warnings.append(f"status values not recognised, read as unknown: {listed}")
    if stats["empty_entries"]:
        warnings.append(f"{stats['empty_entries']} entries have no term and were skipped")
    if stats["empty_terms"]:
        warnings.append(f"{stats['empty_terms']} empty <term> elements were skipped")

    languages: list[str] = []
    for c in concepts:
        for t in c.terms:
            if t.lang and t.lang not in languages:
                languages.append(t.lang)
    return Glossary(
        path=path,
        format=version,
        concepts=tuple(concepts),
        content_hash=content_hash,
        languages=tuple(languages),
        dialect=dialect,
        warnings=tuple(warnings),
        problems=probs.result(),
    )
