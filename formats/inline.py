"""Flatten an element's mixed content into plain text plus the inline codes taken out of it.

Shared by the XLIFF 1.2, XLIFF 2 and TMX readers. Stable API:

    flatten(elem, table, *, default=CONTAINER, namespace=None, data_for=None)
        -> (plain_text: str, codes: tuple[InlineCode, ...])

`elem` is the element whose *content* is read (a `<source>`, `<target>`, `<seg>`, `<mrk mtype="seg">`);
the element itself is not a code. `table` maps a child's local name to `(category, role)`:

    CONTAINER  its text is content; emits an `open` code where it starts and a `close` code where it
               ends (`g`, `mrk`, `pc`, XLIFF 2 `mrk`). Role is ignored.
    NATIVE     its inner text is native code (`bpt`, `ept`, `ph`, `it` in XLIFF 1.2 and TMX): it never
               reaches the plain text; it becomes the code's `data`, `<sub>` text included.
    EMPTY      a placeholder with no content (`x`, `bx`, `ex`, XLIFF 2 `ph`, `sc`, `ec`, `sm`, `em`).
    CHAR       a character reference: the code point in its `hex` attribute IS text (XLIFF 2 `cp`).
    SUB        `sub` met outside a code (invalid): read as a container.

Roles: `open`, `close`, `standalone`, or `POS` to take it from the `pos` attribute (`open`/`begin`
-> open, `close`/`end` -> close), as XLIFF 1.2 and TMX `it` do.

A code's `id` is its `id` attribute, else `startRef` (XLIFF 2 `ec`/`em`), else `rid`.
Elements missing from the table, or (when `namespace` is given) in another namespace, are read as
`default` (a transparent container by default). Comments and processing instructions are skipped but
their tails are kept. Offsets are characters of the returned plain text. `data_for(elem)`, when
given, supplies the data of EMPTY codes (XLIFF 2 `dataRef` into `originalData`).

Codes as word boundaries. A code that stands between two words is not nothing: "allow you<x/>to
list" read as "youto" loses both words. So the plain text holds a stand-in where a code sits
(`stand_in` decides, `settle` places; the write-back's `annotate.place.PlainMap` uses the same two, so
offsets agree byte for byte with the file):
  - a placeholder whose `equiv-text`/`equiv`/`disp` is one visible character (an apostrophe, a
    hyphen, a letter from an entity) stands for that character: "We<ph equiv="'"/>re" -> "We're";
  - a line break (`ctype="lb"`, `subType="xlf:lb"`, Angular's `LINE_BREAK`, an equiv of `<br>` or a
    newline) is always `SEP`, unless a separator or line end already stands next to it;
  - any other placeholder, and the edges of `g`/`pc` and paired codes (`bx`/`ex`, `bpt`/`ept`,
    `sc`/`ec`, `it`), become `SEP` only where they would glue two word characters (letters, digits);
    beside a space or punctuation they add nothing, so text around codes reads as it always did;
  - markers (`mrk`, `sm`/`em`), `sub` and unknown elements are transparent: no boundary.
Tracked changes (Trados SDLXLIFF). A deleted revision (`<mrk mtype="x-sdl-deleted">`, and the deleted
text of a review's feedback, `x-sdl-feedback-deleted`) is text the translation no longer holds: its
content is left out of the plain text, with no code and no stand-in (the text reads as if the deletion
were accepted; `annotate.place.PlainMap` skips it alike). An inserted revision (`x-sdl-added`) is a
transparent marker: its text is target text.
`SEP` is U+2028 LINE SEPARATOR: whitespace to every tokeniser (the words on either side are words),
shown as a line break, and a character no reader otherwise produces, so the lemmatiser can make it a
boundary token that no term match and no mined rendering crosses (termqa.lang.markup). The code's
`offset` is where its stand-in starts; the stand-in itself never reaches the file on write-back.
"""
from __future__ import annotations

import html
from typing import Callable, Optional

from termqa.model import InlineCode

