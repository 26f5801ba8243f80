"""TBX glossaries: TBX 2008 (`martif`, termEntry/langSet/tig|ntig) and TBX v3 (`tbx`, ISO 30042:2019,
conceptEntry/langSec/termSec), in DCA style (`<termNote type="administrativeStatus">`) and DCT style
(`<min:administrativeStatus>`, `<basic:termType>`: the element name is the data category).

In DCT style a data category element stands where its DCA meta element would: a `<transacGrp>`
starts with `<basic:transactionType>` where DCA has `<transac type="transactionType">`. Which meta
element each TBX-Basic data category stands for (its class) and which module namespace it lives in
(TBX-Min's `min:` or TBX-Basic's `basic:`) come from the dialect's schemas (LTAC-Global
TBX-Basic_dialect, DCA schematron and the Basic/Min module grammars), so DCA and DCT files are held
to the same rules: group starts, picklists and levels.

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
from typing import Optional

from termqa.lang.langtags import normalise_tag
from termqa.model import Concept, Glossary, Term

from . import status as st
from . import tbxdialect
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

# The meta element each data category of TBX-Basic (and TBX-Min, a subset) stands for: in DCA style it
# is written as that element with type="category"; in DCT style the category is an element of the
# class, e.g. inside a <transacGrp> (which must start with a transac) <basic:transactionType>.
_DATCAT_CLASS = {
    "customerSubset": "admin", "projectSubset": "admin", "source": "admin",
    "subjectField": "descrip", "context": "descrip", "definition": "descrip",
    "crossReference": "ref",
    "administrativeStatus": "termNote", "partOfSpeech": "termNote", "geographicalUsage": "termNote",
    "grammaticalGender": "termNote", "termLocation": "termNote", "termType": "termNote",
    "transactionType": "transac",
    "responsibility": "transacNote",
    "externalCrossReference": "xref", "xGraphic": "xref",
}
# DCT module namespaces and the data categories each defines; a dialect uses the modules listed.
_MIN_NS = "http://www.tbxinfo.net/ns/min"
_BASIC_NS = "http://www.tbxinfo.net/ns/basic"
_MODULES = {
    _MIN_NS: ("TBX-Min", frozenset({"administrativeStatus", "partOfSpeech", "subjectField", "customerSubset"})),
    _BASIC_NS: ("TBX-Basic", frozenset(_DATCAT_CLASS) - {"administrativeStatus", "partOfSpeech", "subjectField",
                                                         "customerSubset"}),
}
_DIALECT_MODULES = {"tbx-basic": (_MIN_NS, _BASIC_NS), "tbx-min": (_MIN_NS,), "tbx-core": ()}

# How many instances of one kind of problem are listed before the rest are only counted.
_MAX_LISTED = 5


# Only status-like values are memoised (a handful of distinct ones per glossary); long free text
# such as definitions is unique per entry and would only grow the caches.
_MEMO_MAX_LEN = 64
_PLACEHOLDERS = frozenset({"n/a", "na", "none", "tbd"})
_WORD = re.compile(r"\w")
# TBX-Basic has one data category for each of these two elements.
_REQUIRED_TYPE = {"transac": "transactionType", "transacNote": "responsibility"}
# What the document check looks at, by local name (any namespace; core-ness is decided per tag).
_CHECKED = frozenset(_TYPED) | frozenset(_GROUPS) | frozenset(_HEADER_CONTAINERS) | {"text", "body"}
# Per-tag codes of _TagInfo.kind.
_NOT_DATCAT, _DCA, _DCT = 0, 1, 2


def _text(el) -> str:
    """The element's whole text (inline <hi> etc. included), whitespace collapsed."""
    if len(el):  # mixed content: walk it (comments and PIs are skipped by itertext)
        return " ".join("".join(el.itertext()).split())
    text = el.text
    return " ".join(text.split()) if text else ""


def _is_core_tag(tag) -> bool:
    uri = ns(tag)
    return uri == "" or uri.startswith(_V3_NS_PREFIX)


def _placeholder(text: str) -> bool:
    """Exports often write `-` or `n/a` where a field is empty."""
    return not _WORD.search(text) or text.strip().lower() in _PLACEHOLDERS


