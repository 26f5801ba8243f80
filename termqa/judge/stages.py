"""The LLM judge stage: what counting could not settle, judged in document context (TermJudge §3.2).

On top of the counting verdicts, in order:
1. align: the model copies, from the target segment, the rendering of each occurrence counting could
   not align (one-to-one: a span already claimed in the segment is not taken twice);
2. references: a pseudo-reference (the document's own majority rendering) is checked on source-side
   evidence; if rejected, a reference is generated from the concept and the source contexts only;
   provenance becomes `validated` or `generated`;
3. Q1, the error judge: every divergence from R(s), and every hapax without a glossary reference,
   once per distinct (document, source form, unlemmatised rendering), the answer propagated;
   an error label is final; an error-free hapax is conforming;
4. Q2, the consistency judge: once per error-free divergent occurrence of a chain: justified or
   unjustified with one of ten labels.
`exhaustive=True` sends every occurrence not settled by a certain rule through Q1 (no propagation)
and Q2, for validation.

`run_judge` runs the stages in order on one set of verdicts; `termqa.evaluate.compare` runs the same public
stages (`Stage`, `align_open`, `rebuild_pseudo`, `check_references`, `redecide`, `ask_q1_q2`) across
several systems so that they share references and one cache.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from typing import Callable, Collection, Mapping, Optional, Sequence

from termqa.config import VariantLevel
from termqa.errors import BudgetExceeded, JudgeError, OfflineCacheMiss
from termqa.judge.batch import BatchPending
from termqa.judge.llm import Backend
from termqa.judge.progress import Ticker
from termqa.judge.questions import (
    MAX_CHAIN_ITEMS, MAX_PRECEDING, AlignQuestion, AlignTerm, ChainOccurrence, ConceptInfo, ConsistencyQuestion,
    ErrorQuestion, ExcerptSentence, FormRenderings, ReferenceCheckQuestion, ReferenceQuestion, RenderingCount,
    SegmentText, ask_many, prompt_versions,
)
from termqa.judge.settings import JudgeSettings
from termqa.labels import R_BATCH, R_BUDGET, R_NO_RENDERING, R_NOT_IN_SEGMENT, R_UNAVAILABLE  # noqa: F401
from termqa.lang.langtags import language_name, primary
from termqa.lang.normalise import loose, term_tokens
from termqa.model import (
    CONFORMING, ERROR, GENERATED, GLOSSARY, PSEUDO, UNJUDGED, VALIDATED, Occurrence, Reference, Segment, Span, Verdict,
)
from termqa.pipeline.align import TargetIndex, classify_rendering, target_forms
from termqa.pipeline.boundaries import crossing
from termqa.pipeline.detect import keys_of, rendering_key
from termqa.pipeline.detection import Detection
from termqa.pipeline.prejudge import Rules
from termqa.pipeline.reference import pseudo_reference
from termqa.pipeline.review import REVIEWER
from termqa.score import penalty_for
from termqa.problems import opening_case_free
from termqa.signature import JudgePart
from termqa.wordcount import source_words

# the judge reads a concept's target designations themselves: no variants derived (termqa.pipeline.align)
NO_VARIANTS = Detection(VariantLevel.NONE)

Progress = Callable[[str, int, int], None]



def _failed(exc) -> str:
    """The unjudged reason for a question the judge did not answer."""
    if isinstance(exc, BudgetExceeded):
        return R_BUDGET
    if isinstance(exc, BatchPending):
        return R_BATCH
    return R_UNAVAILABLE


def _unjudged(v, exc):
    return replace(v, outcome=UNJUDGED, label=None, penalty=None, judge=None, reason=_failed(exc),
                   extra=_failure_extra(v, exc))


def _failure_extra(v, exc) -> tuple:
    """What went wrong, kept with the occurrence (the reason itself stays one fixed line)."""
    if isinstance(exc, (BudgetExceeded, BatchPending)):
        return v.extra
    return tuple(e for e in v.extra if e[0] != "judge_error") + (("judge_error", str(exc)),)


class Stage:
    """State shared by the phases: documents, concepts, lemmatisers, the backend and counts."""

    def __init__(self, documents, concepts, backend, lem, domain, exhaustive):

        self.docs = {d.doc_id: d for d in documents}
        self.concepts = concepts
        self.backend = backend
        self.lem = lem
        self.domain = domain or ""
        self.exhaustive = exhaustive
        self.lang_name = language_name
        self.asked = Counter()
        self.out_of_registry = 0
        self._forms = {}

    def segment(self, occ: Occurrence) -> Segment:
        return self.docs[occ.doc_id].segments_by_index[occ.segment_index]

    def langs(self, doc_id: str) -> tuple[str, str]:
        d = self.docs[doc_id]
        return d.src_lang, d.tgt_lang

    def ask(self, phase: str, questions: Sequence) -> list:

        if not questions:
            return []
        self.asked[phase] += len(questions)
        self.backend.phase = phase
        results = ask_many(self.backend, questions)
        for r in results:
            if isinstance(r, OfflineCacheMiss):
                raise r
            # chain and segment questions answer with one result per occurrence
            for item in (r if isinstance(r, tuple) else (r,)):
                if getattr(item, "out_of_registry", False):
                    self.out_of_registry += 1
        return results

    def concept_info(self, cid: str, doc_id: str) -> ConceptInfo:

        src, tgt = self.langs(doc_id)
        return ConceptInfo.from_concept(self.concepts[cid], src, tgt)

    def target_forms(self, cid: str, tgt: str) -> list:

        k = (cid, tgt)
        if k not in self._forms:
            self._forms[k] = target_forms(self.concepts[cid], tgt, self.lem(primary(tgt)), NO_VARIANTS)
        return self._forms[k]

    def key(self, text: Optional[str], lang: str) -> Optional[tuple]:

        return rendering_key(self.lem(primary(lang)), text)


class DocView:
    """A document with its segments indexed by position (unit ids are not always unique)."""

    def __init__(self, doc):
        self.__dict__.update(doc.__dict__)
        self.segments_by_index = {s.index: s for s in doc.segments}


@dataclass
class System:
    """One system's verdicts and references while the judge phases work on them. `force`: indexes of
    verdicts to decide again even when neither their alignment nor their reference changed (compare
    marks those it aligned from other systems' renderings)."""

    stage: Stage
    verdicts: list
    references: dict
    force: frozenset = frozenset()


def own_references(systems: Sequence[System], progress: Optional[Progress] = None) -> None:
    """The check's reference policy: each system's pseudo-references rebuilt from its own renderings,
    then validated (or regenerated) by the judge."""
    for s in systems:
        s.references = rebuild_pseudo(s.stage, s.verdicts, s.references)
        if s.stage.backend is not None:
            s.references = check_references(s.stage, s.verdicts, s.references, progress)


def judge_phases(systems: Sequence[System], table: Mapping[str, float], *,
                 references: Callable[[Sequence[System], Optional[Progress]], None] = own_references,
                 progress: Optional[Progress] = None, missing_too: bool = False) -> None:
    """The judge stage's phases over one or several systems, in place:

    align what counting could not (judge) -> references (`references` policy: a system's own for check,
    shared across systems for compare) -> deterministic rules again where alignment or the reference
    changed -> error judge, then consistency judge. Without a backend (counting-mode compare) only the
    references and the rules run.
    """
    judging = any(s.stage.backend is not None for s in systems)
    if judging:
        for s in systems:
            s.verdicts = align_open(s.stage, s.verdicts, progress)
    references(systems, progress)
    for s in systems:
        s.verdicts = redecide(s.stage, s.verdicts, s.references, table, force=s.force, missing_too=missing_too)
        if judging:
            s.verdicts = ask_q1_q2(s.stage, s.verdicts, s.references, table, progress)


def judge_part(settings: JudgeSettings) -> JudgePart:
    """The judge's part of the run signature."""
    return JudgePart(settings.model, settings.endpoint, settings.temperature, prompt_versions())


def account(backend: Backend, stages: Sequence[Stage]) -> dict:
    acc = backend.account.as_dict()
    # the backend's count (answers refused and asked again) plus any a reader flagged
    acc["out_of_registry_labels"] = acc.get("out_of_registry_labels", 0) + sum(st.out_of_registry for st in stages)
    return acc


def run_judge(verdicts: list, references: dict, documents: Sequence, concepts: Mapping, settings: JudgeSettings, *,
              table: Mapping[str, float], exhaustive: bool = False, domain: Optional[str] = None,
              progress: Optional[Progress] = None, lem: Optional[Callable] = None) -> tuple:
    """Judge what counting left open. Returns (verdicts, references, accounting, judge signature part).

    Documents are independent (references, chains and questions are per document), so their phases run
    side by side: while one document waits for the last answers of its error judge, another's alignment
    questions already fill the free slots, and the concurrency limit (shared by the backend) stays busy.
    Batch mode keeps one pass over all documents, since each round submits one stage for all of them.
    """
    backend = Backend(settings)
    verdicts = list(verdicts)
    if settings.batch or len(documents) < 2:
        groups = [(list(documents), list(range(len(verdicts))))]
    else:
        positions: dict[str, list[int]] = defaultdict(list)
        for i, v in enumerate(verdicts):
            positions[v.occurrence.doc_id].append(i)
        groups = [([d], positions[d.doc_id]) for d in documents if positions.get(d.doc_id)]
    systems = []
    for docs, idx in groups:
        ids = {d.doc_id for d in docs}
        stage = Stage([DocView(d) for d in docs], concepts, backend, lem, domain, exhaustive)
        systems.append(System(stage, [verdicts[i] for i in idx], {k: r for k, r in references.items() if k[0] in ids}))
    try:
        with Ticker(backend, progress, settings.progress_every):  # a line every 10 s while answers come
            if len(systems) == 1:
                judge_phases(systems, table, progress=progress)
            else:
                _side_by_side(systems, table, progress, workers=settings.concurrency)
    finally:
        backend.close()
    out, refs = list(verdicts), {}
    for (_docs, idx), system in zip(groups, systems):
        for i, v in zip(idx, system.verdicts):
            out[i] = v
        refs.update(system.references)
    stages = [s.stage for s in systems]
    acc = account(backend, stages)
    acc["questions"] = dict(sum((st.asked for st in stages), Counter()))
    return out, refs, acc, judge_part(settings)


def _side_by_side(systems: Sequence[System], table: Mapping[str, float], progress: Optional[Progress],
                  workers: int) -> None:
    """The judge phases of each document in its own thread; the backend bounds the calls in flight."""
    if progress:
        progress("judging documents", 0, len(systems))
    pool = ThreadPoolExecutor(max_workers=max(1, min(len(systems), workers)), thread_name_prefix="termqa-document")
    futures = [pool.submit(judge_phases, [s], table) for s in systems]
    try:
        for done, fut in enumerate(as_completed(futures), 1):
            fut.result()  # an error of one document (offline cache miss, a bug) stops the run
            if progress:
                progress("judging documents", done, len(systems))
    except BaseException:
        # Ctrl-C or an error: no new question is sent; answers already on the wire land in the cache
        systems[0].stage.backend.stop()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


# --- 1. alignment ---------------------------------------------------------------------------------

def align_open(stage: Stage, verdicts: Sequence[Verdict], progress: Optional[Progress]) -> list[Verdict]:

    _count_source_words(stage)
    todo = [i for i, v in enumerate(verdicts)
            if v.outcome == UNJUDGED and (v.occurrence.target_span is None or v.occurrence.align_method == "closest")
            and not stage.concepts[v.occurrence.concept_id].dnt]  # counting's closest candidate is only shown
    if progress:
        progress("aligning", 0, len(todo))
    # one question per segment, about every occurrence counting could not align there
    by_segment = defaultdict(list)
    for i in todo:
        o = verdicts[i].occurrence
        by_segment[(o.doc_id, o.segment_index)].append(i)
    keys = list(by_segment)
    questions = []
    for k in keys:
        idxs = sorted(by_segment[k], key=lambda i: verdicts[i].occurrence.source_span.start)
        by_segment[k] = idxs
        seg = stage.segment(verdicts[idxs[0]].occurrence)
        src, tgt = stage.langs(k[0])
        terms = []
        for i in idxs:
            o = verdicts[i].occurrence
            hints = tuple(t.text for t in stage.concepts[o.concept_id].terms_in(tgt) if not t.matchable_only)
            nth = seg.source[:o.source_span.start].count(o.source_text) + 1
            terms.append(AlignTerm(o.source_text, hints, nth))
        questions.append(AlignQuestion(tuple(terms), seg.source, seg.target, stage.lang_name(src),
                                       stage.lang_name(tgt)))
    answers = stage.ask("align", questions)
    claimed = defaultdict(list)
    for v in verdicts:
        o = v.occurrence
        if o.target_span is not None and o.align_method != "closest":
            claimed[(o.doc_id, o.segment_index)].append((o.target_span.start, o.target_span.end))
    out = list(verdicts)
    for k, answer in zip(keys, answers):
        seg = stage.segment(verdicts[by_segment[k][0]].occurrence)
        for n, i in enumerate(by_segment[k]):
            v = verdicts[i]
            o = v.occurrence
            r = answer if isinstance(answer, JudgeError) else answer[n]
            if isinstance(r, JudgeError):
                # no alignment: the occurrence stays unjudged with this reason, and the judges do not
                # take it for a dropped term (see _needs_q1)
                out[i] = replace(v, reason=_failed(r), extra=_failure_extra(v, r))
                continue
            if r.text is None:
                out[i] = replace(v, reason=R_NO_RENDERING, prompt_version=r.prompt_version)
                continue
            if not r.found_in_segment:
                out[i] = replace(v, reason=f"{R_NOT_IN_SEGMENT} ('{r.text}')", prompt_version=r.prompt_version)
                continue
            taken = claimed[k]
            span = _free_span(seg.target, r.text, r.span, taken)
            if span is None:
                out[i] = replace(v, reason=f"the judge's rendering '{r.text}' already answers another occurrence")
                continue
            across = crossing(seg.target, *span)
            if across is not None:  # not one phrase: no rendering (termqa.pipeline.boundaries)
                out[i] = replace(v, reason=f"the judge's rendering '{r.text}' runs across {across}",
                                 prompt_version=r.prompt_version)
                continue
            taken.append(span)
            occ = replace(o, target_text=seg.target[span[0]:span[1]], target_span=Span(*span), align_method="judge")
            out[i] = replace(v, occurrence=occ)
    if progress:
        progress("aligning", len(todo), len(todo))
    return out


def _count_source_words(stage) -> None:
    """Add the stage's source words to the accounting once (align_open is every run's first phase)."""
    if stage.backend is None or getattr(stage, "_words_counted", False):
        return
    stage._words_counted = True
    stage.backend.account.add(source_words=source_words(stage.docs.values()))  # termqa.wordcount


def _free_span(segment, text, span, taken):
    """`span`, or the next place the same words occur in the segment, that no other occurrence has
    claimed (a term rendered twice in a sentence gets each rendering once); None when all are taken."""
    start, end = span
    while any(start < b and a < end for a, b in taken):
        nxt = segment.find(text, start + 1)
        if nxt < 0:
            return None
        start, end = nxt, nxt + len(text)
    return (start, end)


# --- 2. references --------------------------------------------------------------------------------

def _chains(verdicts):
    chains = defaultdict(list)
    for i, v in enumerate(verdicts):
        o = v.occurrence
        chains[(o.doc_id, o.concept_id, o.source_form)].append(i)
    return chains


def rebuild_pseudo(stage: Stage, verdicts: Sequence[Verdict], references: Mapping) -> dict:
    """Pseudo-references again, now that the judge aligned more occurrences."""

    refs = dict(references)
    for (doc_id, cid, sf), idxs in _chains(verdicts).items():
        ref = refs.get((doc_id, cid, sf))
        if ref is not None and ref.provenance == GLOSSARY:
            continue
        tgt = stage.langs(doc_id)[1]
        rend = [(stage.key(verdicts[i].occurrence.target_text, tgt), verdicts[i].occurrence.target_text)
                for i in idxs]
        new = pseudo_reference(doc_id, cid, sf, rend)
        if new is not None:
            refs[(doc_id, cid, sf)] = new
    return refs


def check_references(stage: Stage, verdicts: Sequence[Verdict], references: Mapping,
                     progress: Optional[Progress]) -> dict:
    """Validate pseudo-references on source-side evidence; generate those that fail."""

    chains = _chains(verdicts)
    pending = [(k, r) for k, r in references.items() if r.provenance == PSEUDO]
    if progress:
        progress("references", 0, len(pending))
    checks = []
    for (doc_id, cid, sf), ref in pending:
        idxs = chains[(doc_id, cid, sf)]
        src, tgt = stage.langs(doc_id)
        occs = [verdicts[i].occurrence for i in idxs]
        tkey = stage.key(ref.text, tgt)
        count = sum(1 for o in occs if o.target_text and stage.key(o.target_text, tgt) == tkey)
        checks.append(ReferenceCheckQuestion(
            occs[0].source_text, ref.text, stage.lang_name(src), stage.lang_name(tgt), count, len(occs),
            stage.domain, stage.concept_info(cid, doc_id), _contexts(stage, occs),
            occs[0].is_head, occs[0].variation,
        ))
    results = stage.ask("reference_check", checks)
    refs = dict(references)
    regenerate = []
    for ((k, ref), r) in zip(pending, results):
        if isinstance(r, JudgeError):
            # stays pseudo; the judges' evidence about this concept would change once it is answered,
            # so their questions about it wait for that answer (see _held)
            _hold(stage, k[0], k[1], _failed(r))
            continue
        if r.code is None:
            refs[k] = replace(ref, provenance=VALIDATED)
        else:
            regenerate.append(k)
    gen_q = []
    for (doc_id, cid, sf) in regenerate:
        occs = [verdicts[i].occurrence for i in chains[(doc_id, cid, sf)]]
        src, tgt = stage.langs(doc_id)
        c = stage.concepts[cid]
        head = c.preferred(src)
        head_t = c.preferred(tgt)
        gen_q.append(ReferenceQuestion(
            occs[0].source_text, stage.lang_name(src), stage.lang_name(tgt), stage.domain,
            stage.concept_info(cid, doc_id), head.text if head else None, head_t.text if head_t else None,
            occs[0].variation, _contexts(stage, occs),
        ))
    for k, r in zip(regenerate, stage.ask("reference", gen_q)):
        if isinstance(r, JudgeError):
            _hold(stage, k[0], k[1], _failed(r))
        if isinstance(r, JudgeError) or not r.text:
            refs.pop(k, None)  # rejected and nothing better: judged in absolute terms only
            continue
        refs[k] = Reference(k[0], k[1], k[2], r.text, GENERATED)
    if progress:
        progress("references", len(pending), len(pending))
    return refs


def _contexts(stage, occs, n=3):
    seen, out = set(), []
    for o in occs:
        seg = stage.segment(o)
        if seg.source not in seen:
            seen.add(seg.source)
            out.append(seg.source)
        if len(out) >= n:
            break
    return tuple(out)


# --- deterministic verdicts again, for what alignment or the references changed --------------------

def redecide(stage: Stage, verdicts: Sequence, references: Mapping, table: Mapping[str, float], *,
             force: Collection[int] = frozenset(), missing_too: bool = False) -> list:
    """The deterministic rules again for occurrences the judge aligned, whose reference changed, or
    that `force` names. `missing_too`: an unaligned, unjudged occurrence whose reference changed gets
    its reason again (compare: with a shared reference it is a missing rendering, not a hapax)."""
    rules = Rules(lambda lang: stage.lem(primary(lang)), table)
    out = list(verdicts)
    for i, v in enumerate(verdicts):
        if v.judge == "rule" and v.outcome == ERROR or v.judge == REVIEWER:
            continue  # certain errors stay; what a reviewer decided stays
        o = v.occurrence
        ref = references.get((o.doc_id, o.concept_id, o.source_form))
        if i not in force and o.align_method != "judge" and ref == v.reference:
            continue  # nothing the judge stage changed
        if o.target_text is None:
            if missing_too and v.outcome == UNJUDGED and v.judge is None and ref != v.reference:
                out[i] = replace(v, reference=ref, **rules.fields(
                    kind=None, form=None, rendering=None, rendering_key=None,
                    concept=stage.concepts[o.concept_id], reference=ref, chain_size=o.chain_size,
                    tgt_lang=stage.langs(o.doc_id)[1]))
            else:
                out[i] = replace(v, reference=ref)
            continue
        src, tgt = stage.langs(o.doc_id)
        lt = stage.lem(primary(tgt))
        forms = stage.target_forms(o.concept_id, tgt)
        source_skey = keys_of(stage.lem(primary(src)).tokenize(o.source_text))[1]
        toks = term_tokens(lt.tokenize(o.target_text))
        if stage.concepts[o.concept_id].dnt and TargetIndex(toks).find(tuple(source_skey), surface=True):
            # the do-not-translate item itself, as counting aligns it: kept exactly, or altered
            kind, form = ("dnt" if o.target_text == o.source_text else "dnt_altered"), None
        else:
            kind, form = classify_rendering(toks, forms, source_skey, any(f.kind == "glossary" for f in forms))
        out[i] = replace(v, reference=ref, **rules.fields(
            kind=kind, form=form, rendering=o.target_text, rendering_key=stage.key(o.target_text, tgt),
            concept=stage.concepts[o.concept_id], reference=ref, chain_size=o.chain_size, tgt_lang=tgt,
            segment=stage.segment(o), source_span=o.source_span, target_span=o.target_span))
    return out


# --- 3 and 4. the error judge, then the consistency judge ------------------------------------------

def _needs_q1(stage, v) -> bool:
    if v.judge == "rule" and v.outcome == ERROR or v.judge == REVIEWER:
        return False  # a reviewer's decision is never asked again, not even in exhaustive mode
    if v.outcome == UNJUDGED and v.occurrence.target_span is None and v.reason in (R_UNAVAILABLE, R_BUDGET, R_BATCH):
        return False  # its alignment question went unanswered: nothing to judge yet
    if stage.exhaustive:
        return True
    # what the rules settled stays settled; a hapax without a glossary reference is never settled by
    # them (its own rendering as reference would be circular), so it arrives here as unjudged
    return v.outcome == UNJUDGED


def _forms(stage, verdicts, doc_id, cid):
    """The concept's renderings in the document, grouped by source form (evidence for the judges)."""

    by_form = defaultdict(list)
    for v in verdicts:
        o = v.occurrence
        if o.doc_id == doc_id and o.concept_id == cid:
            by_form[o.source_form].append(v)
    out = []
    for sf, vs in by_form.items():
        counts = Counter(v.occurrence.target_text for v in vs if v.occurrence.target_text)
        first = next((v.occurrence.target_text for v in vs if v.occurrence.target_text), None)
        top = counts.most_common(1)[0][0] if counts else None
        ref = vs[0].reference
        o = vs[0].occurrence
        out.append(FormRenderings(
            vs[0].occurrence.source_text, tuple(RenderingCount(t, n, t == top, t == first)
                                                for t, n in counts.most_common()),
            is_head=o.is_head,
            in_glossary=o.via == "glossary", reference=ref.text if ref else None,
            provenance=ref.provenance if ref else None,
        ))
    return tuple(out)


def _status_of(stage, cid, tgt, text) -> Optional[str]:

    if not text:
        return None
    for t in stage.concepts[cid].terms_in(tgt):
        if loose(t.text) == loose(text):
            return t.status
    return None


def _preceding(stage, o, n=MAX_PRECEDING):
    """The segments before the occurrence's, oldest first: the document context the judges see."""

    segs = stage.docs[o.doc_id].segments_by_index
    out = []
    for k in range(o.segment_index - n, o.segment_index):
        s = segs.get(k)
        if s is not None:
            out.append(SegmentText(s.source, s.target))
    return tuple(out)


def ask_q1_q2(stage: Stage, verdicts: Sequence[Verdict], references: Mapping, table: Mapping[str, float],
              progress: Optional[Progress]) -> list[Verdict]:

    out = list(verdicts)
    todo = [i for i, v in enumerate(verdicts) if _needs_q1(stage, v)]
    # questions whose evidence still lacks an unanswered earlier answer are not asked now: their
    # occurrences stay unjudged, and the re-run asks them once, in their final form
    held = _held(stage, verdicts)
    for i in [i for i in todo if (verdicts[i].occurrence.doc_id, verdicts[i].occurrence.concept_id) in held]:
        o = verdicts[i].occurrence
        out[i] = replace(out[i], outcome=UNJUDGED, label=None, penalty=None, judge=None,
                         reason=held[(o.doc_id, o.concept_id)])
    todo = [i for i in todo if (verdicts[i].occurrence.doc_id, verdicts[i].occurrence.concept_id) not in held]
    groups = defaultdict(list)
    for i in todo:
        o = verdicts[i].occurrence
        # propagation: one question per distinct rendering (a capital that only opens the sentence makes no
        # other rendering); a missing rendering is about its own segment, so it is never shared
        key = (o.doc_id, o.source_form, opening_case_free(
            o.target_text, stage.segment(o).target or "", o.target_span and o.target_span.start,
            stage.langs(o.doc_id)[1] or "")) if o.target_text and not stage.exhaustive else (i,)
        groups[key].append(i)
    forms_cache = {}

    def forms(o):
        k = (o.doc_id, o.concept_id)
        if k not in forms_cache:
            forms_cache[k] = _forms(stage, verdicts, o.doc_id, o.concept_id)
        return forms_cache[k]

    keys = list(groups)
    q1 = []
    for k in keys:
        o = verdicts[groups[k][0]].occurrence
        seg = stage.segment(o)
        src, tgt = stage.langs(o.doc_id)
        q1.append(ErrorQuestion(
            o.source_text, o.target_text, SegmentText(seg.source, seg.target), stage.lang_name(src),
            stage.lang_name(tgt), stage.domain, stage.concept_info(o.concept_id, o.doc_id), _preceding(stage, o),
            forms(o), o.is_head,
            _status_of(stage, o.concept_id, tgt, o.target_text), o.chain_size == 1,
        ))
    if progress:
        progress("error judge", 0, len(q1))
    model = stage.backend.settings.model
    to_q2 = []
    unanswered = {}  # chain -> reason, when a Q1 question about it went unanswered
    for k, r in zip(keys, stage.ask("error", q1)):
        for i in groups[k]:
            v = out[i]
            if isinstance(r, JudgeError):
                out[i] = _unjudged(v, r)
                unanswered.setdefault((v.occurrence.doc_id, v.occurrence.concept_id, v.occurrence.source_form),
                                      _failed(r))
            elif r.code is not None:
                out[i] = replace(v, outcome=ERROR, label=r.code, penalty=penalty_for(ERROR, r.code, table),
                                 reason=r.justification, judge=model, prompt_version=r.prompt_version,
                                 extra=_extra(r))
            elif v.occurrence.chain_size == 1 or v.occurrence.target_text is None:
                # error-free hapax: conforming (consistency is undefined for one occurrence)
                out[i] = replace(v, outcome=CONFORMING, label=None, penalty=penalty_for(CONFORMING, None, table),
                                 reason=r.justification or "judged error-free", judge=model,
                                 prompt_version=r.prompt_version, extra=_extra(r))
            else:
                to_q2.append(i)
    if progress:
        progress("error judge", len(q1), len(q1))
        progress("consistency judge", 0, len(to_q2))
    # one question per chain (a long one in parts): its answer labels each occurrence
    chains = defaultdict(list)
    for i in to_q2:
        o = out[i].occurrence
        chains[(o.doc_id, o.concept_id, o.source_form)].append(i)
    q2, parts = [], []
    for ck, idxs in chains.items():
        if ck in unanswered:
            # which occurrences the chain question is about depends on that answer: ask it next run
            for i in idxs:
                out[i] = replace(out[i], outcome=UNJUDGED, label=None, penalty=None, judge=None,
                                 reason=unanswered[ck])
            continue
        idxs.sort(key=lambda i: (out[i].occurrence.segment_index, out[i].occurrence.source_span.start))
        for start in range(0, len(idxs), MAX_CHAIN_ITEMS):
            part = idxs[start:start + MAX_CHAIN_ITEMS]
            parts.append(part)
            q2.append(_chain_question(stage, [out[i] for i in part], forms(out[part[0]].occurrence)))
    for part, answer in zip(parts, stage.ask("consistency", q2)):
        for n, i in enumerate(part):
            v = out[i]
            r = answer if isinstance(answer, JudgeError) else answer[n]
            if isinstance(r, JudgeError):
                out[i] = _unjudged(v, r)
                continue
            out[i] = replace(v, outcome=r.outcome, label=r.label, penalty=penalty_for(r.outcome, r.label, table),
                             reason=r.justification, judge=model, prompt_version=r.prompt_version, extra=_extra(r))
    if progress:
        progress("consistency judge", len(to_q2), len(to_q2))
    return out


def _hold(stage, doc_id, cid, reason) -> None:
    """Mark a concept of a document whose evidence waits for an unanswered question."""
    if not hasattr(stage, "held"):
        stage.held = {}
    stage.held.setdefault((doc_id, cid), reason)


def _held(stage, verdicts) -> dict:
    """(document, concept) -> reason, for concepts whose judges' evidence is not final: an alignment
    or a reference question about them went unanswered (failed, over budget, or in a batch)."""
    held = dict(getattr(stage, "held", {}))
    for v in verdicts:
        o = v.occurrence
        if v.outcome == UNJUDGED and o.target_span is None and v.reason in (R_UNAVAILABLE, R_BUDGET, R_BATCH):
            held.setdefault((o.doc_id, o.concept_id), v.reason)
    return held


def _chain_question(stage, vs, forms):
    """The consistency question about occurrences `vs` of one chain, in document order."""
    o0 = vs[0].occurrence
    src, tgt = stage.langs(o0.doc_id)
    ref = vs[0].reference
    occs = tuple(ChainOccurrence(v.occurrence.segment_index, v.occurrence.target_text,
                                 _status_of(stage, o0.concept_id, tgt, v.occurrence.target_text),
                                 v.occurrence.is_first_mention,
                                 v.occurrence.source_text if v.occurrence.source_text != o0.source_text else None)
                 for v in vs)
    return ConsistencyQuestion(
        o0.source_text, occs, _excerpt(stage, o0.doc_id, [v.occurrence.segment_index for v in vs]),
        stage.lang_name(src), stage.lang_name(tgt), stage.domain, stage.concept_info(o0.concept_id, o0.doc_id),
        forms,
        o0.is_head, ref.text if ref else None, ref.provenance if ref else None,
    )


def _excerpt(stage, doc_id, positions, n=MAX_PRECEDING):
    """Each position's sentence and the `n` before it, once each, in document order."""
    segs = stage.docs[doc_id].segments_by_index
    wanted = sorted({k for p in positions for k in range(p - n, p + 1) if k in segs})
    return tuple(ExcerptSentence(k, segs[k].source, segs[k].target) for k in wanted)


def _extra(r) -> tuple:
    extra = []
    if getattr(r, "out_of_registry", False):
        extra.append(("out_of_registry_label", r.raw_label))
    if getattr(r, "cache_key", None):
        extra.append(("cache_key", r.cache_key))
    return tuple(extra)
