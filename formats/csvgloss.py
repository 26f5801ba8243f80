"""CSV / TSV glossaries: one concept per row.

Two layouts are understood, told apart by the header row:

- wide: one column per language, e.g. `en,fr,fr_status` or `en;fr-FR;note`. Other columns:
  `id`, `definition`/`description`, `subject`/`domain`, `dnt`/`do_not_translate` (or
  `translatable`/`translation needed`, where "no" means do not translate), `note`,
  `<lang>_status`, `<lang>_type`. A language column may name its language in words, in English
  or in the language itself (`English`, `French`, `Français`, `日本語`, `termqa.lang.langtags.tag_of_name`),
  alone or with the word "term" (`English Term`, `Persian Terms`, `Term (French)`).
- long: `sourceLang,targetLang,sourceString,targetString` (+ optional id, description, pos), as in
  the TICO-19 terminologies: every row carries its own languages.

In both layouts, `pos` (or `partOfSpeech`, `wordclass`) gives the row's word class ("noun", "verb"...),
and `match_case` (or `case_sensitive`) marks a row whose terms are found only with their own capitals
("yes", "true", "x", "case-sensitive").

Several synonyms in one cell are separated by `|`, or by `;` when `;` is not the delimiter (a
comma never separates synonyms: terms such as "Washington, D.C." contain one). A status or type
cell with as many parts as the term cell is paired with the terms one by one; a single value
applies to every term in the cell.

Without a recognisable header, a two-column file is read as source,target with unknown languages
(""): each concept then holds exactly two terms, source first, and `assign_languages` fills in
the languages the user gave (--src-lang/--tgt-lang) or the files checked. Cells are not split into
synonyms in that mode, so the position of a term always says which column it came from.
OmegaT's glossary format (`.txt`, `.tab`, `.utf8`: source TAB target TAB comment, no header, `#`
lines are comments) is read the same way, the third column as the concept's note (dialect "omegat").
Any other file without a header is refused with the first row it saw and the two ways to fix it.

Encoding: UTF-8 (with or without BOM), UTF-16 with BOM; anything else is decoded as windows-1252
(or latin-1 when that fails) with a warning, since such files come from spreadsheet exports.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import replace
from typing import Optional

from termqa.errors import InputError
from termqa.lang.langtags import normalise_tag, tag_of_name
from termqa.model import Concept, Glossary, Term

from . import status as st

_DELIMITERS = (",", ";", "\t")
_SAMPLE_ROWS = 30

_ROLE_NAMES = {
    "id": ("id", "stringid", "conceptid", "entryid", "termid", "key", "uid"),
    "definition": ("definition", "description", "desc", "def", "explanation", "meaning"),
    "subject": ("subject", "domain", "subjectfield", "field", "category"),
    "note": ("note", "notes", "comment", "comments", "remark", "remarks", "usagenote"),
    "dnt": (
        "dnt",
        "donottranslate",
        "nottranslatable",
        "nontranslatable",
        "untranslatable",
        "translatable",
        "translate",
        "translationneeded",
    ),
    "pos": ("pos", "partofspeech", "wordclass"),
    "match_case": ("matchcase", "casesensitive", "case", "casesensitivity", "keepcase"),
    "ignore": ("gender", "source", "url", "context", "example"),
    # long layout
    "src_lang": ("sourcelang", "sourcelanguage", "srclang", "fromlang"),
    "tgt_lang": ("targetlang", "targetlanguage", "tgtlang", "tolang"),
    "src_term": ("sourcestring", "sourceterm", "sourcetext", "source", "src", "term"),
    "tgt_term": ("targetstring", "targetterm", "targettext", "target", "tgt", "translation"),
    "src_status": ("sourcestatus",),
    "tgt_status": ("targetstatus", "status"),
}
# "source" is both a long-layout column and a bibliographic field (in "ignore"): the layout decides.
_LONG_ONLY = ("src_lang", "tgt_lang", "src_term", "tgt_term", "src_status", "tgt_status")

# a column naming its language in words with the word "term" around it: "English Term", "Term (French)"
_TERM_WORDS = r"(?:terms?|translations?|words?)"
_NAMED_TERM = re.compile(rf"^(?:(?P<a>.+?)\s+{_TERM_WORDS}|{_TERM_WORDS}\s*[(\[]?\s*(?P<b>.+?)\s*[)\]]?)$",
                         re.IGNORECASE)

_LANG_TAG = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$")
_SUFFIXED = re.compile(r"^(?P<lang>.+?)[ _\-.](?P<what>status|type|termtype)$", re.IGNORECASE)
# TICO-19 and some exports write a placeholder region "XX" (fr_XX): it names no region.
_PLACEHOLDER_REGION = re.compile(r"-XX$", re.IGNORECASE)


def _flat(name: str) -> str:
    return re.sub(r"[\s_\-.]+", "", name.strip().lower())


def _named(cell: str) -> Optional[str]:
    """The language a header cell names in words (`French`, `Français`, `English Term`), else None."""
    c = cell.strip()
    tag = tag_of_name(c)
    if tag is None:
        m = _NAMED_TERM.match(c)
        if m:
            tag = tag_of_name(m.group("a") or m.group("b"))
    return tag


def _lang_of(cell: str) -> Optional[str]:
    """The language a header cell names (`fr-FR`, `en_us`, `French`, `English Term`), else None."""
    c = cell.strip()
    named = _named(c)
    if named:
        return named
    if _LANG_TAG.match(c):
        return _PLACEHOLDER_REGION.sub("", normalise_tag(c))
    return None


def _norm_lang(value: str) -> str:
    return _PLACEHOLDER_REGION.sub("", normalise_tag(value.strip())) if value and value.strip() else ""


# --- decoding and splitting ----------------------------------------------------------------------


def _decode(path: str, data: bytes) -> tuple[str, Optional[str]]:
    """(text, warning or None)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace"), None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), None
        except UnicodeDecodeError:
            raise InputError(path, "starts with a UTF-16 byte-order mark but is not valid UTF-16") from None
    head = data[:200]
    if len(head) > 1 and b"\x00" in head:  # UTF-16 without BOM: every other byte is NUL for ASCII
        enc = "utf-16-be" if head[0] == 0 else "utf-16-le"
        try:
            return data.decode(enc), None
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    for enc in ("cp1252", "latin-1"):
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        return text, f"not valid UTF-8: decoded as {enc}; save the file as UTF-8 to be sure of its accents"
    raise InputError(path, "cannot be decoded")  # pragma: no cover - latin-1 decodes anything


