"""What kind of file is this? Decided from the content, never from the extension."""
from __future__ import annotations

import re
from typing import Optional

from .xmlsafe import local, ns

_RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def text_start(data: bytes, size: int = 4096) -> str:
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


def looks_binary(start: str) -> bool:
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
