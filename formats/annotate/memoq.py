"""memoQ MQXLIFF: memoQ's own comment instead of a note,

    <mq:comments><mq:comment id=GUID creatoruser="termqa" time=UTC deleted="false" category="0"
    appliesto="Target" origin="User">

as the trans-unit's last child (or appended to the unit's existing `<mq:comments>`). The XLIFF elements
stay unprefixed (memoQ rejects prefixed XLIFF elements). A unit whose `<mq:comments>` is empty gets a
note. ITS markup, when asked for, is written as in plain XLIFF 1.2.
"""
from __future__ import annotations

from datetime import timezone
from typing import Optional

from termqa.formats.splice import Element, esc_attr, esc_text

from .names import MQ_NS, TERMQA
from .notes import Annotation
from .place import XFile, guid
from .xliff1 import Xliff1Writer


class MemoqWriter(Xliff1Writer):
    def comment_channel(self, unit: Element) -> Optional[tuple[str, Optional[Element]]]:
        """(mq prefix, existing <mq:comments> to append to or None) when the unit gets memoQ comments.

        None (plain XLIFF notes instead) where memoQ's namespace is not declared, and when the unit's
        <mq:comments> has no comment in it: appending into an element we did not create and that has
        nothing else in it could not be told apart from our own block on the next run.
        """
        p = unit.prefix_for(MQ_NS)
        if not p:
            return None
        existing = next((k for k in unit.elements() if k.is_(MQ_NS, "comments")), None)
        if existing is not None and not any(True for _ in existing.elements()):
            return None
        return p, existing

    def comment(self, channel: tuple, doc_key: str, a: Annotation, i: int, text: str) -> str:
        # Shape of memoQ's own segment comments (see tests/test_annotate.py for the real file it
        # follows): a GUID id, the author, a UTC time to the second, a live (not deleted) comment of
        # the default category that applies to the target, entered by a user.
        p = channel[0]
        cid = guid(doc_key, a, i)
        t = self.dates.get(cid) or f"{self.now.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%SZ}"
        return (f'<{p}:comment id="{cid}" creatoruser="{TERMQA}" time="{esc_attr(t)}" deleted="false" '
                f'category="0" appliesto="Target" origin="User">{esc_text(text)}</{p}:comment>')

    def add_comments(self, unit: Element, channel: tuple, comments: list[str]) -> None:
        p, existing = channel
        if existing is not None:
            self.append_child(existing, comments)
            return
        # A new <mq:comments> as the unit's last child, where memoQ writes it (after its other mq:
        # elements, so after every XLIFF element too, as the 1.2 schema wants for foreign elements).
        last = list(unit.elements())[-1] if any(True for _ in unit.elements()) else None
        block = self.block(unit, last, f"{p}:comments", comments, step="")
        if last is not None:
            self.insert_after(last, [block], last)
        else:
            self.append_child(unit, [block])


def strip(el: Element, f: XFile, r) -> bool:
    """Recognise memoQ comments by creatoruser "termqa"; their first time is kept for a re-write."""
    if el.local == "comment" and el.ns == MQ_NS and el.get("creatoruser") == TERMQA:
        r.remove(el, collapse=True)  # an <mq:comments> holding only ours was written by us
        r.dates[el.get("id")] = el.get("time")
        return True
    return False
