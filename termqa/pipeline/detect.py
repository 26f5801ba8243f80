"""Source-side detection: find every occurrence of every glossary concept in each document.

Terms are matched leftmost-longest on normalised lemma keys with a token trie, so inflected forms,
case variants and all synonyms of a concept are found in one pass. Acronyms the document defines
itself ("variable frequency drive (VFD)") become extra source forms of the concept for the rest of
that document.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from termqa.config import VariantLevel
from termqa.lang.fold import exact_key, is_caps
from termqa.lang.normalise import loose, term_tokens
from termqa.model import Concept, Document, Segment, Term
from termqa.pipeline import variants as vr
from termqa.store.pickling import pickled_by_fields

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


# pickled in bulk: the cached source index of a 20k-concept termbase holds tens of thousands of entries
@pickled_by_fields
@dataclass(frozen=True, slots=True)
class SourceEntry:
    """One matchable source designation of a concept."""

    concept_id: str
    text: str  # surface as written in the glossary (or the document, for acronyms)
    key: tuple[str, ...]  # lemma keys
    term_type: Optional[str]
    via: str  # "glossary", "acronym", or the variant rule that made it (termqa.pipeline.variants.RULES)
    skey: tuple[str, ...] = ()  # surface keys (a term lemmatised out of context can go wrong:
    # "pompe" -> "pomper"; matching accepts a token whose lemma or surface equals either key)
    rule: str = ""  # variant rule; empty for the glossary's own designations and acronyms
    base_key: tuple[str, ...] = ()  # for a variant: the key of the designation it was made from


@dataclass(frozen=True, slots=True)
class Match:
    """One occurrence found in a segment's source (token and char spans)."""

    segment: Segment
    entry: SourceEntry
    tok_start: int
    tok_end: int
    start: int
    end: int


# the derived indexes travel with the trie (the index cache stores them built: reading them back is cheaper
# than building them); the entries go first, so that pickle writes each entry in that flat list rather than
# deep in the trie where it is first met, and reads them back in one run
@pickled_by_fields(fields=("entries", "root", "size", "derived"))
class TermTrie:
    """A token trie over normalised term keys. Values are lists of entries ending at a node."""

    __slots__ = ("root", "size", "entries", "derived")

    def __init__(self):
        self.root: dict = {}
        self.size = 0
        self.entries: list[SourceEntry] = []  # every entry added, in order (variant passes read them)
        self.derived: dict = {}  # indexes the variant passes build from `entries`: once per trie, not per document

    def add(self, entry: SourceEntry) -> None:
        self.entries.append(entry)
        self.derived.clear()
        for path in dict.fromkeys((entry.key, entry.skey or entry.key)):
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


def build_entries(concepts: Sequence[Concept], src_lang: str, lemmatiser, variants: VariantLevel) -> list[SourceEntry]:
    """Every source-language designation of every concept, with its matching key.

    `variants` (termqa.config.VariantLevel): from `static` on, the variants generated from each
    designation follow the glossary's own entries (which win where both give the same path).
    """
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
    if variants != VariantLevel.NONE:
        lang = src_lang.split("-")[0].lower()
        own = {e.key for e in out}
        extra = []
        for e in out:
            for rule, k in vr.static_keys(e.key, lang, e.text):
                if k not in own:
                    extra.append(SourceEntry(e.concept_id, e.text, k, e.term_type, rule, k, rule, e.key))
        out += extra + _modifier_reductions(out, lang, own | {e.key for e in extra})
    return _shared(out)


def _shared(entries: list[SourceEntry]) -> list[SourceEntry]:
    """The entries with equal words and keys made one object each (values unchanged).

    Each term's keys are made apart ("pump" anew in every term holding it; surface keys equal to the
    lemma keys as a second tuple), and pickle writes, and the index cache reads back, one object per
    object, however equal: sharing them makes the cached index smaller and faster to load.
    """
    words: dict = {}
    keys: dict = {}

    def one(key: tuple) -> tuple:
        key = tuple([words.setdefault(w, w) for w in key])
        return keys.setdefault(key, key)

    return [SourceEntry(e.concept_id, e.text, one(e.key), e.term_type, e.via, one(e.skey), e.rule, one(e.base_key))
            for e in entries]


