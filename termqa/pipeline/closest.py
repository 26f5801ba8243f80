"""Pass 3 of alignment: for an occurrence still without a rendering, the closest candidate in its target
segment, so the report shows what is there ("differs: 設定") instead of "no rendering found".

A candidate is a run of target words each sharing a word with one of the concept's glossary target
terms: the same lemma or surface, a shared stem (a long common beginning: "budgétaire" for "budget"),
or, in scripts written without spaces, a piece of the term's word (設定 inside 環境設定). Function words
may stand inside the run ("Première Nation de ..."), and begin it when they are words of the term
("Première", a stop word of French), never end it. A run must share a content word
of the term, and either half of the term's words or every content word of it, to count.

The occurrence stays undecided: a candidate is never conforming and never an error (`align` kind
`closest`, decided by `prejudge` as "diverges from the glossary term"). Spans other occurrences of the
segment hold are not offered again (alignment is one-to-one).
"""
from __future__ import annotations

from typing import Optional, Sequence

from termqa.pipeline.align import Alignment, Pending, TargetIndex
from termqa.pipeline.variants import CONJUNCTIONS, HEAD_FIRST

STEM_MIN = 4  # characters two words must begin with alike to share a stem
STEM_SHARE = 0.6  # of the longer word's length


def _spaceless(word: str) -> bool:
    """A word of a script written without spaces (Han, kana, Thai...): parts of it are words too."""
    return any("\u0e00" <= ch <= "\u0e7f" or "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff"
               or "\uac00" <= ch <= "\ud7af" for ch in word)


def shares_word(text_keys: Sequence[str], key: str, skey: str) -> bool:
    """Does a target word (its lemma, surface and exact keys) share a word with a term word (lemma
    `key`, surface `skey`): the same, a shared stem, or a piece of a word written without spaces?"""
    if key in text_keys or skey in text_keys:
        return True
    surf = text_keys[1]
    for w in (skey, key):
        if _spaceless(w):
            if len(surf) >= 2 and surf in w:
                return True
            continue
        if not (surf.isalpha() and w.isalpha()):
            continue
        n = 0
        for a, b in zip(surf, w):
            if a != b:
                break
            n += 1
        if n >= STEM_MIN and n >= STEM_SHARE * max(len(surf), len(w)):
            return True
    return False


_HYPHENS = frozenset("-\u2010\u2011")
BRIDGE_MAX = 3  # words a run may step over to reach another word of the term


def _joins(idx: TargetIndex, c: int) -> bool:
    """Is the word at content position `c` a coordinating conjunction? A run never holds one: in "écran facial
    ou masque" the words around "ou" belong to two coordinated phrases, not to one rendering."""
    return idx.surf[c] in CONJUNCTIONS or idx.keys[c] in CONJUNCTIONS


def _bridge(idx: TargetIndex, hits: list, free: list, got: set, content: set, b: int) -> Optional[int]:
    """The end of a run that holds a content word of the term, extended over up to `BRIDGE_MAX` words from
    content position `b` to a word that brings a content word of the term the run lacks ("maladies" ...
    "respiratoires" in "maladies communes des voies respiratoires" for "respiratory diseases"); None when
    there is none. The words stepped over are free words of the same clause: no punctuation, no
    conjunction, none another occurrence holds, none a word of the term the run has."""
    n = len(idx.keys)
    if not got & content:
        return None
    for j in range(b, min(n, b + BRIDGE_MAX + 1)):
        if _spaceless(idx.surf[j]):
            return None  # a token of a script written without spaces is a character, not a word: no steps over it
        if (hits[j] & content) - got:
            return j + 1 if j > b else None
        if not free[j] or _joins(idx, j) or (hits[j] and not hits[j] - got):
            return None
    return None


def _whole_words(idx: TargetIndex, a: int, b: int) -> tuple[int, int]:
    """Content positions [a, b) widened to whole written words: a part joined by a hyphen without spaces
    ("auto-" in "auto-quarantaine") belongs to the word the run holds."""
    toks, pos = idx.tokens, idx.pos

    def glued(left: int, right: int) -> bool:  # content positions left, right joined by one hyphen
        i, j = pos[left], pos[right]
        return j == i + 2 and toks[i + 1].text in _HYPHENS and toks[i].end == toks[i + 1].start \
            and toks[i + 1].end == toks[j].start and not toks[i].punct and not toks[j].punct

    while a > 0 and glued(a - 1, a):
        a -= 1
    while b < len(pos) and glued(b - 1, b):
        b += 1
    return a, b