def _sniff(text: str) -> str:
    """The delimiter giving the most columns, consistently, over the first rows."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    # OmegaT glossaries open with a '#' comment line ("# Glossary in tab-separated format..."): it says
    # nothing about the delimiter
    lines = ([ln for ln in lines if not ln.startswith("#")] or lines)[:_SAMPLE_ROWS]
    sample = "\n".join(lines)
    best, best_score = ",", (-1, -1)
    for d in _DELIMITERS:
        rows = list(csv.reader(io.StringIO(sample), delimiter=d))
        if not rows:
            continue
        width = len(rows[0])
        consistent = sum(1 for r in rows if len(r) == width)
        score = (consistent if width > 1 else 0, width)
        if score > best_score:
            best, best_score = d, score
    return best


def _split(cell: str, delimiter: str) -> list[str]:
    seps = r"[|;]" if delimiter != ";" else r"\|"
    return [p.strip() for p in re.split(seps, cell) if p.strip()]


def _pair(values: list[str], n: int) -> list[Optional[str]]:
    """Status/type values for n terms: one each when counts match, else the same one for all."""
    if len(values) == n:
        return list(values)
    if len(values) == 1:
        return values * n
    return [None] * n


# --- header --------------------------------------------------------------------------------------


# An identifier cell: one token holding a digit or an identifier's punctuation ("12", "c-7", "login.title").
_ID_CELL = re.compile(r"^(?=[^\s]*[\d._:/#])[^\s]+$")


def _id_column_is_indonesian(header: list[str], body: list[list[str]], at: int) -> bool:
    """A column headed `id` holds Indonesian terms (ISO 639-1 `id`) rather than identifiers when another
    column names a language and its cells do not look like identifiers (some cell is a word, not a number
    or a code). Another identifier column (`concept_id`, `key`...) does not change that: it only makes
    the identifier reading of `id` less likely still."""
    others = [h for k, h in enumerate(header) if k != at]
    if not any(_lang_of(h) for h in others if _flat(h) not in _ROLE_NAMES["id"]):
        return False
    cells = [r[at].strip() for r in body[:200] if at < len(r) and r[at].strip()]
    return bool(cells) and not all(_ID_CELL.match(c) for c in cells)


def _roles(header: list[str], body: list[list[str]] = ()) -> tuple[list[tuple[str, Optional[str]]], bool]:
    """Each header cell's (role, language or None), and whether this row really is a header. `body`
    (the rows below) decides what a column headed `id` holds: identifiers or Indonesian terms."""
    flat_names = {_flat(h) for h in header}
    is_long = bool(flat_names & set(_ROLE_NAMES["src_lang"])) or (
        bool(flat_names & set(_ROLE_NAMES["src_term"])) and bool(flat_names & set(_ROLE_NAMES["tgt_term"]))
    )
    roles: list[tuple[str, Optional[str]]] = []
    strong = unknown = langs = 0
    seen_langs = set()
    for at, h in enumerate(header):
        f = _flat(h)
        if not f:
            roles.append(("ignore", None))
            continue
        if f == "id" and not is_long and _id_column_is_indonesian(header, body, at):
            seen_langs.add("id")
            roles.append(("term", "id"))
            langs += 1
            continue
        # In the long layout its own names win ("source" is the source term, not a reference).
        order = sorted(_ROLE_NAMES, key=lambda r: r not in _LONG_ONLY) if is_long else list(_ROLE_NAMES)
        role = next((r for r in order if f in _ROLE_NAMES[r]), None)
        if role in _LONG_ONLY and not is_long:
            role = "status_unscoped" if f == "status" else None
        if role is not None:
            roles.append((role, None))
            strong += 1
            continue
        m = _SUFFIXED.match(h.strip())
        if m and _lang_of(m.group("lang")):
            what = "status" if m.group("what").lower() == "status" else "type"
            roles.append((what, _lang_of(m.group("lang"))))
            strong += 1
            continue
        lang = _lang_of(h)
        if lang and not is_long and lang not in seen_langs:
            seen_langs.add(lang)
            roles.append(("term", lang))
            langs += 1
            if "-" in lang or "_" in h or _named(h):
                strong += 1
            continue
        roles.append(("unknown", None))
        unknown += 1
    if is_long:
        return roles, True
    return roles, langs >= 1 and (unknown == 0 or strong >= 1)


# --- reading -------------------------------------------------------------------------------------


def _unique_id(raw: str, n: int, seen: dict) -> str:
    cid = raw.strip() or f"c{n}"
    seen[cid] = seen.get(cid, 0) + 1
    return cid if seen[cid] == 1 else f"{cid}#{seen[cid]}"


def _terms(cell: str, lang: str, delimiter: str, status_cell: str, type_cell: str, unknown: dict,
           pos: Optional[str] = None, match_case: bool = False) -> list[Term]:
    texts = _split(cell, delimiter)
    statuses = _pair(_split(status_cell, delimiter), len(texts)) if status_cell.strip() else [None] * len(texts)
    types = _pair(_split(type_cell, delimiter), len(texts)) if type_cell.strip() else [None] * len(texts)
    out = []
    for text, raw, ttype in zip(texts, statuses, types):
        if st.unrecognised_status(raw):
            unknown[raw] = unknown.get(raw, 0) + 1
        out.append(
            Term(
                text=" ".join(text.split()),
                lang=lang,
                status=st.normalise_status(raw),
                raw_status=raw,
                term_type=st.normalise_term_type(ttype),
                part_of_speech=pos,
                match_case=match_case,
            )
        )
    return out


def read(source) -> Glossary:
    path, data, content_hash = source.path, source.data, source.content_hash
    text, enc_warning = _decode(path, data)
    warnings = [enc_warning] if enc_warning else []
    delimiter = _sniff(text)
    fmt = "tsv" if delimiter == "\t" else "csv"
    rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if any(c.strip() for c in r)]
    return from_rows(path, rows, content_hash, fmt=fmt, delimiter=delimiter, warnings=warnings)


def from_rows(path: str, rows: list[list[str]], content_hash: str, *, fmt: str, delimiter: str,
              warnings: list[str]) -> Glossary:
    """The glossary a table's rows (header first, blank rows left out) hold: the one set of header rules,
    for CSV/TSV and for spreadsheets (`formats/xlsxgloss.py`, which passes a tab as `delimiter`: its cells
    are split into synonyms at `|` and `;`). The OmegaT layout is a tab-separated text file's only."""
    if not rows:
        return Glossary(path=path, format=fmt, concepts=(), content_hash=content_hash, warnings=tuple(warnings))

    roles, has_header = _roles(rows[0], rows[1:])
    for h, (role, lang) in zip(rows[0], roles):
        if has_header and role == "term" and lang == "id" and _flat(h) == "id":
            warnings.append(f"column '{h}' read as Indonesian terms (language tag 'id'), not as concept "
                            "identifiers: its cells are words (name it 'concept_id' for identifiers)")
    kinds = [role for role, _ in roles]
    if has_header and "src_term" in kinds and "tgt_term" in kinds and "src_lang" not in kinds:
        # `source,target` header without language columns: the same as no header at all.
        src_i, tgt_i = kinds.index("src_term"), kinds.index("tgt_term")
        concepts, half = _read_pairs(rows[1:], src_i, tgt_i)
        if half:
            warnings.append(f"{half} rows with only one of the two cells filled were skipped")
        warnings.append(
            "the file does not name its languages: source and target terms get their languages from "
            "--src-lang/--tgt-lang"
        )
    elif has_header:
        body = rows[1:]
        ignored = [h for h, (role, _) in zip(rows[0], roles) if role in ("unknown", "status_unscoped")]
        if ignored:
            warnings.append(
                f"columns not understood and ignored: {', '.join(ignored)} "
                "(name statuses <lang>_status, e.g. fr_status)"
            )
        concepts = _read_rows(body, rows[0], roles, delimiter, warnings)
    else:
        # OmegaT's layout: source TAB target TAB comment, '#' lines are comments
        omegat = delimiter == "\t" and fmt == "tsv"
        if omegat:
            rows = [r for r in rows if not r[0].lstrip().startswith("#")] or rows
        width = max(len(r) for r in rows)
        if width != 2 and not (omegat and width == 3):
            between = {"csv": delimiter, "tsv": " TAB "}.get(fmt, " | ")
            seen = between.join(c.strip() for c in rows[0])
            raise InputError(
                path,
                f"has no header row naming the languages: its first row is {seen[:120]!r} ({width} columns)",
                fix="name the language columns in the header, with tags or names (e.g. 'en,fr,note' or "
                    "'English,French,Note'), or keep two columns, source then target, without a header "
                    "(tab-separated, a third column is a comment, as OmegaT writes) and give --src-lang/--tgt-lang",
            )
        concepts, half = _read_pairs(rows, 0, 1, note_i=2 if omegat else None)
        if half:
            warnings.append(f"{half} rows with only one of the two cells filled were skipped")
        warnings.append(
            "no header row naming the languages: column 1 is read as source terms and column 2 as target "
            "terms; their languages come from --src-lang/--tgt-lang or the files checked"
        )

    languages: list[str] = []
    for c in concepts:
        for t in c.terms:
            if t.lang and t.lang not in languages:
                languages.append(t.lang)
    return Glossary(
        path=path,
        format=fmt,
        dialect="omegat" if fmt == "tsv" and not has_header else None,
        concepts=tuple(concepts),
        content_hash=content_hash,
        languages=tuple(languages),
        warnings=tuple(warnings),
    )