class _TagTable(dict):
    """A dict from tag to one fact about it, filled in on first sight of each tag."""

    def __init__(self, info: "_TagInfo") -> None:
        super().__init__()
        self._info = info

    def __missing__(self, tag):
        self._info.learn(tag)
        return self[tag]


class _TagInfo:
    """What each distinct tag string means, worked out once per tag instead of once per element.

    lxml hands out tags as `{uri}local` strings (a function for comments and PIs); a glossary has a
    few dozen distinct ones, so lookups keyed by the whole tag replace splitting it each time.
    """

    def __init__(self, style: str = "") -> None:
        self.style = style
        self.name = _TagTable(self)  # tag -> local name ('' for comments and PIs)
        self.core = _TagTable(self)  # tag -> in no namespace or a TBX v3 one
        self.kind = _TagTable(self)  # tag -> _NOT_DATCAT / _DCA (typed element) / _DCT (the name is the category)
        # tag -> the meta class it stands for: 'descrip', 'transac'... for a DCA meta element or a known
        # DCT data category, '' for a DCT element of a category we do not know, None otherwise
        self.klass = _TagTable(self)
        self.check = _TagTable(self)  # tag -> what _check_document looks at, or None

    def learn(self, tag) -> None:
        if not isinstance(tag, str):
            self.name[tag], self.core[tag], self.kind[tag], self.check[tag] = "", True, _NOT_DATCAT, None
            self.klass[tag] = None
            return
        name, core = local(tag), _is_core_tag(tag)
        self.name[tag], self.core[tag] = name, core
        self.kind[tag] = (_DCA if name in _VALUE_ELEMENTS else _NOT_DATCAT) if core else _DCT
        self.klass[tag] = (name if name in _TYPED else None) if core else _DATCAT_CLASS.get(name, "")
        if not core:
            self.check[tag] = "dct" if self.style == "dca" else None
        elif name in _TYPED:
            self.check[tag] = "typed"  # (in a DCT file, also: a DCA element where DCT is declared)
        elif name in _CHECKED:
            self.check[tag] = name
        else:
            self.check[tag] = None

    def children(self, el) -> list:
        """Element children only (comments and processing instructions skipped)."""
        return [c for c in el if isinstance(c.tag, str)]

    def datcat(self, el) -> Optional[tuple[str, str]]:
        """(category, value) for a DCA `<termNote type=...>` or a DCT `<min:termType>`, else None."""
        kind = self.kind[el.tag]
        if kind == _DCA:
            return (el.get("type") or "", _text(el))
        if kind == _DCT:
            return (self.name[el.tag], _text(el))
        return None


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


def _check_document(root, probs: _Problems, style: str, tags: _TagInfo) -> None:
    if style == "dca":
        elements = root.iter()  # every DCT-style (namespaced) element is a problem: look at all
    else:
        # Only elements with these local names can fail a check: let libxml2 pick them out.
        elements = root.iter(*(f"{{*}}{n}" for n in sorted(_CHECKED)))
    check, names, klass = tags.check, tags.name, tags.klass
    dct = style == "dct"
    for el in elements:
        what = check[el.tag]
        if what is None:
            continue
        name = names[el.tag]
        if what == "typed":
            if not (el.get("type") or "").strip():
                probs.add("no-type", el, f"<{name}> has no type attribute (the data category is required)")
            elif dct and _in_entry(el, names):
                probs.add("dca-in-dct", el, f"DCA-style element <{name} type={el.get('type')!r}> in a file "
                          "declared style=\"dct\"")
        elif what == "dct":
            probs.add("dct-in-dca", el, f"DCT-style element <{name}> in a file declared style=\"dca\"")
        elif name in _GROUPS:
            kids = tags.children(el)
            first = _GROUPS[name]
            classes = [klass[k.tag] for k in kids]
            # DCA: the meta element itself; DCT: a data category of its class. A DCT element of a
            # category we do not know ('') may be of the right class: it gets the benefit of the doubt.
            if not kids or classes[0] not in (first, ""):
                probs.add("group-order", el, f"<{name}> must start with a {first} data category ({_examples(first)})"
                          if dct else f"<{name}> must start with <{first}>")
            n = classes.count(first)
            if n > 1:
                probs.add("group-count", el, f"<{name}> holds {n} {first} data categories; only one is allowed"
                          if dct else f"<{name}> holds {n} <{first}> elements; only one is allowed")
        elif name in _HEADER_CONTAINERS:
            if (el.text or "").strip():
                probs.add("header-text", el, f"text directly inside <{name}> must be wrapped in <p>")
        elif name == "text":
            for c in tags.children(el):
                if names[c.tag] not in ("body", "back"):
                    probs.add("text-child", c, f"<{names[c.tag]}> is not allowed directly inside <text>")
        elif name == "body":
            for c in tags.children(el):
                if names[c.tag] not in _ENTRIES:
                    probs.add("body-child", c, f"<{names[c.tag]}> is not allowed directly inside <body>")