def _modifier_reductions(entries: Sequence[SourceEntry], lang: str, taken: set) -> list[SourceEntry]:
    """The designations without their outermost adjective (variants.modifier_reductions), except a
    form that is already a designation or variant of any concept, or the reduction of designations of
    two concepts ("acute respiratory disease" and "chronic respiratory disease" both give
    "respiratory disease", which names neither)."""
    made: dict = {}
    for e in entries:
        if e.via != "glossary" or e.rule:
            continue
        k = vr.modifier_reductions(e.key, e.text, lang)
        if k is not None and k not in taken:
            made.setdefault(k, {}).setdefault(e.concept_id, e)
    return [SourceEntry(e.concept_id, e.text, k, e.term_type, "modifier_reduction", k, "modifier_reduction", e.key)
            for k, by_concept in made.items() if len(by_concept) == 1 for e in by_concept.values()]


def rendering_key(lemmatiser, text: Optional[str]) -> Optional[tuple[str, ...]]:
    """The lemma key of a rendering as written (leading articles dropped), None for no text."""
    if not text:
        return None
    return keys_of(lemmatiser.tokenize(text))[0] or None


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
    """(lemma key, surface key, exact key) for each content position of a text: the tokens carry
    them (computed once per distinct word by the lemmatiser); a token made elsewhere gets them here."""
    out = []
    for i in positions:
        t = tokens[i]
        out.append(t.keys or (t.key, *surface_keys(t.text)))
    return out


def content_positions(tokens) -> list[int]:
    """Indexes of the tokens matching looks at (hyphens joining compounds are skipped)."""
    return [i for i, t in enumerate(tokens) if not (t.punct and t.text in GAPS)]


def positions_and_keys(tokens) -> tuple[list[int], list[tuple[str, str, str]]]:
    """(content positions, their keys) of a text's tokens: what every matching pass reads."""
    pos = content_positions(tokens)
    return pos, text_keys(tokens, pos)


def find_in_segment(trie: TermTrie, segment: Segment, tokens, prepared: Optional[tuple] = None) -> list[Match]:
    """Leftmost-longest matches of the trie in one segment's source tokens (`prepared`: their
    `positions_and_keys`, when already computed)."""
    pos, keys = prepared or positions_and_keys(tokens)
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
                mark = e.text[:1]
                if mark == "#" or mark == "@":
                    if not _has_sigil(tokens, a, mark):
                        continue  # "AndNow" or "and now" is not the hashtag "#AndNow"
                    if not tokens[a].text.startswith(mark):  # the sign, its own token, is part of the term
                        out.append(Match(segment, e, a - 1, b + 1, tokens[a - 1].start, tokens[b].end))
                        continue
                out.append(Match(segment, e, a, b + 1, tokens[a].start, tokens[b].end))
            i = end
        else:
            i += 1
    return out


def _has_sigil(tokens, a: int, mark: str) -> bool:
    """Does the match starting at token `a` carry the sign `mark` ("#", "@") written right before it or
    as its own first character (a tokenizer may keep "@name" whole)?"""
    if tokens[a].text.startswith(mark):
        return True
    return a > 0 and tokens[a - 1].text.endswith(mark) and tokens[a - 1].end == tokens[a].start


def find_acronyms(matches: Sequence[Match], tokens_by_seg: dict) -> list[SourceEntry]:
    """Acronyms defined right after a matched term: "term (ACR)" makes ACR a form of the concept.

    The letters must plausibly come from the term (its first letter starts the acronym), so that
    a parenthesised reference like "(Fig)" is not taken for one.
    """
    found: dict[tuple[str, str], SourceEntry] = {}
    for m in matches:
        if not _has_bracket(m.segment.source):
            continue  # no "(" or "[": no definition (and no tokens asked for)
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


def _has_bracket(text: str) -> bool:
    return "(" in text or "[" in text


def acronym_definition_spans(matches: Sequence[Match], tokens_by_seg: dict, acronyms) -> set:
    """(segment index, char start) of acronyms standing in their own definition parentheses.

    The acronym inside "term (ACR)" is part of the definition, not a second occurrence.
    """
    keys = {(a.concept_id, a.key[0]) for a in acronyms}
    spans = set()
    for m in matches:
        if not _has_bracket(m.segment.source):
            continue
        toks = tokens_by_seg[m.segment.index]
        j = m.tok_end
        if j + 2 < len(toks) and toks[j].text in _OPEN and toks[j + 2].text in _CLOSE:
            if (m.entry.concept_id, exact_key(toks[j + 1].text)) in keys:
                spans.add((m.segment.index, toks[j + 1].start))
    return spans


