"""Target-side alignment: find the span of the target segment that renders each source occurrence.

Without an LLM, a rendering is found as one of:
- `glossary`: an allowed target term of the concept (any status, matched on lemmas, diacritics loose
  so that misspellings are found and then judged);
- `forbidden`: a deprecated/superseded target term of the concept;
- `dnt`: the do-not-translate source item kept as it is (`dnt_altered` when only case, spacing or
  accents changed);
- `untranslated`: the source form copied into the target, and not a word of the target language;
- `copied_word`: the source form copied into the target where every word of it is also a word of the
  target language (French "influenza", Spanish "radio", German "Computer", as the language's
  lookup tables say): maybe left untranslated, maybe the target word, so never a certain error;
- `established`: a rendering the document itself establishes for the source form: a target phrase
  mined from the chain's segments only on evidence (`mine_renderings`, pass 2 `align_established`).

Alignment is one-to-one within a segment: each target span answers at most one source occurrence,
renderings with more words claim first (so "corps de pompe" is not also read as "pompe"), then source
order. Occurrences left without a span are `unaligned`: kept, never dropped, and never given a guess.
"""
from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Optional, Sequence

from termqa.config import VariantLevel
from termqa.lang.identify import spacy_stop_words
from termqa.lang.langtags import primary
from termqa.lang.lexicon import is_target_word
from termqa.lang.normalise import loose
from termqa.model import FORBIDDEN_STATUSES
from termqa.pipeline import variants as vr
from termqa.pipeline.boundaries import crosses_line
from termqa.pipeline.detect import content_positions, keys_of, text_keys
from termqa.store import indexcache
from termqa.store.pickling import pickled_by_fields

# Lower wins when two kinds propose the same span.
_PRIORITY = {"glossary": 0, "dnt": 0, "forbidden": 1, "dnt_altered": 2, "established": 3, "untranslated": 4,
             "copied_word": 4}


@dataclass(frozen=True)
class TargetForm:
    """A target-language designation to look for: its key, surface and where it comes from."""

    key: tuple[str, ...]
    text: str
    kind: str  # glossary | forbidden | established
    status: Optional[str] = None
    skey: tuple[str, ...] = ()  # surface keys; a token matches on its lemma or surface, see detect.py
    lang: str = ""  # primary language subtag of the target designation
    rule: str = ""  # a variant of a glossary designation (termqa.pipeline.variants.RULES), else empty


@pickled_by_fields  # counting workers send alignments back
@dataclass(frozen=True, slots=True)
class Alignment:
    tok_start: int
    tok_end: int
    start: int
    end: int
    text: str
    kind: str
    form: Optional[TargetForm] = None


class TargetIndex:
    """Content-token keys of one target segment, with positions of each key for fast lookup."""

    __slots__ = ("tokens", "pos", "keys", "surf", "exact", "_starts")

    def __init__(self, tokens):

        self.tokens = tokens
        self.pos = pos = content_positions(tokens)
        ks = text_keys(tokens, pos)
        self.keys = [k[0] for k in ks]
        self.surf = [k[1] for k in ks]
        self.exact = [k[2] for k in ks]
        self._starts: dict = {}  # (surface only?) -> {key: positions}, made on first use

    def find(self, key: Sequence[str], skey: Sequence[str] = (), *, surface: bool = False,
             gap: bool = False) -> list[tuple[int, int]]:
        """Content-index spans [a, b) where the term occurs.

        A text token matches a term token when its lemma, surface or exact key equals the term's
        lemma or surface key. With `surface=True` lemmas are not compared (copies of the source).
        A term can only start where its first word is: the positions of every key are looked up (made
        once per segment), and only those starts are checked word by word. With
        `gap`, only spans with one extra word inside the term ("pompe centrifuge d'alimentation"
        for "pompe d'alimentation": an inserted modifier, termqa.pipeline.variants).
        """
        if not key:
            return []
        if gap:
            return self._find_gapped(key, skey)
        m = len(key)
        skey = tuple(skey) if skey and len(skey) == m else tuple(key)
        lists = (self.surf, self.exact) if surface else (self.keys, self.surf, self.exact)
        starts = self._starts.get(surface)
        if starts is None:
            starts = self._starts[surface] = _positions(lists)
        first = starts.get(key[0], ())
        if skey[0] != key[0]:
            first = sorted({*first, *starts.get(skey[0], ())})
        last = len(self.keys) - m
        out = []
        for a in first:
            if a > last:
                break
            for x in range(1, m):
                want = (key[x], skey[x])
                if not any(seq[a + x] in want for seq in lists):
                    break
            else:
                out.append((a, a + m))
        return out

    def _find_gapped(self, key: Sequence[str], skey: Sequence[str]) -> list[tuple[int, int]]:
        m = len(key)
        skey = tuple(skey) if skey and len(skey) == m else tuple(key)
        lists = (self.keys, self.surf, self.exact)
        out = []
        for a in range(len(self.keys) - m):
            for g in range(1, m):
                if self.tokens[self.pos[a + g]].punct or self.surf[a + g] in vr.CONJUNCTIONS:
                    continue  # "washing and hand": two phrases, not a term with a word inside
                if all(any(seq[a + x + (x >= g)] in (key[x], skey[x]) for seq in lists) for x in range(m)):
                    out.append((a, a + m + 1))
                    break
        return out

    def span(self, a: int, b: int, text: str) -> tuple[int, int, int, int, str]:
        ta, tb = self.pos[a], self.pos[b - 1]
        s, e = self.tokens[ta].start, self.tokens[tb].end
        return ta, tb + 1, s, e, text[s:e]


