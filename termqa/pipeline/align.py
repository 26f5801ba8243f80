"""Target-side alignment: find the span of the target segment that renders each source occurrence.

Without an LLM, a rendering is found as one of:
- `glossary`: an allowed target term of the concept (any status, matched on lemmas, diacritics loose
  so that misspellings are found and then judged);
- `forbidden`: a deprecated/superseded target term of the concept;
- `dnt`: the do-not-translate source item kept as it is (`dnt_altered` when only case, spacing or
  accents changed);
- `untranslated`: the source form copied into the target;
- `established`: a rendering already used for this source form elsewhere in the document (from the
  glossary passes, or a recurring target n-gram mined from the chain's segments).

Alignment is one-to-one within a segment: each target span answers at most one source occurrence,
longer renderings claim first (so "corps de pompe" is not also read as "pompe"), then source order.
Occurrences left without a span are `unaligned`: kept, never dropped.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

from termqa.lang.normalise import loose
from termqa.model import FORBIDDEN_STATUSES
from termqa.pipeline.detect import content_positions, keys_of, surface_keys

# Lower wins when two kinds propose the same span.
_PRIORITY = {"glossary": 0, "dnt": 0, "forbidden": 1, "dnt_altered": 2, "established": 3, "untranslated": 4}


@dataclass(frozen=True)
class TargetForm:
    """A target-language designation to look for: its key, surface and where it comes from."""

    key: tuple[str, ...]
    text: str
    kind: str  # glossary | forbidden | established
    status: Optional[str] = None
    skey: tuple[str, ...] = ()  # surface keys; a token matches on its lemma or surface, see detect.py


@dataclass(frozen=True)
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

    __slots__ = ("tokens", "pos", "keys", "surf", "exact")

    def __init__(self, tokens):

        self.tokens = tokens
        self.pos = pos = content_positions(tokens)
        self.keys = [tokens[i].key for i in pos]
        sk = [surface_keys(tokens[i].text) for i in pos]
        self.surf = [a for a, _ in sk]
        self.exact = [b for _, b in sk]

    def find(self, key: Sequence[str], skey: Sequence[str] = (), *, surface: bool = False) -> list[tuple[int, int]]:
        """Content-index spans [a, b) where the term occurs.

        A text token matches a term token when its lemma, surface or exact key equals the term's
        lemma or surface key. With `surface=True` lemmas are not compared (copies of the source).
        A segment holds a few dozen words, so a scan beats building an index per segment.
        """
        if not key:
            return []
        m = len(key)
        skey = tuple(skey) if skey and len(skey) == m else tuple(key)
        lists = (self.surf, self.exact) if surface else (self.keys, self.surf, self.exact)
        n = len(self.keys)
        out = []
        for a in range(n - m + 1):
            for x in range(m):
                want = (key[x], skey[x])
                if not any(seq[a + x] in want for seq in lists):
                    break
            else:
                out.append((a, a + m))
        return out

    def span(self, a: int, b: int, text: str) -> tuple[int, int, int, int, str]:
        ta, tb = self.pos[a], self.pos[b - 1]
        s, e = self.tokens[ta].start, self.tokens[tb].end
        return ta, tb + 1, s, e, text[s:e]


def target_forms(concept, tgt_lang, lemmatiser) -> list[TargetForm]:
    """The concept's target designations with their lemma keys (hidden labels included: matchable)."""

    terms = [t for t in concept.terms_in(tgt_lang) if t.text.strip()]
    toks = lemmatiser.tokenize_many([t.text for t in terms])
    out = []
    for t, tk in zip(terms, toks):
        key, skey = keys_of(tk)
        if key:
            kind = "forbidden" if t.status in FORBIDDEN_STATUSES else "glossary"
            out.append(TargetForm(key, t.text, kind, t.status, skey))
    return out


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
        return "untranslated", None
    return "established", None


