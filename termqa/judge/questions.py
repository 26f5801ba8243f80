"""Typed judge questions: what each prompt needs, and what its answer means.

A question is a frozen record of plain strings and tuples (no pipeline objects), so it can be
built by any stage, logged, compared and hashed. `to_request()` renders it with its prompt
template into an `llm.Request`; `read_answer()` turns the `llm.Answer` back into a typed result.
`ask_many()` does both around `Backend.complete_many()`.

Q2 is asked once per chain (the error-free divergent occurrences of one source form in one
document, up to MAX_CHAIN_ITEMS per question) and alignment once per segment (every occurrence
counting could not align there): the answer is an array with one item per occurrence, and an
answer that misses one is not accepted (the backend asks again).

Questions and results:
- ErrorQuestion (Q1, error judge)                -> ErrorVerdict
- ReferenceCheckQuestion (validate R(s))         -> ErrorVerdict (no_error = validated)
- ConsistencyQuestion (Q2, consistency judge)    -> a ConsistencyVerdict per occurrence of the chain
- AlignQuestion (find the terms' renderings)     -> an AlignResult per term of the segment
- ReferenceQuestion (generate R(s))              -> ReferenceResult

A label outside the registry never becomes a verdict: the backend finds it unusable
(termqa.judge.answers.problem), asks again and caches nothing. The readers below still flag one
they are handed directly (an `Answer` made by hand) as `out_of_registry`, read as no_error for Q1
and as gratuitous_divergence for Q2, so a caller of `read_answer` sees it rather than a crash.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from termqa.errors import JudgeError
from termqa.judge.answers import QUOTE_MARKS, Expect, Quotes, items_by_id, locate, norm_label
from termqa.judge.llm import Answer, Backend, Request
from termqa.judge.prompting import PromptLibrary, data_block, library as default_library
from termqa.labels import COHERENT_LABELS, CONSISTENCY_LABELS, ERROR_LABELS, INCONSISTENT_LABELS, NO_ERROR, code_for
from termqa.model import JUSTIFIED, UNJUSTIFIED, Concept

# How many preceding segment pairs a judge sees (the method uses five).
MAX_PRECEDING = 5
# How many source sentences the reference prompts see.
MAX_CONTEXTS = 5
# Occurrences labelled by one consistency question (a longer chain is asked in parts).
MAX_CHAIN_ITEMS = 10
# Q2 reading of an answer outside the registry (see module docstring).
Q2_FALLBACK_LABEL = "gratuitous_divergence"

# --- JSON schemas (justification first: the label must follow from the reasoning) ---------------


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    # Strict structured outputs need every property required and no extra ones.
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


ERROR_SCHEMA = {
    "name": "term_error_verdict",
    "strict": True,
    "schema": _object({
        "justification": {"type": "string"},
        "label": {"type": "string", "enum": [*ERROR_LABELS, NO_ERROR]},
    }),
}
CONSISTENCY_SCHEMA = {
    "name": "term_consistency_verdicts",
    "strict": True,
    "schema": _object({
        "verdicts": {"type": "array", "items": _object({
            "occurrence": {"type": "string"},
            "justification": {"type": "string"},
            "label": {"type": "string", "enum": list(CONSISTENCY_LABELS)},
        })},
    }),
}
ALIGN_SCHEMA = {
    "name": "term_alignments",
    "strict": True,
    "schema": _object({
        "renderings": {"type": "array", "items": _object({
            "term": {"type": "string"},
            "translation": {"type": "string"},
            "found": {"type": "boolean"},
        })},
    }),
}
REFERENCE_SCHEMA = {
    "name": "term_reference",
    "strict": True,
    "schema": _object({
        "justification": {"type": "string"},
        "generatable": {"type": "boolean"},
        "reference": {"type": "string"},
        "confidence": {"type": "string", "enum": ["high", "medium", "low"]},
    }),
}

# --- context records ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TermInfo:
    """One glossary designation as the judge sees it. `status` is a model.STATUSES value."""

    text: str
    status: str = "unknown"
    term_type: Optional[str] = None


@dataclass(frozen=True)
class ConceptInfo:
    """The glossary entry of the concept, in the two languages of the run."""

    concept_id: str
    source_terms: tuple[TermInfo, ...] = ()
    target_terms: tuple[TermInfo, ...] = ()
    definition: Optional[str] = None
    subject: Optional[str] = None
    dnt: bool = False
    note: Optional[str] = None

    @classmethod
    def from_concept(cls, concept: Concept, src_lang: str, tgt_lang: str) -> "ConceptInfo":
        """From a `model.Concept` (language tags, e.g. "en", "fr-FR"); hidden labels left out."""

        def terms(lang: str) -> tuple[TermInfo, ...]:
            return tuple(TermInfo(t.text, t.status, t.term_type)
                         for t in concept.terms_in(lang) if not t.matchable_only)

        return cls(concept.id, terms(src_lang), terms(tgt_lang), concept.definition,
                   concept.subject, concept.dnt, concept.note)


@dataclass(frozen=True)
class SegmentText:
    source: str
    target: Optional[str]


@dataclass(frozen=True)
class RenderingCount:
    """One rendering of a source form and how often the document uses it."""

    text: str
    count: int
    dominant: bool = False  # the document's most frequent rendering for this form
    first: bool = False  # the rendering at the form's first mention


@dataclass(frozen=True)
class FormRenderings:
    """How one source form of the concept is rendered across the document."""

    source_form: str
    renderings: tuple[RenderingCount, ...]
    is_head: bool = False
    in_glossary: bool = False
    reference: Optional[str] = None
    provenance: Optional[str] = None  # glossary, validated, generated


# --- questions ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorQuestion:
    """Q1: is `target_text` an acceptable rendering of `source_form` in this segment?

    `target_glossary_status` is the glossary status of the rendering among the concept's target
    terms (a model.STATUSES value) or None when it is not one of them. `target_text` None means
    no rendering was found in the segment.
    """

    source_form: str
    target_text: Optional[str]
    segment: SegmentText
    src_lang: str  # language names as the prompt shows them, e.g. "English"
    tgt_lang: str
    domain: str = ""
    concept: Optional[ConceptInfo] = None
    preceding: tuple[SegmentText, ...] = ()
    forms: tuple[FormRenderings, ...] = ()
    is_head: bool = True
    target_glossary_status: Optional[str] = None
    is_hapax: bool = False


@dataclass(frozen=True)
class ExcerptSentence:
    """One sentence of the document as the consistency judge sees it; `position` is its place in
    the document (gaps between positions show where sentences were left out)."""

    position: int
    source: str
    target: Optional[str]


@dataclass(frozen=True)
class ChainOccurrence:
    """One occurrence to label: its rendering, the sentence (a position of the excerpt) it is in."""

    position: int
    target_text: str
    target_glossary_status: Optional[str] = None
    is_first_mention: bool = False
    source_text: Optional[str] = None  # the source form as written there, when it differs from the chain's


@dataclass(frozen=True)
class ConsistencyQuestion:
    """Q2 for a chain: is each (error-free) divergent rendering of `source_form` coherent with the
    document's usage? `excerpt` holds each occurrence's sentence and the sentences before it."""

    source_form: str
    occurrences: tuple[ChainOccurrence, ...]
    excerpt: tuple[ExcerptSentence, ...]
    src_lang: str
    tgt_lang: str
    domain: str = ""
    concept: Optional[ConceptInfo] = None
    forms: tuple[FormRenderings, ...] = ()
    is_head: bool = True
    reference: Optional[str] = None
    reference_provenance: Optional[str] = None

    def ids(self) -> list[str]:
        return [f"o{i}" for i in range(1, len(self.occurrences) + 1)]


@dataclass(frozen=True)
class ReferenceCheckQuestion:
    """Is the translation's own most frequent rendering `candidate` fit to be R(s)?

    Judged on source-side evidence only (glossary entry, source sentences): the candidate comes
    from the output under evaluation, so its own target sentences are deliberately not shown.
    """

    source_form: str
    candidate: str
    src_lang: str
    tgt_lang: str
    count: int = 1  # occurrences rendered `candidate`
    total: int = 1  # occurrences of the source form
    domain: str = ""
    concept: Optional[ConceptInfo] = None
    contexts: tuple[str, ...] = ()  # source sentences containing the form
    is_head: bool = True
    variation: Optional[str] = None


@dataclass(frozen=True)
class ReferenceQuestion:
    """Generate R(s) from the concept entry and source sentences, never from the output."""

    source_form: str
    src_lang: str
    tgt_lang: str
    domain: str = ""
    concept: Optional[ConceptInfo] = None
    head_term: Optional[str] = None  # the concept's head term in the source language
    head_target: Optional[str] = None  # its established target term, if the glossary has one
    variation: Optional[str] = None  # how the source form relates to the head term
    contexts: tuple[str, ...] = ()


@dataclass(frozen=True)
class AlignTerm:
    """One source term of the segment to find in the translation."""

    source_form: str
    hints: tuple[str, ...] = ()  # glossary target terms, shown as a hint
    nth: int = 1  # which occurrence of this form in the source sentence (1: the first)


@dataclass(frozen=True)
class AlignQuestion:
    """Which words of `target_segment` translate each of `terms` (all in `source_segment`)?"""

    terms: tuple[AlignTerm, ...]
    source_segment: str
    target_segment: str
    src_lang: str
    tgt_lang: str

    def ids(self) -> list[str]:
        return [f"t{i}" for i in range(1, len(self.terms) + 1)]


Question = Union[ErrorQuestion, ConsistencyQuestion, ReferenceCheckQuestion, ReferenceQuestion,
                 AlignQuestion]

# --- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorVerdict:
    """`code` is an error code (A1..H) or None for no_error (including unreadable labels)."""

    code: Optional[str]
    raw_label: str
    justification: str
    out_of_registry: bool = False
    prompt_version: Optional[str] = None
    cache_key: Optional[str] = None  # links the verdict to its row in the audit log

    @property
    def is_error(self) -> bool:
        return self.code is not None


@dataclass(frozen=True)
class ConsistencyVerdict:
    label: str  # a CONSISTENCY_LABELS value (the fallback when out of registry)
    outcome: str  # model.JUSTIFIED or model.UNJUSTIFIED
    justification: str
    out_of_registry: bool = False
    raw_label: str = ""
    prompt_version: Optional[str] = None
    cache_key: Optional[str] = None


@dataclass(frozen=True)
class AlignResult:
    """`text` is the rendering as written in the target segment, None when there is none.

    `found_in_segment` says the text was located in the segment (then `span` gives its offsets,
    end-exclusive); a rendering the model reworded despite the instructions keeps its text but
    has `found_in_segment=False`.
    """

    text: Optional[str]
    found_in_segment: bool
    raw: str
    span: Optional[tuple[int, int]] = None
    prompt_version: Optional[str] = None


@dataclass(frozen=True)
class ReferenceResult:
    """`text` None when the model declined (no established designation it is sure of)."""

    text: Optional[str]
    justification: str
    confidence: Optional[str] = None
    prompt_version: Optional[str] = None


# Chain and segment questions answer with a tuple: one result per occurrence asked about.
Result = Union[ErrorVerdict, tuple[ConsistencyVerdict, ...], tuple[AlignResult, ...], ReferenceResult]

# --- questions -> requests ----------------------------------------------------------------------


_STATUS_WORDS = {"preferred": "preferred", "admitted": "admitted", "deprecated": "deprecated, not to be used",
                 "superseded": "superseded, not to be used"}


def _concept_data(c: Optional[ConceptInfo]) -> Optional[dict[str, Any]]:
    """The glossary entry as data (every string in it comes from the glossary file)."""
    if c is None:
        return None

    def terms(ts):
        out = []
        for t in ts:
            item: dict[str, Any] = {"text": t.text, "status": _STATUS_WORDS.get(t.status, "status not given")}
            if t.term_type:
                item["type"] = t.term_type
            out.append(item)
        return out

    d: dict[str, Any] = {}
    if c.definition:
        d["definition"] = c.definition
    if c.subject:
        d["subject"] = c.subject
    d["source_terms"] = terms(c.source_terms)
    d["target_terms"] = terms(c.target_terms)
    if c.dnt:
        d["do_not_translate"] = True
    if c.note:
        d["note"] = c.note
    return d


def count_band(n: int) -> str:
    """A count as the prompts show it: exact up to 2, then in bands.

    Exact counts would change every prompt about a concept whenever one of its renderings is
    edited, and with them every cache key: bands keep a re-run after a few fixes cheap.
    """
    if n <= 2:
        return {0: "never", 1: "once", 2: "twice"}[max(n, 0)]
    for low, high in ((3, 4), (5, 9), (10, 19)):
        if n <= high:
            return f"{low}-{high} times"
    return "20+ times"


def share_word(count: int, total: int) -> str:
    """How much of a chain a rendering covers, in words (see count_band for why not numbers)."""
    if total <= 0 or count >= total:
        return "all"
    if count * 2 > total:
        return "most"
    if count * 2 == total:
        return "half"
    return "some"


def _forms_data(forms: Sequence[FormRenderings], current_form: Optional[str]) -> list[dict[str, Any]]:
    out = []
    for f in forms:
        item: dict[str, Any] = {"source_form": f.source_form, "head_term": f.is_head, "in_glossary": f.in_glossary}
        if f.source_form == current_form:
            item["under_evaluation"] = True
        if f.reference:
            item["reference"] = f.reference
            item["reference_provenance"] = f.provenance
        rends = []
        for r in f.renderings:
            rd: dict[str, Any] = {"text": r.text, "occurrences": count_band(r.count)}
            if r.dominant:
                rd["most_frequent"] = True
            if r.first:
                rd["first"] = True
            rends.append(rd)
        item["renderings"] = rends
        out.append(item)
    return out


def _sentence(s: SegmentText) -> dict[str, Any]:
    return {"source": s.source, "target": s.target or None}


def _segments_data(segments: Sequence[SegmentText]) -> list[dict[str, Any]]:
    return [_sentence(s) for s in segments[-MAX_PRECEDING:]] if segments else []


def _with_data(ctx: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """Our facts (`ctx`) plus the fenced data block that carries every passage from the files. The
    fence id is not given to the templates: it is written in the two fence lines only, so the text
    before the block (the prefix a provider can cache) is the same for every question of a kind."""
    block, _fence = data_block(data)
    return {**ctx, "data_block": block}


def _common(q) -> dict[str, Any]:
    return {"src_lang": q.src_lang, "tgt_lang": q.tgt_lang, "domain": q.domain or "",
            "has_concept": q.concept is not None}


def _error_ctx(q: ErrorQuestion) -> dict[str, Any]:
    data = {"term": {"source_form": q.source_form, "rendering": q.target_text},
            "sentence": _sentence(q.segment), "preceding_sentences": _segments_data(q.preceding),
            "glossary_entry": _concept_data(q.concept), "document_renderings": _forms_data(q.forms, q.source_form)}
    return _with_data({**_common(q), "is_head": q.is_head, "target_glossary_status": q.target_glossary_status,
                       "is_hapax": q.is_hapax}, data)


def _consistency_ctx(q: ConsistencyQuestion) -> dict[str, Any]:
    ids = q.ids()
    data = {"source_form": q.source_form, "reference": q.reference, "reference_provenance": q.reference_provenance,
            "occurrences": [{"occurrence": i, "sentence": o.position, "rendering": o.target_text,
                             **({"source_form": o.source_text} if o.source_text else {})}
                            for i, o in zip(ids, q.occurrences)],
            "excerpt": [{"sentence": s.position, "source": s.source, "target": s.target or None} for s in q.excerpt],
            "glossary_entry": _concept_data(q.concept), "document_renderings": _forms_data(q.forms, q.source_form)}
    facts = [{"id": i, "first_mention": o.is_first_mention, "status": o.target_glossary_status}
             for i, o in zip(ids, q.occurrences)]
    return _with_data({**_common(q), "is_head": q.is_head, "facts": facts, "ids": ids}, data)


def _check_ctx(q: ReferenceCheckQuestion) -> dict[str, Any]:
    data = {"source_form": q.source_form, "candidate": q.candidate, "glossary_entry": _concept_data(q.concept),
            "contexts": list(q.contexts[:MAX_CONTEXTS])}
    return _with_data({**_common(q), "share": share_word(q.count, max(q.total, q.count)),
                       "total": count_band(max(q.total, q.count)), "is_head": q.is_head,
                       "variation": q.variation}, data)


def _reference_ctx(q: ReferenceQuestion) -> dict[str, Any]:
    data = {"source_form": q.source_form, "head_term": q.head_term, "head_target": q.head_target,
            "glossary_entry": _concept_data(q.concept), "contexts": list(q.contexts[:MAX_CONTEXTS])}
    return _with_data({**_common(q), "variation": q.variation}, data)


def _align_ctx(q: AlignQuestion) -> dict[str, Any]:
    terms = []
    for i, t in zip(q.ids(), q.terms):
        item: dict[str, Any] = {"term": i, "source_form": t.source_form}
        if t.nth > 1:
            item["occurrence_in_source"] = t.nth
        if t.hints:
            item["hints"] = list(t.hints)
        terms.append(item)
    data = {"source": q.source_segment, "target": q.target_segment, "terms": terms}
    return _with_data({"src_lang": q.src_lang, "tgt_lang": q.tgt_lang, "ids": q.ids()}, data)


# question type -> (prompt id, context builder, schema)
_PROMPTS: dict[type, tuple[str, Callable[[Any], dict[str, Any]], dict[str, Any]]] = {
    ErrorQuestion: ("error_judge", _error_ctx, ERROR_SCHEMA),
    ConsistencyQuestion: ("consistency_judge", _consistency_ctx, CONSISTENCY_SCHEMA),
    ReferenceCheckQuestion: ("reference_check", _check_ctx, ERROR_SCHEMA),
    ReferenceQuestion: ("reference", _reference_ctx, REFERENCE_SCHEMA),
    AlignQuestion: ("align", _align_ctx, ALIGN_SCHEMA),
}


def _expect(question: Question) -> Optional[Expect]:
    """What an answer must cover: one item per occurrence of a chain or term of a segment."""
    if isinstance(question, ConsistencyQuestion):
        return ("verdicts", "occurrence", tuple(question.ids()))
    if isinstance(question, AlignQuestion):
        return ("renderings", "term", tuple(question.ids()))
    return None


def _quotes(question: Question) -> Optional[Quotes]:
    """Where an answer's quoted spans must come from: an alignment's renderings, from the target."""
    if isinstance(question, AlignQuestion):
        return ("renderings", "translation", "found", question.target_segment)
    return None


def to_request(question: Question, library: Optional[PromptLibrary] = None) -> Request:
    """Render the question with its template (default: the packaged prompts)."""

    try:
        prompt_id, build, schema = _PROMPTS[type(question)]
    except KeyError:
        raise TypeError(f"not a judge question: {type(question).__name__}") from None
    rendered = (library or default_library()).render(prompt_id, build(question))
    return Request(prompt_id=prompt_id, prompt_version=rendered.prompt_version,
                   messages=rendered.messages, json_schema=schema, expect=_expect(question),
                   quotes=_quotes(question))


def prompt_versions(library: Optional[PromptLibrary] = None) -> dict[str, str]:
    """Full versions of every judge prompt, for the run signature."""

    lib = library or default_library()
    return {pid: lib.version(pid) for pid, _, _ in _PROMPTS.values()}


# --- answers -> results -------------------------------------------------------------------------


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


_norm_label = norm_label


def read_error(answer: Answer) -> ErrorVerdict:
    data = answer.data if isinstance(answer.data, dict) else {}
    raw = _text(data.get("label"))
    label = _norm_label(raw)
    justification = _text(data.get("justification"))
    if label == NO_ERROR:
        return ErrorVerdict(None, raw, justification, False, answer.prompt_version, answer.key)
    code = code_for(label)
    if code is None:
        # The method's rule: an unreadable label counts as no_error. We keep it visible.
        return ErrorVerdict(None, raw, justification, True, answer.prompt_version, answer.key)
    return ErrorVerdict(code, raw, justification, False, answer.prompt_version, answer.key)


def read_consistency(answer: Answer, question: Optional[ConsistencyQuestion] = None) -> Any:
    """One verdict per occurrence of the question, in its order (a tuple); without a question, the
    single verdict of an object with "label" (how answers were shaped before chain questions)."""
    if question is None:
        return _consistency_item(answer, answer.data if isinstance(answer.data, dict) else {})
    got = items_by_id(answer.data, "verdicts", "occurrence")
    return tuple(_consistency_item(answer, got.get(i, {})) for i in question.ids())


def _consistency_item(answer: Answer, data: dict) -> ConsistencyVerdict:
    raw = _text(data.get("label"))
    label = _norm_label(raw)
    justification = _text(data.get("justification"))
    if label in COHERENT_LABELS:
        return ConsistencyVerdict(label, JUSTIFIED, justification, False, raw, answer.prompt_version, answer.key)
    if label in INCONSISTENT_LABELS:
        return ConsistencyVerdict(label, UNJUSTIFIED, justification, False, raw, answer.prompt_version, answer.key)
    return ConsistencyVerdict(Q2_FALLBACK_LABEL, UNJUSTIFIED, justification, True, raw,
                              answer.prompt_version, answer.key)


_QUOTES = QUOTE_MARKS


def read_align(answer: Answer, question: AlignQuestion) -> tuple[AlignResult, ...]:
    """One result per term of the question, in its order."""
    got = items_by_id(answer.data, "renderings", "term")
    return tuple(_align_item(answer, got.get(i, {}), question) for i in question.ids())


def _align_item(answer: Answer, data: dict, question: AlignQuestion) -> AlignResult:
    text = _text(data.get("translation")).strip(_QUOTES).strip()
    found = data.get("found")
    if isinstance(found, str):
        found = found.strip().lower() in ("true", "yes", "1")
    if not text or found is False:
        return AlignResult(None, False, answer.raw, None, answer.prompt_version)
    span = locate(text, question.target_segment)
    if span is None:
        return AlignResult(text, False, answer.raw, None, answer.prompt_version)
    return AlignResult(question.target_segment[span[0]:span[1]], True, answer.raw, span,
                       answer.prompt_version)


def read_reference(answer: Answer) -> ReferenceResult:
    data = answer.data if isinstance(answer.data, dict) else {}
    text = _text(data.get("reference")).strip(_QUOTES).strip()
    generatable = data.get("generatable")
    if isinstance(generatable, str):
        generatable = generatable.strip().lower() in ("true", "yes", "1")
    confidence = _text(data.get("confidence")).lower() or None
    if generatable is False or not text:
        text = None
    return ReferenceResult(text, _text(data.get("justification")), confidence, answer.prompt_version)


def read_answer(question: Question, answer: Answer) -> Result:
    if isinstance(question, (ErrorQuestion, ReferenceCheckQuestion)):
        return read_error(answer)
    if isinstance(question, ConsistencyQuestion):
        return read_consistency(answer, question)
    if isinstance(question, AlignQuestion):
        return read_align(answer, question)
    if isinstance(question, ReferenceQuestion):
        return read_reference(answer)
    raise TypeError(f"not a judge question: {type(question).__name__}")


# --- asking -------------------------------------------------------------------------------------


def ask(backend: Backend, question: Question, library: Optional[PromptLibrary] = None) -> Result:
    """One question; raises JudgeError (BudgetExceeded, OfflineCacheMiss...) when unanswered."""
    return read_answer(question, backend.complete(to_request(question, library)))


def ask_many(backend: Backend, questions: Iterable[Question],
             library: Optional[PromptLibrary] = None) -> list[Union[Result, JudgeError]]:
    """Many questions at the backend's concurrency; each slot holds a result or its JudgeError."""
    questions = list(questions)
    answers = backend.complete_many([to_request(q, library) for q in questions])
    return [a if isinstance(a, JudgeError) else read_answer(q, a) for q, a in zip(questions, answers)]
