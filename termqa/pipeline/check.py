"""`termqa.pipeline.check`: connects the stages, nothing more.

read -> detect (source occurrences) -> align (target spans) -> reference -> prejudge -> judge (optional,
LLM) -> score -> result. Each stage lives in its own module; this one only moves records between them.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import TYPE_CHECKING, Callable, Mapping, Optional, Sequence, Union

from termqa import formats, signature
from termqa.config import DEFAULT_LEMMATISER, DEFAULT_VARIANTS, LemmatiserMode, Settings, VariantLevel
from termqa.errors import LanguageError, MissingLanguageError, UsageError
from termqa.fileio import file_sha256
from termqa.formats.annotate.replies import read_replies
from termqa.formats.csvgloss import assign_languages
from termqa.formats.decisions import DecisionBook, merge, read_decisions
from termqa.formats.unitstate import Withheld, regrouped, withhold
from termqa.glossaryscope import applicable, scope_notes
from termqa.inputs import expand, merge_glossaries
from termqa.inspect import with_path
from termqa.lang.langtags import normalise_tag, primary
from termqa.lang.lemma import Lemmatiser, get_lemmatiser
from termqa.lang.normalise import term_key
from termqa.lang.segcheck import misalignment
from termqa.model import (
    ALLOWED_STATUSES, UNJUDGED, BilingualFile, Concept, Document, Glossary, Occurrence, Reference, Span, Verdict,
    terms_fingerprint,
)
from termqa.pipeline import align as al, detect as dt, parallel, sanity, variants as vr
from termqa.pipeline.metrics import Item
from termqa.pipeline.pairs import every_pair
from termqa.pipeline.prejudge import R_MISALIGNED, R_MISSING, Rules, verdict_fields
from termqa.pipeline.reference import glossary_reference, pseudo_reference
from termqa.pipeline.score import validate_table
from termqa.signature import JudgePart, Signature
from termqa.wordcount import source_words
from termqa.store import conceptrows, indexcache
from termqa.store.gcpause import without_gc
from termqa.store.packed import packed_document, segment_texts

if TYPE_CHECKING:  # a counting run never loads the judge (openai, its SQLite cache) nor the review code
    from termqa.judge.settings import JudgeSettings
    from termqa.pipeline.review import ReviewReport

Progress = Callable[[str, int, int], None]

# Above this many words (source + target), `--lemmatiser auto` uses the lookup tables even when a
# trained spaCy pipeline is installed.
TRAINED_MAX_WORDS = 50_000
# A document with more segments than this (a big translation memory) keeps no tokens: it is tokenised and
# matched DETECT_CHUNK segments at a time, and the tokens needed later are made again.
BIG_DOCUMENT = 20_000
# Segments tokenised at a time in a big document: a chunk's tokens are all held at once (a few kB a
# segment), so a bigger chunk only costs memory, for the same time.
DETECT_CHUNK = 2_000

# Above this many bytes of input files, the documents of a project are kept packed once read (`_read_inputs`):
# ~3M words of XLIFF; a smaller project keeps plain records (packing costs time, unpacking more).
PACK_PROJECT_BYTES = 64 * 1024 * 1024

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


@dataclass
class CheckResult:
    files: list[BilingualFile]
    glossaries: list[Glossary]
    documents: list[Document]
    verdicts: list[Verdict]
    references: list[Reference]
    concepts: Mapping  # concept id -> Concept (lazy over ConceptRows)
    signature: Signature
    metric_items: list = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    accounting: Optional[dict] = None
    skipped_untranslated: int = 0
    alerts: list[str] = field(default_factory=list)
    review: Optional[ReviewReport] = None
    # units whose state says they are not translated yet (formats/unitstate.py): left out of checking
    units_not_translated: int = 0
    segments_not_translated: int = 0
    not_translated_states: dict = field(default_factory=dict)
    # occurrences in untranslated segments per target language (termqa.results.languages reads it)
    skipped_by_language: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The JSON object of the result (termqa.results.serialise, which reads this record: loaded here,
        when asked, so the pipeline never depends on the serialiser)."""
        from termqa.results.serialise import result_dict

        return result_dict(self)


class Lemmatisers:
    """One lemmatiser per language (primary subtag), built on first use in the mode the run chose."""

    def __init__(self, mode: str):
        self.mode = mode
        self._by_lang: dict[str, Lemmatiser] = {}

    def __call__(self, lang: str) -> Lemmatiser:
        key = primary(lang)
        if key not in self._by_lang:
            self._by_lang[key] = get_lemmatiser(key, mode=self.mode)
        return self._by_lang[key]

    def names(self) -> dict[str, str]:
        return {k: v.name for k, v in sorted(self._by_lang.items())}

    def save_analyses(self) -> None:
        """Keep what the lemmatisers analysed for the next run (termqa.lang.lemma's analyses cache)."""
        for lemmatiser in self._by_lang.values():
            lemmatiser.save_analyses()


