"""Byte-preserving edits of an XML file: decode it, locate elements by character offset, splice.

lxml cannot give byte offsets and never re-serialises a file byte for byte, so the XLIFF write-back
works on the file's own text instead: `decode` turns the bytes into a string (remembering the BOM and
the codec, and refusing files that would not encode back to the very same bytes), `parse` runs a
small tokenizer over that string and builds a light tree of `Element`s that know where their start
tag, content and end tag sit, and `apply` splices insertions and deletions into the string. The
caller encodes the result with `Decoded.encode`. Everything not touched by an edit stays as it was:
declaration, DOCTYPE, comments, CDATA, entity references, line endings, unknown namespaces.

The tokenizer only needs to be right for well-formed XML: callers parse the file with the hardened
parser (`formats.xmlsafe`) first, so malformed input never reaches it.
"""
from __future__ import annotations

import gc
import html
import re
from dataclasses import dataclass
from typing import Iterator, Optional, Union

from termqa.errors import InputError

XML_NS = "http://www.w3.org/XML/1998/namespace"

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_DECLARED = re.compile(rb"""<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")


@dataclass(frozen=True)
class Decoded:
    """The file's text and what is needed to turn it back into the same bytes."""

    text: str
    codec: str
    bom: bytes

    def encode(self, text: str) -> bytes:
        # Characters the file's encoding cannot hold (a note in a Latin-1 file quoting Japanese) become
        # character references, which are valid wherever we insert text: element content and attributes.
        return self.bom + text.encode(self.codec, errors="xmlcharrefreplace")


def decode(data: bytes, path: str) -> Decoded:
    """Decode a whole XML file; raise InputError when it would not round-trip byte for byte."""
    bom = b""
    codec = None
    for mark, name in _BOMS:
        if data.startswith(mark):
            bom, codec = mark, name
            break
    body = data[len(bom):]
    if codec is None:
        if body[:2] == b"\x00<":
            codec = "utf-16-be"
        elif body[:2] == b"<\x00":
            codec = "utf-16-le"
        else:
            m = _DECLARED.match(body[:256])
            codec = m.group(1).decode("ascii") if m else "utf-8"
            if codec.lower().replace("_", "-") in ("utf-16", "utf16"):
                codec = "utf-16-le"  # declared UTF-16 without a BOM: the NUL test above failed, so guess LE
    try:
        text = body.decode(codec)
    except (LookupError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot be decoded as {codec}: {exc}") from None
    if text.encode(codec) != body:
        raise InputError(
            path,
            f"does not encode back to the same bytes in {codec}; refusing to rewrite it",
            fix="convert the file to UTF-8 first",
        )
    return Decoded(text, codec, bom)


# --- tokenizer -------------------------------------------------------------------------------------

_NAME = r"[^\s/>=\"'<]+"
_ATTR = re.compile(r"\s+(" + _NAME + r")\s*=\s*(\"[^\"]*\"|'[^']*')")
# One pattern for every token; the scan checks that tokens follow each other without a gap.
_TOKEN = re.compile(
    r"(?P<text>[^<]+)"
    r"|</(?P<end>" + _NAME + r")\s*>"
    r"|<(?P<start>" + _NAME + r")(?P<attrs>(?:\s+" + _NAME + r"\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(?P<empty>/?)>"
    r"|(?P<comment><!--.*?-->)"
    r"|(?P<cdata><!\[CDATA\[.*?\]\]>)"
    r"|(?P<pi><\?.*?\?>)"
    r"|(?P<doctype><!DOCTYPE(?:[^\[>]|\[.*?\])*>)",
    re.S,
)


@dataclass(slots=True)
class Leaf:
    """A non-element node: `text`, `cdata`, `comment`, `pi` or `doctype`, at text[start:end]."""

    kind: str
    start: int
    end: int


@dataclass(slots=True)
class Attr:
    qname: str
    value: str  # entity references resolved
    start: int  # includes the whitespace before the name
    end: int


class Element:
    """An element with the offsets of its parts: text[start:content_start] is the start tag,
    text[content_end:end] the end tag (both equal `end` for an empty-element tag)."""

    __slots__ = ("qname", "prefix", "local", "ns", "_attrs", "_raw", "nsmap", "start", "content_start",
                 "content_end", "end", "empty", "children", "parent")

    def __init__(self, qname, raw, nsmap, start, content_start, empty, parent):
        self.qname = qname
        self.prefix, _, self.local = qname.rpartition(":")
        self._raw = raw  # (text, start, end) of the attribute part of the start tag, parsed on demand
        self._attrs = None
        self.nsmap: dict = nsmap
        self.ns = nsmap.get(self.prefix or "", "")
        self.start = start
        self.content_start = content_start
        self.content_end = content_start
        self.end = content_start
        self.empty = empty
        self.children: list[Union[Element, Leaf]] = []
        self.parent: Optional[Element] = parent

    @property
    def raw_attrs(self) -> str:
        """The attribute part of the start tag as written (cheap test before parsing attributes)."""
        text, a0, a1 = self._raw
        return text[a0:a1]

    @property
    def attrs(self) -> list[Attr]:
        if self._attrs is None:
            self._attrs = _attrs(*self._raw)
        return self._attrs

    def get(self, name: str, uri: str = "", default=None):
        """Attribute value by local name and namespace URI ('' for unprefixed attributes)."""
        for a in self.attrs:
            p, _, loc = a.qname.rpartition(":")
            if loc != name or p == "xmlns" or a.qname == "xmlns":
                continue
            if (self.nsmap.get(p, "") if p else "") == uri:
                return a.value
        return default

    def elements(self) -> Iterator["Element"]:
        return (c for c in self.children if isinstance(c, Element))

    def iter(self) -> Iterator["Element"]:
        """This element and all its descendants, in document order."""
        stack = [self]
        while stack:
            el = stack.pop()
            yield el
            stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))

    def is_(self, uri: str, local: str) -> bool:
        return self.local == local and self.ns == uri

    def prefix_for(self, uri: str) -> Optional[str]:
        """A prefix bound to `uri` in this element's scope ('' for the default namespace), or None."""
        if self.nsmap.get("", "") == uri and uri:
            return ""
        for p, u in self.nsmap.items():
            if p and u == uri and p != "xml":
                return p
        return "xml" if uri == XML_NS else None

    def __repr__(self):  # pragma: no cover - debugging aid
        return f"<Element {self.qname} @{self.start}>"