def _positions(lists) -> dict:
    """key -> the positions (ascending) where any of `lists` (of one length) holds it."""
    at: dict = {}
    for i, ks in enumerate(zip(*lists)):
        for k in dict.fromkeys(ks):  # a key met in two lists at one position counts once
            got = at.get(k)
            if got is None:
                at[k] = [i]
            else:
                got.append(i)
    return at


def target_forms(concept, tgt_lang, lemmatiser, variants: VariantLevel, reduced: str = "") -> list[TargetForm]:
    """The concept's target designations with their lemma keys (hidden labels included: matchable).

    From `variants="static"` on, the static variants of each allowed designation follow (a closed
    compound, "N du N" for "N de N"...): they render the term as well. `reduced` adds the parts of
    each multi-word designation (its head, its other words) for an occurrence whose source is itself
    a reduction or coordination ("la pompe" renders "the pump" said of the centrifugal pump);
    `reduced="insertion"` the designations with one inserted word; `reduced="modifier_reduction"`
    each designation of three words or more without its outermost modifier ("équipement de
    protection" renders "protective equipment" said of personal protective equipment).
    """

    terms = [t for t in concept.terms_in(tgt_lang) if t.text.strip()]
    toks = lemmatiser.tokenize_many([t.text for t in terms])
    out = []
    lang = primary(tgt_lang)
    for t, tk in zip(terms, toks):
        key, skey = keys_of(tk)
        if key:
            kind = "forbidden" if t.status in FORBIDDEN_STATUSES else "glossary"
            out.append(TargetForm(key, t.text, kind, t.status, skey, lang))
    if variants == VariantLevel.NONE:
        return out
    own = {f.key for f in out}
    extra = []
    for f in out:
        if f.kind != "glossary":
            continue
        for rule, k in vr.static_keys(f.key, lang, f.text):
            if k not in own:
                extra.append(TargetForm(k, f.text, "glossary", f.status, k, lang, rule))
        if reduced == "modifier_reduction" and len(f.key) >= 3:
            k = vr.outer_modifier_dropped(f.key, lang)
            if k and k not in own:
                extra.append(TargetForm(k, f.text, "glossary", f.status, k, lang, "modifier_reduction"))
        elif reduced == "insertion" and len(f.key) >= 2:
            extra.append(TargetForm(f.key, f.text, "glossary", f.status, f.skey, lang, "insertion"))
        elif reduced and len(f.key) >= 2:
            sk = f.skey if len(f.skey) == len(f.key) else f.key
            h = 0 if lang in vr.HEAD_FIRST else len(f.key) - 1
            stop = stop_words(lang)
            for i in [h] + [i for i, k in enumerate(f.key)
                            if i != h and k.isalpha() and len(k) >= 3 and k not in stop and sk[i] not in stop]:
                if (f.key[i],) not in own:
                    extra.append(TargetForm((f.key[i],), f.text, "glossary", f.status, (sk[i],), lang, "reduction"))
    return out + extra