def _in_entry(el, names) -> bool:
    """Whether `el` sits inside a concept entry (the DCA/DCT rule spares the header and back matter)."""
    p = el.getparent()
    while p is not None:
        if names[p.tag] in _ENTRIES:
            return True
        p = p.getparent()
    return False


def _examples(klass: str) -> str:
    """The DCT elements of one class, as TBX-Basic writes them: 'basic:transactionType'."""
    out = []
    for cat, k in _DATCAT_CLASS.items():
        if k == klass:
            prefix = "min" if cat in _MODULES[_MIN_NS][1] else "basic"
            out.append(f"<{prefix}:{cat}>")
    return ", ".join(out)


def _module_problem(uri: str, name: str, dialect_type: str) -> Optional[str]:
    """What is wrong with a DCT element `{uri}name` in a TBX-Basic / TBX-Min file, or None.

    The dialect's NVDL schema validates each module namespace against that module's grammar and
    rejects any other namespace. A data category the dialects do not define is let through (its DCA
    twin, an unknown type value, is not checked either)."""
    modules = _DIALECT_MODULES[dialect_type.lower()]
    if uri not in modules:
        if uri in _MODULES:
            return (f"<{name}> is in the {_MODULES[uri][0]} module namespace ({uri}), which {dialect_type} "
                    "does not use")
        return f"<{name}> is in namespace {uri or '(none)'}, which is not a {dialect_type} module namespace"
    if name in _MODULES[uri][1] or name not in _DATCAT_CLASS:
        return None
    home = next((m for m in modules if name in _MODULES[m][1]), None)
    if home is None:
        return f"{name} is not part of {dialect_type}"
    return f"<{name}> belongs in the {_MODULES[home][0]} module namespace ({home}), not {uri}"


def _level(el, tags: _TagInfo) -> tuple[str, bool]:
    """('entry'|'lang'|'term'|'other', inside a *Grp) for a data-category element."""
    grouped = False
    p = el.getparent()
    while p is not None:
        name = tags.name[p.tag]
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


def _check_dialect(root, probs: _Problems, dialect_type: str, tags: _TagInfo, style: str = "",
                   v3: bool = False) -> Counter:
    """TBX-Basic / TBX-Min (/ TBX-Core, v3) rules: picklist values and the level each data category lives
    at, in DCA and DCT style alike; in DCT style also the module namespace of each data category element.
    In a v3 file, also the data categories each meta element may name and the v3 picklists
    (formats/tbxdialect.py). Returns the warnings (message -> times) for what LTAC's own valid test files
    write beyond the dialect definitions."""
    key = dialect_type.lower()
    basic = key == "tbx-basic"
    warned: Counter = Counter()
    module_problems: dict = {}  # tag -> message or None, worked out once per tag
    for el in root.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        name = tags.name[tag]
        if style != "dca" and not tags.core[tag]:  # (in a DCA file every DCT element is a problem already)
            if tag not in module_problems:
                module_problems[tag] = _module_problem(ns(tag), name, dialect_type)
            if module_problems[tag]:
                probs.add("dct-namespace", el, module_problems[tag])
        if v3 and tags.core[tag] and name in _TYPED and el.get("type"):
            # (TBX-Basic's transac / transacNote types have their own check below)
            if not (basic and name in _REQUIRED_TYPE):
                problem, warning = tbxdialect.type_check(key, name, el.get("type"))
                if problem:
                    probs.add(f"type-{name}", el, problem)
                    continue
                if warning:
                    warned[warning] += 1
            if name == "transac" and el.get("type") == "transactionType":
                problem, warning = tbxdialect.value_check("transactionType", _text(el), dialect_type)
                if problem:
                    probs.add("picklist-transactionType", el, problem)
                elif warning:
                    warned[warning] += 1
        dc = tags.datcat(el)
        if dc is not None:
            cat, value = dc
            if v3:
                problem, warning = tbxdialect.value_check(cat, value, dialect_type)
                if problem:
                    probs.add(f"picklist-{cat}", el, problem)
                elif warning:
                    warned[warning] += 1
            else:
                allowed = _PICKLISTS.get(cat)
                if allowed and value not in allowed:
                    probs.add(
                        f"picklist-{cat}",
                        el,
                        f"{cat} value {value!r} is not in the {dialect_type} picklist ({', '.join(allowed)})",
                    )
            level, grouped = _level(el, tags)
            is_term_note = tags.klass[tag] == "termNote" or _DATCAT_CLASS.get(cat) == "termNote"
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
        required = _REQUIRED_TYPE.get(name)
        if basic and required and tags.core[tag] and el.get("type") and el.get("type") != required:
            probs.add(
                f"{name}-type", el, f"<{name} type={el.get('type')!r}>: TBX-Basic allows only {required}"
            )
    return warned