def detect_document(doc: Document, trie: TermTrie, tokens_by_seg: dict, segments: Sequence[Segment],
                    variants: VariantLevel, lang: str = "", stop: frozenset = frozenset()):
    """All matches in a document, including acronyms the document defines. Ordered by position.

    With `variants` other than "none", the variants of that level too (termqa.pipeline.variants);
    `lang` (primary subtag) and `stop` (its function words) steer the in-context rules.
    """
    matches = []
    prepared = {}
    for seg in segments:
        toks = tokens_by_seg[seg.index]
        pk = prepared[seg.index] = positions_and_keys(toks)
        matches.extend(find_in_segment(trie, seg, toks, pk))
    if variants != VariantLevel.NONE:
        matches = find_variants(matches, trie, tokens_by_seg, segments, variants, lang, stop, prepared)
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


def _fits(key: str, skey: str, at: tuple) -> bool:
    return key in at or skey in at


def _variant_entry(e: SourceEntry, key: tuple, rule: str) -> SourceEntry:
    return SourceEntry(e.concept_id, e.text, key, e.term_type, rule, key, rule, e.key)


def find_variants(matches: Sequence[Match], trie: TermTrie, tokens_by_seg: dict, segments: Sequence[Segment],
                  level: str, lang: str, stop: frozenset, prepared: Optional[dict] = None) -> list[Match]:
    """The matches with the variants of `level` added where no match already stands (`prepared`: the
    segments' `positions_and_keys` by segment index, when already computed).

    Only the glossary's own designations seed the in-context rules: a variant of a variant found
    in context would pile one guess on another.
    """
    finder = VariantFinder(trie, level, stop)
    by_seg: dict = {}
    matches = drop_open_of_phrases(matches, tokens_by_seg, lang, stop, trie)
    for m in matches:
        by_seg.setdefault(m.segment.index, []).append(m)
    taken_by_seg: dict = {}
    for seg in segments:
        ms, taken = finder.in_segment(seg, tokens_by_seg[seg.index], by_seg.get(seg.index, ()),
                                      prepared.get(seg.index) if prepared else None)
        if ms:
            by_seg[seg.index] = ms
        if taken:
            taken_by_seg[seg.index] = taken
    return finder.finish(segments, by_seg, taken_by_seg, tokens_by_seg, lang, prepared)


def drop_open_of_phrases(matches: Sequence[Match], tokens_by_seg, lang: str, stop: frozenset,
                         trie: Optional[TermTrie] = None) -> list[Match]:
    """The matches less the "X of Y" restructurings (variants.of_phrase_keys) whose Y goes on into a
    longer noun phrase: "loss of head office staff" holds no "head loss", "emission of carbon dioxide"
    no "carbon emission". A noun (by the part-of-speech index) right after the match tells. The words
    such a match held are matched again without restructurings (`trie`): "outbreak of the coronavirus
    infection" holds "outbreak" and "coronavirus infection"."""
    if not any(m.entry.rule == "of_phrase" for m in matches):
        return list(matches)
    from termqa.lang.lexicon import part_of_speech_keys

    nouns, _adjs, verbs = part_of_speech_keys(lang) if lang else ((), (), ())
    out = []
    dropped: dict = {}
    for m in matches:
        if m.entry.rule == "of_phrase" and len(m.entry.key) >= 3 and m.entry.key[1] in ("of",):
            toks = tokens_by_seg[m.segment.index]
            j = m.tok_end
            t = toks[j] if j < len(toks) else None
            # a noun goes on with the phrase; an inflected verb form ("ends", "fell") starts the predicate
            if t is not None and (is_gap(t) or (not t.punct and t.key.isalpha() and t.key not in stop
                                                and t.key in nouns and not (t.key in verbs and
                                                                            loose(t.text) != t.key))):
                dropped.setdefault(m.segment.index, []).append(m)
                continue
        out.append(m)
    if trie is None or not dropped:
        return out
    plain = _per_trie(trie, "no of-phrases", lambda: _without_of_phrases(trie))
    for index, gone in dropped.items():
        # the segment matched again from its start: the dropped phrase had taken words a longer match
        # needs ("coronavirus infection"); the restructurings kept there stay
        seg = gone[0].segment
        kept = [m for m in out if m.segment.index == index and m.entry.rule == "of_phrase"]
        out = [m for m in out if m.segment.index != index] + kept
        out += [m for m in find_in_segment(plain, seg, tokens_by_seg[index])
                if not any(m.start < k.end and k.start < m.end for k in kept)]
    return _in_document_order(out, matches)


_PER_TRIE: dict = {}  # (id of a trie, what) -> (the trie, what was made of it): not stored with the index