class StoredForms:
    """`target_forms` kept between runs: a table of the index cache per target language, lemmatiser
    (tables and mode) and variant level, one row per concept's target designations and `reduced` kind.

    A row is keyed by what `target_forms` reads of the concept (its target terms' texts and statuses),
    not by its id: an edited designation is another row, and two termbases sharing a concept share it.
    Deriving the static variants of every concept found (the lexicon consulted for each word) cost a
    tenth of a warm 100k-word run; reading them back is one query per document.
    """

    def __init__(self, tgt_lang: str, lemmatiser, variants: str):
        self.tgt_lang = tgt_lang
        cache = indexcache.active()
        self.table = cache.table(indexcache.make_key("target-forms", lemmatiser.name, lemmatiser.mode,
                                                     tgt_lang, variants)) if cache.enabled else None
        self.fresh: dict = {}

    def row(self, concept, reduced: str) -> str:
        terms = concept.terms_in(self.tgt_lang)
        return reduced + "".join(f"\x1e{t.text}\x1f{t.status}" for t in terms)

    def fetch(self, wanted) -> dict:
        """{(concept id, reduced): forms} of the (concept, reduced) pairs of `wanted` the table holds."""
        if self.table is None or not wanted:
            return {}
        rows = {(c.id, r): self.row(c, r) for c, r in wanted}
        got = self.table.get_many(rows.values())
        out = {}
        for k, row in rows.items():
            value = got.get(row)
            if value is not None:
                try:
                    out[k] = [TargetForm(*f) for f in value]
                except TypeError:  # a row of another shape: made again
                    pass
        return out

    def keep(self, concept, reduced: str, forms: Sequence[TargetForm]) -> None:
        if self.table is not None:
            self.fresh[self.row(concept, reduced)] = tuple(
                (f.key, f.text, f.kind, f.status, f.skey, f.lang, f.rule) for f in forms)

    def save(self) -> None:
        if self.table is not None and self.fresh:
            self.table.put_many(self.fresh)
        self.fresh = {}


def copy_kind(tokens, forms: Sequence[TargetForm]) -> str:
    """`untranslated`, or `copied_word` when every word of the copied span is also a word of the
    target language (the language of the concept's target forms) as its lexicon knows it."""
    lang = next((f.lang for f in forms if f.lang), "")
    words = [t.text for t in tokens if not t.punct]
    if lang and words and all(is_target_word(w, lang) for w in words):
        return "copied_word"
    return "untranslated"


def classify_rendering(tokens, forms: Sequence[TargetForm], source_skey: Sequence[str],
                       has_target_terms: bool) -> tuple[str, Optional[TargetForm]]:
    """The alignment kind of a rendering found some other way (the judge copied it from the segment):
    the same matching as `candidates`, on the whole span. Returns (kind, glossary form or None)."""
    idx = TargetIndex(tokens)
    whole = (0, len(idx.pos))
    for f in forms:
        if whole in idx.find(f.key, f.skey):
            return f.kind, f
    if has_target_terms and whole in idx.find(tuple(source_skey), surface=True):
        return copy_kind(tokens, forms), None
    return "established", None


@dataclass(slots=True)
class Pending:
    """What alignment needs to know about one source occurrence."""

    index: int  # position in the document's occurrence list
    concept_id: str
    source_form: str
    source_surface_key: tuple[str, ...]
    source_text: str
    dnt: bool
    forms: Sequence[TargetForm]  # glossary target forms of the concept
    has_target_terms: bool


def candidates(p: Pending, idx: TargetIndex, target: str, extra: Sequence[TargetForm] = ()) -> list[tuple]:
    """(priority, -length in words, start, Alignment) for every span that could render `p`.

    Length counts words, not characters: "infections" is no longer a rendering than "infection", so
    two occurrences of one term pair with its renderings in source order.
    """
    out = []

    def add(a, b, kind, form=None):
        ta, tb, s, e, txt = idx.span(a, b, target)
        out.append((_PRIORITY[kind], -(b - a), s, Alignment(ta, tb, s, e, txt, kind, form)))

    if p.dnt:
        for a, b in idx.find(p.source_surface_key, surface=True):
            ta, tb, s, e, txt = idx.span(a, b, target)
            add(a, b, "dnt" if txt == p.source_text else "dnt_altered")
    for f in p.forms:
        for a, b in idx.find(f.key, f.skey, gap=f.rule == "insertion"):
            if f.kind == "glossary" and not p.dnt and _copy_of_source(idx.span(a, b, target)[4], p, f):
                continue  # the source word copied, not the glossary term misspelt: see below
            add(a, b, f.kind, f)
    for f in extra:
        for a, b in idx.find(f.key, f.skey):
            add(a, b, "established", f)
    if not p.dnt and p.has_target_terms:
        for a, b in idx.find(p.source_surface_key, surface=True):
            ta, tb = idx.pos[a], idx.pos[b - 1] + 1
            add(a, b, copy_kind(idx.tokens[ta:tb], p.forms))
    return out