@dataclass(frozen=True)
class Run:
    """One check as it moves through the stages: prepare -> count -> judge -> finish.

    Each stage returns a new Run with its own part filled in; `compare` runs the same stages for
    several systems and shares references between them before judging.
    """

    files: tuple[BilingualFile, ...]
    glossaries: tuple[Glossary, ...]
    concepts: Sequence[Concept]  # a tuple, or ConceptRows (records made when read)
    documents: tuple[Document, ...]
    table: Mapping[str, float]
    lem: Lemmatisers
    settings: Settings  # the options as given (src_lang, tgt_lang, lemmatiser mode, variant level...)
    warnings: tuple[str, ...] = ()
    # input problems that make the whole result doubtful (wrong language, nothing found...): shown first
    alerts: tuple[str, ...] = ()
    verdicts: tuple[Verdict, ...] = ()
    references: Mapping[tuple, Reference] = field(default_factory=dict)  # (doc_id, concept, source form)
    metric_items: tuple[Item, ...] = ()
    skipped_untranslated: int = 0
    withheld: Withheld = Withheld()  # units not translated yet, by their state
    skipped_by_language: Mapping[str, int] = field(default_factory=dict)  # target language -> occurrences
    judge: Optional[JudgePart] = None
    accounting: Optional[dict] = None
    exhaustive: bool = False
    domain: Optional[str] = None
    review: Optional[ReviewReport] = None

    @property
    def concepts_by_id(self) -> Mapping[str, Concept]:
        return conceptrows.by_id(self.concepts)


def check(
    inputs: Sequence[Union[str, BilingualFile]],
    glossaries: Sequence[Union[str, Glossary]] = (),
    *,
    src_lang: Optional[str] = None,
    tgt_lang: Optional[str] = None,
    glossary_lang: Optional[str] = None,
    lemmatiser: Union[LemmatiserMode, str] = DEFAULT_LEMMATISER,
    penalties: Optional[Mapping[str, float]] = None,
    judge: Optional[JudgeSettings] = None,
    exhaustive: bool = False,
    domain: Optional[str] = None,
    source_only_glossary: bool = False,
    force_languages: bool = False,
    decisions: Union[None, str, DecisionBook] = None,
    progress: Optional[Progress] = None,
    variants: Union[VariantLevel, str] = DEFAULT_VARIANTS,
    jobs: Optional[int] = None,
    index_cache: Union[bool, str, os.PathLike, None] = True,
    include_states: Sequence[str] = (),
) -> CheckResult:
    """Run the terminology check on bilingual files (or folders) against one or more glossaries.

    `inputs` and `glossaries` are paths, or records already read (`BilingualFile`, `Glossary`).

    With `judge` (a `termqa.judge.settings.JudgeSettings`), divergences counting cannot settle go to the LLM
    judge; without it the run is counting mode and such occurrences stay `unjudged`.
    `source_only_glossary`: the glossary is meant to have no target-language terms (consistency checking);
    otherwise such a glossary is refused. `decisions`: a reviewer decisions file (path or DecisionBook),
    applied before the judge. `variants`: the detection level, none | static | dynamic (README,
    "Term variants"). `force_languages`: check files whose source and target languages look swapped as
    declared (otherwise refused with a LanguageError).
    `jobs`: worker processes for the counting stage (None: the available cores, on projects large enough
    to gain from it); results are the same for any value.
    `index_cache`: True (the user cache folder, or $TERMQA_CACHE_DIR), False (none) or a folder: parsed
    glossaries, source indexes, lemma tables and text analyses are kept there between runs (termqa.store.indexcache).
    `include_states`: unit states (as files write them, e.g. "new", "initial"; or "all") whose units are checked
    although their state says they are not translated yet (termqa.formats.unitstate); others are left out.
    """
    with indexcache.using(indexcache.resolve(index_cache)):
        run = prepare(inputs, glossaries, src_lang=src_lang, tgt_lang=tgt_lang, glossary_lang=glossary_lang,
                      lemmatiser=lemmatiser, penalties=penalties, source_only_glossary=source_only_glossary,
                      variants=variants, include_states=include_states, force_languages=force_languages)
        run = count(run, progress=progress, jobs=jobs)
    run = review(run, decisions if isinstance(decisions, DecisionBook) or decisions is None
                 else read_decisions(decisions))
    if judge is not None:
        run = judge_run(run, judge, exhaustive=exhaustive, domain=domain, progress=progress)
    return finish(run)