def _per_trie(trie: TermTrie, what: str, make):
    """Something made from a trie once in a process (kept out of `trie.derived`, which the index cache
    stores). A few tries at most are kept: a run has one per language pair."""
    got = _PER_TRIE.get((id(trie), what))
    if got is None or got[0] is not trie:
        if len(_PER_TRIE) > 8:
            _PER_TRIE.clear()
        got = _PER_TRIE[(id(trie), what)] = (trie, make())
    return got[1]


def _without_of_phrases(trie: TermTrie) -> TermTrie:
    plain = TermTrie()
    for e in trie.entries:
        if e.rule != "of_phrase":
            plain.add(e)
    return plain


def _in_document_order(found: list[Match], original: Sequence[Match]) -> list[Match]:
    """`found` in the order of the segments of `original`, by position within a segment."""
    rank: dict = {}
    for m in original:
        rank.setdefault(m.segment.index, len(rank))
    return sorted(found, key=lambda m: (rank.get(m.segment.index, len(rank)), m.start))


class VariantFinder:
    """The variants of one level, segment by segment (`in_segment`), then the rules that look across
    segments (`finish`: reductions). Split so that a big document can be searched a chunk of segments at a
    time, without keeping the tokens of every segment until the end."""

    def __init__(self, trie: TermTrie, level: str, stop: frozenset):
        self.trie = trie
        self.stop = stop
        self.dynamic = level == VariantLevel.DYNAMIC
        self.singles, self.lefts, self.by_key, self.ins_index, self.lengths = variant_indexes(trie, self.dynamic)

    def in_segment(self, seg: Segment, toks, seg_matches: Sequence[Match],
                   prepared: Optional[tuple] = None) -> tuple[list[Match], set]:
        """The segment's matches with its variants added (in position order), and the content positions
        they take (what `finish` must not match again). `prepared`: the tokens' `positions_and_keys`."""
        pos, keys = prepared or positions_and_keys(toks)
        at = {t: i for i, t in enumerate(pos)} if seg_matches else {}  # most segments hold no match
        taken: set = set()
        for m in seg_matches:
            taken.update(range(at.get(m.tok_start, 0), at.get(m.tok_end - 1, -1) + 1))
        found: list[vr.Found] = []
        # a variant overlapping a match already there is dropped below: positions taken are not tried
        for i, e in vr.split_index(keys, self.singles, taken, self.lefts):
            found.append(vr.Found(i, i + 2, e, "split_compound"))
        if self.dynamic:
            found += _insertions(keys, toks, pos, self.ins_index, self.lengths, self.stop, taken)
            found += _coordinations(seg_matches, keys, at, self.by_key)
        out = list(seg_matches)
        new = []
        partners = set()
        for f in sorted(found, key=lambda f: (f.a, -(f.b - f.a))):
            span = range(f.a, f.b)
            if any(i in taken for i in span) or any(toks[pos[i]].punct for i in span):
                continue
            taken.update(span)
            if f.partner is not None:
                partners.add(id(f.partner))
            key = tuple(keys[i][0] for i in span) if f.rule != "split_compound" else f.entry.key
            a, b = pos[f.a], pos[f.b - 1]
            new.append(Match(seg, _variant_entry(f.entry, key, f.rule), a, b + 1, toks[a].start, toks[b].end))
        if partners:  # the written-out conjunct stays a glossary form, but its rendering may be cut too
            out = [replace(m, entry=replace(m.entry, rule="coordinated", base_key=m.entry.key))
                   if id(m) in partners else m for m in out]
        if new:
            out = sorted(out + new, key=lambda m: m.start)
        return out, taken

    def finish(self, segments: Sequence[Segment], by_seg: dict, taken_by_seg: dict, tokens_by_seg,
               lang: str, prepared: Optional[dict] = None) -> list[Match]:
        """Every match of the document in order, reductions added (dynamic level).

        `by_seg`: each segment's matches as `in_segment` gave them; `taken_by_seg`: its taken positions
        (segments without any may be left out). `tokens_by_seg` is asked only for the segments a
        reduction can stand in."""
        if self.dynamic:
            _partial_reductions(segments, by_seg, taken_by_seg, tokens_by_seg, self.trie, lang, self.stop, prepared)
            _reductions(segments, by_seg, taken_by_seg, tokens_by_seg, self.trie, lang, self.stop, prepared)
        order, _segment = index_order(segments)
        return [m for index in order for m in by_seg.get(index, ())]


def index_order(segments) -> tuple:
    """The indexes of `segments` in order, and a function giving the segment of an index.

    A view of a big document (termqa.pipeline.check) answers both without making a record of every
    segment (`index_order()`, `segment(index)`); a plain sequence is read once.
    """
    order = getattr(segments, "index_order", None)
    if order is not None:
        return order(), segments.segment
    by_index = {s.index: s for s in segments}  # index: unique within a document
    return list(by_index), by_index.__getitem__


