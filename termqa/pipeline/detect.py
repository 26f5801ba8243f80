"""Source-side detection: find every occurrence of every glossary concept in each document.

Terms are matched leftmost-longest on normalised lemma keys with a token trie, so inflected forms,
case variants and all synonyms of a concept are found in one pass. Acronyms the document defines
itself ("variable frequency drive (VFD)") become extra source forms of the concept for the rest of
that document.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from termqa.lang.normalise import loose, term_tokens
from termqa.model import Concept, Document, Segment, Term

# Variation categories of a source form relative to the concept's head term.
NONE = "none"
GRAPHICAL = "graphical"  # acronym, abbreviation, hyphenation, case
MORPHOSYNTACTIC = "morphosyntactic"  # inflection
REDUCTION = "reduction"
EXPANSION = "expansion"
LEXICAL = "lexical"  # a synonym listed in the glossary

_ACRONYM = re.compile(r"^[A-Z][A-Za-z0-9&]{0,2}[A-Z0-9&]{0,8}s?$")
_OPEN = {"(", "["}
_CLOSE = {")", "]"}


GAPS = frozenset(("-", "‐", "‑", "–", "/"))


def is_gap(tok) -> bool:
    """Tokens that matching skips: hyphens joining the parts of a compound."""
    return tok.punct and tok.text in GAPS


@dataclass(frozen=True)
class SourceEntry:
    """One matchable source designation of a concept."""

    concept_id: str
    text: str  # surface as written in the glossary (or the document, for acronyms)
    key: tuple[str, ...]  # lemma keys
    term_type: Optional[str]
    via: str  # "glossary" or "acronym"
    skey: tuple[str, ...] = ()  # surface keys (a term lemmatised out of context can go wrong:
    # "pompe" -> "pomper"; matching accepts a token whose lemma or surface equals either key)


@dataclass(frozen=True)
class Match:
    """One occurrence found in a segment's source (token and char spans)."""

    segment: Segment
    entry: SourceEntry
    tok_start: int
    tok_end: int
    start: int
    end: int


class TermTrie:
    """A token trie over normalised term keys. Values are lists of entries ending at a node."""

    __slots__ = ("root", "size")

    def __init__(self):
        self.root: dict = {}
        self.size = 0

    def add(self, entry: SourceEntry) -> None:
        for path in {entry.key, entry.skey or entry.key}:
            if not path:
                continue
            node = self.root
            for k in path:
                node = node.setdefault(k, {})
            ends = node.setdefault(None, [])
            if all(e.concept_id != entry.concept_id for e in ends):
                ends.append(entry)
                self.size += 1

    def longest_at(self, keys: Sequence[tuple[str, ...]], i: int) -> tuple[int, list]:
        """Longest match starting at keys[i]: (end index, entries) or (i, []).

        Each text position offers its keys (lemma, surface, exact); any may continue a path.
        """
        best_end, best = i, []
        n = len(keys)
        stack = [(self.root, i)]
        while stack:
            node, j = stack.pop()
            if j > i and None in node and (j > best_end or (j == best_end and not best)):
                best_end, best = j, node[None]
            if j >= n:
                continue
            for k in dict.fromkeys(keys[j]):  # ordered: results must not depend on hash seeds
                nxt = node.get(k)
                if nxt is not None:
                    stack.append((nxt, j + 1))
        return best_end, best


def build_entries(concepts: Sequence[Concept], src_lang: str, lemmatiser) -> list[SourceEntry]:
    """Every source-language designation of every concept, with its matching key."""
    items: list[tuple[Concept, Term]] = []
    for c in concepts:
        for t in c.terms_in(src_lang):
            if t.text.strip():
                items.append((c, t))
    toks = lemmatiser.tokenize_many([t.text for _, t in items])
    out = []
    for (c, t), tk in zip(items, toks):
        key, skey = keys_of(tk)
        if key:
            out.append(SourceEntry(c.id, t.text, key, t.term_type, "glossary", skey))
    return out