@dataclass
class Document:
    text: str
    root: Element
    prolog: list  # leaves before the root element (declaration, DOCTYPE, comments)


_ATTR_WS = re.compile(r"[\t\n\r]")


def _attr_value(raw: str) -> str:
    # Attribute-value normalisation (whitespace characters -> space) then references resolved.
    v = raw[1:-1]
    if "&" not in v and "\n" not in v and "\t" not in v and "\r" not in v:
        return v
    return html.unescape(_ATTR_WS.sub(" ", v))


def _attrs(text: str, start: int, end: int) -> list[Attr]:
    return [Attr(a.group(1), _attr_value(a.group(2)), a.start(), a.end())
            for a in _ATTR.finditer(text, start, end)]


def parse(text: str, path: str = "<xml>") -> Document:
    """Tokenize well-formed XML text into a light tree with offsets."""
    # Building many small objects triggers full garbage collections that find nothing to free:
    # the collector is paused meanwhile.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, path)
    finally:
        if enabled:
            gc.enable()


def _parse(text: str, path: str) -> Document:
    root = None
    prolog: list = []
    stack: list[Element] = []
    base_ns = {"xml": XML_NS}
    pos = 0
    leaf_kinds = {"text", "comment", "cdata", "pi", "doctype"}
    current = prolog  # where the next node goes: the open element's children, or the prolog
    for m in _TOKEN.finditer(text):
        start = m.start()
        if start != pos:
            raise InputError(path, f"unreadable markup at character {pos}")
        pos = m.end()
        kind = m.lastgroup
        if kind in leaf_kinds:
            current.append(Leaf(kind, start, pos))
            continue
        if kind == "end":
            if not stack or stack[-1].qname != m.group("end"):
                raise InputError(path, f"unbalanced end tag at character {m.start()}")
            el = stack.pop()
            el.content_end = start
            el.end = pos
            current = stack[-1].children if stack else prolog
            continue
        # start tag (lastgroup is "empty", the last group that took part in the match)
        parent = stack[-1] if stack else None
        nsmap = parent.nsmap if parent is not None else base_ns
        a0, a1 = m.span("attrs")
        el = Element(m.group("start"), (text, a0, a1), nsmap, m.start(), pos, bool(m.group("empty")), parent)
        if "xmlns" in text[a0:a1]:
            decls = [(a.qname, a.value) for a in el.attrs if a.qname == "xmlns" or a.qname.startswith("xmlns:")]
            if decls:
                nsmap = dict(nsmap)
                for q, v in decls:
                    nsmap["" if q == "xmlns" else q[6:]] = v
                el.nsmap = nsmap
                el.ns = nsmap.get(el.prefix or "", "")
        if parent is not None:
            parent.children.append(el)
        elif root is None:
            root = el
        if not el.empty:
            stack.append(el)
            current = el.children
    if pos != len(text):
        raise InputError(path, f"unreadable markup at character {pos}")
    if root is None or stack:
        raise InputError(path, "has no complete root element")
    return Document(text, root, prolog)