def _copy_of_source(text: str, p: Pending, form: TargetForm) -> bool:
    """A span written exactly as the source, which matches the glossary term only loosely.

    "Hygiene" kept in "London School of Hygiene" matches "hygiène" without its accent: it is the
    English word copied (left untranslated, or part of a kept name), not a misspelt French one. Only
    a word that differs from the term's in its accents makes the difference: "COVID-19" copied where
    the glossary writes "la COVID-19" is the glossary term.
    """
    if text != p.source_text:
        return False
    theirs = {w.lower() for w in _WORDS.findall(form.text)}
    looses = {loose(w) for w in theirs}
    return any(w.lower() not in theirs and loose(w) in looses for w in _WORDS.findall(text))


_WORDS = re.compile(r"\w+")


def assign(pendings: Sequence[Pending], cands: dict[int, list[tuple]]) -> dict[int, Alignment]:
    """One-to-one assignment within a segment: longest spans first, then source order.

    Spans may not overlap: a rendering nested inside a longer one already claimed is not reused.
    Among equally long spans of one occurrence the best kind, then the earliest, wins.
    """
    pool = []
    for order, p in enumerate(pendings):
        for prio, neglen, start, al in cands.get(p.index, ()):
            pool.append((neglen, order, prio, start, p.index, al))
    pool.sort(key=lambda x: x[:4])
    taken: list[tuple[int, int]] = []
    done: dict[int, Alignment] = {}
    for _neglen, _order, _prio, _start, i, al in pool:
        if i in done:
            continue
        if any(al.start < e and s < al.end for s, e in taken):
            continue
        done[i] = al
        taken.append((al.start, al.end))
    return done


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
                    tgt_lang: str = "") -> list[MinedRendering]:
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
    need, most = min(2, n_src), (6 if acronym else n_src + 1)  # an acronym is often spelt out
    cands: dict = {}
    for g, segs in where.items():
        a = len(segs)
        if a < MIN_SUPPORT or 2 * a < b:
            continue
        k = sum(1 for x in g if x not in stop)
        if need <= k <= most and not _swallows_neighbour(g, segs, segments, stop) and \
                not (noun_term and _verbal(g, surfaces.get(g, ()), stop, tgt_lang)):
            cands[g] = frozenset(segs)
    src = [w.lstrip("=").lower() for w in source_words]
    scored = []
    for g in _phrases(cands):
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
    return out


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


def _phrases(cands: dict) -> list:
    """The candidates as whole phrases: each shortest n-gram extended to the longest phrase that holds
    it in exactly the same segments, when those extensions nest ("fondée sur le sexe" -> "violence
    fondée sur le sexe"); kept as it is when they branch (no single phrase is evidenced)."""
    out: dict = {}
    for g, segs in cands.items():
        if any(len(h) < len(g) and cands[h] == segs and _inside(h, g) for h in cands):
            continue  # not minimal: reached from its shortest core below
        ext = sorted((h for h in cands if len(h) > len(g) and cands[h] == segs and _inside(g, h)), key=len)
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


def _pair_key(source: str, target: str) -> bytes:
    """What makes two segment pairs "the same sentence": case, spacing and numbers aside. Both sides in
    one string, split by a character XML text never holds (searching for digits first: most sentences
    have none, and a search costs half a substitution), kept as a 96-bit digest: a big memory keeps the
    key of every segment holding a term (a digest is a fraction of the strings);
    two pairs are taken for one only if their digests are equal (odds of 1 in 10^16 for a million pairs)."""
    k = " ".join(f"{source} \x00 {target}".split()).lower()
    if _DIGIT.search(k):
        k = _DIGITS.sub("0", k)
    d = hashlib.blake2b(k.encode("utf-8", "surrogatepass"), digest_size=PairsSeen.WIDTH).digest()
    return d if d != PairsSeen.EMPTY else b"\x01" + d[1:]  # all zeros marks a free slot of PairsSeen


_DIGITS = re.compile(r"\d+")
_DIGIT = re.compile(r"\d")


