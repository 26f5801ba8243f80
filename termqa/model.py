"""The records every stage passes on: frozen dataclasses, offsets in characters, end-exclusive.

Readers produce `BilingualFile` (documents -> segments) and `Glossary` (concepts -> terms);
the pipeline adds `Occurrence`, `Reference` and `Verdict`. Nothing here imports a heavy library.
How the judging records pickle (a call setting their fields) is registered by termqa.store.pickling.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterator, Optional

from termqa.labels import (  # noqa: F401 (the vocabulary, re-exported beside the records that use it)
    CONFORMING, ERROR, GENERATED, GLOSSARY, JUSTIFIED, OUTCOMES, PSEUDO, UNJUDGED, UNJUSTIFIED, VALIDATED,
)
from termqa.lang.langtags import lang_matches


# --- bilingual files ---------------------------------------------------------------------------


@dataclass(frozen=True)
class InlineCode:
    """An inline code removed from the plain text, kept so offsets can be mapped back.

    `offset` is the position in the plain text where the code stood (a code at the very start has
    offset 0; an opening and a closing code around a word have the word's start and end).
    `kind` is the element name as written in the file (`g`, `x`, `bpt`, `ph`, `pc`, `sc`, `mrk`...),
    `role` says whether it opens, closes or stands alone (`open`, `close`, `standalone`).
    `id` is the code's id attribute if it has one; `data` keeps native code text (e.g. inside
    `bpt`/`ph`), which never reaches the plain text.
    """

    offset: int
    kind: str
    role: str = "standalone"
    id: Optional[str] = None
    data: str = ""


@dataclass(frozen=True, slots=True)
class Segment:
    """One translatable segment with plain source/target text.

    `unit_id` is the id of the unit in the file (`trans-unit`/`unit`/`tu`), `seg_id` the id of the
    segment inside it (the `mid` of an `mrk mtype="seg"`, the XLIFF 2 segment id, or `""` when the
    unit is not sub-segmented). `target` is None when the file has no target for the segment,
    `""` when the target is present but empty. `index` is the segment's position in its document.
    """

    doc_id: str
    unit_id: str
    seg_id: str
    source: str
    target: Optional[str]
    src_lang: str
    tgt_lang: str
    index: int = 0
    source_codes: tuple[InlineCode, ...] = ()
    target_codes: tuple[InlineCode, ...] = ()
    state: Optional[str] = None
    locked: bool = False

    @property
    def key(self) -> tuple[str, str, str, int]:
        """Identifies the segment within a project run: (document, unit, segment, position).

        The position is part of it because real files repeat unit ids (a Passolo export has 158
        units under 64 ids).
        """
        return (self.doc_id, self.unit_id, self.seg_id, self.index)

    @property
    def translated(self) -> bool:
        return bool(self.target and self.target.strip())


def concepts_by_id(concepts: Sequence["Concept"]) -> "Mapping[str, Concept]":
    """The id -> concept mapping of `concepts`: a sequence that holds its concepts otherwise than as records
    (termqa.store.conceptrows.ConceptRows) gives its own lazy one (`by_id()`, made once), else a dict."""
    by_id = getattr(concepts, "by_id", None)
    if by_id is not None:
        return by_id()
    return {c.id: c for c in concepts}


def segment_texts(segments: Sequence[Segment]) -> Iterator[tuple[int, str, Optional[str]]]:
    """(index, source, target) of each segment in order. A sequence that holds its segments in another form
    than records (termqa.store.packed.PackedSegments) gives them through its own `texts()`, without records."""
    texts = getattr(segments, "texts", None)
    if texts is not None:
        return texts()
    return ((s.index, s.source, s.target) for s in segments)


@dataclass(frozen=True)
class Document:
    """One document: a `<file>` of an XLIFF, or a whole TMX.

    `skipped` counts units marked not translatable (`translate="no"`) that were left out.
    `segments` is a tuple, or for a big document read streaming (a translation memory)
    termqa.store.packed.PackedSegments:
    the same segments, held compressed and made into records when read.
    """

    doc_id: str
    path: str
    format: str
    src_lang: str
    tgt_lang: str
    segments: Sequence[Segment]  # a tuple, or PackedSegments (termqa.store.packed) for a document read streaming
    dialect: Optional[str] = None
    original: Optional[str] = None
    skipped: int = 0


@dataclass(frozen=True)
class BilingualFile:
    """What a bilingual reader returns for one file on disk."""

    path: str
    format: str  # "xliff-1.2", "xliff-2.0", "xliff-2.2", "tmx", ...
    documents: tuple[Document, ...]
    dialect: Optional[str] = None  # "sdlxliff", "mqxliff", "mxliff", None
    version: Optional[str] = None  # as written in the file
    src_lang: Optional[str] = None
    tgt_lang: Optional[str] = None
    languages: tuple[str, ...] = ()  # every language seen (TMX can hold many)
    warnings: tuple[str, ...] = ()
    # Violations of the format's own rules that the reader could read past (e.g. an XLIFF 2 <ec>
    # before its <sc>, duplicate note ids). `check` warns; `inspect` refuses the file (exit 2).
    problems: tuple[str, ...] = ()

    @property
    def segments(self) -> tuple[Segment, ...]:
        return tuple(s for d in self.documents for s in d.segments)


# --- glossaries ---------------------------------------------------------------------------------

# Normalised term statuses. Real files spell them many ways: formats/status.py maps them here.
PREFERRED = "preferred"
ADMITTED = "admitted"
DEPRECATED = "deprecated"  # includes forbidden / notRecommended / obsolete
SUPERSEDED = "superseded"
UNKNOWN = "unknown"
STATUSES = (PREFERRED, ADMITTED, DEPRECATED, SUPERSEDED, UNKNOWN)
# Statuses a translation may use without being wrong.
ALLOWED_STATUSES = frozenset({PREFERRED, ADMITTED, UNKNOWN})
# Statuses a translation must not use.
FORBIDDEN_STATUSES = frozenset({DEPRECATED, SUPERSEDED})


@dataclass(frozen=True)
class Term:
    """One designation of a concept in one language.

    `status` is one of STATUSES; `raw_status` keeps the file's own spelling for display.
    `term_type` is e.g. "fullForm", "acronym", "abbreviation", "shortForm" or None.
    `matchable_only` marks SKOS hiddenLabels: found in text but never recommended.
    `part_of_speech` is the glossary's word class of the term as written there ("noun", "verb",
    "properNoun"...), None when it gives none. `match_case`: the glossary says the term is found only
    written with its own capitals (a UI label "Settings", an acronym), not in any case.
    """

    text: str
    lang: str
    status: str = UNKNOWN
    raw_status: Optional[str] = None
    term_type: Optional[str] = None
    matchable_only: bool = False
    part_of_speech: Optional[str] = None
    match_case: bool = False


@dataclass(frozen=True)
class Concept:
    """One glossary entry (TBX termEntry, SKOS Concept, CSV row)."""

    id: str
    terms: tuple[Term, ...]
    definition: Optional[str] = None
    subject: Optional[str] = None
    dnt: bool = False  # do not translate: the source term must appear unchanged in the target
    note: Optional[str] = None

    def terms_in(self, lang: str) -> tuple[Term, ...]:
        """Terms whose language matches `lang` (region variants handled by termqa.lang.langtags)."""

        return tuple(t for t in self.terms if lang_matches(t.lang, lang))

    def preferred(self, lang: str) -> Optional[Term]:
        """The preferred term in `lang`: explicit preferred first, else first allowed term."""
        terms = [t for t in self.terms_in(lang) if not t.matchable_only]
        for t in terms:
            if t.status == PREFERRED:
                return t
        for t in terms:
            if t.status in ALLOWED_STATUSES:
                return t
        return None


@dataclass(frozen=True)
class Glossary:
    """What a glossary reader returns. `content_hash` is a sha256 of the file's bytes."""

    path: str
    format: str  # "tbx-2008", "tbx-v3", "skos", "csv", "tsv"
    concepts: tuple[Concept, ...]
    content_hash: str
    languages: tuple[str, ...] = ()
    dialect: Optional[str] = None  # e.g. "TBX-Basic", "DCA", "DCT"
    warnings: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()  # as BilingualFile.problems

    @cached_property
    def terms_fingerprint(self) -> str:
        """`terms_fingerprint` of the concepts: made once, and kept with a cached glossary (a run's source
        index is keyed by it; hashing 20k concepts' terms at every run cost a twentieth of a warm run)."""
        return terms_fingerprint(self.concepts)