# --- reading -------------------------------------------------------------------------------------


class _EntryReader:
    """Reads entries in one walk over each entry's elements.

    Per entry, what the walk gathers is: the entry's do-not-translate marker and its first usable
    definition and subject field (from every data category anywhere in the entry, in document
    order), and for each term the data categories of its tig/ntig/termSec (the <term> itself left
    out). Status spellings, term types and DNT tests repeat across thousands of terms, so their
    results are memoised for the length of one read.
    """

    def __init__(self, probs: _Problems, tags: _TagInfo) -> None:
        self.probs = probs
        self.tags = tags
        self.unknown_statuses: Counter = Counter()
        self.stats: Counter = Counter()
        self._dnt_memo: dict = {}
        self._status_memo: dict = {}
        self._type_memo: dict = {}
        self._shared: dict = {}  # one string object for each repeated short value (less memory)
        # Per-entry state, set by read_entry and updated by _scan.
        self._dnt = False
        self._definition: Optional[str] = None
        self._subject: Optional[str] = None

    def _scan(self, elements, found: Optional[dict] = None, skip=None) -> None:
        """Look at the data categories of `elements` (a document-order run of the entry's elements).

        Every one counts for the entry; with `found`, each category's first value also goes there,
        except for `skip` (the <term> element of the holder being read).
        """
        kinds, names, dnt_memo = self.tags.kind, self.tags.name, self._dnt_memo
        for el in elements:
            tag = el.tag
            kind = kinds[tag]
            if kind == _NOT_DATCAT:
                continue
            cat = (el.get("type") or "") if kind == _DCA else names[tag]
            if len(el):  # _text(), inlined: this runs for every data category of the glossary
                value = " ".join("".join(el.itertext()).split())
            else:
                value = el.text
                value = " ".join(value.split()) if value else ""
            if found is not None and el is not skip and cat not in found:
                found[cat] = value
            if not self._dnt:
                if len(value) > _MEMO_MAX_LEN:
                    self._dnt = st.dnt_marker(cat, value)
                else:
                    key = (cat, value)
                    hit = dnt_memo.get(key)
                    if hit is None:
                        hit = dnt_memo[key] = st.dnt_marker(cat, value)
                    self._dnt = hit
            if cat == "definition":
                if self._definition is None and value and not _placeholder(value):
                    self._definition = value
            elif cat == "subjectField":
                if self._subject is None and value and not _placeholder(value):
                    self._subject = value

    def _holder_term(self, holder, entry_id: str):
        """(the <term> of a tig/ntig/termSec or None, the holder's element children).

        Checks there is exactly one term and that it comes first. The children are handed back so
        the caller's scan meets the same lxml proxies again instead of making new ones.
        """
        probs, names = self.probs, self.tags.name
        kids = [c for c in holder if isinstance(c.tag, str)]
        box_kids = kids
        box = holder
        if names[holder.tag] == "ntig":
            grp = [k for k in kids if names[k.tag] == "termGrp"]
            if not grp:
                probs.add("no-term", holder, f"entry {entry_id}: <ntig> without <termGrp>")
                return None, kids
            if names[kids[0].tag] != "termGrp":
                probs.add("term-order", holder, f"entry {entry_id}: <termGrp> must come first in <ntig>")
            box = grp[0]
            box_kids = [c for c in box if isinstance(c.tag, str)]
        terms = [k for k in box_kids if names[k.tag] == "term"]
        if not terms:
            probs.add("no-term", box, f"entry {entry_id}: <{names[box.tag]}> without <term>")
            return None, kids
        if len(terms) > 1:
            probs.add(
                "many-terms", terms[1],
                f"entry {entry_id}: <{names[box.tag]}> holds {len(terms)} <term>s; only one is allowed",
            )
        if box_kids[0] is not terms[0]:
            probs.add("term-order", terms[0], f"entry {entry_id}: <term> must come first in <{names[box.tag]}>")
        return terms[0], kids

    def _status(self, raw: Optional[str]) -> tuple[str, bool]:
        """(normalised status, whether the spelling is unrecognised), memoised by spelling."""
        try:
            return self._status_memo[raw]
        except KeyError:
            out = (st.normalise_status(raw), st.unrecognised_status(raw))
            if raw is None or len(raw) <= _MEMO_MAX_LEN:
                self._status_memo[raw] = out
            return out

    def _term_type(self, raw: Optional[str]) -> Optional[str]:
        try:
            return self._type_memo[raw]
        except KeyError:
            out = st.normalise_term_type(raw)
            if raw is None or len(raw) <= _MEMO_MAX_LEN:
                self._type_memo[raw] = out
            return out

    def _share(self, value: Optional[str]) -> Optional[str]:
        if value is None or len(value) > _MEMO_MAX_LEN:
            return value
        return self._shared.setdefault(value, value)

    def _term(self, holder, kids: list, term_el, lang: str) -> Optional[Term]:
        """The Term of one holder, or None if its text is empty; scans the holder's data categories."""
        text = _text(term_el)
        found: dict[str, str] = {}
        self._scan(_subtree(holder, kids), found, term_el)
        if not text:
            return None
        raw = None
        if found:
            for cat in st.STATUS_CATEGORIES:
                raw = found.get(cat)
                if raw:
                    break
            else:
                raw = None
        status, unrecognised = self._status(raw)
        if unrecognised:
            self.unknown_statuses[raw] += 1
        term_type = self._term_type(found.get("termType"))
        if term_type is None and found.get("abbreviatedFormFor"):
            term_type = "abbreviation"  # "this term is the abbreviated form for X"
        pos = st.part_of_speech(found.get("partOfSpeech"))
        case = any(st.match_case_marker(v) for k, v in found.items() if _case_category(k))
        return Term(text=text, lang=lang, status=status, raw_status=self._share(raw),
                    term_type=self._share(term_type), part_of_speech=self._share(pos), match_case=case)

    def read_entry(self, entry, entry_id: str) -> Optional[Concept]:
        probs, names, scan = self.probs, self.tags.name, self._scan
        self._dnt, self._definition, self._subject = False, None, None
        terms: list[Term] = []
        notes: list[str] = []
        scan((entry,))
        # The walk below visits the entry's elements in document order, each exactly once: language
        # sections and their holders are read as terms, everything else only scanned.
        for sec in entry:
            sec_name = names[sec.tag]
            if sec_name not in _LANGS:
                if not sec_name:
                    continue  # a comment or PI
                if sec_name == "term":
                    probs.add("stray-term", sec, f"entry {entry_id}: <term> directly inside <{names[entry.tag]}>")
                elif sec_name == "note":
                    note = _text(sec)
                    if note:
                        notes.append(note)
                scan(sec.iter() if len(sec) else (sec,))
                continue
            raw_lang = sec.get(XML_LANG) or sec.get("lang")
            if not raw_lang:
                probs.add("no-lang", sec, f"entry {entry_id}: <{sec_name}> without xml:lang")
            lang = normalise_tag(raw_lang)
            scan((sec,))
            for holder in sec:
                hname = names[holder.tag]
                if hname == "term":
                    probs.add("stray-term", holder, f"entry {entry_id}: <term> directly inside <{sec_name}>")
                    term_el, kids = holder, [c for c in holder if isinstance(c.tag, str)]
                elif hname in _HOLDERS:
                    term_el, kids = self._holder_term(holder, entry_id)
                    if term_el is None:
                        scan(_subtree(holder, kids))
                        continue
                else:
                    if hname:
                        scan(holder.iter() if len(holder) else (holder,))
                    continue
                term = self._term(holder, kids, term_el, lang)
                if term is None:
                    self.stats["empty_terms"] += 1
                else:
                    terms.append(term)
        if not terms:
            return None
        return Concept(
            id=entry_id,
            terms=tuple(terms),
            definition=self._definition,
            subject=self._share(self._subject),
            dnt=self._dnt,
            note="\n".join(notes) or None,
        )


