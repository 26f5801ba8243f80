"""Rendering boundaries: a rendering is a phrase, and a phrase never runs across a sentence end, a line
break, a word-breaking inline code (U+2028, see formats.inline), a plural or variant separator (Symfony
`|`, an ICU branch), or markup.

Mined renderings are n-grams of tokens, and the lemmatiser makes every such boundary but the line feed
a punctuation token, which ends an n-gram (termqa.lang.markup); `crosses_line` covers the line feed,
which stays whitespace so a term wrapped in the file's text is still found in the source. A rendering
the judge copies from the target is a character span: `crossing` names what it runs across.
"""
from __future__ import annotations

import re
from typing import Optional

from termqa.lang import markup

# a sentence end inside a span: a stop (Latin or CJK) followed by more of the span that starts with a
# capital letter after whitespace, or any CJK full stop with text after it
_SENTENCE = re.compile(r"[.!?\u2026]\s+(?=[^\W\d_])|[\u3002\uff01\uff1f](?=.)", re.DOTALL)


def crosses_line(text: str, start: int, end: int) -> bool:
    """Does text[start:end] hold a line feed (a line break as written in the text)?"""
    return "\n" in text[start:end]


def crossing(text: str, start: int, end: int) -> Optional[str]:
    """What text[start:end] runs across, in a translator's words, or None when it is one phrase."""
    piece = text[start:end]
    if "\n" in piece or "\r" in piece:
        return "a line break"
    if markup.SEP in piece:
        return "an inline code between words"
    for x, y in markup.nonword_spans(text):
        if x < end and start < y:
            sep = "|" in text[x:y] or text[y:y + 1] == "|"
            return "a plural separator" if sep else "markup or a placeholder"
    for m in _SENTENCE.finditer(piece):
        nxt = piece[m.end():m.end() + 1]
        if m.group().strip() in "\u3002\uff01\uff1f" or nxt.isupper():
            return "a sentence end"
    return None