# --- the stages --------------------------------------------------------------------------------------

@without_gc
def prepare(
    inputs: Sequence[Union[str, BilingualFile]],
    glossaries: Sequence[Union[str, Glossary]],
    *,
    src_lang: Optional[str] = None,
    tgt_lang: Optional[str] = None,
    glossary_lang: Optional[str] = None,
    lemmatiser: Union[LemmatiserMode, str] = DEFAULT_LEMMATISER,
    penalties: Optional[Mapping[str, float]] = None,
    source_only_glossary: bool = False,
    variants: Union[VariantLevel, str] = DEFAULT_VARIANTS,
    include_states: Sequence[str] = (),
    force_languages: bool = False,
) -> Run:
    """Read the inputs and glossaries (paths, or records already read), settle languages, penalties and
    the lemmatiser mode, and check that they fit together (input sanity, loud and early)."""
    if not glossaries:
        raise UsageError("no glossary given", fix="pass --glossary FILE (TBX, SKOS, CSV/TSV)")
    settings = Settings(src_lang=src_lang, tgt_lang=tgt_lang, glossary_lang=glossary_lang, lemmatiser=lemmatiser,
                        variants=variants, source_only_glossary=source_only_glossary, include_states=include_states,
                        force_languages=force_languages)  # checks the values
    table = validate_table(penalties or {})
    # paths are read here; records already read (termqa compare reads them once for all systems) pass
    gl = [g if isinstance(g, Glossary) else read_glossary_cached(g, glossary_lang) for g in glossaries]
    files = _read_inputs(_expand_paths(inputs, expand), src_lang, tgt_lang)
    gl = _give_languages(gl, files, src_lang, tgt_lang)
    concepts = merge_glossaries(gl)
    warnings = [w for f in files for w in f.warnings] + [w for g in gl for w in g.warnings]
    warnings += [with_path(f.path, p) for f in files for p in f.problems]
    documents = [d for f in files for d in f.documents]
    documents, withheld = withhold(documents, settings.include_states)
    if withheld.message():
        warnings.append(withheld.message())
    warnings += scope_notes(gl, [d.tgt_lang for d in documents])
    mode = settings.lemmatiser
    if mode is LemmatiserMode.AUTO:
        # a trained pipeline lemmatises better but much slower than the lookup tables: use it
        # where it helps, on projects small enough to stay fast
        words = project_words(documents)
        if words > TRAINED_MAX_WORDS:
            mode = LemmatiserMode.LOOKUP
            # said in source words, the count every output uses (termqa.wordcount)
            warnings.append(f"{source_words(documents):,} source words: lookup lemmatiser used for speed "
                            "(--lemmatiser trained to force a trained pipeline)")
    alerts = _glossary_fits(concepts, documents, source_only_glossary)
    # (the targets checked: copies of the source in units not translated yet are not the target language)
    alerts += sanity.language_alerts(regrouped(files, documents) if withheld.units else files,
                                     src_lang=src_lang, tgt_lang=tgt_lang, force_languages=force_languages)
    if not isinstance(concepts, conceptrows.ConceptRows):
        concepts = tuple(concepts)
    return Run(files=tuple(files), glossaries=tuple(gl), concepts=concepts, documents=tuple(documents),
               table=table, lem=Lemmatisers(mode), warnings=tuple(alerts + warnings), alerts=tuple(alerts),
               settings=settings, withheld=withheld)


def _read_inputs(items, src_lang, tgt_lang) -> list[BilingualFile]:
    """The bilingual files (records already read pass as they are). In a project over PACK_PROJECT_BYTES, each
    file's segments are packed as soon as it is read: memory holds the file being read and the others
    compressed, not every segment of the project as records."""
    pack = _input_bytes(items) > PACK_PROJECT_BYTES
    files = []
    for item in items:
        if not isinstance(item, BilingualFile):
            try:
                item = formats.read_bilingual(item, src_lang=src_lang, tgt_lang=tgt_lang)
            except MissingLanguageError as exc:  # a TMX of several targets: every pair (pipeline/pairs.py)
                if tgt_lang:
                    raise
                item = every_pair(item, exc, src_lang)
            if pack:
                item = replace(item, documents=tuple(packed_document(d) for d in item.documents))
        files.append(item)
    return files


def _input_bytes(items) -> int:
    """Bytes of the input files on disk (what is not a readable file counts nothing: its reader says why)."""
    total = 0
    for item in items:
        if not isinstance(item, BilingualFile):
            try:
                total += os.path.getsize(item)
            except (OSError, TypeError):
                pass
    return total


