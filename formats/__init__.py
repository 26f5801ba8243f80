"""Readers and writers, one module per format family. Installs as `termqa.formats`.

`read_bilingual`, `read_glossary` and `read_any` detect the format from the file's content (never
from its extension) and dispatch to the reader module, imported lazily.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Optional, Union

from termqa.errors import InputError, UnknownFormatError
from termqa.model import BilingualFile, Glossary

from .xmlsafe import local, ns, parse_bytes

# "toolkit": gettext PO/POT and Qt TS, read through the optional translate-toolkit (formats/toolkit.py)
BILINGUAL = ("xliff1", "xliff2", "tmx", "toolkit")
GLOSSARY = ("tbx", "skos-xml", "skos-text", "csv")

_RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def _read_bytes(path) -> bytes:
    p = Path(path)
    if not p.exists():
        raise InputError(path, "does not exist")
    if p.is_dir():
        raise InputError(path, "is a folder, not a file")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot be read: {exc.strerror}") from None


def _text_start(data: bytes, size: int = 4096) -> str:
    """The first non-blank characters of the file, whatever its Unicode encoding."""
    head = data[:size]
    for bom, enc in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if head.startswith(bom):
            return head[len(bom):].decode(enc, "ignore").lstrip()
    # UTF-16 without a BOM: mostly-ASCII markup puts a NUL in every other byte, on one side only
    sample = head[:512]
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    half = max(len(sample) // 2, 1)
    if even > 0.4 * half and odd < 0.05 * half:
        return head.decode("utf-16-be", "ignore").lstrip()
    if odd > 0.4 * half and even < 0.05 * half:
        return head.decode("utf-16-le", "ignore").lstrip()
    return head.decode("utf-8", "ignore").lstrip()


def _looks_binary(start: str) -> bool:
    """Control characters other than tab and line breaks do not occur in text formats."""
    sample = start[:2048]
    bad = sum(1 for c in sample if ord(c) < 32 and c not in "\t\r\n\f") + sample.count("\ufffd")
    return bool(sample) and bad * 20 > len(sample)  # more than 5 %


def kind_of_root(root) -> Optional[str]:
    name, uri = local(root.tag), ns(root.tag)
    if name == "xliff":
        version = root.get("version", "")
        if uri.startswith("urn:oasis:names:tc:xliff:document:2") or version.startswith("2"):
            return "xliff2"
        return "xliff1"
    if name == "tmx":
        return "tmx"
    if name in ("martif", "tbx"):
        return "tbx"
    if name == "RDF" and uri == _RDF_NS:
        return "skos-xml"
    if name == "TS":  # Qt Linguist
        return "toolkit"
    return None


# gettext PO/POT: past '#' comment lines (translator comments, flags such as "#, fuzzy"), the first
# entry opens with msgctxt or msgid and a quoted string. No CSV, Turtle or JSON starts that way.
_PO_START = re.compile(r'(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*msg(?:ctxt|id)[ \t]+"')


def detect_text(start: str) -> Optional[str]:
    """Format kind of a non-XML file from its first characters."""
    if _PO_START.match(start):
        return "toolkit"
    # RDF text syntaxes may open with '#' comment lines; a CSV never starts with a '#' line that is
    # followed by Turtle, so look past them before deciding
    body = re.sub(r"^(?:[ \t]*#[^\n]*\n|\s*\n)+", "", start)
    if body != start and re.match(r"(?i)(@prefix|@base|prefix\s|base\s|<\w[\w+.-]*:)", body):
        return "skos-text"
    if re.match(r"<(\w[\w+.-]*://|urn:)[^>\s]*>\s", start):  # N-Triples: a subject IRI, not a tag
        return "skos-text"
    if re.match(r"(?i)(@prefix|@base|prefix\s|base\s)", start) or re.match(r"<[a-z]+:[^>\s]*>\s+<", start):
        return "skos-text"
    if start.startswith(("{", "[")):
        return "skos-text"  # JSON-LD
    if start.startswith("<"):
        return None  # XML: decided from the root element
    return "csv" if start else None


def _parse(path) -> tuple[str, bytes, object]:
    """Read and classify a file: (kind, bytes, root element or None)."""
    data = _read_bytes(path)
    start = _text_start(data)
    if not start:
        raise InputError(path, "is empty")
    if start.startswith("<") and detect_text(start) != "skos-text":
        root = parse_bytes(data, str(path))
        kind = kind_of_root(root)
        if kind is None:
            raise UnknownFormatError(
                path,
                f"unknown format: XML root <{local(root.tag)}> is not XLIFF, TMX, Qt TS, TBX or RDF/SKOS",
            )
        return kind, data, root
    whole_lines = start.split("\n")[:-1]
    if start.startswith("#") and all(not ln.strip() or ln.lstrip().startswith("#") for ln in whole_lines):
        # only comment lines in the first 4 KB (a PO licence header can be longer): look further
        start = _text_start(data, 65536)
    if _looks_binary(start):
        raise UnknownFormatError(path, "unknown format: binary data, not XLIFF, TMX, PO, TBX, SKOS or CSV")
    kind = detect_text(start)
    if kind is None:
        raise UnknownFormatError(path, "unknown format")
    return kind, data, None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _dispatch(path, kind, data, root, *, src_lang=None, tgt_lang=None, default_lang=None):
    path = str(path)
    if kind == "xliff1":
        from . import xliff1

        return xliff1.read(path, root, src_lang=src_lang, tgt_lang=tgt_lang)
    if kind == "xliff2":
        from . import xliff2

        return xliff2.read(path, root, src_lang=src_lang, tgt_lang=tgt_lang)
    if kind == "tmx":
        from . import tmx

        return tmx.read(path, root, src_lang=src_lang, tgt_lang=tgt_lang)
    if kind == "toolkit":
        from . import toolkit

        return toolkit.read(path, data, src_lang=src_lang, tgt_lang=tgt_lang)
    if kind == "tbx":
        from . import tbx

        return tbx.read(path, root, sha256(data))
    if kind in ("skos-xml", "skos-text"):
        from . import skos

        return skos.read(path, data, sha256(data), default_lang=default_lang)
    if kind == "csv":
        from . import csvgloss

        return csvgloss.read(path, data, sha256(data))
    raise UnknownFormatError(path, "unknown format")  # pragma: no cover - kinds are closed


def read_any(path, *, src_lang=None, tgt_lang=None, default_lang=None) -> Union[BilingualFile, Glossary]:
    """Read a bilingual file or a glossary, whichever it is."""
    kind, data, root = _parse(path)
    return _dispatch(path, kind, data, root, src_lang=src_lang, tgt_lang=tgt_lang, default_lang=default_lang)


def read_bilingual(path, *, src_lang=None, tgt_lang=None) -> BilingualFile:
    kind, data, root = _parse(path)
    if kind not in BILINGUAL:
        raise InputError(path, f"is a glossary ({kind}), not a bilingual file", fix="pass it with --glossary")
    return _dispatch(path, kind, data, root, src_lang=src_lang, tgt_lang=tgt_lang)


def read_glossary(path, *, default_lang=None) -> Glossary:
    kind, data, root = _parse(path)
    if kind not in GLOSSARY:
        raise InputError(path, f"is a bilingual file ({kind}), not a glossary", fix="pass glossaries with --glossary")
    g = _dispatch(path, kind, data, root, default_lang=default_lang)
    if not g.concepts:
        raise InputError(path, "is an empty glossary: no concept with a term was found")
    return g
