"""Renderings a document establishes for a chain the glossary does not settle (pass 2 of alignment):
the n-grams of the target segments, and the evidence that makes one of them a chain's rendering
(`mine_renderings`).

Separate from `align` (target forms, the target index, pass 1) and `established` (which runs pass 2 over
a document and counts the n-grams): this module only weighs candidates, from counts it is given.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from termqa.lang.normalise import loose
from termqa.pipeline import variants as vr
from termqa.pipeline.align import TargetIndex
from termqa.pipeline.boundaries import crosses_line


# --- renderings the document establishes (pass 2) ---------------------------------------------------
#
# A rendering is mined for a chain (one source form in one document) only on evidence, never as a
# guess: without it the occurrence stays "no rendering found" and the judge aligns it.

MAX_N = 10  # longest n-gram mined, in tokens (stop words inside included)
MIN_SUPPORT = 2  # distinct segment pairs of the chain that must hold a rendering with other evidence
MIN_SUPPORT_ASSOCIATION = 3  # ... and one that only co-occurs with the term (or all, when fewer)
MIN_DICE = 0.5  # association with the chain when nothing else speaks for a rendering ...
MIN_DICE_SUPPORTED = 0.3  # ... and when it shares a word with the glossary term or is a cognate
MAX_SHIFT = 0.45  # mean gap between the relative positions of the term and the rendering (0..1)
MAX_EXTRA = 3  # renderings kept per chain
_COGNATE_PREFIX = 5  # letters a rendering word must share with a source word to count as a cognate


@dataclass(frozen=True)
class MinedRendering:
    """A rendering the document establishes for a chain, with the evidence for it."""

    key: tuple[str, ...]
    support: int  # distinct open segment pairs of the chain holding it
    dice: float  # 2 * support / (open pairs + the document's distinct pairs holding it)
    evidence: str  # glossary_word | cognate | core_word | association


@dataclass(frozen=True)
class OpenSegment:
    """One distinct (source, target) pair in which a chain has an occurrence without a rendering."""

    idx: TargetIndex
    target: str
    claimed: frozenset  # content positions already aligned to other occurrences
    protected: tuple  # content spans of glossary target terms: held whole or not at all
    src_pos: float  # relative position (0..1) of the occurrence in its source segment
    neighbours: tuple = ()  # loose content words standing next to the occurrence in the source


def mine_renderings(segments: Sequence[OpenSegment], doc_counts: Counter, stop: frozenset, *,
                    source_words: Sequence[str], glossary_words=frozenset(), exclude=frozenset(),
                    allow=frozenset(), max_n: int = MAX_N, noun_term: bool = False,
                    tgt_lang: str = "", source_stop=frozenset()) -> list[MinedRendering]:
    """Target n-grams that render a chain, best first; empty when nothing has enough evidence.

    A candidate must (1) recur in at least `MIN_SUPPORT` distinct segment pairs and in half of the
    chain's open ones; (2) be associated with the chain: Dice of its segments and the chain's
    (counted on the document's distinct pairs, so a repeated sentence counts once) at least
    `MIN_DICE`, or `MIN_DICE_SUPPORTED` when it shares a word with the concept's glossary terms, is
    a cognate of the source form, or holds a word that stands in every open segment of the chain and
    hardly anywhere else (a co-occurring phrase alone needs `MIN_SUPPORT_ASSOCIATION` pairs, or every
    open pair when there are fewer, and must be the only phrase standing in exactly those segments); (3) stand where the term stands (mean shift of relative positions
    at most `MAX_SHIFT`); (4) be a whole phrase: as many content words as the source has (up to two)
    and at most one more, never cutting a glossary term of any concept or a span aligned to another
    occurrence, and extended to the longest phrase that holds it in the same segments; (5) not swallow
    a neighbour: a phrase holding a cognate of a content word that stands next to the term in the source
    ("survivants des pensionnats" for "residential school" beside "survivors") in half its segments is
    no rendering of the term alone; (6) for a noun term (`noun_term`), have a head that is not known
    only as a verb (`tgt_lang`'s part-of-speech index and lookup table): "entendent" renders no
    "hearings". A word whose part of speech is unknown is not guessed at.
    Other concepts' glossary renderings (`exclude`, less the chain's own `allow`) are never mined.
    """
    b = len(segments)
    if b < MIN_SUPPORT:
        return []
    where: dict = defaultdict(set)  # n-gram -> the open segments (ordinals) holding it
    shift: dict = defaultdict(float)
    surfaces: dict = {}  # n-gram -> its words as first written (a verb's participle is no finite verb)
    for n, seg in enumerate(segments):
        first: dict = {}
        lines = "\n" in seg.target
        for x, y, g in ngrams(seg.idx, stop, max_n, spans=True):
            if g in first or (g in exclude and g not in allow):
                continue
            if any(p in seg.claimed for p in range(x, y)):
                continue
            if lines and crosses_line(seg.target, seg.idx.tokens[seg.idx.pos[x]].start,
                                      seg.idx.tokens[seg.idx.pos[y - 1]].end):
                continue  # never across a line break (termqa.pipeline.boundaries)
            if any(u < y and x < v and not (x <= u and v <= y) for u, v in seg.protected):
                continue  # would cut a glossary term in two
            first[g] = x
        for g, x in first.items():
            where[g].add(n)
            if noun_term and g not in surfaces:
                surfaces[g] = tuple(seg.idx.surf[x:x + len(g)])
            start = seg.idx.tokens[seg.idx.pos[x]].start
            shift[g] += abs(start / max(1, len(seg.target)) - seg.src_pos)
    n_src = max(1, len(source_words))
    acronym = n_src == 1 and source_words[0].isupper()
    src = [w.lstrip("=").lower() for w in source_words]
    # the source's content words: "without amendment" has one, and its rendering "sans amendement" one too
    src_content = sum(1 for w in src if w not in source_stop) or n_src
    need, most = min(2, src_content), (6 if acronym else n_src + 1)  # an acronym is often spelt out
    cands: dict = {}
    for g, segs in where.items():
        a = len(segs)
        if a < MIN_SUPPORT or 2 * a < b:
            continue
        k = sum(1 for x in g if x not in stop)
        if need <= k <= most and not _swallows_neighbour(g, segs, segments, stop) and \
                not (noun_term and _verbal(g, surfaces.get(g, ()), stop, tgt_lang)):
            cands[g] = frozenset(segs)
    scored = []
    # a term that opens or closes with a function word ("without amendment") has its edge marked: its rendering
    # is not extended over content words beyond the source's own
    edged = len(src) > 1 and (src[0] in source_stop or src[-1] in source_stop)
    for g in _phrases(cands, stop, src_content if edged else 0):
        segs = cands[g]
        a = len(segs)
        if shift[g] / a > MAX_SHIFT:
            continue
        content = [x for x in g if x not in stop]
        if glossary_words and any(x in glossary_words for x in content):
            evidence = "glossary_word"
        elif any(_cognate(x.lstrip("=").lower(), w) for x in content for w in src):
            evidence = "cognate"
        elif b >= 3 and any(_core_word(x, where, doc_counts, b) for x in content):
            evidence = "core_word"  # "bague d'usure" x2 and "anneau d'usure": "usure" renders it throughout
        else:
            evidence = "association"
        dice = 2 * a / (b + max(doc_counts.get(g, a), a))
        if evidence == "association" and (dice < MIN_DICE or a < min(MIN_SUPPORT_ASSOCIATION, b)):
            continue
        if dice < MIN_DICE_SUPPORTED:
            continue
        scored.append(MinedRendering(g, a, round(dice, 4), evidence))
    # co-occurrence alone cannot choose between phrases that stand in exactly the same segments
    # (near-identical sentences share all their words): none of them is evidence
    tied = Counter(cands[m.key] for m in scored if m.evidence == "association")
    scored = [m for m in scored if m.evidence != "association" or tied[cands[m.key]] == 1]
    # supported evidence first, then association strength; the n-gram itself breaks ties
    scored.sort(key=lambda m: (m.evidence == "association", -m.dice, -m.support, -len(m.key), m.key))
    out: list[MinedRendering] = []
    for m in scored:
        words = {x for x in m.key if x not in stop}
        if any(words & {x for x in o.key if x not in stop} for o in out):
            continue  # a variant of a better rendering ("assistance" after "assistance ventilatoire")
        out.append(m)
    if src and src[0] in source_stop and len(src) > 1:
        out = [_with_leading_function_word(m, cands[m.key], segments, stop) for m in out]
    return out


def _with_leading_function_word(m: MinedRendering, segs, segments: Sequence[OpenSegment],
                                stop: frozenset) -> MinedRendering:
    """A source term that opens with a function word ("without amendment") is rendered with one too: the
    target's function word right before the mined phrase, when it is the same in every segment ("sans"
    before "amendement"), belongs to the rendering (n-grams never open with one)."""
    before = set()
    for n in segs:
        idx = segments[n].idx
        k, g = idx.keys, m.key
        at = next((x for x in range(1, len(k) - len(g) + 1) if tuple(k[x:x + len(g)]) == g), None)
        if at is None or k[at - 1] not in stop or idx.tokens[idx.pos[at - 1]].punct or (at - 1) in segments[n].claimed:
            return m
        before.add(k[at - 1])
    if len(before) != 1:
        return m
    return MinedRendering((before.pop(),) + m.key, m.support, m.dice, m.evidence)


def _swallows_neighbour(g: tuple, segs, segments: Sequence[OpenSegment], stop: frozenset) -> bool:
    """Does the n-gram hold a cognate of a source word next to the term in half of its segments or more?"""
    content = [x.lstrip("=").lower() for x in g if x not in stop]
    hits = sum(1 for n in segs if any(_cognate(x, w) for x in content for w in segments[n].neighbours))
    return 2 * hits >= len(segs) and hits > 0


_INFINITIVE_ENDINGS = ("er", "ir", "re", "oir")


@lru_cache(maxsize=65536)
def verb_only(key: str, lang: str) -> bool:
    """Is the lemma key known as a verb and not as a noun or adjective? By the part-of-speech index, or
    (French, whose index lists few verbs beyond -er) by the lookup table giving the infinitive to its
    third person plural ("entendent" -> "entendre"). Unknown words are not verbs here: no guess."""
    from termqa.lang.lexicon import part_of_speech_keys
    from termqa.lang.lookuptables import table_lemma

    nouns, adjs, verbs = part_of_speech_keys(lang)
    if not key.isalpha() or key in nouns or key in adjs:
        return False
    if key in verbs:
        return True
    if lang == "fr" and key.endswith(_INFINITIVE_ENDINGS):
        stem = key[:-3] if key.endswith("oir") else key[:-2]
        return any(table_lemma(stem + end, lang) == key for end in ("ent", "issent", "ons"))
    return False


# endings of a verb's participles, which modify nouns ("violence fondée sur le sexe", "affected area")
# (surface keys are loose: "fondée" is read "fondee")
_PARTICIPLE_ENDINGS = ("e", "es", "i", "is", "u", "us", "it", "ite", "ites", "its",
                       "ant", "ante", "ants", "antes", "ed", "ing", "en")


def _verbal(g: tuple, surfaces: tuple, stop: frozenset, lang: str) -> bool:
    """Is the n-gram no noun phrase: its head (first content word head-first, else last) a verb by
    `verb_only`, or any word a verb written as neither participle nor noun ("députés entendent")?"""
    content = [i for i, x in enumerate(g) if x not in stop]
    if not content or not lang:
        return False
    head = content[0] if lang in vr.HEAD_FIRST else content[-1]
    if verb_only(g[head], lang):
        return True
    for i in content:
        surface = surfaces[i] if i < len(surfaces) else g[i]
        if verb_only(g[i], lang) and not surface.endswith(_PARTICIPLE_ENDINGS):
            return True
    return False


def noun_term(words: Sequence[str], lang: str) -> bool:
    """Is a source form (lemma keys) a noun term: its head (last word, first in a head-first language) a
    noun by the part-of-speech index, and, for one word, not also a verb ("school" may be either)."""
    from termqa.lang.lexicon import part_of_speech_keys

    content = [w for w in words if w.isalpha()]
    if not content:
        return False
    nouns, _adjs, verbs = part_of_speech_keys(lang)
    head = content[0] if lang in vr.HEAD_FIRST else content[-1]
    return head in nouns and (len(content) >= 2 or head not in verbs)


def _source_keys(w) -> tuple:
    """The lemma and surface keys of an occurrence's designation: the glossary's "hearing" is lemmatised
    "hear" out of context, its surface key says "hearing"."""
    e = w.entry
    return tuple(dict.fromkeys(k for k in (tuple(e.key), tuple(e.skey or ()), tuple(w.surface_key or ())) if k))


_SOURCE_WORD = re.compile(r"\w[\w'’-]*")


def neighbour_words(source: str, start: int, end: int, stop: frozenset, reach: int = 2) -> tuple:
    """The loose content words (not stop words) among the `reach` words on each side of an occurrence."""
    before = [loose(w) for w in _SOURCE_WORD.findall(source[:start])[-reach:]]
    after = [loose(w) for w in _SOURCE_WORD.findall(source[end:])[:reach]]
    return tuple(w for w in before + after if w not in stop and len(w) >= 3 and w.isalpha())


def _phrases(cands: dict, stop: frozenset = frozenset(), src_content: int = 0) -> list:
    """The candidates as whole phrases: each shortest n-gram extended to the longest phrase that holds
    it in exactly the same segments, when those extensions nest ("fondée sur le sexe" -> "violence
    fondée sur le sexe"); kept as it is when they branch (no single phrase is evidenced). With
    `src_content`, an extension holds no more content words than that (or the core's own when it has
    more): the word it would add renders a source word beside the term ("rapport sans amendement" mined
    where "reported without amendment" says it every time; the rendering of "without amendment" is "sans
    amendement")."""

    def words(g: tuple) -> int:
        return sum(1 for x in g if x not in stop)

    out: dict = {}
    for g, segs in cands.items():
        if any(len(h) < len(g) and cands[h] == segs and _inside(h, g) for h in cands):
            continue  # not minimal: reached from its shortest core below
        most = max(words(g), src_content) if src_content else None
        ext = sorted((h for h in cands if len(h) > len(g) and cands[h] == segs and _inside(g, h)
                      and (most is None or words(h) <= most)), key=len)
        if ext and all(_inside(h, ext[-1]) for h in ext):
            out[ext[-1]] = None
        else:
            out[g] = None
    return list(out)


def _core_word(x: str, where: dict, doc_counts: Counter, b: int) -> bool:
    """A word that stands in every open segment of the chain and hardly anywhere else."""
    segs = where.get((x,), ())
    return len(segs) == b and 2 * b / (b + max(doc_counts.get((x,), b), b)) >= MIN_DICE


def _inside(g: tuple, h: tuple) -> bool:
    n = len(g)
    return any(h[i:i + n] == g for i in range(len(h) - n + 1))


def _cognate(a: str, b: str) -> bool:
    """Two words sharing their first letters: gastroentérite / gastroenteritis."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= _COGNATE_PREFIX or (n >= 4 and n == min(len(a), len(b)))


def ngrams(idx: TargetIndex, stop: frozenset, max_n: int = MAX_N, spans: bool = False):
    """Content n-grams of a target segment that could be a term: no edge stop word or punctuation.

    Yields keys, or (start, end, key) in content positions with `spans=True`.
    """
    toks = [idx.tokens[i] for i in idx.pos]
    keys = idx.keys
    n = len(toks)
    # per position: may it open/close an n-gram (edge), does it break one (punctuation)
    edge = [_is_edge(t, stop) for t in toks]
    for a in range(n):
        if not edge[a] or toks[a].key.isdigit():
            continue
        for b in range(a + 1, min(n, a + max_n) + 1):
            if toks[b - 1].punct:
                break
            if not edge[b - 1]:
                continue
            g = tuple(keys[a:b])
            yield (a, b, g) if spans else g


def _needed_in(idx: TargetIndex, stop: frozenset, needed, prefixes: frozenset, firsts: frozenset,
               max_n: int = MAX_N) -> set:
    """The n-grams of `needed` that `ngrams(idx, stop)` would yield, found without making the others: an
    n-gram is extended only while it begins some needed one (`prefixes`: every prefix of every needed
    n-gram; `firsts`: their first keys). The same edge and punctuation tests as `ngrams`."""
    toks = idx.tokens
    pos = idx.pos
    keys = idx.keys
    n = len(keys)
    edge: dict = {}

    def is_edge(i):
        got = edge.get(i)
        if got is None:
            got = edge[i] = _is_edge(toks[pos[i]], stop)
        return got

    out = set()
    for a in range(n):
        if keys[a] not in firsts or not is_edge(a) or toks[pos[a]].key.isdigit():
            continue
        for b in range(a + 1, min(n, a + max_n) + 1):
            if toks[pos[b - 1]].punct:
                break
            g = tuple(keys[a:b])
            if g not in prefixes:
                break  # no needed n-gram starts with this one: none longer either
            if g in needed and is_edge(b - 1):
                out.add(g)
    return out


def _is_edge(tok, stop: frozenset) -> bool:
    """May the token open or close an n-gram: not punctuation, an article or a stop word."""
    return not (tok.punct or tok.article or _stop(tok, stop))


def _stop(tok, stop: frozenset) -> bool:
    """A word that cannot open or close a term: a stop word by lemma or surface ("peuvent"), or a
    one-letter word (an elided article the tokenizer left unsplit)."""
    return tok.key in stop or len(tok.key) < 2 or (tok.keys[1] if tok.keys else loose(tok.text)) in stop
