"""What translators answered to termqa's notes, read back from the files they return.

A translator who disagrees with (or confirms) a flag answers where the CAT tool lets them: a note of
their own in the same unit (XLIFF 1.2 and 2.x, after termqa's), a memoQ comment on the segment, or a
reply in the thread of termqa's Trados comment (SDLXLIFF keeps a thread as further `<Comment>`s of
the same `<cmt-def>`). An answer that starts with "accept" (or "ok", "agree", "correct") accepts the
flag's rendering; "reject" (or "wrong", "error"), optionally followed by a label (A1-A7, C-H), rejects
it; anything else is a comment, reported and not applied. termqa's own notes are never read as answers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from termqa.errors import TermqaError
from termqa.formats.xmlsafe import local, parse_bytes
from termqa.labels import ERROR_CODES

from .names import MQ_NS, SDL_NS, TERMQA

_ACCEPT = re.compile(r"^\s*(accept(ed)?|ok(ay)?|agreed?|correct|fine)\b[\s:.,;!-]*", re.I)
_REJECT = re.compile(r"^\s*(reject(ed)?|wrong|error|disagree)\b[\s:.,;!-]*(?P<label>[A-H][1-7]?)?\b[\s:.,;!-]*", re.I)


@dataclass(frozen=True)
class Reply:
    doc_id: str
    unit_id: str
    seg_id: str  # "" when the answer is about the whole unit
    author: str
    date: str
    text: str
    decision: Optional[str]  # accept, reject, or None for a plain comment
    label: Optional[str] = None

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "unit_id": self.unit_id, "segment_id": self.seg_id, "author": self.author,
                "date": self.date, "text": self.text, "decision": self.decision, "label": self.label}


def parse_answer(text: str) -> tuple[Optional[str], Optional[str], str]:
    """(decision, label, the rest of the text as the comment) of a translator's answer."""
    m = _ACCEPT.match(text)
    if m:
        return "accept", None, text[m.end():].strip()
    m = _REJECT.match(text)
    if m:
        label = (m.group("label") or "").upper() or None
        return "reject", label if label in ERROR_CODES else None, text[m.end():].strip()
    return None, None, text.strip()


def _text(el) -> str:
    return " ".join("".join(el.itertext()).split())


def read_replies(path: str) -> list[Reply]:
    """Answers to termqa's notes in one XLIFF file (empty when termqa never annotated it)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise TermqaError(f"{path}: cannot be read: {exc.strerror}") from None
    if TERMQA.encode() not in data:
        return []
    root = parse_bytes(data, path)
    files = [el for el in root if isinstance(el.tag, str) and local(el.tag) == "file"]
    out: list[Reply] = []
    comments = _sdl_threads(root)
    for k, f in enumerate(files, 1):
        doc_id = path if len(files) == 1 else f"{path}#{k}"
        for unit in f.iter():
            if not isinstance(unit.tag, str) or local(unit.tag) not in ("trans-unit", "unit"):
                continue
            uid = unit.get("id") or ""
            out += _note_answers(doc_id, uid, unit)
            out += _memoq_answers(doc_id, uid, unit)
            for mrk in unit.iter():
                if isinstance(mrk.tag, str) and local(mrk.tag) == "mrk" and mrk.get("mtype") == "x-sdl-comment":
                    thread = comments.get(mrk.get(f"{{{SDL_NS}}}cid") or "")
                    if thread:
                        seg = next((a.get("mid") for a in mrk.iterancestors()
                                    if isinstance(a.tag, str) and local(a.tag) == "mrk" and a.get("mtype") == "seg"), "")
                        out += [_reply(doc_id, uid, seg or "", *c) for c in thread]
    return out


def _reply(doc_id: str, unit_id: str, seg_id: str, author: str, date: str, text: str) -> Reply:
    decision, label, _rest = parse_answer(text)
    return Reply(doc_id, unit_id, seg_id, author, date, text, decision, label)


def _note_answers(doc_id: str, uid: str, unit) -> list[Reply]:
    """Notes of others after termqa's note in a unit (XLIFF 1.2 <note>, XLIFF 2 <notes><note>)."""
    notes = []
    for el in unit:
        if not isinstance(el.tag, str):
            continue
        if local(el.tag) == "note":
            notes.append(el)
        elif local(el.tag) == "notes":
            notes += [n for n in el if isinstance(n.tag, str) and local(n.tag) == "note"]
    ours = [n for n in notes if n.get("from") == TERMQA or n.get("category") == TERMQA]
    if not ours:
        return []
    after = notes[notes.index(ours[0]) + 1:]
    return [_reply(doc_id, uid, "", n.get("from") or n.get("category") or "", "", _text(n))
            for n in after if n not in ours and _text(n)]


def _memoq_answers(doc_id: str, uid: str, unit) -> list[Reply]:
    comments = [c for c in unit.iter(f"{{{MQ_NS}}}comment")]
    if not any(c.get("creatoruser") == TERMQA for c in comments):
        return []
    return [_reply(doc_id, uid, "", c.get("creatoruser") or "", c.get("time") or "", _text(c))
            for c in comments if c.get("creatoruser") != TERMQA and c.get("deleted") != "true" and _text(c)]


def _sdl_threads(root) -> dict[str, list[tuple[str, str, str]]]:
    """cmt-def id -> the answers (user, date, text) that follow termqa's comment in its thread."""
    out = {}
    for d in root.iter(f"{{{SDL_NS}}}cmt-def"):
        thread = list(d.iter(f"{{{SDL_NS}}}Comment"))
        if thread and thread[0].get("user") == TERMQA:
            answers = [(c.get("user") or "", c.get("date") or "", _text(c)) for c in thread[1:]
                       if c.get("user") != TERMQA and _text(c)]
            if answers:
                out[d.get("id") or ""] = answers
    return out