class _GlossarySpans:
    """Where any concept's glossary target terms stand in a target segment, looked up by their first two
    keys: a big document finds most of a termbase's concepts, and many terms share a first word."""

    def __init__(self, forms: Sequence[TargetForm]):
        self.by_first: dict = defaultdict(lambda: defaultdict(list))  # first key -> second key (None) -> forms
        for f in forms:
            sk = f.skey if len(f.skey) == len(f.key) else f.key
            seconds = {f.key[1], sk[1]} if len(f.key) > 1 else {None}
            for k in {f.key[0], sk[0]}:
                for k2 in seconds:
                    self.by_first[k][k2].append(f)

    def spans(self, idx: TargetIndex) -> tuple:
        out = set()
        present = set(idx.keys) | set(idx.surf) | set(idx.exact)
        for k in present & self.by_first.keys():
            by_second = self.by_first[k]
            for k2 in (present & by_second.keys()) | ({None} & by_second.keys()):
                for f in by_second[k2]:
                    sk = f.skey if len(f.skey) == len(f.key) else f.key
                    if all(a in present or b in present for a, b in zip(f.key, sk)):  # cheap test first
                        out.update(idx.find(f.key, f.skey))
        return tuple(sorted(out))


def align_established(work, by_seg, indexes, pendings, forms_cache, tgt_l, lemmatiser=None) -> None:
    """Pass 2: align what pass 1 left open to renderings the document itself establishes.

    `work`: one document's occurrences (with `.alignment` set by pass 1, None where open); `by_seg`:
    segment index -> positions in `work`; `indexes`: segment index -> TargetIndex; `pendings`: the
    pass-1 Pending of each open occurrence and of each chain's first (its forms are the chain's);
    `forms_cache`: (concept id, language) -> its TargetForms;
    `lemmatiser`: the target lemmatiser, to count n-grams over the document's other segments too.
    For each chain with gaps, `mine_renderings` proposes renderings with evidence; each open
    occurrence then takes the best one that does not overlap a span already claimed in its segment,
    and the occurrences of one chain in one segment end up with their renderings in source order.
    Occurrences without a rendering that has evidence stay open ("no rendering found").
    """
    chain_members: dict = defaultdict(list)
    for i, w in enumerate(work):
        chain_members[(w.concept.id, w.source_form)].append(i)
    todo = [(k, m) for k, m in chain_members.items()
            if len(m) >= MIN_SUPPORT and any(work[i].alignment is None for i in m)
            and not work[m[0]].concept.dnt]  # a do-not-translate item has one rendering: itself
    if not todo:
        _uncross(work, by_seg)
        return
    stop = stop_words(primary(tgt_l))
    src_l = primary(work[0].doc.src_lang or "")
    src_stop = stop_words(src_l) if src_l else frozenset()
    pair_of = _pair_keys(work)
    needed = _countable(work, todo, indexes, stop, pair_of)
    doc_counts = _document_counts(work, indexes, stop, lemmatiser, needed, pair_of)
    # the glossary renderings of the concepts found in this document: a document depends on itself
    # only, so documents can be counted in any order or side by side (--jobs)
    here = {w.concept.id for w in work}
    all_forms = [f for (cid, lang), forms in forms_cache.items() if lang == tgt_l and cid in here for f in forms]
    glossary_keys = frozenset(f.key for f in all_forms)  # never mined as another concept's rendering
    gspans = _GlossarySpans(all_forms)
    protected: dict = {}
    for chain_key, members in todo:
        forms = pendings[members[0]].forms
        known = {f.key for f in forms}
        open_segs: dict = {}
        for i in members:
            w = work[i]
            if w.alignment is not None:
                continue
            pk = pair_of.get(w.seg.index, (w.seg.index,))  # no pair key: a tuple, never equal to one
            if pk in open_segs:
                continue  # the same sentence again: no new evidence
            idx = indexes[w.seg.index]
            if w.seg.index not in protected:
                protected[w.seg.index] = gspans.spans(idx)
            spans = [(work[j].alignment.tok_start, work[j].alignment.tok_end) for j in by_seg[w.seg.index]
                     if work[j].alignment is not None]
            claimed = frozenset(c for c, p in enumerate(idx.pos) if any(a <= p < b for a, b in spans))
            open_segs[pk] = OpenSegment(idx, w.seg.target, claimed, protected[w.seg.index],
                                        w.start / max(1, len(w.seg.source)),
                                        neighbour_words(w.seg.source, w.start, w.end, src_stop))
        mined = mine_renderings(
            list(open_segs.values()), doc_counts, stop, source_words=chain_key[1].split(),
            glossary_words=frozenset(x for f in forms for x in f.key if x not in stop),
            exclude=glossary_keys, allow=known,
            noun_term=bool(src_l) and any(noun_term(ws, src_l) for ws in _source_keys(work[members[0]])),
            tgt_lang=primary(tgt_l))
        extra = [TargetForm(m.key, " ".join(m.key), "established") for m in mined if m.key not in known]
        extra = extra[:MAX_EXTRA]
        if not extra:
            continue
        rank = {f.key: n for n, f in enumerate(extra)}
        open_in_seg = Counter(work[i].seg.index for i in members if work[i].alignment is None)
        for i in members:
            w = work[i]
            if w.alignment is not None:
                continue
            idx = indexes[w.seg.index]
            taken = [(work[j].alignment.start, work[j].alignment.end) for j in by_seg[w.seg.index]
                     if work[j].alignment is not None]
            cands = candidates(replace(pendings[i], forms=(), dnt=False, has_target_terms=False), idx,
                               w.seg.target, extra)
            # the best-established rendering first; among its spans, for the chain's only open
            # occurrence in the segment the one standing where the term stands ("hospitalisation"
            # twice, the second renders it), for several the spans in target order, so that
            # occurrences (visited in source order) pair with renderings in source order
            if open_in_seg[w.seg.index] == 1:
                here = w.start / max(1, len(w.seg.source))
                tl = max(1, len(w.seg.target))
                cands.sort(key=lambda c: (rank[c[3].form.key], c[1], abs(c[2] / tl - here), c[2]))
            else:
                cands.sort(key=lambda c: (rank[c[3].form.key], c[1], c[2]))
            w.alignment = next((a for _p, _l, _s, a in cands
                                if not any(a.start < e and s < a.end for s, e in taken)), None)
    _uncross(work, by_seg)