def _glossary_fits(concepts: Sequence[Concept], documents: Sequence[Document], source_only: bool) -> list[str]:
    """A glossary without terms in a document's target language cannot check conformity: refused unless
    a source-only glossary is meant (then only consistency is checked, against the documents' own usage)."""
    alerts = []
    for tgt in dict.fromkeys(normalise_tag(d.tgt_lang) for d in documents if d.tgt_lang):
        if any(c.terms_in(tgt) for c in concepts):
            continue
        have = sorted({normalise_tag(t.lang) for c in concepts for t in c.terms if t.lang})
        if not source_only:
            raise LanguageError(
                f"the glossary has no terms in the target language '{tgt}' (it has: {', '.join(have) or 'none'}); "
                "every occurrence would be checked against the documents' own usage only",
                fix=f"use a glossary with '{tgt}' terms, check the target language (--tgt-lang), or pass "
                    "--source-only-glossary to check consistency only")
        alerts.append(f"the glossary has no terms in the target language '{tgt}': consistency only, "
                      "references come from the documents themselves (--source-only-glossary)")
    return alerts


def read_glossary_cached(path, glossary_lang: Optional[str] = None) -> Glossary:
    """`formats.read_glossary`, through the active index cache: keyed by the file's bytes, its path and
    the reader option, so any edit of the file reads it again."""
    cache = indexcache.active()
    if not cache.enabled:
        return formats.read_glossary(path, default_lang=glossary_lang)
    try:
        digest = file_sha256(path)
    except OSError:  # missing or unreadable: the reader says so in its own words
        return formats.read_glossary(path, default_lang=glossary_lang)
    key = indexcache.make_key("glossary", digest, str(path), glossary_lang)
    hit = cache.load(key)
    if isinstance(hit, Glossary) and hit.content_hash == digest:
        return hit
    g = formats.read_glossary(path, default_lang=glossary_lang)
    # stored as rows (termqa.store.conceptrows): a later run makes a record only of each concept it reads
    g = replace(g, concepts=conceptrows.ConceptRows(g.concepts))
    g.terms_fingerprint  # computed before storing: kept with the glossary
    cache.store(key, g)
    return g


def project_words(documents: Sequence[Document]) -> int:
    """Source and target words of a project (what the lemmatiser choice depends on)."""
    return sum(len(source.split()) + len((target or "").split())
               for d in documents for _i, source, target in segment_texts(d.segments))


@without_gc
def count(run: Run, *, progress: Optional[Progress] = None, jobs: Optional[int] = None) -> Run:
    """Counting: detect every occurrence, align its rendering, fix references, decide what rules can.

    Documents are counted in `jobs` worker processes when that pays (see `parallel.plan_jobs`), each
    settled whole in its worker (references and counting verdicts are per document); in one process,
    references and verdicts are settled over all documents at once. Results never depend on which.
    """
    lem = run.lem
    concepts = run.concepts  # ConceptRows from the index cache: a record is made only when read
    warnings = list(run.warnings)
    level = run.settings.variants
    documents = run.documents
    tries: dict[str, tuple] = {}
    # the concepts are merge_glossaries(run.glossaries): their fingerprint follows from the glossaries'
    fingerprint = (run.glossaries[0].terms_fingerprint if len(run.glossaries) == 1 else hashlib.sha256(
        "\x1e".join(f"{g.path}\x1f{g.terms_fingerprint}" for g in run.glossaries).encode("utf-8", "surrogatepass")
    ).hexdigest())
    # one index per source language and set of glossaries that apply (termqa.glossaryscope: a glossary
    # without terms in a document's target language is not looked for in it); keyed by (src, tgt)
    built: dict[tuple, tuple] = {}
    for doc in documents:
        src_l, tgt_l = normalise_tag(doc.src_lang), normalise_tag(doc.tgt_lang)
        if (src_l, tgt_l) in tries:
            continue
        scope = applicable(run.glossaries, tgt_l) if len(run.glossaries) > 1 else (0,)
        if (src_l, scope) not in built:
            if len(scope) == len(run.glossaries):
                built[(src_l, scope)] = cached_source_index(concepts, src_l, lem(src_l), doc.path, level, fingerprint)
            else:
                part = merge_glossaries(run.glossaries, only=scope)
                fp = hashlib.sha256(f"{fingerprint}\x1e{scope}".encode()).hexdigest()
                built[(src_l, scope)] = cached_source_index(part, src_l, lem(src_l), doc.path, level, fp)
        tries[(src_l, tgt_l)] = built[(src_l, scope)]
    n_jobs = parallel.plan_jobs(jobs, documents)
    if n_jobs > 1 and len({d.doc_id for d in documents}) < len(documents):
        n_jobs = 1  # workers settle references per document: two documents of one id share them
    rules = Rules(lem, run.table)
    if n_jobs > 1:
        references, verdicts, items, suspects, skipped = _count_parallel(documents, concepts, tries, lem, rules,
                                                                         n_jobs, progress, level)
    else:
        work, skipped = _count_sequential(documents, concepts, tries, lem, progress, level)
        references = _references(work)
        verdicts, items = _verdicts(work, references, rules)  # empties `work`
        suspects = None
    found = bool(verdicts)
    verdicts = _flag_misaligned(verdicts, documents, warnings, suspects)
    lem.save_analyses()
    alerts = list(run.alerts)
    n_skipped = sum(skipped.values())
    empty = sanity.nothing_checked(documents, found, n_skipped)
    if empty:  # said before anything else: no occurrence was checked
        alerts.insert(0, empty)
        warnings.insert(0, empty)
    elif not found and not n_skipped and documents:
        alert = sanity.nothing_found(documents, concepts)
        alerts.append(alert)
        warnings.insert(0, alert)
    return replace(run, verdicts=tuple(verdicts), references=references, metric_items=tuple(items),
                   warnings=tuple(warnings), alerts=tuple(alerts), skipped_untranslated=sum(skipped.values()),
                   skipped_by_language=dict(skipped))