def _cell(row: list[str], i: Optional[int]) -> str:
    return row[i].strip() if i is not None and i < len(row) else ""


def _read_rows(body: list[list[str]], header: list[str], roles, delimiter: str, warnings: list[str]) -> list[Concept]:
    index = {}
    for i, (role, lang) in enumerate(roles):
        index.setdefault((role, lang), i)
    first = {role: i for i, (role, _) in reversed(list(enumerate(roles)))}
    term_cols = [(i, lang) for i, (role, lang) in enumerate(roles) if role == "term"]
    is_long = "src_term" in first or "src_lang" in first
    unknown_status: dict = {}
    seen: dict = {}
    concepts = []
    for n, row in enumerate(body, start=1):
        terms: list[Term] = []
        # a row's word class and match-case apply to each of its terms (the row is one concept)
        pos = st.part_of_speech(_cell(row, first.get("pos")))
        case = st.match_case_marker(_cell(row, first.get("match_case")))
        if is_long:
            src_lang = _norm_lang(_cell(row, first.get("src_lang")))
            tgt_lang = _norm_lang(_cell(row, first.get("tgt_lang")))
            for side, lang in (("src", src_lang), ("tgt", tgt_lang)):
                terms += _terms(
                    _cell(row, first.get(f"{side}_term")),
                    lang,
                    delimiter,
                    _cell(row, first.get(f"{side}_status")),
                    "",
                    unknown_status,
                    pos,
                    case,
                )
        else:
            for i, lang in term_cols:
                terms += _terms(
                    _cell(row, i),
                    lang,
                    delimiter,
                    _cell(row, index.get(("status", lang))),
                    _cell(row, index.get(("type", lang))),
                    unknown_status,
                    pos,
                    case,
                )
        if not terms:
            continue
        dnt_i = first.get("dnt")
        dnt_value = _cell(row, dnt_i)
        concepts.append(
            Concept(
                id=_unique_id(_cell(row, first.get("id")), n, seen),
                terms=tuple(terms),
                definition=_cell(row, first.get("definition")) or None,
                subject=_cell(row, first.get("subject")) or None,
                dnt=bool(dnt_value) and st.dnt_marker(header[dnt_i], dnt_value),
                note=_cell(row, first.get("note")) or None,
            )
        )
    if unknown_status:
        listed = ", ".join(f"{v!r} ({c})" for v, c in sorted(unknown_status.items(), key=lambda x: -x[1])[:8])
        warnings.append(f"status values not recognised, read as unknown: {listed}")
    return concepts


