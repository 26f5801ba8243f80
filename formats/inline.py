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
"""
from __future__ import annotations

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
    parts: list[str] = []
    codes: list[InlineCode] = []
    # None: any namespace; "": only elements without one; else only elements in that namespace.
    prefix = None if namespace is None else ("{" + namespace + "}" if namespace else "")
    _walk(elem, table, default, prefix, data_for, parts, codes, 0)
    return "".join(parts), tuple(codes)


def _walk(elem, table, default, prefix, data_for, parts, codes, pos) -> int:
    """Append `elem`'s content to `parts`/`codes`; `pos` is the running plain-text length, returned."""
    text = elem.text
    if text:
        parts.append(text)
        pos += len(text)
    for child in elem:
        tag = child.tag
        if isinstance(tag, str):  # comments and PIs have a function as tag: skipped, tail kept
            name = _local(tag)
            if prefix is not None and (tag.startswith("{") if not prefix else not tag.startswith(prefix)):
                category, role = default, OPEN
            else:
                category, role = table.get(name, (default, OPEN))
            if category == CONTAINER or category == SUB:
                cid = child.get("id")
                codes.append(InlineCode(pos, name, OPEN, cid))
                pos = _walk(child, table, default, prefix, data_for, parts, codes, pos)
                codes.append(InlineCode(pos, name, CLOSE, cid))
            elif category == CHAR:
                ch = _char(child)
                if ch:
                    parts.append(ch)
                    pos += 1
            else:
                if role == POS:
                    role = _POS_ROLE.get(child.get("pos", ""), STANDALONE)
                if category == NATIVE:
                    data = native_text(child)
                else:
                    data = data_for(child) if data_for is not None else ""
                codes.append(InlineCode(pos, name, role, _code_id(child), data or ""))
        tail = child.tail
        if tail:
            parts.append(tail)
            pos += len(tail)
    return pos
