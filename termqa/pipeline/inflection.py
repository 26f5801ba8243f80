"""Pass 1's last resort for a glossary term: a rendering that is an inflected or a derived form of one of
the concept's target terms, where no term matched on lemmas.

* `inflected`: every word is the term's word, or shares its Snowball stem (termqa.lang.stems) where the word
  lists do not know one of the two words: Czech "kontextuálních" for "kontextuální", which no list holds.
  Left for review (termqa.labels.R_INFLECTED), never conforming: a stem is not a lemma. Two words the lists
  both know under different lemmas are different words, whatever their stems say (French "propagation" and
  "propager", "prélèvement" and "prélèvent" share a Snowball stem).
* `derived`: the same, with one word or more a relational adjective made from the term's word
  (termqa.lang.derivation: "budgétaire" for "budget"). Left for review (termqa.labels.R_DERIVED).
* also `inflected`: a word that is the term's word once an attached pronoun or agreement ending is taken
  off (termqa.lang.clitics: Arabic "مشاريعي" is "مشاريع" with "my", listed under "مشروع"; Persian "های").
* `inflected_spelling`: the stems agree only once the letters' marks are folded away, in an alphabet where
  those letters are letters of their own (Turkish "dökümanı" for "doküman": ö is not o). Left for review as
  a spelling question (termqa.labels.R_SPELLING_INFLECTED).

Any of the concept's glossary terms counts (not only the preferred one). Looked for only for an occurrence
that no glossary or forbidden term answers in its segment, so the common case costs nothing; the stems of a
segment's words are made once per segment (`Morph`) and each word's stem once per process.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from termqa.lang import clitics, dictlemma
from termqa.lang.derivation import derived_from
from termqa.lang.fold import lower, loose
from termqa.lang.identify import stop_words
from termqa.lang.lexicon import is_target_word
from termqa.lang.stems import stemmer

_WORDS = re.compile(r"\w+")
_MIN_WORD = 3  # letters a word needs before its stem or derivation counts
_FORM_STEMS: dict = {}  # (lang, form text, key, skey) -> per word, (the stems it is found under, known?)
_KNOWN: dict = {}  # (lang, word) -> does a word list know it
_BASES: dict = {}  # (lang, loose word) -> the lemma keys of the word without an attached pronoun or ending
# alphabets whose marked letters are letters of their own (ö, ü, ç, ş, ğ, ı beside o, u, c, s, g, i): a stem
# that agrees with the term's only without the marks is another spelling, not a form
_MARKED_LETTERS = frozenset({"tr", "az"})
# an Arabic noun written with the tanwin kasra on its last letter ("معدٍ", "تفشٍ") is defective: its "ي" comes
# back in the definite and feminine forms ("المعدي", "المعدية", "التفشي"), which are its forms, not derivations
_DEFECTIVE = "\u064d"


def known(word: str, lang: str) -> bool:
    """Does the language's lookup table or simplemma's dictionary know `word` (accents exact)?"""
    k = (lang, word)
    got = _KNOWN.get(k)
    if got is None:
        listed = dictlemma.lookup(lang)
        got = is_target_word(word, lang) or (listed is not None and listed(word) is not None)
        if len(_KNOWN) > 200_000:
            _KNOWN.clear()
        _KNOWN[k] = got
    return got


class Morph:
    """The stems of one target segment's content words (a `TargetIndex`'s positions), made on first need."""

    __slots__ = ("stems", "words", "known", "bases", "derived", "exact")

    def __init__(self, idx, lang: str):
        stem = stemmer(lang)
        stop = stop_words(lang)
        self.stems: list[frozenset] = []
        self.words: list[tuple[str, ...]] = []
        self.known: list[bool] = []
        self.bases: list[frozenset] = []
        self.derived: list[tuple] = []  # nouns the word is a relational adjective of (clitics.derived_bases)
        self.exact: list[frozenset] = []  # stems of the word as written (marks kept), where marks are letters
        marked = lang in _MARKED_LETTERS
        for i, p in enumerate(idx.pos):
            tok = idx.tokens[p]
            k, s = idx.keys[i], idx.surf[i]
            based = attached_bases(s, lang) if not tok.punct else frozenset()
            self.bases.append(based)
            self.derived.append(clitics.derived_bases(s, lang) if not tok.punct else ())
            self.exact.append(frozenset())
            if tok.punct or (not based and (len(s) < _MIN_WORD or s in stop or k in stop)):
                self.stems.append(frozenset())
                self.words.append(())
                self.known.append(True)
                continue
            self.words.append((k, s) if k != s else (k,))
            self.known.append(stem is not None and known(tok.text, lang))
            if stem is None:
                self.stems.append(frozenset())
                continue
            self.stems.append(frozenset(loose(stem(w)) for w in (k, s, lower(tok.text, lang), tok.lemma)))
            if marked:
                self.exact[-1] = frozenset(stem(w) for w in (lower(tok.text, lang), tok.lemma))


def attached_bases(word: str, lang: str) -> frozenset:
    """The keys loose word `word` has once an attached pronoun or agreement ending is taken off
    (termqa.lang.clitics): each base and the lemma simplemma's dictionary lists for it."""
    k = (lang, word)
    got = _BASES.get(k)
    if got is None:
        found = clitics.bases(word, lang)
        listed = dictlemma.lookup(lang) if found else None
        out = set(found)
        for b in found:
            lem = listed(b) if listed is not None else None
            if lem:
                out.add(loose(lower(lem, lang)))
        got = frozenset(out)
        if len(_BASES) > 200_000:
            _BASES.clear()
        _BASES[k] = got
    return got


