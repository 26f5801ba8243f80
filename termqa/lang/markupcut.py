"""Cutting tokens at markup: markup glued to a word by the tokenizer ("Change</Affiliation") and the
spans `termqa.lang.markup` finds (tags, entities, placeholders, boundaries) become punctuation tokens,
with exact offsets. The lemmatiser's hook after tokenising; `analyse` is its word -> pieces function."""
from __future__ import annotations

import re
from typing import Callable

from termqa.lang import markup
from termqa.lang.fold import exact_key, loose
from termqa.lang.tokens import Piece, Token, make_token

Analyse = Callable[[str], tuple]  # a word -> its pieces (Lemmatiser._analyse)

# Markup that real segment text carries glued to words: tags written out or escaped
# ("&lt;Affiliation&gt;Minister of Climate Change&lt;/Affiliation&gt;"), slashes, brackets. spaCy
# keeps "Change</Affiliation" as one token: a token that holds any of these is cut at them, and the
# marks become punctuation tokens (offsets stay exact; tokens without markup are spaCy's).
MARKUP = re.compile(r"&(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);|[<>/\\\[\]{}()]")


def sep_piece(text: str, start: int) -> Piece:
    surface = loose(text)
    return (text, start, start + len(text), text, surface, False, True, (surface, surface, exact_key(text)))


def touches(seps, a: int, b: int, text: str = "") -> bool:
    """Does markup stand inside or across the token [a, b) (not the token being exactly one mark)?

    A web address stays whole: the words between its slashes are not terms of the text.
    """
    if text and _URL.match(text):
        return False
    return any(x < b and a < y and not (x == a and y == b) for x, y in seps)


_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.)\S", re.IGNORECASE)


def unmark(text: str, toks: tuple[Token, ...], analyse: Analyse) -> tuple[Token, ...]:
    """`toks` with markup, format syntax and boundaries made punctuation (`termqa.lang.markup`):
    tokens inside a span become one punctuation token, tokens across one are cut at it, and a
    boundary no token covers (a word-breaking inline code) gets a punctuation token of its own."""
    spans = markup.nonword_spans(text)
    if not spans:
        return toks
    out: list[Token] = []
    covered = set()
    k = 0
    for tok in toks:
        a, b = tok.start, tok.end
        while k < len(spans) and spans[k][1] <= a:
            k += 1
        hit = [(x, y) for x, y in spans[k:] if x < b and a < y] if k < len(spans) and spans[k][0] < b else []
        if not hit:
            out.append(tok)
            continue
        covered.update(hit)
        if any(x <= a and b <= y for x, y in hit):
            out.append(make_token(Token, sep_piece(tok.text, a)))
        else:
            out.extend(make_token(Token, p) for p in cut(tok.text, a, hit, analyse))
    gaps = [(x, y) for x, y in spans if (x, y) not in covered and text[x:y].strip()]
    gaps += [(x, y) for x, y in spans if text[x:y] == markup.SEP and (x, y) not in covered]
    if gaps:
        out.extend(make_token(Token, sep_piece(text[x:y], x)) for x, y in gaps)
        out.sort(key=lambda t: t.start)
    return tuple(out)


def cut(word: str, start: int, seps, analyse: Analyse) -> list[Piece]:
    """Pieces of a token that touches markup, with absolute offsets: markup pieces are punctuation."""
    end = start + len(word)
    cuts = sorted({start, end} | {x for a, b in seps for x in (a, b) if start < x < end})
    out = []
    for a, b in zip(cuts, cuts[1:]):
        piece = word[a - start:b - start]
        if any(x <= a and b <= y for x, y in seps):
            out.append(sep_piece(piece, a))
        else:
            out.extend((p[0], p[1] + a, p[2] + a) + p[3:] for p in analyse(piece))
    return out