def _uncross(work, by_seg) -> None:
    """Occurrences of one chain in one segment take their renderings in source order.

    Pass 1 gives "lung" (first) the glossary's "poumons" (last) before pass 2 finds "pulmonaires"
    for the second "lungs": the two renderings are swapped back into the order of the source.
    """
    for idxs in by_seg.values():
        chains: dict = defaultdict(list)
        for i in idxs:
            if work[i].alignment is not None:
                chains[(work[i].concept.id, work[i].source_form)].append(i)
        for members in chains.values():
            if len(members) < 2:
                continue
            members.sort(key=lambda i: work[i].start)
            spans = sorted((work[i].alignment for i in members), key=lambda a: a.start)
            for i, a in zip(members, spans):
                work[i].alignment = a


# Segments of a document tokenised at a time while counting n-grams: the tokens of a whole translation
# memory are never held at once (a chunk's are: see check.DETECT_CHUNK).
COUNT_CHUNK = 2_000


def _pair_keys(work) -> dict:
    """segment index -> `_pair_key` of each translated segment holding an occurrence."""
    out: dict = {}
    for w in work:
        s = w.seg
        if s.index not in out and s.source.strip() and (s.target or "").strip():
            out[s.index] = _pair_key(s.source, s.target)
    return out


def _countable(work, todo, indexes, stop, pair_of: dict) -> set:
    """The n-grams whose document counts `mine_renderings` may read: those that stand in at least
    MIN_SUPPORT, and half, of a chain's open segment pairs with a length it accepts (a candidate),
    and the words of those (`_core_word`). Counted without the spans other occurrences claim, so a
    superset of what mining asks for: counting every n-gram of every open segment cost a tenth of a
    1M-word run."""
    needed: set = set()
    for (_cid, form), members in todo:
        first_of_pair: dict = {}  # the open segments of the chain, one per distinct pair, as mining takes them
        for i in members:
            w = work[i]
            if w.alignment is None:
                first_of_pair.setdefault(pair_of.get(w.seg.index, (w.seg.index,)), w.seg.index)
        b = len(first_of_pair)
        if b < MIN_SUPPORT:
            continue
        standing: Counter = Counter()
        for seg in first_of_pair.values():
            standing.update(set(ngrams(indexes[seg], stop)))
        words = form.split()
        n_src = max(1, len(words))
        need, most = min(2, n_src), (6 if n_src == 1 and words and words[0].isupper() else n_src + 1)
        for g, a in standing.items():
            if a >= MIN_SUPPORT and 2 * a >= b:
                content = [x for x in g if x not in stop]
                if need <= len(content) <= most:
                    needed.add(g)
                    needed.update((x,) for x in content)
    return needed