CONTAINER = "container"
NATIVE = "native"
EMPTY = "empty"
CHAR = "char"
SUB = "sub"
POS = "pos"

OPEN = "open"
CLOSE = "close"
STANDALONE = "standalone"

XLIFF12 = {
    "g": (CONTAINER, OPEN),
    "mrk": (CONTAINER, OPEN),
    "x": (EMPTY, STANDALONE),
    "bx": (EMPTY, OPEN),
    "ex": (EMPTY, CLOSE),
    "bpt": (NATIVE, OPEN),
    "ept": (NATIVE, CLOSE),
    "ph": (NATIVE, STANDALONE),
    "it": (NATIVE, POS),
    "sub": (SUB, OPEN),
}

TMX = {
    "bpt": (NATIVE, OPEN),
    "ept": (NATIVE, CLOSE),
    "ph": (NATIVE, STANDALONE),
    "it": (NATIVE, POS),
    "ut": (NATIVE, STANDALONE),  # deprecated in TMX 1.4 but still written by old tools
    "hi": (CONTAINER, OPEN),
    "sub": (SUB, OPEN),
}

XLIFF2 = {
    "pc": (CONTAINER, OPEN),
    "mrk": (CONTAINER, OPEN),
    "ph": (EMPTY, STANDALONE),
    "sc": (EMPTY, OPEN),
    "ec": (EMPTY, CLOSE),
    "sm": (EMPTY, OPEN),
    "em": (EMPTY, CLOSE),
    "cp": (CHAR, STANDALONE),
}

_POS_ROLE = {"open": OPEN, "begin": OPEN, "close": CLOSE, "end": CLOSE}

SEP = "\u2028"  # what a word-breaking code leaves in the plain text (see the module docstring)

# Elements that never break a word: annotations and segment markers, not codes of the original.
_TRANSPARENT = frozenset(("mrk", "sm", "em", "sub", "hi"))  # hi: TMX highlighting
# mrk types whose content is deleted text (see the module docstring), and the ones of inserted text
DELETED_MARKS = frozenset(("x-sdl-deleted", "x-sdl-feedback-deleted"))
REVISION_MARKS = DELETED_MARKS | {"x-sdl-added", "x-sdl-feedback-added"}
_BR = frozenset(("<br>", "<br/>", "<br />", "\n", "\r\n", "&lt;br/&gt;", "&lt;br&gt;"))


class Stand:
    """What a code stands for in the plain text, before its neighbours are known: `char`, a visible
    character it always stands for, or a break (`line`: a line break, a boundary even beside spaces)."""

    __slots__ = ("char", "line")

    def __init__(self, char: str = "", line: bool = False):
        self.char = char
        self.line = line


def stand_in(name: str, category: str, get: Callable[[str], Optional[str]]) -> Optional[Stand]:
    """The stand-in of an inline element (local name, its table category, an attribute getter by local
    name, no namespace), or None when it is transparent (never a word boundary)."""
    if name in _TRANSPARENT or category == SUB or category == CHAR:
        return None
    equiv = get("equiv-text") or get("equiv") or get("disp")
    if equiv is not None:
        eq = html.unescape(equiv) if "&" in equiv else equiv
        if len(eq) == 1 and not eq.isspace():
            return Stand(char=eq)
    said = [v for v in (get("equiv-text"), get("equiv"), get("disp"), get("id")) if v]
    line = (get("ctype") in ("lb", "x-lb") or (get("subType") or "").endswith(":lb")
            or any(v.upper().startswith("LINE_BREAK") or v.strip().lower() in _BR or not v.strip() for v in said))
    return Stand(line=line)