def rendering_key(lemmatiser, text: Optional[str]) -> Optional[tuple[str, ...]]:
    """The lemma key of a rendering as written (leading articles dropped), None for no text."""
    if not text:
        return None
    return keys_of(lemmatiser.tokenize(text))[0] or None


def is_caps(text: str) -> bool:
    """An acronym-like word: two or more letters, all capitals (VFD, NPSH, PLC)."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def exact_key(text: str) -> str:
    """The case-sensitive key of an acronym-like word; a plural 's' is dropped (VFDs -> VFD)."""
    if len(text) > 2 and text.endswith("s") and is_caps(text[:-1]):
        text = text[:-1]
    return "=" + text


def keys_of(tokens) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(lemma keys, surface keys) of a term's tokens: leading articles and hyphens dropped.

    A word the glossary writes in capitals (an acronym) matches only the same capitals: "TIS" is
    not "this", "DID" is not "did". Both keys are then its exact key.
    """

    toks = [x for x in term_tokens([x for x in tokens if not is_gap(x)])]
    keys, skeys = [], []
    for x in toks:
        if is_caps(x.text):
            keys.append(exact_key(x.text))
            skeys.append(keys[-1])
        else:
            keys.append(x.key)
            skeys.append(loose(x.text))
    return tuple(keys), tuple(skeys)


def form_name(key: Sequence[str]) -> str:
    """A source form's readable name: its keys joined, acronyms in their capitals ("VFD")."""
    return " ".join(k[1:] if k.startswith("=") else k for k in key)


_SURFACE: dict[str, tuple[str, str]] = {}


def surface_keys(text: str) -> tuple[str, str]:
    """(loose surface key, exact key) of a word; cached, since running text repeats its words."""
    got = _SURFACE.get(text)
    if got is None:
        if len(_SURFACE) > 500_000:
            _SURFACE.clear()
        got = _SURFACE[text] = (loose(text), exact_key(text))
    return got


def text_keys(tokens, positions) -> list[tuple[str, str, str]]:
    """(lemma key, surface key, exact key) for each content position of a text."""
    out = []
    for i in positions:
        t = tokens[i]
        out.append((t.key, *surface_keys(t.text)))
    return out


def content_positions(tokens) -> list[int]:
    """Indexes of the tokens matching looks at (hyphens joining compounds are skipped)."""
    return [i for i, t in enumerate(tokens) if not (t.punct and t.text in GAPS)]


def find_in_segment(trie: TermTrie, segment: Segment, tokens) -> list[Match]:
    """Leftmost-longest matches of the trie in one segment's source tokens."""
    pos = content_positions(tokens)
    keys = text_keys(tokens, pos)
    out = []
    root = trie.root
    i, n = 0, len(keys)
    while i < n:
        k = keys[i]
        if tokens[pos[i]].punct or (k[0] not in root and k[1] not in root and k[2] not in root):
            i += 1
            continue
        end, entries = trie.longest_at(keys, i)
        if entries:
            a, b = pos[i], pos[end - 1]
            for e in entries[:1]:  # homographs across concepts: the first glossary entry wins
                out.append(Match(segment, e, a, b + 1, tokens[a].start, tokens[b].end))
            i = end
        else:
            i += 1
    return out


def find_acronyms(matches: Sequence[Match], tokens_by_seg: dict) -> list[SourceEntry]:
    """Acronyms defined right after a matched term: "term (ACR)" makes ACR a form of the concept.

    The letters must plausibly come from the term (its first letter starts the acronym), so that
    a parenthesised reference like "(Fig)" is not taken for one.
    """
    found: dict[tuple[str, str], SourceEntry] = {}
    for m in matches:
        toks = tokens_by_seg[m.segment.index]
        j = m.tok_end
        if j + 2 < len(toks) and toks[j].text in _OPEN and toks[j + 2].text in _CLOSE:
            cand = toks[j + 1].text
            if _ACRONYM.match(cand) and sum(ch.isupper() for ch in cand) >= 2:
                if cand[0].lower() == m.entry.text.strip()[:1].lower():
                    key = (exact_key(cand),)
                    found.setdefault((m.entry.concept_id, key[0]), SourceEntry(
                        m.entry.concept_id, cand, key, "acronym", "acronym", key))
    return list(found.values())