# --- small helpers on the tree --------------------------------------------------------------------


def space_before(doc: Document, el: Element) -> tuple[int, str]:
    """The whitespace-only text right before `el` (same parent): (its start, the text)."""
    parent = el.parent
    if parent is None:
        return el.start, ""
    idx = next(i for i, c in enumerate(parent.children) if c is el)
    if idx > 0:
        prev = parent.children[idx - 1]
        if isinstance(prev, Leaf) and prev.kind == "text":
            s = doc.text[prev.start:prev.end]
            if not s.strip():
                return prev.start, s
    return el.start, ""


def removal_range(doc: Document, el: Element) -> tuple[int, int]:
    """What to delete to remove `el`: the element and the indentation right before it.

    Insertions mirror this (an element is always added together with the whitespace that precedes its
    new neighbour), so removing our additions restores the original text exactly.
    """
    start, _ = space_before(doc, el)
    return start, el.end


def only_space_besides(doc: Document, parent: Element, removed: set) -> bool:
    """True when every child of `parent` is removed or whitespace-only text."""
    for c in parent.children:
        if isinstance(c, Element):
            if id(c) not in removed:
                return False
        elif c.kind != "text" or doc.text[c.start:c.end].strip():
            return False
    return True


@dataclass(frozen=True)
class Edit:
    """Insert `text` at `pos`, or delete text[pos:end] when `end` is given. `key` orders edits at one spot."""

    pos: int
    text: str = ""
    end: Optional[int] = None
    key: tuple = ()


def apply(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits; deletions nested in another deletion are dropped."""
    dels = sorted((e for e in edits if e.end is not None), key=lambda e: (e.pos, -e.end))
    kept: list[Edit] = []
    for d in dels:
        if kept and d.pos < kept[-1].end:
            if d.end <= kept[-1].end:
                continue  # inside a larger deletion
            raise ValueError(f"overlapping deletions at {d.pos}")
        kept.append(d)
    ins = sorted((e for e in edits if e.end is None), key=lambda e: (e.pos, e.key))
    ops = sorted([(d.pos, 1, d) for d in kept] + [(i.pos, 0, i) for i in ins],
                 key=lambda t: (t[0], t[1]))
    out = []
    last = 0
    for pos, is_del, e in ops:
        if pos < last:
            raise ValueError(f"edit at {pos} falls inside a deletion")
        out.append(text[last:pos])
        if is_del:
            last = e.end
        else:
            out.append(e.text)
            last = pos
    out.append(text[last:])
    return "".join(out)


_INVALID_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def clean(s: str) -> str:
    """One line of text without characters XML 1.0 forbids."""
    return re.sub(r"\s+", " ", _INVALID_XML_CHARS.sub("", s)).strip()


def esc_text(s: str) -> str:
    return clean(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def esc_attr(s: str) -> str:
    return esc_text(s).replace('"', "&quot;")