def variant_indexes(trie: TermTrie, dynamic: bool) -> tuple:
    """What the variant passes look designations up by, built from the trie once (the trie is the
    same for every document of a run)."""
    got = trie.derived.get(("variants", dynamic))
    if got is not None:
        return got
    # a hashtag, handle or code-like name is matched as written only: never joined from plain words
    own = [e for e in trie.entries if not e.rule and e.via == "glossary" and not vr.written_form(e.text)]
    singles: dict = {}
    for e in own:
        if len(e.key) == 1 and not e.key[0].startswith("="):
            singles.setdefault(e.key[0], e)
            singles.setdefault(e.skey[0] if e.skey else e.key[0], e)
    multi: dict = {}
    by_key: dict = {}
    for e in own:
        if len(e.key) >= 2:
            for k in dict.fromkeys((e.key[0], (e.skey or e.key)[0])):
                multi.setdefault(k, []).append(e)
            by_key.setdefault(e.key, e)
            by_key.setdefault(e.skey or e.key, e)
    ins_index = _insertion_index(multi) if dynamic else {}
    lengths = sorted({key[1] for key in ins_index if key != _FIRSTS})
    got = trie.derived[("variants", dynamic)] = (singles, vr.split_lefts(singles), by_key, ins_index, lengths)
    return got


def _insertion_index(multi: dict) -> dict:
    """(first key, length, last key) -> [(rank, entry)]: the designations `_insertions` can try at a
    position, found by the words at both ends instead of trying every designation that starts there.
    `rank` keeps each first key's order of `multi`, so candidates are tried in the same order."""
    index: dict = {}
    for k, entries in multi.items():
        for rank, e in enumerate(entries):
            sk = e.skey or e.key
            for last in dict.fromkeys((e.key[-1], sk[-1])):
                index.setdefault((k, len(e.key), last), []).append((rank, e))
    if index:
        index[_FIRSTS] = frozenset(k for (k, _m, _l) in index)
    return index


_FIRSTS = "first keys"  # the insertion index's entry holding every first key it has


def _insertions(keys, toks, pos, index: dict, lengths: Sequence[int], stop: frozenset,
                skip: frozenset = frozenset()) -> list:
    """One modifier inside a multi-word designation: "centrifugal feed pump" for "centrifugal pump".
    Positions in `skip` (taken by a match) are not tried."""
    out = []
    n = len(keys)
    if n < 3 or not index:
        return out
    firsts = index.get(_FIRSTS, ())
    content: dict[int, bool] = {}
    for i in range(n - 2):
        if i in skip:
            continue
        k0, k1 = keys[i][0], keys[i][1]
        for k in ((k0,) if k0 == k1 else (k0, k1)):
            if k not in firsts:
                continue
            found: dict[int, object] = {}
            for m in lengths:
                if i + m + 1 > n:
                    break
                l0, l1 = keys[i + m][0], keys[i + m][1]
                for last in ((l0,) if l0 == l1 else (l0, l1)):
                    for rank, e in index.get((k, m, last), ()):
                        found.setdefault(rank, e)
            for _rank, e in sorted(found.items(), key=lambda x: x[0]):
                m = len(e.key)
                sk = e.skey or e.key
                for g in range(1, m):
                    ins = i + g
                    ok = content.get(ins)
                    if ok is None:
                        ok = content[ins] = vr.is_content(toks[pos[ins]], keys[ins][0], stop)
                    if not ok:
                        continue
                    if all(_fits(e.key[t], sk[t], keys[i + t] if t < g else keys[i + t + 1]) for t in range(m)):
                        out.append(vr.Found(i, i + m + 1, e, "insertion"))
                        break
    return out