def review(run: Run, book: Optional[DecisionBook] = None) -> Run:
    """The reviewer's decisions, before the judge: decided occurrences are never asked again.

    Decisions come from the decisions file (`book`) and from translators' answers to termqa's notes in
    the XLIFF files themselves (read back here); an answer is a segment decision.
    """
    replies = [r for f in run.files if f.format.startswith("xliff") for r in read_replies(f.path)]
    if book is None and not replies:
        return run
    from termqa.pipeline.review import apply_decisions, decisions_from_replies

    from_replies, reply_report = decisions_from_replies(replies, run.verdicts, run.documents)
    combined = book or DecisionBook()
    if from_replies:
        combined = merge(combined, DecisionBook(tuple(from_replies)), into=combined.path).book
    digest = hashlib.sha256(((book.sha256 if book else "") + json.dumps(
        [r.to_dict() for r in replies], sort_keys=True, ensure_ascii=False)).encode()).hexdigest()
    combined = replace(combined, sha256=digest if replies else (book.sha256 if book else None))
    verdicts, report = apply_decisions(run.verdicts, run.documents, combined, run.table)
    report = replace(report, replies=tuple(reply_report),
                     stale=tuple(d for d in report.stale if d not in from_replies))
    warnings = list(run.warnings)
    if report.stale:
        warnings.append(f"{len(report.stale)} reviewer decision(s) in {book.path if book else 'the decisions'} match "
                        "nothing any more (the segment changed, or the term or rendering is gone): see decisions.stale")
    if reply_report:
        used = sum(1 for r in reply_report if r.get("applied"))
        warnings.append(f"{len(reply_report)} answer(s) to termqa's notes read from the files, {used} applied as "
                        "decisions: see decisions.replies")
    return replace(run, verdicts=tuple(verdicts), review=report, warnings=tuple(warnings))


def _count_sequential(documents, concepts, tries, lem, progress, level: VariantLevel):
    stops: dict[str, frozenset] = {}
    forms_cache: dict[tuple, list] = {}
    work: list[Work] = []
    skipped: Counter = Counter()  # by target language
    for n, doc in enumerate(documents):
        if progress:
            progress("documents", n, len(documents))
        src_l, tgt_l = normalise_tag(doc.src_lang), normalise_tag(doc.tgt_lang)
        trie, heads = tries[(src_l, tgt_l)]
        if level != VariantLevel.NONE and src_l not in stops:
            stops[src_l] = al.stop_words(primary(src_l))
        w, sk = _detect_and_align(doc, concepts, trie, heads, lem(src_l), lem(tgt_l), tgt_l, forms_cache,
                                  level, stops.get(src_l, frozenset()))
        work.extend(w)
        skipped[tgt_l] += sk
    if progress:
        progress("documents", len(documents), len(documents))
    return work, skipped


