"""The counting stage over a project's documents: each document's pass (`passes.detect_and_align`), then
references, counting verdicts and metric items, in one process (`count_sequential`) or in worker processes
(`count_parallel`, over the store's `parallel.run_documents`), with the same results.

Separate from `check.count`, which builds the source indexes, chooses the path and reports what was found.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace
from typing import Callable, Mapping, Optional, Sequence

from termqa.lang.langtags import normalise_tag, primary
from termqa.lang.segcheck import misalignment
from termqa.model import ALLOWED_STATUSES, UNJUDGED, Occurrence, Reference, Span, Verdict, segment_texts
from termqa.pipeline import detect as dt, passes
from termqa.metrics import Item
from termqa.pipeline.detection import Detection
from termqa.pipeline.occurrences import WithSource
from termqa.pipeline.passes import Work
from termqa.pipeline.prejudge import R_MISALIGNED, R_MISSING, Rules, one_verdict_per_copy, verdict_fields
from termqa.pipeline.reference import glossary_reference, pseudo_reference


def count_sequential(documents, concepts, tries, lem, progress, detections: Mapping[str, Detection]):
    """Every document's pass in this process, in order: the work records of all documents (references and
    verdicts are then settled over all at once) and the occurrences skipped, by target language.
    `detections`: how far detection goes, per source language (termqa.pipeline.detection)."""
    forms_cache: dict[tuple, list] = {}
    work: list[Work] = []
    skipped: Counter = Counter()  # by target language
    for n, doc in enumerate(documents):
        if progress:
            progress("documents", n, len(documents))
        src_l, tgt_l = normalise_tag(doc.src_lang), normalise_tag(doc.tgt_lang)
        trie, heads = tries[(src_l, tgt_l)]
        w, sk = passes.detect_and_align(doc, concepts, trie, heads, lem(src_l), lem(tgt_l), tgt_l, forms_cache,
                                        detections[src_l])
        work.extend(w)
        skipped[tgt_l] += sk
    if progress:
        progress("documents", len(documents), len(documents))
    return work, skipped


def count_parallel(documents, concepts, tries, lem, rules, jobs, progress, detections: Mapping[str, Detection],
                   run_documents: Callable):
    """`count_sequential` in `jobs` worker processes, spread by `run_documents(task, n, jobs, tick)` (the
    store's, termqa.store.parallel.run_documents, passed in by the stage that planned the jobs), then
    references and verdicts, with the same results: a
    document's occurrences depend on that document alone (the glossary renderings mining keeps clear of
    are those of the concepts found in it), and so do its references (R(s) is per document) and the
    verdicts `rules` makes of them, so each worker settles its documents whole and sends back their
    references, verdicts, metric items and misaligned segments, in document order."""
    for doc in documents:  # built before forking, so that every worker inherits them
        lem(normalise_tag(doc.tgt_lang))
    worker_forms: dict = {}  # per worker process, across its documents (a concept's forms are computed once)

    def task(n):
        doc = documents[n]
        src_l, tgt_l = normalise_tag(doc.src_lang), normalise_tag(doc.tgt_lang)
        trie, heads = tries[(src_l, tgt_l)]
        work, skipped = passes.detect_and_align(doc, concepts, trie, heads, lem(src_l), lem(tgt_l), tgt_l, worker_forms,
                                                detections[src_l])
        references = references_of(work)
        verdicts, items = verdicts_of(work, references, rules)
        fresh = {lg: lem(lg).take_fresh() for lg in dict.fromkeys((src_l, tgt_l))}
        return references, verdicts, items, misaligned(verdicts, [doc]), skipped, fresh

    def tick(done):
        if progress:
            progress("documents", done, len(documents))

    tick(0)
    results = run_documents(task, len(documents), jobs, tick)
    references: dict = {}
    verdicts: list = []
    items: list = []
    suspects: dict = {}
    skipped: Counter = Counter()  # by target language
    for doc, (refs, vs, its, sus, sk, fresh) in zip(documents, results):
        for lg, analyses in fresh.items():  # kept by the parent for the next run
            lem(lg).absorb(analyses)
        references.update(refs)
        verdicts.extend(vs)
        items.extend(its)
        suspects.update(sus)
        skipped[normalise_tag(doc.tgt_lang)] += sk
    return references, verdicts, items, suspects, skipped



def references_of(work: Sequence[Work]) -> dict:
    """R(s) per (document, concept, source form)."""
    chains: dict = defaultdict(list)
    for w in work:
        chains[(w.doc.doc_id, w.concept.id, w.source_form)].append(w)
    refs = {}
    for (doc_id, cid, sf), ws in chains.items():
        c = ws[0].concept
        ref = glossary_reference(doc_id, c, sf, ws[0].source_text, ws[0].doc.tgt_lang)
        if ref is None:
            ref = pseudo_reference(doc_id, cid, sf, [(w.rendering_key, w.alignment.text if w.alignment else None)
                                                    for w in ws])
        if ref is not None:
            refs[(doc_id, cid, sf)] = ref
    return refs


_SPELLING_BATCH = 1000  # occurrences whose texts are tokenised together (the lemmatiser keeps 4,000 texts)


def _tokenise_ahead(work, references: Mapping[tuple, Reference], rules: Rules) -> None:
    """Tokenise, in one call per language, the texts `Rules.decide` will tokenise one by one (a glossary
    rendering and the term it matched; an established rendering and its reference): a text asked alone
    costs a lookup of the stored analyses of its own (in the main process of a parallel run, every
    rendering is new to the lemmatiser)."""
    texts: dict = defaultdict(dict)
    for w in work:
        a = w.alignment
        if a is None:
            continue
        if a.kind == "glossary" and a.form is not None:
            expected = a.form.text
        elif a.kind == "established":
            ref = references.get((w.doc.doc_id, w.concept.id, w.source_form))
            expected = ref.text if ref is not None else None
        else:
            continue  # no spelling to check
        if expected:
            texts[primary(w.doc.tgt_lang)].update({a.text: None, expected: None})
    for lang, want in texts.items():
        rules.lem(lang).tokenize_many(list(want))


def verdicts_of(work: list[Work], references: Mapping[tuple, Reference], rules: Rules):
    """A verdict and a metric item per occurrence, in order. `work` is emptied as it is read: each work
    record (with its alignment and segment) is let go once its verdict is made, so a big document never
    holds both in full."""
    allowed_cache: dict = {}
    verdicts, items = [], []
    for n in range(len(work)):
        if n % _SPELLING_BATCH == 0:
            _tokenise_ahead(work[n:n + _SPELLING_BATCH], references, rules)
        w = work[n]
        work[n] = None  # type: ignore[call-overload]
        ref = references.get((w.doc.doc_id, w.concept.id, w.source_form))
        a = w.alignment
        occ = Occurrence(
            doc_id=w.doc.doc_id, unit_id=w.seg.unit_id, seg_id=w.seg.seg_id, segment_index=w.seg.index,
            concept_id=w.concept.id, source_form=w.source_form, source_text=w.source_text,
            source_span=Span(w.start, w.end), target_text=a.text if a else None,
            target_span=Span(a.start, a.end) if a else None, variation=w.variation,
            chain_size=w.chain_size, is_first_mention=w.first, glossary_term=w.entry.text,
            via=w.entry.via, align_method=a.kind if a else None, variation_subtype=w.subtype,
            target_variant=a.form.rule if a and a.form is not None and a.form.rule else None,
        )
        d, spelling = rules.decide(kind=a.kind if a else None, form=a.form if a else None,
                                   rendering=occ.target_text, rendering_key=w.rendering_key, concept=w.concept,
                                   reference=ref, chain_size=w.chain_size, tgt_lang=w.doc.tgt_lang, segment=w.seg,
                                   source_span=occ.source_span, target_span=occ.target_span)
        verdicts.append(Verdict(occurrence=occ, reference=ref, **verdict_fields(d, rules.table)))
        ak = (w.concept.id, w.doc.tgt_lang)
        allowed = allowed_cache.get(ak)
        if allowed is None:
            allowed = allowed_cache[ak] = [t for t in w.concept.terms_in(w.doc.tgt_lang)
                                           if t.status in ALLOWED_STATUSES and not t.matchable_only]
        if w.concept.dnt:
            gm = a is not None and a.kind == "dnt"
        elif allowed:
            gm = a is not None and a.kind == "glossary" and not spelling and d.outcome != UNJUDGED  # head dropped
        else:
            gm = None
        items.append(Item(w.doc.doc_id, w.concept.id, w.source_form,
                          w.rendering_key if a is not None else None, gm,
                          is_head=occ.is_head, variation=w.variation, target_variation=w.target_variation,
                          spelling=w.variation == "graphical" and w.entry.via != "acronym"
                          and (w.entry.term_type or "").lower() not in ("acronym", "abbreviation", "initialism")
                          and not dt.is_caps(w.source_text)))
    work.clear()
    return one_verdict_per_copy(verdicts), items



def misaligned(verdicts, documents) -> dict:
    """(doc id, segment index) -> a reason when the target does not look like a translation of the
    source (else None), for each segment holding an occurrence, in the verdicts' order.

    Only those segments are looked at, by their text (a packed document's segments are not made into
    records)."""
    wanted = {(v.occurrence.doc_id, v.occurrence.segment_index) for v in verdicts}
    wanted_docs = {k[0] for k in wanted}
    texts: dict = {}  # (doc_id, index) -> (source, target); a later document of the same id wins
    for d in documents:
        if d.doc_id in wanted_docs:
            for index, source, target in segment_texts(d.segments):
                if (d.doc_id, index) in wanted:
                    texts[(d.doc_id, index)] = (source, target)
    suspects: dict = {}
    for v in verdicts:
        k = (v.occurrence.doc_id, v.occurrence.segment_index)
        if k not in suspects:
            suspects[k] = misalignment(*texts[k])
    return suspects


def flag_misaligned(verdicts, documents, warnings, suspects: Optional[dict] = None):
    """Occurrences "missing" from a target that is not a translation of the source say so.

    `suspects`: `misaligned` of the verdicts when it is known already (counting workers make it for
    their documents; their documents' ids are unique)."""
    if suspects is None:
        suspects = misaligned(verdicts, documents)
    flagged = [k for k, why in suspects.items() if why]
    if flagged:
        examples = ", ".join(f"{_unit_id(documents, *k)} ({suspects[k]})" for k in flagged[:3])
        warnings.append(f"{len(flagged)} segments holding terms look misaligned (target not a translation of "
                        f"the source), e.g. {examples}")
    out = []
    for v in verdicts:
        o = v.occurrence
        if suspects.get((o.doc_id, o.segment_index)):
            if v.reason == R_MISSING:
                v = replace(v, reason=R_MISALIGNED)
            elif o.align_method == "closest" and v.outcome == UNJUDGED:
                # a candidate in a text that does not translate the source is no candidate
                v = replace(v, reason=R_MISALIGNED, occurrence=replace(o, target_text=None, target_span=None,
                                                                       align_method=None))
        out.append(v)
    return out


def _unit_id(documents, doc_id: str, index: int) -> str:
    """The unit id of segment `index` of the last document `doc_id` that has one (as `misaligned` reads)."""
    for d in reversed(documents):
        if d.doc_id == doc_id:
            try:
                return WithSource(d.segments).segment(index).unit_id
            except (KeyError, IndexError):
                continue
    raise KeyError((doc_id, index))