def _coordinations(seg_matches, keys, at: dict, by_key: dict) -> list:
    """The elided conjunct of a coordination whose both conjuncts are designations.

    Head last (English): "inlet and outlet valves" beside a match of "outlet valve" gives "inlet"
    for "inlet valve". Head first (French): "vannes d'entrée et de sortie" beside a match of "vanne
    d'entrée" gives "de sortie" for "vanne de sortie". Unrelated words joined by "and" are never
    taken: the term the elided conjunct stands for must be in the glossary.
    """
    out = []
    for m in seg_matches:
        e = m.entry
        if e.rule or e.via != "glossary" or len(e.key) < 2:
            continue
        a, b = at.get(m.tok_start), at.get(m.tok_end - 1)
        if a is None or b is None:
            continue
        b += 1
        n = len(e.key)
        if a >= 2 and keys[a - 1][0] in vr.CONJUNCTIONS:  # head last: "S1 and S2 Q"
            for g in range(1, n):
                q = e.key[g:]
                hit = next((by_key[(k,) + q] for k in dict.fromkeys(keys[a - 2][:2]) if (k,) + q in by_key), None)
                if hit is not None and hit.concept_id != e.concept_id:
                    out.append(vr.Found(a - 2, a - 1, hit, "coordination", m))
                    break
        if b + 1 < len(keys) and keys[b][0] in vr.CONJUNCTIONS:  # head first: "P S1 and S2"
            done = False
            for g in range(1, n):
                p = e.key[:g]
                for L in (2, 1):
                    if b + 1 + L > len(keys):
                        continue
                    span = keys[b + 1:b + 1 + L]
                    for pick in (0, 1):
                        cand = p + tuple(k[pick] for k in span)
                        hit = by_key.get(cand)
                        if hit is not None and hit.concept_id != e.concept_id:
                            out.append(vr.Found(b + 1, b + 1 + L, hit, "coordination", m))
                            done = True
                            break
                    if done:
                        break
                if done:
                    break
    return out


_FR_LINKS = frozenset({"de", "d", "du", "des", "à", "a", "au", "aux", "en"})
# a bare head refers back to the term only after a definite or demonstrative determiner
DEFINITE = frozenset({"the", "this", "these", "that", "those", "le", "la", "les", "l", "ce", "cet", "cette", "ces"})
REDUCTION_WINDOW = 5  # segments after a full mention within which its bare head still refers to it


def _verb_like(tok, key: tuple, head_first: bool) -> bool:
    """A word after a bare head that reads as its verb ("the pump runs", "la pompe tourne"), not as a
    noun or adjective joined to it: inflected, with an English verb ending or a French infinitive
    lemma. Without part-of-speech tags this is a guess that errs on the side of no reduction."""
    lemma, surface = key[0], key[1]
    if lemma == surface:
        return False
    if head_first:
        return lemma.endswith(("er", "ir", "re", "oir"))
    return surface.endswith(("s", "ed"))


def concept_heads(trie: TermTrie, lang: str) -> dict:
    """concept id -> the head word of each of its designations in the trie (a one-word designation is its
    own head): made once per trie and language in a process, not per document (it reads every entry).
    Not stored with the index: reading the lists back took longer than making them."""
    got = trie.derived.get(("heads", lang))
    if got is None:
        got = {}
        for e in trie.entries:
            h = vr.head_of(e.key, lang) if len(e.key) >= 2 else e.key[0]
            if h:
                got.setdefault(e.concept_id, []).append(h)
        trie.derived[("heads", lang)] = got
    return got