def _count_parallel(documents, concepts, tries, lem, rules, jobs, progress, level: VariantLevel):
    """`_count_sequential` in worker processes, then references and verdicts, with the same results: a
    document's occurrences depend on that document alone (the glossary renderings mining keeps clear of
    are those of the concepts found in it), and so do its references (R(s) is per document) and the
    verdicts `rules` makes of them, so each worker settles its documents whole and sends back their
    references, verdicts, metric items and misaligned segments, in document order."""
    for doc in documents:  # built before forking, so that every worker inherits them
        lem(normalise_tag(doc.tgt_lang))
    stops = {src_l: al.stop_words(primary(src_l)) for src_l, _t in tries} if level != VariantLevel.NONE else {}
    worker_forms: dict = {}  # per worker process, across its documents (a concept's forms are computed once)

    def task(n):
        doc = documents[n]
        src_l, tgt_l = normalise_tag(doc.src_lang), normalise_tag(doc.tgt_lang)
        trie, heads = tries[(src_l, tgt_l)]
        work, skipped = _detect_and_align(doc, concepts, trie, heads, lem(src_l), lem(tgt_l), tgt_l, worker_forms,
                                          level, stops.get(src_l, frozenset()))
        references = _references(work)
        verdicts, items = _verdicts(work, references, rules)
        fresh = {lg: lem(lg).take_fresh() for lg in dict.fromkeys((src_l, tgt_l))}
        return references, verdicts, items, _misaligned(verdicts, [doc]), skipped, fresh

    def tick(done):
        if progress:
            progress("documents", done, len(documents))

    tick(0)
    results = parallel.run_documents(task, len(documents), jobs, tick)
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


def judge_run(run: Run, settings: JudgeSettings, *, exhaustive: bool = False, domain: Optional[str] = None,
              progress: Optional[Progress] = None) -> Run:
    """The LLM judge on what counting left open (termqa.judge.stages)."""
    from termqa.judge.stages import run_judge

    verdicts, references, accounting, info = run_judge(
        list(run.verdicts), dict(run.references), run.documents, run.concepts_by_id, settings,
        table=run.table, exhaustive=exhaustive, domain=domain, progress=progress, lem=run.lem,
    )
    return replace(run, verdicts=tuple(verdicts), references=references, accounting=accounting, judge=info,
                   exhaustive=exhaustive, domain=domain)


def finish(run: Run) -> CheckResult:
    """The result every writer consumes, with the run's signature."""
    sig = signature.build(
        glossaries=run.glossaries, lemmatisers=run.lem.names(), penalties=run.table, judge=run.judge,
        exhaustive=run.exhaustive, domain=run.domain, decisions=run.review.sha256 if run.review else None,
        variants=run.settings.variants,
        settings={**run.settings.recorded(), "mode": "judge" if run.judge is not None else "counting",
                  "exhaustive": run.exhaustive, "domain": run.domain},
    )
    return CheckResult(
        files=list(run.files), glossaries=list(run.glossaries), documents=list(run.documents),
        verdicts=list(run.verdicts), references=list(run.references.values()), concepts=run.concepts_by_id,
        signature=sig, metric_items=list(run.metric_items), warnings=list(run.warnings),
        accounting=run.accounting, skipped_untranslated=run.skipped_untranslated, alerts=list(run.alerts),
        review=run.review, units_not_translated=run.withheld.units,
        segments_not_translated=run.withheld.segments, not_translated_states=dict(run.withheld.states),
        skipped_by_language=dict(run.skipped_by_language),
    )


def cached_source_index(concepts, src_l: str, lemmatiser, path, variants: VariantLevel = DEFAULT_VARIANTS,
                        fingerprint: Optional[str] = None) -> tuple:
    """`_source_index` through the active index cache.

    Keyed by a fingerprint of every designation that can enter the index (`terms_fingerprint`: concept
    id, text, language, status, type: what build_entries and the head terms read; `fingerprint` when the
    caller has it already), the source language, the lemmatiser (name = tool, version and tables; mode)
    and the variant level (static variants enter the index): the same termbase read another way gives
    the same key, and any change to a term gives another.
    """
    cache = indexcache.active()
    if not cache.enabled:
        return _source_index(concepts, src_l, lemmatiser, path, variants)
    key = indexcache.make_key("source-index", fingerprint or terms_fingerprint(concepts), src_l, lemmatiser.name,
                              lemmatiser.mode, str(variants))
    hit = cache.load(key)
    if isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[0], dt.TermTrie):
        return hit
    built = _source_index(concepts, src_l, lemmatiser, path, variants)
    if variants != VariantLevel.NONE:  # stored with the variant passes' indexes built
        dt.variant_indexes(built[0], variants == VariantLevel.DYNAMIC)
    cache.store(key, built)
    return built