@dataclass
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
    """(priority, -length, start, Alignment) for every span that could render `p`."""
    out = []

    def add(a, b, kind, form=None):
        ta, tb, s, e, txt = idx.span(a, b, target)
        out.append((_PRIORITY[kind], -(e - s), s, Alignment(ta, tb, s, e, txt, kind, form)))

    if p.dnt:
        for a, b in idx.find(p.source_surface_key, surface=True):
            ta, tb, s, e, txt = idx.span(a, b, target)
            add(a, b, "dnt" if txt == p.source_text else "dnt_altered")
    for f in p.forms:
        for a, b in idx.find(f.key, f.skey):
            add(a, b, f.kind, f)
    for f in extra:
        for a, b in idx.find(f.key, f.skey):
            add(a, b, "established", f)
    if not p.dnt and p.has_target_terms:
        for a, b in idx.find(p.source_surface_key, surface=True):
            add(a, b, "untranslated")
    return out


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


def mine_renderings(chain_targets: Sequence[TargetIndex], doc_counts: Counter, stop: frozenset,
                    max_n: int = 4, claimed: Optional[dict] = None, exclude=frozenset(),
                    allow=frozenset()) -> list[tuple[tuple[str, ...], int]]:
    """Recurring target n-grams among a chain's segments, most chain-specific first.

    For a source form with no glossary rendering in a segment, the n-gram that recurs in most of the
    chain's target segments (and is rare elsewhere in the document) is its established rendering.
    Words already aligned to other occurrences (`claimed`: id(index) -> content positions) and other
    concepts' glossary renderings (`exclude`, less the chain's own `allow`) are never candidates.
    Returns (key, chain count) with
    chain count >= 2.
    """
    claimed = claimed or {}
    chain_counts: Counter = Counter()
    distinct = list({id(idx): idx for idx in chain_targets}.values())  # a segment counts once
    for idx in distinct:
        taken = claimed.get(id(idx), ())
        chain_counts.update({g for a, b, g in ngrams(idx, stop, max_n, spans=True)
                             if (g not in exclude or g in allow) and not any(a <= p < b for p in taken)})
    scored = []
    k = len(distinct)
    for g, c in chain_counts.items():
        if c < 2 or c * 2 < k:
            continue
        d = max(doc_counts.get(g, c), c)
        scored.append((c * c / d, len(g), c, g))
    scored.sort(key=lambda x: (-x[0], -x[1], x[3]))  # the n-gram itself breaks ties: deterministic
    return [(g, c) for _s, _l, c, g in scored]


def ngrams(idx: TargetIndex, stop: frozenset, max_n: int = 4, spans: bool = False):
    """Content n-grams of a target segment that could be a term: no edge stop word or punctuation.

    Yields keys, or (start, end, key) in content positions with `spans=True`.
    """
    toks = [idx.tokens[i] for i in idx.pos]
    n = len(toks)
    for a in range(n):
        ta = toks[a]
        if ta.punct or ta.article or ta.key in stop or ta.key.isdigit():
            continue
        for b in range(a + 1, min(n, a + max_n) + 1):
            tb = toks[b - 1]
            if tb.punct:
                break
            if tb.article or tb.key in stop:
                continue
            g = tuple(idx.keys[a:b])
            yield (a, b, g) if spans else g


def stop_words(lang: str) -> frozenset:
    """spaCy's stop words for the language, loose-normalised (empty when spaCy has none).

    Read from spaCy's `lang/<xx>/stop_words.py` directly: importing the language package would also
    compile its tokenizer exceptions, seconds of work for French that this does not need.
    """

    return frozenset(loose(w) for w in _spacy_stop_words(lang))


def _spacy_stop_words(lang: str):
    import importlib.util
    from pathlib import Path

    try:
        spec = importlib.util.find_spec("spacy")
        path = Path(spec.submodule_search_locations[0]) / "lang" / lang / "stop_words.py"
        if path.is_file():
            mod_spec = importlib.util.spec_from_file_location(f"_termqa_stop_words_{lang}", path)
            module = importlib.util.module_from_spec(mod_spec)
            mod_spec.loader.exec_module(module)
            return module.STOP_WORDS
    except Exception:  # an unusual layout: ask spaCy the ordinary way below
        pass
    try:
        from spacy.util import get_lang_class

        return get_lang_class(lang).Defaults.stop_words
    except Exception:  # unknown language: no stop list, mining is just less selective
        return ()