def _read_pairs(rows: list[list[str]], src_i: int, tgt_i: int, note_i: Optional[int] = None
                ) -> tuple[list[Concept], int]:
    """Concepts of exactly two terms (source, target), the cell at `note_i` as their note; rows missing
    either term are counted."""
    concepts, half = [], 0
    for n, row in enumerate(rows, start=1):
        src, tgt = " ".join(_cell(row, src_i).split()), " ".join(_cell(row, tgt_i).split())
        if not src or not tgt:
            half += 1
            continue
        concepts.append(Concept(id=f"c{n}", terms=(Term(text=src, lang=""), Term(text=tgt, lang="")),
                                note=_cell(row, note_i) or None))
    return concepts, half


def assign_languages(glossary: Glossary, src_lang: str, tgt_lang: str) -> Glossary:
    """Give a header-less two-column glossary its languages: term 1 of each concept is the source,
    term 2 the target. Glossaries whose terms already have languages are returned unchanged."""
    if glossary.languages or any(t.lang for c in glossary.concepts for t in c.terms):
        return glossary
    src, tgt = normalise_tag(src_lang), normalise_tag(tgt_lang)
    concepts = []
    for c in glossary.concepts:
        terms = tuple(replace(t, lang=src if i == 0 else tgt) for i, t in enumerate(c.terms))
        concepts.append(replace(c, terms=terms))
    return replace(glossary, concepts=tuple(concepts), languages=(src, tgt))