def _source_index(concepts, src_l, lemmatiser, path, variants: VariantLevel):
    """The trie of every source designation, and each concept's head term (its preferred term).

    `variants` decides which entries the trie holds (static variants from "static" on): the cache of
    the index keys on it."""
    entries = dt.build_entries(concepts, src_l, lemmatiser, variants=variants)
    if not entries:
        have = sorted({t.lang for c in concepts for t in c.terms if t.lang})
        raise LanguageError(
            f"the glossary has no terms in the source language '{src_l}' of {path} "
            f"(it has: {', '.join(have) or 'none'})",
            fix="pass --src-lang, or --glossary-lang for labels without a language",
        )
    trie = dt.TermTrie()
    heads = {}
    for e in entries:
        trie.add(e)
        if not e.rule:
            heads.setdefault(e.concept_id, e)
    by_text = {(e.concept_id, e.text): e for e in entries if not e.rule}
    for c in concepts:
        pref = c.preferred(src_l)
        if pref is not None and (c.id, pref.text) in by_text:
            heads[c.id] = by_text[(c.id, pref.text)]
    return trie, heads


def _misaligned(verdicts, documents) -> dict:
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


def _flag_misaligned(verdicts, documents, warnings, suspects: Optional[dict] = None):
    """Occurrences "missing" from a target that is not a translation of the source say so.

    `suspects`: `_misaligned` of the verdicts when it is known already (counting workers make it for
    their documents; their documents' ids are unique)."""
    if suspects is None:
        suspects = _misaligned(verdicts, documents)
    flagged = [k for k, why in suspects.items() if why]
    if flagged:
        examples = ", ".join(f"{_unit_id(documents, *k)} ({suspects[k]})" for k in flagged[:3])
        warnings.append(f"{len(flagged)} segments holding terms look misaligned (target not a translation of "
                        f"the source), e.g. {examples}")
    return [replace(v, reason=R_MISALIGNED) if v.reason == R_MISSING and
            suspects.get((v.occurrence.doc_id, v.occurrence.segment_index)) else v for v in verdicts]


def _unit_id(documents, doc_id: str, index: int) -> str:
    """The unit id of segment `index` of the last document `doc_id` that has one (as `_misaligned` reads)."""
    for d in reversed(documents):
        if d.doc_id == doc_id:
            try:
                return _WithSource(d.segments).segment(index).unit_id
            except (KeyError, IndexError):
                continue
    raise KeyError((doc_id, index))


def _expand_paths(inputs, expand) -> list:
    """Folders expanded to their files; records already read kept where they stand."""
    if inputs and all(isinstance(i, BilingualFile) for i in inputs):
        return list(inputs)
    out = []
    for item in inputs:
        out.extend([item] if isinstance(item, BilingualFile) else expand([item]))
    return out or expand([])


def _give_languages(gl, files, src_lang, tgt_lang):
    """A glossary without language columns (two bare columns) takes the run's language pair."""
    if all(g.languages for g in gl):
        return gl

    first = next((d for f in files for d in f.documents), None)
    src = src_lang or (first.src_lang if first else None)
    tgt = tgt_lang or (first.tgt_lang if first else None)
    targets = {normalise_tag(d.tgt_lang) for f in files for d in f.documents if d.tgt_lang}
    if not tgt_lang and len(targets) > 1:  # a bare two-column glossary cannot say which of them it is for
        raise LanguageError(f"a glossary has no language columns and the documents are in {len(targets)} target "
                            f"languages ({', '.join(sorted(targets))})",
                            fix="name the languages in the glossary's header row (e.g. en,de), or check the "
                                "files of one target language at a time")
    if not src or not tgt:
        raise LanguageError("a glossary has no language columns and the languages are unknown",
                            fix="pass --src-lang and --tgt-lang")
    return [g if g.languages or g.format not in ("csv", "tsv") else assign_languages(g, src, tgt) for g in gl]


