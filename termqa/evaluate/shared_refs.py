"""References shared across the systems of `termqa compare`: one anchor per document position, concept
and source form for all systems of a target language, and renderings aligned from the other systems.

Separate from termqa.evaluate.compare, which sequences the stages: this is the one step that looks at
several systems' verdicts at once (the majority rendering, the pooled reference check).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Sequence

from termqa.evaluate.systems import SystemSpec
from termqa.judge.stages import check_references
from termqa.lang.langtags import primary
from termqa.model import GLOSSARY, PSEUDO, UNJUDGED, Reference, Span
from termqa.pipeline import align as al
from termqa.pipeline.detect import keys_of, rendering_key


@dataclass
class SystemRun:
    """One system while the comparison works on it."""

    spec: SystemSpec
    result: object  # termqa.pipeline.check.CheckResult
    doc_index: dict  # doc_id -> position
    verdicts: list = field(default_factory=list)
    references: dict = field(default_factory=dict)  # (doc_id, concept, source form) -> Reference

    @property
    def doc_ids(self) -> list[str]:
        return [d.doc_id for d in self.result.documents]

    @property
    def tgt_group(self) -> str:
        langs = {primary(d.tgt_lang) for d in self.result.documents}
        return ",".join(sorted(langs))


def _rendering_key(lem, text, lang):

    return rendering_key(lem(primary(lang)), text)


def shared_references(runs: Sequence[SystemRun], lem, exclude: Sequence[set] = ()) -> list[dict]:
    """Per system, the references after sharing (keyed by the system's own doc ids).

    Glossary references stay (they depend only on the concept and the target language, so they are
    already the same for every system). Every other chain gets the rendering most frequent across the
    systems of its target language, on lemma keys; ties go to the first appearance in document order
    (segment, then position, then system order). `exclude`: per system, verdict indexes whose
    rendering must not vote (those aligned from the other systems' renderings: counting them again
    would let the majority vote twice).
    """
    groups = defaultdict(list)
    for s, run in enumerate(runs):
        groups[run.tgt_group].append(s)
    out = [dict() for _ in runs]
    for members in groups.values():
        chains = defaultdict(list)  # (doc index, concept, form) -> [(order key, system, verdict)]
        glossary = {}
        for s in members:
            run = runs[s]
            for (doc_id, cid, sf), ref in run.references.items():
                if ref.provenance == GLOSSARY:
                    glossary[(run.doc_index[doc_id], cid, sf)] = ref
            skip = exclude[s] if s < len(exclude) else ()
            for n, v in enumerate(run.verdicts):
                o = v.occurrence
                k = run.doc_index[o.doc_id]
                chains[(k, o.concept_id, o.source_form)].append(
                    ((o.segment_index, o.source_span.start, s), s, None if n in skip else v))
        for (k, cid, sf), rows in chains.items():
            if (k, cid, sf) in glossary:
                chosen = glossary[(k, cid, sf)]
                text, prov = chosen.text, GLOSSARY
            else:
                seen = []
                for _order, s, v in sorted(rows, key=lambda r: r[0]):
                    if v is None:
                        continue
                    o = v.occurrence
                    tgt = runs[s].result.documents[k].tgt_lang
                    key = _rendering_key(lem, o.target_text, tgt)
                    if key:
                        seen.append((key, o.target_text))
                if not seen:
                    continue
                counts = Counter(key for key, _ in seen)
                best = max(counts.values())
                text = next(t for key, t in seen if counts[key] == best)
                prov = PSEUDO
            for s in {s for _o, s, _v in rows}:
                doc_id = runs[s].doc_ids[k]
                own = runs[s].references.get((doc_id, cid, sf))
                if prov == GLOSSARY and own is not None:
                    out[s][(doc_id, cid, sf)] = own
                else:
                    out[s][(doc_id, cid, sf)] = Reference(doc_id, cid, sf, text, prov)
    return out


def align_across(runs: Sequence[SystemRun], lem) -> list[set]:
    """Find, for occurrences a system left without a rendering, a rendering that another system (same
    target language) uses for the same document and source form, in the occurrence's own target segment.

    Counting aligns a non-glossary rendering only when it recurs in the document; with several systems,
    the other systems' renderings are evidence too. Candidates are tried by how often they are used
    across systems, then by first appearance; a span already answering another occurrence of the
    segment is never taken twice. Returns, per system, the indexes of the verdicts aligned here.
    """

    groups = defaultdict(list)
    for s, run in enumerate(runs):
        groups[run.tgt_group].append(s)
    added = [set() for _ in runs]
    for members in groups.values():
        pool = defaultdict(Counter)  # (doc index, concept, form) -> Counter of (key, skey, text)
        first = {}
        for s in members:
            run = runs[s]
            for n, v in enumerate(run.verdicts):
                o = v.occurrence
                if not o.target_text:
                    continue
                k = run.doc_index[o.doc_id]
                tgt = run.result.documents[k].tgt_lang
                key, skey = keys_of(lem(primary(tgt)).tokenize(o.target_text))
                if not key:
                    continue
                form = (key, skey, o.target_text)
                pool[(k, o.concept_id, o.source_form)][form] += 1
                first.setdefault(form, (o.segment_index, o.source_span.start, s))
        for s in members:
            run = runs[s]
            todo = [n for n, v in enumerate(run.verdicts)
                    if v.occurrence.target_span is None and v.outcome == UNJUDGED
                    and not run.result.concepts[v.occurrence.concept_id].dnt
                    and pool.get((run.doc_index[v.occurrence.doc_id], v.occurrence.concept_id,
                                  v.occurrence.source_form))]
            if not todo:
                continue
            taken = defaultdict(list)
            for v in run.verdicts:
                o = v.occurrence
                if o.target_span is not None:
                    taken[(o.doc_id, o.segment_index)].append((o.target_span.start, o.target_span.end))
            segs = {}
            for n in todo:
                v = run.verdicts[n]
                o = v.occurrence
                k = run.doc_index[o.doc_id]
                doc = run.result.documents[k]
                if (o.doc_id, o.segment_index) not in segs:
                    seg = next(x for x in doc.segments if x.index == o.segment_index)
                    segs[(o.doc_id, o.segment_index)] = (
                        seg.target, al.TargetIndex(lem(primary(doc.tgt_lang)).tokenize(seg.target or "")))
                target, idx = segs[(o.doc_id, o.segment_index)]
                counts = pool[(k, o.concept_id, o.source_form)]
                spans = taken[(o.doc_id, o.segment_index)]
                for key, skey, text in sorted(counts, key=lambda f: (-counts[f], first[f])):
                    hit = None
                    for a, b in idx.find(key, skey):
                        _ta, _tb, st, en, txt = idx.span(a, b, target)
                        if not any(st < e2 and s2 < en for s2, e2 in spans):
                            hit = (st, en, txt)
                            break
                    if hit is not None:
                        st, en, txt = hit
                        spans.append((st, en))
                        occ = replace(o, target_text=txt, target_span=Span(st, en), align_method="established")
                        run.verdicts[n] = replace(v, occurrence=occ)
                        added[s].add(n)
                        break
    return added


def pooled_reference_check(runs, members, refs, stages, progress):
    """Validate (or regenerate) the shared pseudo-references of one target-language group once, on the
    occurrences of all its systems: the first system's documents stand for all (same source)."""

    canon = members[0]
    canon_ids = runs[canon].doc_ids
    pooled_v, pooled_r = [], {}
    for s in members:
        run = runs[s]
        for v in run.verdicts:
            k = run.doc_index[v.occurrence.doc_id]
            pooled_v.append(replace(v, occurrence=replace(v.occurrence, doc_id=canon_ids[k])))
        for (doc_id, cid, sf), ref in refs[s].items():
            key = (canon_ids[run.doc_index[doc_id]], cid, sf)
            pooled_r.setdefault(key, replace(ref, doc_id=key[0]))
    checked = check_references(stages[canon], pooled_v, pooled_r, progress)
    for s in members:
        run = runs[s]
        new = {}
        for (doc_id, cid, sf) in refs[s]:
            ref = checked.get((canon_ids[run.doc_index[doc_id]], cid, sf))
            if ref is not None:
                new[(doc_id, cid, sf)] = replace(ref, doc_id=doc_id)
        refs[s] = new
