"""Pass 2 of alignment over one document: the occurrences pass 1 left open are aligned to renderings the
document itself establishes (`align_established`), from n-gram counts over its segment pairs, each
distinct pair counted once (`PairsSeen`, `_pair_key`).

Separate from `align` (pass 1, the target forms and index) and `mining` (the evidence for a rendering):
this module holds the document-wide bookkeeping, sized for a big translation memory.
"""
from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import replace
from typing import Sequence

from termqa.lang.langtags import primary
from termqa.pipeline.align import TargetForm, TargetIndex, candidates, stop_words
from termqa.pipeline.mining import (
    MAX_EXTRA, MIN_SUPPORT, OpenSegment, _needed_in, _source_keys, mine_renderings, neighbour_words, ngrams, noun_term,
)


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
            tgt_lang=primary(tgt_l), source_stop=src_stop)
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
