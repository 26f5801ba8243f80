"""Removing termqa's own earlier annotations, so that a re-run replaces them instead of adding more.

Each dialect module recognises what it writes (`strip(el, f, removal)`); this module walks the file
once, asks them, and turns what they queued into edits. Nothing written by anyone else is touched.
"""
from __future__ import annotations

from typing import Optional

from termqa.formats import splice
from termqa.formats.splice import Edit, Element

from . import its, memoq, sdlxliff, xliff1, xliff2
from .names import SDL_NS, TERMQA
from .place import XFile


class Removal:
    """What to remove: whole elements, unwrapped markers, attribute edits; and what was learnt."""

    def __init__(self, f: XFile):
        self.f = f
        self.edits: list[Edit] = []
        self.removed_ids: set = set()
        self.count = 0  # notes/comments removed
        self.dates: dict = {}  # first date of each comment we wrote, by its id, to keep on a re-write
        self.collapsible: list[Element] = []  # containers that may now hold nothing but ours
        self.sdl_cids: set = set()  # ids of the Trados comment definitions removed whole

    def remove(self, el: Element, *, counted: bool = True, collapse: bool = False) -> None:
        self.removed_ids.add(id(el))
        self.count += counted
        if collapse:
            self.collapsible.append(el.parent)

    def unwrap(self, el: Element) -> None:
        if el.empty:
            self.edits.append(Edit(el.start, end=el.end))
        else:
            self.edits.append(Edit(el.start, end=el.content_start))
            self.edits.append(Edit(el.content_end, end=el.end))

    def finish(self) -> list[Edit]:
        doc = self.f.doc
        # A <notes>/<cmt-defs>/<doc-info>/<mq:comments> left with nothing but whitespace was ours: remove it whole.
        for parent in self.collapsible:
            _collapse(doc, parent, self.removed_ids)
        for el in self.f.root.iter():
            if id(el) in self.removed_ids and (el.parent is None or id(el.parent) not in self.removed_ids):
                s, e = splice.removal_range(doc, el)
                self.edits.append(Edit(s, end=e))
        return self.edits


def strip(f: XFile) -> tuple[list[Edit], int, dict]:
    """Edits that remove termqa's own annotations; (edits, notes/comments removed, old comment dates)."""
    r = Removal(f)
    for el in f.root.iter():
        if sdlxliff.strip(el, f, r):
            continue
        # Everything else of ours carries "termqa" in its attributes: skip the rest without parsing them.
        if TERMQA not in el.raw_attrs:
            continue
        for recognise in (memoq.strip, xliff1.strip, xliff2.strip, its.strip):
            if recognise(el, f, r):
                break
    sdlxliff.strip_markers(f, r)
    return r.finish(), r.count, r.dates


def _collapse(doc, parent: Optional[Element], removed_ids: set) -> None:
    while parent is not None and id(parent) not in removed_ids and splice.only_space_besides(doc, parent, removed_ids):
        if not any(isinstance(c, Element) for c in parent.children):
            return  # an element that was empty to begin with is not ours to remove
        removed_ids.add(id(parent))
        if not (parent.parent is not None and parent.parent.is_(SDL_NS, "doc-info")):
            return
        parent = parent.parent