def _reductions(segments, by_seg: dict, taken_by_seg: dict, tokens_by_seg, trie: TermTrie, lang: str,
                stop: frozenset, prepared: Optional[dict] = None) -> None:
    """The bare head of a multi-word designation shortly after a full mention of it in the document.

    "the pump" after "centrifugal pump" is that pump when: a definite or demonstrative determiner
    comes right before the head; the head is not itself modified ("the vacuum pump", "the pump
    housing", "the pump of the circuit"); the full mention is at most REDUCTION_WINDOW segments
    back; no other concept found in the document has a designation with the same head (a "feed
    pump" concept makes "the pump" ambiguous); and the designation is not a name (capitalised
    words: "the Control" is not the Center for Disease Control).

    A segment without matches more than REDUCTION_WINDOW segments after the latest full mention can
    hold none: its tokens are not asked for (a big document's are not all kept).
    """
    found_concepts = {m.entry.concept_id for ms in by_seg.values() for m in ms}
    heads_of = concept_heads(trie, lang)
    heads: dict = {}
    for cid in found_concepts:
        for h in heads_of.get(cid, ()):
            heads.setdefault(h, set()).add(cid)
    last_full: dict = {}  # head word -> (segment number, entry) of its latest full mention
    head_first = lang in vr.HEAD_FIRST
    of = ("de", "d", "du", "des") if head_first else ("of",)
    latest = None  # segment number of the latest full mention of any head
    order, segment = index_order(segments)
    for n, index in enumerate(order):
        ms = by_seg.get(index, [])
        if not ms and (latest is None or n - latest > REDUCTION_WINDOW):
            continue  # no mention to start from, none recent enough to refer back to
        seg = segment(index)
        toks = tokens_by_seg[index]
        pos, keys = (prepared.get(index) if prepared else None) or positions_and_keys(toks)
        taken = taken_by_seg.get(index) or set()  # read here only: not stored back
        at = {t: i for i, t in enumerate(pos)}
        events = []  # (content index of the mention's end, head, entry)
        for m in ms:
            e = m.entry
            if e.rule not in ("", "coordinated") or e.via != "glossary" or len(e.key) < 2:
                continue
            if any(w[:1].isupper() for w in e.text.split()):
                continue  # a name
            h = vr.head_of(e.key, lang)
            if h and len(heads.get(h, ())) == 1 and len(h) >= 3 and h.isalpha() and h not in stop:
                events.append((at.get(m.tok_end - 1, 0), h, e))
        new = []
        for i, k in enumerate(keys):
            if events:
                for _, h, e in [x for x in events if x[0] < i]:
                    last_full[h] = (n, e)
                    latest = n
            if i == 0 or i in taken or keys[i - 1][1] not in DEFINITE or pos[i - 1] + 1 != pos[i] \
                    or toks[pos[i]].punct or not last_full:
                continue
            h = next((x for x in dict.fromkeys(k[:2]) if x in last_full and n - last_full[x][0] <= REDUCTION_WINDOW),
                     None)
            if h is None:
                continue
            t = toks[pos[i]]
            if t.text[:1].isupper() and not toks[pos[i - 1]].text[:1].isupper():
                continue  # "the Organization of ...": a name, whatever the glossary says
            if i + 1 < len(keys):
                nt = toks[pos[i + 1]]
                if is_gap(toks[pos[i] + 1]) if pos[i] + 1 < len(toks) else False:
                    continue  # part of a compound ("pump-based")
                if keys[i + 1][1] in of or (head_first and keys[i + 1][1] in _FR_LINKS):
                    continue  # "the pump of the circuit", "la pompe de relevage": another thing
                if vr.is_content(nt, keys[i + 1][0], stop) and not _verb_like(nt, keys[i + 1], head_first):
                    continue  # modified ("la pompe doseuse") or modifying ("the pump housing")
            e = last_full[h][1]
            taken.add(i)
            new.append(Match(seg, _variant_entry(e, (h,), "reduction"), pos[i], pos[i] + 1, t.start, t.end))
        for _, h, e in events:
            last_full[h] = (n, e)
            latest = n
        if new:
            by_seg[seg.index] = sorted(ms + new, key=lambda m: m.start)


def partial_keys(key: tuple[str, ...], lang: str) -> list[tuple[str, tuple[str, ...]]]:
    """(rule, key) of the shorter forms of a designation of three words or more that can refer back
    to it after a full mention: without its outermost modifier (RED1: "translation system" for
    "automatic translation system", French "système de commande" for "système de commande
    automatique") and, for three words, without the middle one (RED2: "automatic system"; French only
    without link words, "pompe verticale" for "pompe centrifuge verticale"). A form that begins or ends
    on a link word ("of", "de") is none."""
    if len(key) < 3 or not all(k.isalpha() for k in key):
        return []
    out = []
    red1 = key[:-1] if lang in vr.HEAD_FIRST else key[1:]
    out.append(("modifier_reduction", red1))
    if len(key) == 3 and not any(k in vr._LINK_WORDS for k in key):
        out.append(("extension_reduction", (key[0], key[2])))
    return [(r, k) for r, k in out if k[0] not in vr._LINK_WORDS and k[-1] not in vr._LINK_WORDS]