def acronym_definition_spans(matches: Sequence[Match], tokens_by_seg: dict, acronyms) -> set:
    """(segment index, char start) of acronyms standing in their own definition parentheses.

    The acronym inside "term (ACR)" is part of the definition, not a second occurrence.
    """
    keys = {(a.concept_id, a.key[0]) for a in acronyms}
    spans = set()
    for m in matches:
        toks = tokens_by_seg[m.segment.index]
        j = m.tok_end
        if j + 2 < len(toks) and toks[j].text in _OPEN and toks[j + 2].text in _CLOSE:
            if (m.entry.concept_id, exact_key(toks[j + 1].text)) in keys:
                spans.add((m.segment.index, toks[j + 1].start))
    return spans


def detect_document(doc: Document, trie: TermTrie, tokens_by_seg: dict, segments: Sequence[Segment]):
    """All matches in a document, including acronyms the document defines. Ordered by position."""
    matches = []
    for seg in segments:
        matches.extend(find_in_segment(trie, seg, tokens_by_seg[seg.index]))
    return add_acronyms(trie, matches, tokens_by_seg, segments)


def add_acronyms(trie: TermTrie, matches: list, tokens_by_seg, segments: Sequence[Segment]):
    """`matches` (the glossary's, in document order) with the acronyms the document defines added.

    `tokens_by_seg` must give the tokens of every segment holding a match; those of the other segments
    are asked only when the document defines an acronym (it may be used anywhere).
    """
    acronyms = [a for a in find_acronyms(matches, tokens_by_seg)
                if trie.longest_at([(a.key[0],)], 0)[1] == []]
    if acronyms:
        # a second, tiny trie of the document's own acronyms: the glossary's is never copied
        skip = acronym_definition_spans(matches, tokens_by_seg, acronyms)
        own = TermTrie()
        for a in acronyms:
            own.add(a)
        by_seg: dict = {}
        for m in matches:
            by_seg.setdefault(m.segment.index, []).append(m)
        for seg in segments:
            found = [m for m in find_in_segment(own, seg, tokens_by_seg[seg.index])
                     if (seg.index, m.start) not in skip]
            if found:
                taken = by_seg.get(seg.index, [])
                by_seg[seg.index] = sorted(taken + [m for m in found if not any(
                    m.start < t.end and t.start < m.end for t in taken)], key=lambda m: m.start)
        matches = [m for seg in segments for m in by_seg.get(seg.index, ())]
    return matches, acronyms


def variation_of(entry: SourceEntry, surface: str, head: Optional[SourceEntry]) -> str:
    """Variation category of a source form relative to the concept's head term (deterministic)."""
    if entry.via == "acronym" or (entry.term_type or "").lower() in ("acronym", "abbreviation", "initialism"):
        return GRAPHICAL
    if head is None or entry.key == head.key:
        if head is None:
            return NONE
        a, b = surface.casefold(), head.text.casefold()
        if a == b:
            return NONE
        if re.sub(r"[\s\-‐‑]+", "", a) == re.sub(r"[\s\-‐‑]+", "", b):
            return GRAPHICAL
        return MORPHOSYNTACTIC if a != b else NONE
    hk, ek = set(head.key), set(entry.key)
    if len(entry.key) < len(head.key) and ek <= hk:
        return REDUCTION
    if len(entry.key) > len(head.key) and hk <= ek:
        return EXPANSION
    return LEXICAL