def _detect_and_align(doc, concepts, trie, heads, lem_s, lem_t, tgt_l, forms_cache, level: VariantLevel, stop=frozenset()):
    """Occurrences of one document, with chains, first mentions and target spans.

    Everything here depends on this document only (the forms cache holds pure functions of a concept),
    so documents can be counted in any order, or side by side in worker processes.
    """
    by_id = conceptrows.by_id(concepts)
    src_lang = primary(doc.src_lang or "")
    if len(doc.segments) <= BIG_DOCUMENT:
        segs = [s for s in doc.segments if s.source.strip()]
        src_tokens = lem_s.tokenize_many([s.source for s in segs])
        tokens_by_seg = {s.index: t for s, t in zip(segs, src_tokens)}  # index: unique within a document
        matches, _acronyms = dt.detect_document(doc, trie, tokens_by_seg, segs, level, src_lang, stop)
    else:
        matches, tokens_by_seg = _detect_in_chunks(trie, doc.segments, lem_s, level, src_lang, stop)

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
    store = al.StoredForms(tgt_l, lem_t, level)
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
                got = al.target_forms(concept, tgt_l, lem_t, level, reduced)
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
        )

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
    indexes = _OpenTargets(lem_t, held=len(doc.segments) <= BIG_DOCUMENT)
    for part in _chunks(seg_list, DETECT_CHUNK):
        for seg, toks in zip(part, lem_t.tokenize_many([s.target for s in part])):
            idx = al.TargetIndex(toks)
            idxs = by_seg[seg.index]
            here = {i: pending(i) for i in idxs}
            cands = {i: al.candidates(here[i], idx, seg.target) for i in idxs}
            for i, a in al.assign(list(here.values()), cands).items():
                work[i].alignment = a
            if any(work[i].alignment is None for i in idxs):
                indexes.add(seg, idx)
            for i in idxs:
                if work[i].alignment is None or i in firsts:
                    pendings[i] = here[i]
    del firsts
    # pass 2: renderings established in the document for the chains that still have gaps
    al.align_established(work, by_seg, indexes, pendings, forms_cache, tgt_l, lem_t)
    # rendering keys (lemmas, leading articles stripped) for references and metrics: the other segments'
    # targets are tokenised again, a chunk at a time (the same tokens)
    aligned = [s for s in seg_list if any(work[i].alignment is not None for i in by_seg[s.index])]
    for part in _chunks(aligned, DETECT_CHUNK):
        todo = [s for s in part if s.index not in indexes]
        fresh = dict(zip((s.index for s in todo), lem_t.tokenize_many([s.target for s in todo])))
        for seg in part:
            tokens = indexes[seg.index].tokens if seg.index in indexes else fresh[seg.index]
            for i in by_seg[seg.index]:
                a = work[i].alignment
                if a is not None:
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


def _detect_in_chunks(trie, segments, lem_s, level: VariantLevel, lang="", stop=frozenset()):
    """`detect_document` on a big document (a whole translation memory), DETECT_CHUNK segments at a time.

    Each chunk is tokenised once, matched and searched for the variants a segment holds on its own; no
    tokens are kept, so memory follows the occurrences, not the document (a packed document stays
    packed: its segments are never all made into records at once). Results are those of
    `detect_document`: the same tokens, the same passes; what needs tokens afterwards (reductions, which
    look a few segments back, acronyms, the occurrences' surface keys) has those segments tokenised again.
    """
    segs = _WithSource(segments)
    finder = dt.VariantFinder(trie, level, stop) if level != VariantLevel.NONE else None
    by_seg: dict = {}
    taken_by_seg: dict = {}
    for part in _chunks(segs, DETECT_CHUNK):
        for seg, toks in zip(part, lem_s.tokenize_many([s.source for s in part])):
            pk = dt.positions_and_keys(toks)
            found = dt.find_in_segment(trie, seg, toks, pk)
            if finder is not None:
                found, taken = finder.in_segment(seg, toks, found, pk)
                if taken:
                    taken_by_seg[seg.index] = taken
            if found:
                by_seg[seg.index] = found
    tokens = _Tokens(segments, lem_s)
    if finder is not None:
        matches = finder.finish(segs, by_seg, taken_by_seg, tokens, lang)
    else:
        matches = [m for seg in segs for m in by_seg.get(seg.index, ())]
    matches, _acronyms = dt.add_acronyms(trie, matches, tokens, segs)
    return matches, tokens


class _OpenTargets:
    """The target indexes (`al.TargetIndex`) of the segments where pass 1 left an occurrence open, by
    segment index, as pass 2 (`al.align_established`) reads them: `in`, `[]`, `get`.

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


def _chunks(items, size: int):
    """Lists of up to `size` consecutive items of any iterable."""
    it = iter(items)
    while True:
        part = list(islice(it, size))
        if not part:
            return
        yield part


class _WithSource:
    """The segments of a document that have source text, in order; iterable again and again, never held
    as a list. `index_order` and `segment` (termqa.pipeline.detect.index_order) read packed segments by
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


class _Tokens(dict):
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


def _references(work: Sequence[Work]) -> dict:
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


def _verdicts(work: list[Work], references: Mapping[tuple, Reference], rules: Rules):
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
    return verdicts, items


__all__ = ["check", "CheckResult", "Run", "prepare", "count", "review", "judge_run", "finish"]
