"""Where a segment's plain text is not words: markup, format syntax and boundaries.

The readers keep text as the file has it, so a target can hold tags (in CDATA, escaped as `&lt;b&gt;`,
in a `datatype="html"` unit or not), ICU message syntax (`{count, plural, one {...} other {...}}`),
Symfony's plural variants (`{0} none|{1} one|]1,Inf] many`) and placeholders (`%count%`,
`{{ limit }}`, `{0}`, `%s`). None of that is a word of the language: a tag name ("bold") or an
attribute ("href", "class") is never an occurrence or a rendering, and a rendering never runs across a
plural separator or a word-breaking inline code (formats.inline leaves U+2028 there).

`nonword_spans(text)` gives the spans; the lemmatiser turns every token in them into punctuation (which
every matching pass and the rendering miner treat as a break: they never run across one) and adds a
punctuation token for each boundary no token covers (U+2028 is whitespace to the tokenisers). Offsets
are the text's own: nothing is removed or inserted, so spans and write-back stay exact.
"""
from __future__ import annotations

import re

SEP = "\u2028"  # formats.inline.SEP: a word-breaking inline code (kept equal; no import from formats)

_NAME = r"[A-Za-z_][\w:.-]*"
# an attribute value (quoted or bare) or just a name: all of it is markup
_ATTR = r"""(?:\s+[A-Za-z_:][\w:.-]*(?:\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>=`]+))?)"""
_EATTR = r"""(?:\s+[A-Za-z_:][\w:.-]*(?:\s*=\s*(?:&quot;.*?&quot;|"[^"<>]*"|'[^'<>]*'|[^\s"'<>=&]+))?)"""

_SPANS = re.compile(
    "|".join((
        rf"</?{_NAME}{_ATTR}*\s*/?>",  # a tag as written: <b>, </b>, <br/>, <a href="x">
        rf"&lt;/?{_NAME}{_EATTR}*\s*/?&gt;",  # a tag escaped once more: &lt;table&gt;
        r"<!--.*?-->|<!\[CDATA\[|\]\]>",
        r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#x[0-9a-fA-F]+);",  # an entity left as text: &nbsp;
        # ICU: the head of a plural/select and, inside one, each branch's selector
        r"\{\s*[\w.]+\s*,\s*(?:plural|select|selectordinal)\s*,(?:\s*offset:\s*\d+)?",
        # an ICU argument with a format: {status_code, number}, {d, date, short}
        r"\{\s*[\w.]+\s*,\s*(?:number|date|time|spellout|ordinal|duration)\s*(?:,[^{}]*)?\}",
        # Symfony plural variants: the separator and an interval or exact count opening a variant
        r"(?:(?<=\|)|^)\s*(?:\{\s*-?\d+(?:\s*,\s*-?\d+)*\s*\}|[\[\]]\s*-?(?:\d+|Inf)\s*,\s*\+?-?(?:\d+|Inf)\s*[\[\]])",
        r"[.!?;:\u2026]+(?=\|)|\|",  # a sentence end glued to the separator is cut off too
        # placeholders: {{ limit }}, %count%, {0}/{name}, printf
        r"\{\{[^{}]*\}\}|%[A-Za-z_][\w.]*%|\{[\w.]+\}|%(?:\d+\$)?[-+ 0#]*\d*(?:\.\d+)?[sdifuxXc@]\b",
        SEP,
    )),
    re.DOTALL,
)
_ICU_HEAD = re.compile(r"\{\s*[\w.]+\s*,\s*(?:plural|select|selectordinal)\s*,")
_ICU_SELECTOR = re.compile(r"(?:=\s*-?\d+|[A-Za-z_][\w-]*)\s*(?=\{)")
# Text that may hold any of the above: most segments hold none and cost one search.
_MAYBE = re.compile(r"[<&|{}%\[\]\u2028]")


def may_have(text: str) -> bool:
    """Could `text` hold a span of `nonword_spans` (one cheap search)?"""
    return _MAYBE.search(text) is not None


def nonword_spans(text: str) -> list[tuple[int, int]]:
    """Sorted, non-overlapping [start, end) spans of `text` that are markup, syntax or boundaries."""
    if not _MAYBE.search(text):
        return []
    spans = [m.span() for m in _SPANS.finditer(text) if m.end() > m.start()]
    if "{" in text and _ICU_HEAD.search(text):
        sel = _icu_selectors(text)
        # a branch of one word ("other {other}") is text, not a {name} placeholder
        after = {len(text[:y]) + len(text[y:]) - len(text[y:].lstrip()) for _, y in sel}
        spans = [(x, y) for x, y in spans if not (x in after and text[x] == "{" and text[y - 1] == "}"
                                                   and "{" not in text[x + 1:y - 1])]
        spans.extend(sel)
        spans.sort()
    return spans


def _icu_selectors(text: str) -> list[tuple[int, int]]:
    """The selectors of ICU branches (`one`, `=0`, `other`, `male`): a word right before a `{` that
    opens a branch, at brace depth one or more inside a plural/select message."""
    out = []
    for head in _ICU_HEAD.finditer(text):
        depth, i = 1, head.end()
        while i < len(text) and depth:
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif depth == 1:
                m = _ICU_SELECTOR.match(text, i)
                if m:
                    out.append((m.start(), m.end()))
                    i = m.end()
                    continue
            i += 1
    return out

