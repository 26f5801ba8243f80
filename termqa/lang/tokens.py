"""`Token`, the word or punctuation mark every text is turned into, and `Piece`, the plain tuple of its
fields that the lemmatiser caches and the analyses cache stores. Separate so that the lemmatiser, the markup
cutting and the stores share the record without importing one another."""
from __future__ import annotations

from operator import itemgetter


class Token(tuple):
    """One word or punctuation mark of a text. Immutable.

    A tuple underneath, not a frozen dataclass: a run makes one per word of every text it reads (two
    million on a 1M-word project), and a tuple is made much faster. Fields by name as below;
    `keys` is derived from the others and left out of equality and hashing, as are two tokens' types:
    a token equals another with the same first seven fields.
    """

    __slots__ = ()
    _fields = ("text", "start", "end", "lemma", "key", "article", "punct", "keys")

    def __new__(cls, text: str, start: int, end: int, lemma: str, key: str, article: bool, punct: bool,
                keys: tuple = ()):
        return tuple.__new__(cls, (text, start, end, lemma, key, article, punct, keys))

    text = property(itemgetter(0), doc="surface text as in the input")
    start = property(itemgetter(1), doc="char offset in the input text")
    end = property(itemgetter(2), doc="char offset in the input text, end-exclusive")
    lemma = property(itemgetter(3), doc="lemma, lowercased (surface lowercased when unknown)")
    key = property(itemgetter(4), doc="loose(lemma) without hyphens: what matching compares")
    article = property(itemgetter(5), doc="article / determiner / elided or contracted article of this language")
    punct = property(itemgetter(6), doc="punctuation / symbols only")
    keys = property(itemgetter(7), doc="(key, loose surface, exact key): what matching looks a word up by")

    def __eq__(self, other):
        if not isinstance(other, Token):
            return NotImplemented
        return self[:7] == other[:7]

    def __ne__(self, other):
        if not isinstance(other, Token):
            return NotImplemented
        return self[:7] != other[:7]

    def __hash__(self):
        return hash(self[:7])

    def __getnewargs__(self):
        return tuple(self)

    def __repr__(self):
        return "Token(" + ", ".join(f"{n}={v!r}" for n, v in zip(self._fields[:7], self)) + ")"


make_token = tuple.__new__  # make_token(Token, fields): a Token without the keyword-friendly __new__


# text, rel start, rel end, lemma, key, article, punct, keys (Token's fields)
Piece = tuple[str, int, int, str, str, bool, bool, tuple]
