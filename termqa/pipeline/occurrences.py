"""Every occurrence of the glossary's source designations in one document's source text.

`detect_document` matches a document whose tokens are all held (the designations, their variants, the
acronyms it defines); `detect_in_chunks` gives the same matches on a big document (a translation memory)
a chunk of segments at a time, keeping no tokens; `source_matches` chooses between them. Separate from
`detect` (the trie and the matching of one segment) and `sourcevariants` (the variant passes), which
this module calls.
"""
from __future__ import annotations

from itertools import islice
from typing import Optional, Sequence

from termqa.lang.verbuse import WORD_CLASSES
from termqa.model import Document, Segment, segment_texts
from termqa.pipeline.detection import Detection
from termqa.pipeline.detect import (
    TermTrie, acronym_definition_spans, find_acronyms, find_in_segment, in_case, positions_and_keys,
    without_verb_uses,
)
from termqa.pipeline.sourcevariants import VariantFinder, find_variants


# A document with more segments than this (a big translation memory) keeps no tokens: it is tokenised and
# matched DETECT_CHUNK segments at a time, and the tokens needed later are made again.
BIG_DOCUMENT = 20_000
# Segments tokenised at a time in a big document: a chunk's tokens are all held at once (a few kB a
# segment), so a bigger chunk only costs memory, for the same time.
DETECT_CHUNK = 2_000


def source_matches(doc: Document, trie: TermTrie, lem_s, detection: Detection, lang: str = ""):
    """(matches, source tokens by segment index) of a document: `detect_document` over its tokens, or, on
    a big document (over BIG_DOCUMENT segments), `detect_in_chunks` and tokens made again when asked."""
    if len(doc.segments) > BIG_DOCUMENT:
        found = detect_in_chunks(trie, doc.segments, lem_s, detection, lang)
        WORD_CLASSES.save()
        return found
    segs = [s for s in doc.segments if s.source.strip()]
    src_tokens = lem_s.tokenize_many([s.source for s in segs])
    tokens_by_seg = {s.index: t for s, t in zip(segs, src_tokens)}  # index: unique within a document
    matches, _acronyms = detect_document(doc, trie, tokens_by_seg, segs, detection, lang)
    WORD_CLASSES.save()  # the word classes verb uses were decided by, when new ones were asked
    return matches, tokens_by_seg


def detect_document(doc: Document, trie: TermTrie, tokens_by_seg: dict, segments: Sequence[Segment],
                    detection: Detection, lang: str = ""):
    """All matches in a document, including acronyms the document defines. Ordered by position.

    With `detection.variants` other than "none", the variants of that level too (termqa.pipeline.variants);
    `lang` (primary subtag) and `detection.stop` (its function words) steer the in-context rules.
    """
    matches = []
    prepared = {}
    for seg in segments:
        toks = tokens_by_seg[seg.index]
        pk = prepared[seg.index] = positions_and_keys(toks)
        matches.extend(_found(trie, seg, toks, pk, lang))
    if detection.any_variants:
        matches = find_variants(matches, trie, tokens_by_seg, segments, detection, lang, prepared)
    return add_acronyms(trie, matches, tokens_by_seg, segments)


def _found(trie: TermTrie, seg: Segment, toks, pk, lang: str) -> list:
    """The trie's matches in one segment that stand: in the case a match-case entry asks for, and not an
    English verb use of a noun term (termqa.pipeline.detect.in_case, without_verb_uses)."""
    return without_verb_uses(in_case(find_in_segment(trie, seg, toks, pk), toks, trie), toks, lang, trie)


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




def detect_in_chunks(trie, segments, lem_s, detection: Detection, lang=""):
    """`detect_document` on a big document (a whole translation memory), DETECT_CHUNK segments at a time.

    Each chunk is tokenised once, matched and searched for the variants a segment holds on its own; no
    tokens are kept, so memory follows the occurrences, not the document (a packed document stays
    packed: its segments are never all made into records at once). Results are those of
    `detect_document`: the same tokens, the same passes; what needs tokens afterwards (reductions, which
    look a few segments back, acronyms, the occurrences' surface keys) has those segments tokenised again.
    """
    segs = WithSource(segments)
    finder = VariantFinder(trie, detection) if detection.any_variants else None
    by_seg: dict = {}
    taken_by_seg: dict = {}
    for part in chunks(segs, DETECT_CHUNK):
        for seg, toks in zip(part, lem_s.tokenize_many([s.source for s in part])):
            pk = positions_and_keys(toks)
            found = _found(trie, seg, toks, pk, lang)
            if finder is not None:
                found, taken = finder.in_segment(seg, toks, found, pk)
                if taken:
                    taken_by_seg[seg.index] = taken
            if found:
                by_seg[seg.index] = found
    tokens = SourceTokens(segments, lem_s)
    if finder is not None:
        matches = finder.finish(segs, by_seg, taken_by_seg, tokens, lang)
    else:
        matches = [m for seg in segs for m in by_seg.get(seg.index, ())]
    matches, _acronyms = add_acronyms(trie, matches, tokens, segs)
    return matches, tokens



def chunks(items, size: int):
    """Lists of up to `size` consecutive items of any iterable."""
    it = iter(items)
    while True:
        part = list(islice(it, size))
        if not part:
            return
        yield part


class WithSource:
    """The segments of a document that have source text, in order; iterable again and again, never held
    as a list. `index_order` and `segment` (termqa.pipeline.sourcevariants.index_order) read packed segments by
    their text and position, without making a record of each."""

    def __init__(self, segments):
        self._segments = segments
        self._by_index: Optional[dict] = None

    def __iter__(self):
        return (s for s in self._segments if s.source.strip())

    def index_order(self):
        return (i for i, source, _t in segment_texts(self._segments) if source.strip())

    def segment(self, index: int):
        if getattr(self._segments, "indexed", False):
            return self._segments[index]
        if self._by_index is None:
            self._by_index = {s.index: s for s in self}
        return self._by_index[index]


class SourceTokens(dict):
    """Source tokens by segment index, made when asked (the latest kept: one segment's matches ask in turn).

    Packed segments (termqa.store.packed.PackedSegments) are found by position; other documents by a map of
    their texts."""

    def __init__(self, segments, lem):
        super().__init__()
        self._segments = segments
        self._text = None if getattr(segments, "indexed", False) else {s.index: s.source for s in segments}
        self._lem = lem
        self._last: tuple = (None, ())

    def __missing__(self, index):
        if self._last[0] == index:
            return self._last[1]
        text = self._segments[index].source if self._text is None else self._text[index]
        toks = self._lem.tokenize(text)
        self._last = (index, toks)
        return toks
