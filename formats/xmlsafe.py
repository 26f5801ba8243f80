"""One hardened XML parser for every XML format we read.

External entities are never resolved, no DTD is loaded, nothing is fetched from the network, and a
document that declares entities is refused outright (this also stops entity-expansion bombs before
libxml2 sees them). Errors become `InputError` naming the file and the problem in one line.
"""
from __future__ import annotations

import re

from termqa.errors import InputError

# An entity declaration anywhere in the internal DTD subset. Real CAT-tool files never need one.
_ENTITY_DECL = re.compile(rb"<!ENTITY", re.IGNORECASE)
_ENTITY_DECL_16 = (
    "<!ENTITY".encode("utf-16-le"),
    "<!ENTITY".encode("utf-16-be"),
)


# The settings of every parser we make, the streaming one (lxml iterparse) included.
PARSER_SETTINGS = dict(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    dtd_validation=False,
    huge_tree=False,
    remove_comments=False,
    strip_cdata=True,
)


def _parser():
    from lxml import etree

    return etree.XMLParser(**PARSER_SETTINGS)


# The bytes before the root element, where a DOCTYPE may stand, are looked for within this many.
PROLOG_BYTES = 65536


def prolog_of(path) -> bytes:
    """The first bytes of a file (where a DOCTYPE may stand), for readers that stream the rest."""
    try:
        with open(path, "rb") as fh:
            return fh.read(PROLOG_BYTES)
    except OSError as exc:
        raise InputError(path, f"cannot be read: {exc.strerror}") from None


def refuse_entities(head: bytes, path) -> None:
    """InputError when the prolog declares entities (never expanded: XXE and entity bombs)."""
    if _ENTITY_DECL.search(head) or any(p in head for p in _ENTITY_DECL_16):
        raise InputError(
            path,
            "declares XML entities in its DOCTYPE; termqa never expands entities (XXE/entity-bomb protection)",
            fix="remove the <!ENTITY ...> declarations",
        )


def syntax_message(exc) -> str:
    """lxml's syntax error in one line, without the "(<string>, line N)" it appends (a streaming
    parse names the file there instead of <string>: the same message either way)."""
    msg = (str(exc).splitlines() or ["malformed XML"])[0]
    return re.sub(r"\s*\([^()]*, line \d+(?:, column \d+)?\)$", "", msg)


def parse_bytes(data: bytes, path: str):
    """Parse `data` (the whole file) and return the root element, or raise InputError."""
    from lxml import etree

    refuse_entities(data[:PROLOG_BYTES], path)
    if not data.strip():
        raise InputError(path, "is empty")
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise InputError(path, f"is not well-formed XML: {syntax_message(exc)}") from None
    except (ValueError, LookupError) as exc:  # unknown encoding names and the like
        raise InputError(path, f"cannot be decoded: {exc}") from None
    if root is None:
        raise InputError(path, "has no root element")
    return root


def local(tag) -> str:
    """Local name of an element tag (`{ns}name` -> `name`); '' for comments and PIs."""
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def ns(tag) -> str:
    """Namespace URI of an element tag, '' when it has none."""
    if isinstance(tag, str) and tag.startswith("{"):
        return tag[1:].split("}", 1)[0]
    return ""


XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