def settle(items) -> list:
    """`items`: text pieces (str) and Stands in document order. Returns them with each Stand replaced
    by the text it leaves in the plain text ("" when nothing: beside whitespace, at either end)."""
    out = list(items)
    prev = ""
    n = len(out)
    for i, it in enumerate(out):
        if isinstance(it, str):
            if it:
                prev = it[-1]
            continue
        if it.char:
            out[i] = prev = it.char
            continue
        nxt = ""
        for j in range(i + 1, n):  # the items after i are not replaced yet
            later = out[j]
            if isinstance(later, str):
                if later:
                    nxt = later[0]
                    break
            elif later.char:
                nxt = later.char
                break
        if not prev or not nxt or prev == SEP or nxt == SEP:
            out[i] = ""
        elif it.line:
            out[i] = "" if prev in "\n\r" or nxt in "\n\r" else SEP
        else:
            # only between two word characters: beside punctuation the tokenisers split already
            out[i] = SEP if prev.isalnum() and nxt.isalnum() else ""
        if out[i]:
            prev = out[i]
    return out


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _code_id(el) -> Optional[str]:
    return el.get("id") or el.get("startRef") or el.get("rid")


def native_text(el) -> str:
    """All text inside a code element (its `sub`s included), comments and PIs left out."""
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str):
            parts.append(native_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _char(el) -> str:
    try:
        return chr(int(el.get("hex", ""), 16))
    except (ValueError, OverflowError):
        return ""  # an invalid cp: nothing to add; the schema check of the caller reports it


def flatten(
    elem,
    table: dict,
    *,
    default: str = CONTAINER,
    namespace: Optional[str] = None,
    data_for: Optional[Callable[[object], str]] = None,
) -> tuple[str, tuple[InlineCode, ...]]:
    """Plain text of `elem`'s content and the codes removed from it (see the module docstring)."""
    # Fast path: most segments are plain text without any child element.
    if len(elem) == 0:
        return elem.text or "", ()
    items: list = []  # text pieces and Stands
    marks: list = []  # (index into items where the code stands, code fields)
    # None: any namespace; "": only elements without one; else only elements in that namespace.
    prefix = None if namespace is None else ("{" + namespace + "}" if namespace else "")
    _walk(elem, table, default, prefix, data_for, items, marks)
    if not marks:
        return "".join(items), ()
    pieces = settle(items)
    starts = [0]
    for x in pieces:
        starts.append(starts[-1] + len(x))
    codes = tuple(InlineCode(starts[k], *fields) for k, fields in marks)
    return "".join(pieces), codes


def _walk(elem, table, default, prefix, data_for, items, marks) -> None:
    """Append `elem`'s content to `items` (text and Stands) and its codes to `marks`."""
    if elem.text:
        items.append(elem.text)
    for child in elem:
        tag = child.tag
        if isinstance(tag, str):  # comments and PIs have a function as tag: skipped, tail kept
            name = _local(tag)
            if name == "mrk" and child.get("mtype") in DELETED_MARKS:  # a deleted revision: not text
                if child.tail:
                    items.append(child.tail)
                continue
            foreign = prefix is not None and (tag.startswith("{") if not prefix else not tag.startswith(prefix))
            if foreign:
                category, role = default, OPEN
            else:
                category, role = table.get(name, (default, OPEN))
            stand = None if foreign or name not in table else stand_in(name, category, _getter(child))
            if category == CONTAINER or category == SUB:
                cid = child.get("id")
                marks.append((len(items), (name, OPEN, cid)))
                if stand is not None:
                    items.append(stand)
                _walk(child, table, default, prefix, data_for, items, marks)
                marks.append((len(items), (name, CLOSE, cid)))
                if stand is not None:
                    items.append(Stand())  # the closing edge: a boundary, never a character
            elif category == CHAR:
                ch = _char(child)
                if ch:
                    items.append(ch)
            else:
                if role == POS:
                    role = _POS_ROLE.get(child.get("pos", ""), STANDALONE)
                if category == NATIVE:
                    data = native_text(child)
                else:
                    data = data_for(child) if data_for is not None else ""
                marks.append((len(items), (name, role, _code_id(child), data or "")))
                if stand is not None:
                    items.append(stand)
        if child.tail:
            items.append(child.tail)


def _getter(el) -> Callable[[str], Optional[str]]:
    """Attribute by local name, unprefixed only (equiv-text, ctype, subType, id, ...)."""
    return el.attrib.get