def closest_rendering(p: Pending, idx: TargetIndex, target: str, taken: Sequence[tuple[int, int]], stop: frozenset,
                      here: float = 0.0) -> Optional[Alignment]:
    """The closest candidate for occurrence `p` in a target segment (`idx`), outside the `taken` character
    spans; None when no run of words shares enough with a glossary target term. `here`: where the term
    stands in its source, as a share of its length (the nearest of equal candidates wins)."""
    forms = [f for f in p.forms if f.kind == "glossary" and not f.rule]
    if not forms or not idx.keys:
        return None
    n = len(idx.keys)
    free = []
    for c in range(n):
        t = idx.tokens[idx.pos[c]]
        free.append(not t.punct and not any(t.start < e and s < t.end for s, e in taken))
    tl = max(1, len(target))
    best: Optional[tuple] = None
    for f in forms:
        sk = f.skey if len(f.skey) == len(f.key) else f.key
        content = [x for x, k in enumerate(f.key) if k not in stop and sk[x] not in stop] or list(range(len(f.key)))
        # the head word, where words are words: a key of a script written without spaces is a character
        head = None if any(_spaceless(k) for k in f.key) else content[0] if f.lang in HEAD_FIRST else content[-1]
        cset = set(content)
        hits: list[set] = []
        for c in range(n):
            keys = (idx.keys[c], idx.surf[c], idx.exact[c])
            # every word of the term may be shared ("Première", a stop word of French, in "Première Nation")
            hits.append({x for x in range(len(f.key)) if shares_word(keys, f.key[x], sk[x])} if free[c] else set())
        c = 0
        while c < n:
            if not hits[c]:
                c += 1
                continue
            a, b, got = c, c + 1, set(hits[c])
            while b < n:
                if hits[b]:
                    got |= hits[b]
                    b += 1
                elif b + 1 < n and free[b] and idx.keys[b] in stop and hits[b + 1] and not _joins(idx, b):
                    b += 1  # a function word inside the run ("Première Nation de Snuneymuxw")
                else:
                    j = _bridge(idx, hits, free, got, cset, b)
                    if j is None:
                        break
                    b = j  # "maladies communes des voies respiratoires" for "respiratory diseases"
                    got |= hits[b - 1]
            c = b
            while a < b - 1 and idx.keys[a] in stop and not (hits[a] and len(idx.keys[a]) >= STEM_MIN):
                a += 1  # "de la Nation": the run is "Nation"
            while b - 1 > a and idx.keys[b - 1] in stop and not hits[b - 1] & set(content):
                b -= 1  # a run ends on a content word (it may begin with a function word of the term)
            if not got & set(content) or 2 * len(got) < len(f.key) and len(got & set(content)) < len(content):
                continue
            a, b = _whole_words(idx, a, b)
            ta, tb, s, e, text = idx.span(a, b, target)
            # more of the term's words first, then a run holding its head ("masque" over "facial" for
            # "masque facial"), then the nearest
            rank = (len(got), head in got, -abs(s / tl - here))
            if best is None or rank > best[0]:
                best = (rank, Alignment(ta, tb, s, e, text, "closest", f))
    return best[1] if best else None


def widened(a: Alignment, p: Pending, idx: TargetIndex, target: str, taken: Sequence[tuple[int, int]],
            stop: frozenset) -> Alignment:
    """A mined rendering (`established`) widened by the words right next to it that share a word with a
    glossary target term of the concept and are not in it yet: mined as "liée aux armes à feu", the
    rendering of "gun violence" is "violence liée aux armes à feu" where the glossary says "violence
    armée". The span then covers the rendering, not a piece of it."""
    forms = [f for f in p.forms if f.kind == "glossary" and not f.rule]
    if not forms:
        return a
    words = [(k, f.skey[x] if len(f.skey) == len(f.key) else k) for f in forms for x, k in enumerate(f.key)
             if k not in stop]
    inside = {c for c, i in enumerate(idx.pos) if a.tok_start <= i < a.tok_end}
    if not inside:
        return a
    lo, hi = min(inside), max(inside) + 1

    def takes(c: int) -> bool:
        if not 0 <= c < len(idx.pos):
            return False
        t = idx.tokens[idx.pos[c]]
        if t.punct or idx.keys[c] in stop or any(t.start < e and s < t.end for s, e in taken):
            return False
        keys = (idx.keys[c], idx.surf[c], idx.exact[c])
        mine = [(idx.keys[x], idx.surf[x], idx.exact[x]) for x in range(lo, hi)]
        return any(shares_word(keys, k, sk) and not any(shares_word(m, k, sk) for m in mine) for k, sk in words)

    while takes(lo - 1):
        lo -= 1
    while takes(hi):
        hi += 1
    if (lo, hi) == (min(inside), max(inside) + 1):
        return a
    ta, tb, s, e, text = idx.span(lo, hi, target)
    return Alignment(ta, tb, s, e, text, a.kind, a.form)


def align_closest(work, by_seg, indexes, pendings: dict, stop: frozenset) -> None:
    """Pass 3 over one document: each occurrence left open by passes 1 and 2 whose concept has glossary
    target terms gets its closest candidate (`closest_rendering`), if any, and each mined rendering of
    such a concept takes in the glossary's words right next to it (`widened`). `indexes`: the target
    indexes of the segments pass 1 left open (`passes.OpenTargets`)."""
    for seg_index, idxs in by_seg.items():
        open_ = [i for i in idxs if work[i].alignment is None and i in pendings
                 and pendings[i].has_target_terms and not pendings[i].dnt]
        if not open_ and not any(work[i].alignment is not None and work[i].alignment.kind == "established"
                                 for i in idxs):
            continue
        idx = indexes.get(seg_index)
        if idx is None:
            continue
        for i in idxs:
            a = work[i].alignment
            if a is not None and a.kind == "established" and i in pendings and pendings[i].has_target_terms:
                others = [(work[j].alignment.start, work[j].alignment.end) for j in idxs
                          if j != i and work[j].alignment is not None]
                work[i].alignment = widened(a, pendings[i], idx, work[i].seg.target, others, stop)
        taken = [(work[j].alignment.start, work[j].alignment.end) for j in idxs if work[j].alignment is not None]
        for i in open_:
            w = work[i]
            a = closest_rendering(pendings[i], idx, w.seg.target, taken, stop, w.start / max(1, len(w.seg.source)))
            if a is not None:
                w.alignment = a
                taken.append((a.start, a.end))