def _form_stems(f, lang: str) -> tuple[tuple[frozenset, bool, frozenset, bool], ...]:
    """For each word of a glossary form, the stems it is found under (of its lemma and surface keys, and of
    the words of the term's text those keys stand for, stemmed with their accents: Czech endings carry
    them), whether a word list knows it, the stems of those words as written (marks kept), and whether it
    is written as an Arabic defective noun (`_DEFECTIVE`)."""
    k = (lang, f.text, f.key, f.skey)
    got = _FORM_STEMS.get(k)
    if got is None:
        stem = stemmer(lang)
        skey = f.skey if len(f.skey) == len(f.key) else f.key
        words = [lower(w, lang) for w in _WORDS.findall(f.text)]
        raw = f.text.split() if _DEFECTIVE in f.text else ()  # \w+ leaves the tanwin out
        out = []
        for key, sk in zip(f.key, skey):
            if stem is None:
                out.append((frozenset(), True, frozenset(), False))
                continue
            written = [w for w in words if loose(w) in (key, sk)]
            found = {stem(key), stem(sk)} | {stem(w) for w in written}
            out.append((frozenset(loose(x) for x in found), any(known(w, lang) for w in written),
                        frozenset(stem(w) for w in written), any(w.endswith(_DEFECTIVE) and loose(w) in (key, sk) for w in raw)))
        got = _FORM_STEMS[k] = tuple(out)
        if len(_FORM_STEMS) > 100_000:
            _FORM_STEMS.clear()
    return got


def find(idx, forms: Sequence, lang: str, morph: Optional[Morph]) -> tuple[Optional[Morph], list]:
    """(the segment's Morph, [(a, b, kind, form)]): content-index spans [a, b) that render one of the
    glossary `forms` (the concept's own terms: variants and forbidden terms left out) as an inflected or a
    derived form. `morph` is the segment's, when made already."""
    out: list = []
    own = [f for f in forms if f.kind == "glossary" and not f.rule and f.key]
    if not own:
        return morph, out
    if morph is None:
        morph = Morph(idx, lang)
    n = len(idx.pos)
    for f in own:
        m = len(f.key)
        fstems = _form_stems(f, lang)
        skey = f.skey if len(f.skey) == len(f.key) else f.key
        for a in range(0, n - m + 1):
            kind = _match(morph, a, f.key, skey, fstems, lang)
            if kind is not None:
                out.append((a, a + m, kind, f))
    return morph, out


def _match(morph: Morph, a: int, key, skey, fstems, lang: str) -> Optional[str]:
    """`inflected` or `derived` when the words from content position `a` render the form word by word,
    at least one of them not as the term's own word; else None."""
    kind = None
    for x in range(len(key)):
        words = morph.words[a + x]
        if not words:
            return None
        want = (key[x], skey[x])
        if any(w in want for w in words):
            continue
        # a derivation first: Snowball gives "climatique" the stem of "climat", but it is another word
        stems_x, known_x, exact_x, defective = fstems[x]
        if any(b in want for b in morph.derived[a + x]):
            kind = (kind or "inflected") if defective else "derived"  # "السطحي" from "سطح"; "المعدية" of "معدٍ"
            continue
        if any(w in clitics.derived_bases(b, lang, bare=False) for w in words for b in want):
            kind = "derived"  # the other way: "عدوى فيروس" (of the virus) for "عدوى فيروسية" (viral)
            continue
        if any(derived_from(w, b, lang) for w in words for b in want):
            kind = "derived"
            continue
        if stems_x and not (known_x and morph.known[a + x]) and not stems_x.isdisjoint(morph.stems[a + x]):
            if exact_x and morph.exact[a + x] and exact_x.isdisjoint(morph.exact[a + x]):
                kind = "inflected_spelling"  # "dökümanı" for "doküman": the same stem only without the marks
            else:
                kind = kind or "inflected"
            continue
        if not morph.bases[a + x].isdisjoint(want):
            kind = kind or "inflected"  # "مشاريعي" ("my projects") for "مشروع"
            continue
        return None
    return kind