def _case_category(name: str) -> bool:
    """Is a data category's name one saying the term matches only in its own case (`caseSensitive`)?"""
    return re.sub(r"[\s_\-]+", "", name.lower()) in st.MATCH_CASE_CATEGORIES


def _subtree(el, kids: list) -> list:
    """`el` and its descendants in document order, comments and PIs left out, given its element
    children `kids` (kept alive by the caller, so lxml hands back the same proxies)."""
    run = [el]
    for c in kids:
        if len(c):
            run.extend(c.iter())
        else:
            run.append(c)
    return run


def read(source) -> Glossary:
    """Read a parsed TBX document (`source.root`: `martif` or `tbx`) into a Glossary."""
    return _read(source.path, source.root, source.content_hash)


def _read(path: str, root, content_hash: str) -> Glossary:
    version = "tbx-v3" if local(root.tag) == "tbx" else "tbx-2008"
    dialect_type = (root.get("type") or "").strip()
    style = (root.get("style") or "").strip().lower()
    dialect = " ".join(x for x in (dialect_type, style.upper()) if x) or None

    probs = _Problems()
    tags = _TagInfo(style)
    _check_document(root, probs, style, tags)
    warned: Counter = Counter()
    if dialect_type.lower() in _PICKLIST_DIALECTS or (version == "tbx-v3" and tbxdialect.dialect_key(dialect_type)):
        warned = _check_dialect(root, probs, dialect_type, tags, style, v3=version == "tbx-v3")

    reader = _EntryReader(probs, tags)
    concepts: list[Concept] = []
    seen_ids: Counter = Counter()
    # Entries may stand in any namespace (`{*}`), and are found at any depth, in document order.
    for n, entry in enumerate(root.iter(*(f"{{*}}{e}" for e in _ENTRIES)), start=1):
        raw_id = (entry.get("id") or "").strip()
        if not raw_id and version == "tbx-v3":
            probs.add("no-id", entry, "<conceptEntry> without the required id attribute")
        entry_id = raw_id or f"c{n}"
        seen_ids[entry_id] += 1
        if seen_ids[entry_id] > 1:
            probs.add("dup-id", entry, f"entry id {entry_id!r} is used more than once")
            entry_id = f"{entry_id}#{seen_ids[entry_id]}"
        concept = reader.read_entry(entry, entry_id)
        if concept is None:
            reader.stats["empty_entries"] += 1
        else:
            concepts.append(concept)

    stats, unknown_statuses = reader.stats, reader.unknown_statuses
    warnings: list[str] = [f"{w} ({n}x)" if n > 1 else w for w, n in warned.items()]
    if unknown_statuses:
        listed = ", ".join(f"{v!r} ({c})" for v, c in unknown_statuses.most_common(8))
        warnings.append(f"status values not recognised, read as unknown: {listed}")
    if stats["empty_entries"]:
        warnings.append(f"{stats['empty_entries']} entries have no term and were skipped")
    if stats["empty_terms"]:
        warnings.append(f"{stats['empty_terms']} empty <term> elements were skipped")

    languages: list[str] = []
    seen_langs: set = set()
    for c in concepts:
        for t in c.terms:
            if t.lang and t.lang not in seen_langs:
                seen_langs.add(t.lang)
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