def terms_fingerprint(concepts: Sequence[Concept]) -> str:
    """sha256 of what a source index is built from: each concept's id, and each term's text, language,
    status, type and whether it is for matching only."""
    h = hashlib.sha256()
    for c in concepts:
        h.update(f"\x1e{c.id}".encode("utf-8", "surrogatepass"))
        for t in c.terms:
            h.update(f"\x1f{t.text}\x1f{t.lang}\x1f{t.status}\x1f{t.term_type}\x1f{t.matchable_only}"
                     .encode("utf-8", "surrogatepass"))
            if t.part_of_speech or t.match_case:  # only when given: older fingerprints stay as they were
                h.update(f"\x1d{t.part_of_speech}\x1d{t.match_case}".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


# --- judging ------------------------------------------------------------------------------------

# Variation categories (termqa.pipeline.detect) under which a source form still counts as the head term.
HEAD_VARIATIONS = frozenset({"none", "morphosyntactic"})


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One position of a source form of a concept in one segment, with its aligned target span."""

    doc_id: str
    unit_id: str
    seg_id: str
    segment_index: int
    concept_id: str
    source_form: str  # normalised key of the source form (its chain key)
    source_text: str  # surface text as it appears in the source
    source_span: Span
    target_text: Optional[str]  # surface text of the aligned rendering, None if unaligned
    target_span: Optional[Span]
    variation: str = "none"
    chain_size: int = 1
    is_first_mention: bool = False
    glossary_term: Optional[str] = None  # the glossary source term this form matched
    via: str = "glossary"  # how the source form was found: glossary, acronym, ...
    align_method: Optional[str] = None  # glossary, established, untranslated, dnt, judge
    variation_subtype: Optional[str] = None  # for variants: the typology subtype of the rule (RED1...)
    target_variant: Optional[str] = None  # the rendering matched a variant of a target term: its rule

    @property
    def is_hapax(self) -> bool:
        return self.chain_size == 1

    @property
    def is_head(self) -> bool:
        """The form is the concept's head term itself (inflected or not), not a variant of it."""
        return self.via == "glossary" and self.variation in HEAD_VARIATIONS


@dataclass(frozen=True, slots=True)
class Reference:
    """R(s): the reference translation of one source form in one document."""

    doc_id: str
    concept_id: str
    source_form: str
    text: Optional[str]
    provenance: str  # glossary, pseudo, validated, generated


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome for one occurrence. `label` is an error/consistency code or None."""

    occurrence: Occurrence
    outcome: str
    label: Optional[str]
    penalty: Optional[float]  # None for unjudged: never silently scored as 0
    reason: str
    reference: Optional[Reference] = None
    judge: Optional[str] = None  # model name, or "rule" for deterministic verdicts
    prompt_version: Optional[str] = None
    extra: tuple[tuple[str, str], ...] = field(default=())