def _partial_reductions(segments, by_seg: dict, taken_by_seg: dict, tokens_by_seg, trie: TermTrie, lang: str,
                        stop: frozenset, prepared: Optional[dict] = None) -> None:
    """The shorter forms of `partial_keys` shortly after a full mention of their designation.

    Like the bare head (`_reductions`), a part stands for the term only in context: at most
    REDUCTION_WINDOW segments after a full mention; never a form that is a designation of any concept,
    nor one two concepts found in the document both give; not a name (capitalised words); and not inside
    a longer phrase: no content word right before it, nor one right after it that is not its verb
    ("the translation system architecture" is another thing). Positions taken are left alone, and the
    positions found are taken for the bare-head pass that follows.
    """
    own_keys = _per_trie(trie, "keys", lambda: frozenset(k for e in trie.entries for k in (e.key, e.skey) if k))
    parts: dict = {}  # reduced key -> {concept id: (rule, entry)}
    for ms in by_seg.values():
        for m in ms:
            e = m.entry
            if e.rule not in ("", "coordinated") or e.via != "glossary" or len(e.key) < 3:
                continue
            if any(w[:1].isupper() for w in e.text.split()) or vr.written_form(e.text):
                continue
            for rule, k in partial_keys(e.key, lang):
                if k not in own_keys and k[0] not in stop and k[-1] not in stop:  # "your hands" names nothing
                    parts.setdefault(k, {}).setdefault(e.concept_id, (rule, e))
    parts = {k: next(iter(v.values())) for k, v in parts.items() if len(v) == 1}
    if not parts:
        return
    by_first: dict = {}
    for k in parts:
        by_first.setdefault(k[0], []).append(k)
    head_first = lang in vr.HEAD_FIRST
    last_full: dict = {}  # reduced key -> segment number of its designation's latest full mention
    order, segment = index_order(segments)
    for n, index in enumerate(order):
        ms = by_seg.get(index, [])
        mentions = [m for m in ms if m.entry.rule in ("", "coordinated") and m.entry.via == "glossary"
                    and len(m.entry.key) >= 3]
        recent = {k: -1 for k, at in last_full.items() if n - at <= REDUCTION_WINDOW}
        if mentions:  # a part after a full mention in the same segment refers back to it too
            pk = (prepared.get(index) if prepared else None) or positions_and_keys(tokens_by_seg[index])
            at0 = {t: i for i, t in enumerate(pk[0])}
            for m in mentions:
                end = at0.get(m.tok_end - 1, -1) + 1
                for _rule, k in partial_keys(m.entry.key, lang):
                    if k in parts and parts[k][1].concept_id == m.entry.concept_id and k not in recent:
                        recent[k] = end
        if recent:
            seg = segment(index)
            toks = tokens_by_seg[index]
            pos, keys = (prepared.get(index) if prepared else None) or positions_and_keys(toks)
            taken = taken_by_seg.setdefault(index, set())
            at = {t: i for i, t in enumerate(pos)}
            spans = [(at.get(m.tok_start, -1), at.get(m.tok_end - 1, -2) + 1) for m in mentions]
            new = []
            want = recent
            for i in range(len(keys)):
                for k in dict.fromkeys([*by_first.get(keys[i][0], ()), *by_first.get(keys[i][1], ())]):
                    if k not in want or i < want[k]:
                        continue
                    j = i + len(k)
                    if j > len(keys) or any(t in taken for t in range(i, j)):
                        continue
                    if any(a <= i < b for a, b in spans):
                        continue
                    if not all(k[t] in keys[i + t][:2] for t in range(len(k))):
                        continue
                    if any(toks[pos[t]].punct for t in range(i, j)):
                        continue
                    if i > 0 and pos[i - 1] + 1 == pos[i] and vr.is_content(toks[pos[i - 1]], keys[i - 1][0], stop):
                        continue  # "machine translation system": another term
                    if j < len(keys):
                        nt = toks[pos[j]]
                        if is_gap(toks[pos[j - 1] + 1]) if pos[j - 1] + 1 < len(toks) else False:
                            continue
                        if vr.is_content(nt, keys[j][0], stop) and not _verb_like(nt, keys[j], head_first):
                            continue
                    rule, e = parts[k]
                    taken.update(range(i, j))
                    a, b = pos[i], pos[j - 1]
                    new.append(Match(seg, _variant_entry(e, k, rule), a, b + 1, toks[a].start, toks[b].end))
                    break
            if new:
                by_seg[index] = sorted(ms + new, key=lambda m: m.start)
        for m in mentions:
            for _rule, k in partial_keys(m.entry.key, lang):
                if k in parts and parts[k][1].concept_id == m.entry.concept_id:
                    last_full[k] = n


def variation_and_subtype(entry: SourceEntry, surface: str, head: Optional[SourceEntry]) -> tuple[str, Optional[str]]:
    """(variation, subtype): the subtype only for variants, from the rule that found them."""
    if not entry.rule:
        return variation_of(entry, surface, head), None
    base = SourceEntry(entry.concept_id, entry.text, entry.base_key, entry.term_type, "glossary", entry.base_key)
    # the written-out conjunct of a coordination is its designation as written here: its own surface
    return vr.variation_for_rule(entry.rule, variation_of(base, surface if entry.rule == "coordinated" else entry.text,
                                                          head))


def variation_of(entry: SourceEntry, surface: str, head: Optional[SourceEntry]) -> str:
    """Variation category of a source form relative to the concept's head term (deterministic)."""
    if entry.rule:
        return variation_and_subtype(entry, surface, head)[0]
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
