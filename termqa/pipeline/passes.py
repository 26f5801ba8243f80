"""One document's pass: its occurrences (`occurrences`), then their target spans (`align`,
`established` for what the glossary does not settle, `closest` for what is still open), as mutable
`Work` records.

Separate from `check` (which only sequences the stages) and `counting` (which runs this pass over the
documents, in one process or several): everything here depends on one document alone. A big document
(over `occurrences.BIG_DOCUMENT` segments) is worked a chunk of segments at a time, its target tokens
made again when needed rather than held (`OpenTargets`).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Optional

from termqa.lang.langtags import primary
from termqa.lang.normalise import term_key
from termqa.model import Document, concepts_by_id
from termqa.pipeline.detection import Detection
from termqa.pipeline import align as al, detect as dt, occurrences as occ, variants as vr
from termqa.pipeline.closest import align_closest
from termqa.pipeline.established import align_established


# alignment kinds of pass 1 that give an occurrence no term of its concept's glossary: a concept that
# writes the same source designation may have its own term there (`to_homograph`)
_UNSETTLED = frozenset({"untranslated", "copied_word", "inflected", "derived"})


@dataclass(slots=True)
class Work:
    """One occurrence while the pipeline works on it (mutable; frozen into Occurrence/Verdict at the end)."""

    doc: Document
    seg: object
    concept: object
    entry: object
    source_form: str
    source_text: str
    start: int
    end: int
    variation: str
    surface_key: tuple
    subtype: Optional[str] = None
    chain_size: int = 1
    first: bool = False
    alignment: Optional[al.Alignment] = None
    rendering_key: Optional[tuple] = None
    target_variation: Optional[str] = None


def detect_and_align(doc, concepts, trie, heads, lem_s, lem_t, tgt_l, forms_cache, detection: Detection):
    """Occurrences of one document, with chains, first mentions and target spans; `detection` says how far
    detection goes (termqa.pipeline.detection).

    Everything here depends on this document only (the forms cache holds pure functions of a concept),
    so documents can be counted in any order, or side by side in worker processes.
    """
    by_id = concepts_by_id(concepts)
    src_lang = primary(doc.src_lang or "")
    matches, tokens_by_seg = occ.source_matches(doc, trie, lem_s, detection, src_lang)

    work: list[Work] = []
    skipped = 0
    # a term's form name and surface keys are the same few values again and again: one object each (a
    # big memory's occurrences would otherwise hold many equal strings and tuples)
    shared: dict = {}
    for m in matches:
        if not m.segment.translated:
            skipped += 1  # no translation yet: nothing to check
            continue
        toks = tokens_by_seg[m.segment.index][m.tok_start:m.tok_end]
        concept = by_id[m.entry.concept_id]
        surface = m.segment.source[m.start:m.end]
        head = heads.get(concept.id)
        variation, subtype = dt.variation_and_subtype(m.entry, surface, head)
        form, skey = dt.form_name(m.entry.key), dt.keys_of(toks)[1]
        work.append(Work(
            doc=doc, seg=m.segment, concept=concept, entry=m.entry,
            source_form=shared.setdefault(form, form), source_text=surface, start=m.start, end=m.end,
            variation=variation, surface_key=shared.setdefault(skey, skey), subtype=subtype,
        ))
    del shared
    del matches, tokens_by_seg  # the work records hold what alignment needs: not the source tokens
    # chains and first mentions
    chains = Counter((w.concept.id, w.source_form) for w in work)
    seen_concepts = set()
    for w in work:
        w.chain_size = chains[(w.concept.id, w.source_form)]
        if w.concept.id not in seen_concepts:
            w.first = True
            seen_concepts.add(w.concept.id)

    # target side: only segments that hold occurrences are tokenised
    by_seg: dict = defaultdict(list)
    for i, w in enumerate(work):
        by_seg[w.seg.index].append(i)
    for k, idxs in by_seg.items():  # read only from here: a tuple is half a list's size
        by_seg[k] = tuple(idxs)
    seg_list = [work[idxs[0]].seg for idxs in by_seg.values()]

    reduced_forms: dict = {}  # kept out of forms_cache: pass 2 reads that one as every concept's forms

    def reduced_of(rule: str) -> str:
        return ("coordination" if rule == "coordinated" else
                rule if rule in ("reduction", "coordination", "insertion", "modifier_reduction") else
                "reduction" if rule == "extension_reduction" else "")

    # forms kept from earlier runs, read in one query; the target designations of the concepts left
    # tokenised in one call (one lookup of the stored analyses instead of one per concept)
    store = al.StoredForms(tgt_l, lem_t, detection)
    wanted = dict.fromkeys([(w.concept.id, "") for w in work]
                           + [(w.concept.id, reduced_of(w.entry.rule)) for w in work])
    wanted = [(by_id[cid], r) for cid, r in wanted
              if ((cid, tgt_l, r) not in reduced_forms if r else (cid, tgt_l) not in forms_cache)]
    kept = store.fetch(wanted)
    lem_t.tokenize_many(list(dict.fromkeys(t.text for c, r in wanted if (c.id, r) not in kept
                                           for t in c.terms_in(tgt_l) if t.text.strip())))

    def forms_of(concept, reduced=""):
        cache = reduced_forms if reduced else forms_cache
        k = (concept.id, tgt_l, reduced) if reduced else (concept.id, tgt_l)
        if k not in cache:
            got = kept.get((concept.id, reduced))
            if got is None:
                got = al.target_forms(concept, tgt_l, lem_t, detection, reduced)
                store.keep(concept, reduced, got)
            cache[k] = got
        return cache[k]

    def pending(i: int) -> al.Pending:
        w = work[i]
        forms = forms_of(w.concept, reduced_of(w.entry.rule))
        return al.Pending(
            index=i, concept_id=w.concept.id, source_form=w.source_form, source_surface_key=w.surface_key,
            source_text=w.source_text, dnt=w.concept.dnt, forms=forms,
            has_target_terms=any(f.kind == "glossary" for f in forms),
            in_name=dt.inside_name(w.seg.source, w.start, w.end, w.entry.text),
        )

    homs = dt.homographs(trie)
    moved = False

    def to_homograph(seg, idx, idxs, here) -> bool:
        """Occurrences of a designation several concepts write the same (`dt.homographs`) that pass 1 left
        without their concept's glossary term go to the next such concept whose glossary term the segment
        holds, on a span no other occurrence took: "transmission" is 传染 in one termbase and 传播 in the
        other, and the translation's 传播 is the second's term. Nothing changes where no such term is there."""
        changed = False
        for i in idxs:
            w = work[i]
            if w.alignment is not None and w.alignment.kind not in _UNSETTLED:
                continue
            if w.entry.via != "glossary" or w.entry.rule or w.concept.dnt:
                continue
            ids = homs.get((w.entry.key, w.entry.text.casefold()))
            if not ids:
                continue
            taken = [(work[j].alignment.start, work[j].alignment.end) for j in idxs
                     if j != i and work[j].alignment is not None]
            for cid in ids:
                other = by_id.get(cid)
                if cid == w.concept.id or other is None or other.dnt:
                    continue
                forms = forms_of(other)
                p = al.Pending(
                    index=i, concept_id=cid, source_form=w.source_form, source_surface_key=w.surface_key,
                    source_text=w.source_text, dnt=False, forms=forms,
                    has_target_terms=any(f.kind == "glossary" for f in forms), in_name=here[i].in_name)
                found = sorted((c for c in al.candidates(p, idx, seg.target) if c[3].kind == "glossary"
                                and not any(c[3].start < e and s < c[3].end for s, e in taken)),
                               key=lambda c: c[:3])
                if found:
                    w.concept, w.alignment, here[i] = other, found[0][3], p
                    changed = True
                    break
        return changed

    # pass 2 reads the Pending of each occurrence pass 1 leaves open and of each chain's first (its forms
    # are the chain's): only those are kept (a big memory's occurrences would hold many of them)
    chain_firsts: dict = {}
    for i, w in enumerate(work):
        chain_firsts.setdefault((w.concept.id, w.source_form), i)
    firsts = frozenset(chain_firsts.values())
    del chain_firsts
    pendings = {}
    # pass 1: glossary designations, DNT items, untranslated copies. Targets are tokenised DETECT_CHUNK
    # segments at a time; a segment's tokens are kept only while one of its occurrences is still open
    # (pass 2 needs them), so a big translation memory never holds the tokens of every segment with a term
    indexes = OpenTargets(lem_t, held=len(doc.segments) <= occ.BIG_DOCUMENT)
    for part in occ.chunks(seg_list, occ.DETECT_CHUNK):
        for seg, toks in zip(part, lem_t.tokenize_many([s.target for s in part])):
            idx = al.TargetIndex(toks)
            idxs = by_seg[seg.index]
            here = {i: pending(i) for i in idxs}
            cands = {i: al.candidates(here[i], idx, seg.target) for i in idxs}
            done = al.assign(list(here.values()), cands)
            short = [i for i in idxs if i not in done and cands[i]]
            if short:
                # more occurrences of a concept than glossary matches: the others' inflected forms count too
                cands.update({i: al.candidates(here[i], idx, seg.target, inflected=True) for i in short})
                done = al.assign(list(here.values()), cands)
            for i, a in done.items():
                work[i].alignment = a
            if homs and to_homograph(seg, idx, idxs, here):
                moved = True
            if any(work[i].alignment is None for i in idxs):
                indexes.add(seg, idx)
            for i in idxs:
                if work[i].alignment is None or i in firsts:
                    pendings[i] = here[i]
    del firsts
    if moved:
        # an occurrence given to another concept joins that concept's chain: chains, first mentions and the
        # Pending of each chain's first (pass 2 reads the chain's forms there) follow it
        chains = Counter((w.concept.id, w.source_form) for w in work)
        seen_concepts = set()
        chain_firsts = {}
        for i, w in enumerate(work):
            w.chain_size = chains[(w.concept.id, w.source_form)]
            w.first = w.concept.id not in seen_concepts
            seen_concepts.add(w.concept.id)
            chain_firsts.setdefault((w.concept.id, w.source_form), i)
        for i in chain_firsts.values():
            if i not in pendings:
                pendings[i] = pending(i)
        del chain_firsts
    # pass 2: renderings established in the document for the chains that still have gaps
    align_established(work, by_seg, indexes, pendings, forms_cache, tgt_l, lem_t)
    # pass 3: what is still open shows the closest candidate the target holds (left undecided)
    align_closest(work, by_seg, indexes, pendings, al.stop_words(primary(tgt_l)))
    # rendering keys (lemmas, leading articles stripped) for references and metrics: the other segments'
    # targets are tokenised again, a chunk at a time (the same tokens)
    aligned = [s for s in seg_list if any(work[i].alignment is not None for i in by_seg[s.index])]
    for part in occ.chunks(aligned, occ.DETECT_CHUNK):
        todo = [s for s in part if s.index not in indexes]
        fresh = dict(zip((s.index for s in todo), lem_t.tokenize_many([s.target for s in todo])))
        for seg in part:
            tokens = indexes[seg.index].tokens if seg.index in indexes else fresh[seg.index]
            for i in by_seg[seg.index]:
                a = work[i].alignment
                if a is not None and a.kind != "closest":  # a candidate is not a rendering the metrics count
                    toks = tokens[a.tok_start:a.tok_end]
                    work[i].rendering_key = term_key([t for t in toks if not dt.is_gap(t)]) or None
    indexes.clear()

    preferred: dict = {}
    for w in work:
        a = w.alignment
        if w.concept.id not in preferred:
            pref = w.concept.preferred(tgt_l)
            preferred[w.concept.id] = next((f.key for f in forms_of(w.concept)
                                            if pref is not None and f.text == pref.text and not f.rule), None)
        w.target_variation = vr.target_variation(a.text if a else None, w.rendering_key,
                                                 a.form if a and a.kind == "glossary" else None,
                                                 preferred[w.concept.id])
    store.save()
    return work, skipped



class OpenTargets:
    """The target indexes (`al.TargetIndex`) of the segments where pass 1 left an occurrence open, by
    segment index, as pass 2 (`align_established`) reads them: `in`, `[]`, `get`.

    A small document keeps them as made (`held`). A big one keeps only the segments: an index is made
    again from the target when asked (the same tokens), the latest few kept, so the tokens of every open
    segment of a translation memory (tens of thousands) are never held at once.
    """

    KEEP = 64

    def __init__(self, lem, held: bool):
        self._lem = lem
        self._held = held
        self._open: dict = {}  # segment index -> its TargetIndex (held) or its segment
        self._recent: dict = {}

    def add(self, seg, idx) -> None:
        self._open[seg.index] = idx if self._held else seg

    def __contains__(self, index) -> bool:
        return index in self._open

    def __getitem__(self, index):
        value = self._open[index]
        if self._held:
            return value
        idx = self._recent.get(index)
        if idx is None:
            idx = al.TargetIndex(self._lem.tokenize(value.target))
            if len(self._recent) >= self.KEEP:
                del self._recent[next(iter(self._recent))]
            self._recent[index] = idx
        return idx

    def get(self, index, default=None):
        return self[index] if index in self._open else default

    def clear(self) -> None:
        self._open.clear()
        self._recent.clear()
