"""The variant passes on the source side: what the glossary's designations become in running text
(split compounds, insertions, coordinations, "X of Y" restructurings, reductions to the head).

Separate from `detect` (the trie, the matching of one segment, acronyms), which these passes build on:
each pass takes the plain matches and adds the variants of a level (docs/matching.md, "Term variants"), segment by
segment (`VariantFinder.in_segment`) and then across segments (`VariantFinder.finish`). `variant_indexes`
builds what they look designations up by, once per trie (the index cache stores it with the trie).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

from termqa.config import VariantLevel
from termqa.lang.normalise import loose
from termqa.model import Segment
from termqa.pipeline import variants as vr
from termqa.pipeline.detection import Detection
from termqa.pipeline.detect import Match, SourceEntry, TermTrie, find_in_segment, is_gap, positions_and_keys


def _fits(key: str, skey: str, at: tuple) -> bool:
    return key in at or skey in at


def _variant_entry(e: SourceEntry, key: tuple, rule: str) -> SourceEntry:
    return SourceEntry(e.concept_id, e.text, key, e.term_type, rule, key, rule, e.key)


def find_variants(matches: Sequence[Match], trie: TermTrie, tokens_by_seg: dict, segments: Sequence[Segment],
                  detection: Detection, lang: str, prepared: Optional[dict] = None) -> list[Match]:
    """The matches with the variants of `detection.variants` added where no match already stands
    (`prepared`: the segments' `positions_and_keys` by segment index, when already computed).

    Only the glossary's own designations seed the in-context rules: a variant of a variant found
    in context would pile one guess on another.
    """
    finder = VariantFinder(trie, detection)
    stop = detection.stop
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

    def __init__(self, trie: TermTrie, detection: Detection):
        self.trie = trie
        self.stop = detection.stop
        self.dynamic = detection.variants == VariantLevel.DYNAMIC
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

    A view of a big document (termqa.pipeline.occurrences.WithSource) answers both without making a record of every
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