def _document_counts(work, indexes, stop, lemmatiser, needed, pair_of: dict) -> Counter:
    """Counts of the `needed` n-grams over the document's distinct segment pairs (`pair_of`: the pair keys
    of the segments holding occurrences, made already). Every translated segment counts (not only those
    holding terms), each distinct pair once (the first segment with it).

    Memory follows the occurrences, not the document: a pair already seen is recognised by its key, a
    digest (`PairsSeen`), and the other segments' targets are tokenised COUNT_CHUNK at a time, counted and
    dropped.
    """
    doc = work[0].doc
    seen = PairsSeen(len(doc.segments))
    counts: Counter = Counter()
    firsts = frozenset(g[0] for g in needed)  # n-grams starting elsewhere are never needed
    prefixes = frozenset(g[:m] for g in needed for m in range(1, len(g) + 1))
    batch: list = []  # first segments of their pair, in document order, waiting to be counted

    def flush():
        todo = [s for s in batch if s.index not in indexes]
        extra: dict = {}
        if todo and lemmatiser is not None:
            # most segments hold no word a needed n-gram starts with: those are neither tokenised nor indexed
            hits = lemmatiser.has_key([s.target for s in todo], firsts)
            todo = [s for s, hit in zip(todo, hits) if hit]
            extra = {s.index: TargetIndex(t) for s, t in zip(todo, lemmatiser.tokenize_many([s.target for s in todo]))}
        for s in batch:
            idx = indexes.get(s.index) or extra.get(s.index)
            if idx is not None and not firsts.isdisjoint(idx.keys):
                counts.update(_needed_in(idx, stop, needed, prefixes, firsts))
        batch.clear()

    for s in doc.segments:
        if s.source.strip() and (s.target or "").strip():
            if seen.add(pair_of.get(s.index) or _pair_key(s.source, s.target)):
                batch.append(s)
                if len(batch) >= COUNT_CHUNK:
                    flush()
    flush()
    return counts


class PairsSeen:
    """The segment pairs (by `_pair_key`) a document has shown so far, in an open-addressing table of
    bytes sized for the document: a Python set of the digests costs several times the bytes a pair that
    this table does."""

    WIDTH = 12
    EMPTY = bytes(WIDTH)

    def __init__(self, capacity: int = 0):
        self._n = 0
        self._make(1 << max(4, (2 * capacity).bit_length()))

    def _make(self, slots: int) -> None:
        self._mask = slots - 1
        self._table = bytearray(slots * self.WIDTH)

    def __len__(self) -> int:
        return self._n

    def add(self, key: bytes) -> bool:
        """Remember `key` (a `_pair_key`); True when it had not been seen."""
        if not self._put(key):
            return False
        self._n += 1
        if 2 * self._n > self._mask:  # kept at most half full: probes stay short
            old, w = self._table, self.WIDTH
            self._make(2 * (self._mask + 1))
            for o in range(0, len(old), w):
                if old[o:o + w] != self.EMPTY:
                    self._put(bytes(old[o:o + w]))
        return True

    def _put(self, d: bytes) -> bool:
        t, w, mask = self._table, self.WIDTH, self._mask
        i = int.from_bytes(d[:8], "little") & mask
        while True:
            o = i * w
            here = t[o:o + w]
            if here == d:
                return False
            if here == self.EMPTY:
                t[o:o + w] = d
                return True
            i = (i + 1) & mask


@lru_cache(maxsize=None)
def stop_words(lang: str) -> frozenset:
    """spaCy's stop words for the language, loose-normalised (empty when spaCy has none).

    Read from spaCy's `lang/<xx>/stop_words.py` alone (termqa.lang.identify): importing the language
    package would also compile its tokenizer exceptions, seconds of work for French that this does not need.
    """
    words = spacy_stop_words(lang)
    if not words:
        try:  # an unusual spaCy layout: ask spaCy the ordinary way
            from spacy.util import get_lang_class

            words = get_lang_class(lang).Defaults.stop_words
        except Exception:  # unknown language: no stop list, mining is just less selective
            words = ()
    return frozenset(loose(w) for w in words)
