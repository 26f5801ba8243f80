"""Streaming reads of big XML files (lxml iterparse), for readers that must not hold the whole tree.

The parser settings are formats.xmlsafe's (no entities, no DTD, no network); the caller refuses a
prolog that declares entities first (`xmlsafe.refuse_entities`). Errors become one-line InputErrors,
as the tree parser's do. Readers walk the `start`/`end` events, hand each unit to their per-unit
code at its `end` event and then `drop` it, so the tree never holds more than the unit being read
(and the empty shells of the elements still open).

`outline` is a cheaper pass for what a reader must know before its first unit and that a single
pass cannot promise (how many `<file>` elements there are, a language or a namespace declared only
further on): it builds no tree at all.
"""
from __future__ import annotations

from typing import Iterator

from termqa.errors import InputError

from . import xmlsafe


def events(path: str, names: tuple[str, ...] = ()) -> Iterator[tuple[str, object]]:
    """("start" | "end", element) for every element of the file, in document order; with `names`,
    only for elements of those local names (in any namespace: the caller compares full tags).

    The tree is built whole either way: `names` only spares a Python event for every other element
    (a unit's source, target and inline codes), a third of the time of a streamed read. A reader
    that uses it must look at `getparent()`: between two elements it sees may stand one it does not.
    """
    from lxml import etree

    tag = [f"{{*}}{n}" for n in names] or None
    try:
        yield from etree.iterparse(path, events=("start", "end"), tag=tag, **xmlsafe.PARSER_SETTINGS)
    except etree.XMLSyntaxError as exc:
        raise InputError(path, f"is not well-formed XML: {xmlsafe.syntax_message(exc)}") from None
    except (ValueError, LookupError) as exc:  # unknown encoding names and the like
        raise InputError(path, f"cannot be decoded: {exc}") from None


def root_start(stream: Iterator[tuple[str, object]], path: str):
    """The root element (attributes and namespaces, no children yet): the stream's first event."""
    for _event, el in stream:
        return el
    raise InputError(path, "has no root element")


def drain(stream: Iterator[tuple[str, object]]) -> None:
    """Parse the rest of the file without reading it: a file that is not well-formed is reported as
    such before any other error, as the tree reader (which parses everything first) does."""
    for _event, el in stream:
        if _event == "end":
            drop(el)


def drop(el) -> None:
    """Free an element whose `end` event was handled: its content, and the siblings read before it."""
    el.clear(keep_tail=False)
    parent = el.getparent()
    if parent is not None:
        while el.getprevious() is not None:
            del parent[0]


class Child:
    """A child of the root element as `outline` saw it: its tag and attributes, the namespaces
    declared on it, and the first `xml:lang` of some descendant tags (by full tag)."""

    __slots__ = ("tag", "attrib", "uris", "first_lang")

    def __init__(self, tag: str, attrib: dict, uris: tuple[str, ...]):
        self.tag, self.attrib, self.uris = tag, attrib, uris
        self.first_lang: dict[str, str] = {}

    def get(self, name: str, default=None):
        return self.attrib.get(name, default)


class Outline:
    """The root element's tag, attributes and namespaces, and its element children (`Child`)."""

    def __init__(self) -> None:
        self.tag = ""
        self.attrib: dict = {}
        self.uris: tuple[str, ...] = ()
        self.children: list[Child] = []


class _Target:
    """lxml parser target: records the root, its children and the first xml:lang under each child of
    the elements named `lang_names` in the root's namespace; builds no elements."""

    def __init__(self, lang_names: tuple[str, ...]) -> None:
        self.out = Outline()
        self.depth = 0
        self.lang_names = lang_names
        self.lang_tags: frozenset[str] = frozenset()
        self._declared: list[str] = []  # namespaces declared on the element about to start

    def start_ns(self, prefix, uri) -> None:
        # lxml reports an element's namespace declarations here, before its start; with start_ns defined
        # (and in lxml 6 in any case) the `nsmap` given to start() is empty, so it alone would lose them
        self._declared.append(uri)

    def start(self, tag, attrib, nsmap=None) -> None:
        self.depth += 1
        uris = tuple(dict.fromkeys([*(nsmap or {}).values(), *self._declared]))
        self._declared = []
        if self.depth == 1:
            self.out.tag, self.out.attrib, self.out.uris = tag, dict(attrib), uris
            uri = xmlsafe.ns(tag)
            self.lang_tags = frozenset(f"{{{uri}}}{n}" if uri else n for n in self.lang_names)
        elif self.depth == 2:
            self.out.children.append(Child(tag, dict(attrib), uris))
        elif tag in self.lang_tags:
            child = self.out.children[-1]
            lang = attrib.get(xmlsafe.XML_LANG)
            if lang and tag not in child.first_lang:
                child.first_lang[tag] = lang

    def end(self, tag) -> None:
        self.depth -= 1

    def close(self) -> Outline:
        return self.out


def outline(path: str, lang_names: tuple[str, ...] = ()) -> Outline:
    """The root and its children (see Outline) from one pass over the file that builds no tree;
    `lang_names`: local names (in the root's namespace) whose first xml:lang is kept per child."""
    from lxml import etree

    parser = etree.XMLParser(target=_Target(tuple(lang_names)), **xmlsafe.PARSER_SETTINGS)
    try:
        out = etree.parse(path, parser)
    except etree.XMLSyntaxError as exc:
        raise InputError(path, f"is not well-formed XML: {xmlsafe.syntax_message(exc)}") from None
    except (ValueError, LookupError) as exc:
        raise InputError(path, f"cannot be decoded: {exc}") from None
    if not out.tag:
        raise InputError(path, "has no root element")
    return out


def root_of(path: str):
    """The root element of a file, read from the head of a streaming parse (the rest is not read)."""
    stream = events(path)
    try:
        return root_start(stream, path)
    finally:
        stream.close()
