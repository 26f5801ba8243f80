"""`termqa.pipeline.check`: connects the stages, nothing more.

read -> detect (source occurrences) -> align (target spans) -> reference -> prejudge -> review -> score ->
result. Each stage lives in its own module; this one only moves records between them. The LLM judge sits
above the pipeline: the top floor (termqa.run) calls it between `counted` and `finish`, so no stage here
imports it.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Mapping, Optional, Sequence, Union

from termqa import signature
from termqa.config import LemmatiserMode, Settings
from termqa.errors import UsageError
from termqa.formats.annotate.replies import read_replies
from termqa.formats.decisions import DecisionBook, merge, read_decisions
from termqa.formats.unitstate import Withheld, regrouped, withhold
from termqa import glossaryhygiene as hygiene
from termqa.glossaryscope import applicable, scope_notes
from termqa.inputs import expand, merge_glossaries
from termqa.shownpath import with_path
from termqa.lang.langtags import normalise_tag, primary
from termqa.model import BilingualFile, Concept, Document, Glossary, Reference, Verdict
from termqa.pipeline import sanity
from termqa.store import parallel
from termqa.pipeline.align import stop_words
from termqa.pipeline.detection import Detection
from termqa.pipeline.counting import count_parallel, count_sequential, flag_misaligned, references_of, verdicts_of
from termqa.pipeline.lemmatisers import TRAINED_MAX_WORDS, Lemmatisers, project_words
from termqa.metrics import Item
from termqa.pipeline.prejudge import Rules
from termqa.pipeline.read import expand_paths, give_languages, glossary_fits, read_glossary_cached, read_inputs
from termqa.score import validate_table
from termqa.pipeline.sourceindex import cached_source_index
from termqa.signature import JudgePart, Signature
from termqa.wordcount import source_words
from termqa.store import conceptrows, indexcache
from termqa.store.gcpause import paused_gc, without_gc

if TYPE_CHECKING:  # a counting run never loads the review code
    from termqa.pipeline.review import ReviewReport

Progress = Callable[[str, int, int], None]


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

        with paused_gc():  # records built in bulk (termqa.store.gcpause)
            return result_dict(self)



@dataclass(frozen=True)
class Run:
    """One check as it moves through the stages: prepare -> count -> review -> judge (termqa.run) -> finish.

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
    settings: Settings = Settings(),
    *,
    decisions: Union[None, str, DecisionBook] = None,
    progress: Optional[Progress] = None,
) -> CheckResult:
    """Run the terminology check in counting mode on bilingual files (or folders) against one or more
    glossaries: what counting cannot settle stays `unjudged` (a check with the LLM judge is
    `termqa.run.check`, which calls the judge between `counted` and `finish`).

    `inputs` and `glossaries` are paths, or records already read (`BilingualFile`, `Glossary`). `settings`
    (termqa.config.Settings) holds every option, with the flags' names: languages, lemmatiser mode,
    variant level (none | static | dynamic, docs/matching.md "Term variants"), penalties, source-only glossary,
    swapped languages forced, unit states included, match case, worker processes (`jobs`: None, the
    available cores on projects large enough to gain from it; results are the same for any value), the
    index cache (`index_cache`: True, the user cache folder or $TERMQA_CACHE_DIR; False, none; or a
    folder). `decisions`: a reviewer decisions file (path or DecisionBook).
    """
    return finish(counted(inputs, glossaries, settings, decisions=decisions, progress=progress))


def counted(
    inputs: Sequence[Union[str, BilingualFile]],
    glossaries: Sequence[Union[str, Glossary]] = (),
    settings: Settings = Settings(),
    *,
    decisions: Union[None, str, DecisionBook] = None,
    progress: Optional[Progress] = None,
) -> Run:
    """The stages before the judge: prepare, count (in the index cache `settings.index_cache`), then the
    reviewer's decisions (`decisions`: a path or a DecisionBook), so decided occurrences are never asked."""
    with index_cache_of(settings):
        run = count(prepare(inputs, glossaries, settings), progress=progress)
    return review(run, decisions if isinstance(decisions, DecisionBook) or decisions is None
                  else read_decisions(decisions))


def index_cache_folder():
    """The index cache folder ($TERMQA_CACHE_DIR, else the user cache folder), or None on a system without
    one (`termqa cache path`)."""
    return indexcache.default_folder()


def clear_index_cache() -> tuple:
    """Delete every file of the index cache (`termqa cache clear`): (files removed, the folder)."""
    cache = indexcache.default_cache()
    return cache.clear(), cache.folder


def index_cache_of(settings: Settings):
    """The index cache of a run with `settings` (`settings.index_cache`), made the active one: a context
    manager for the stages, so a caller (termqa compare) opens it without reaching the store itself."""
    return indexcache.using(indexcache.resolve(settings.index_cache))


# --- the stages --------------------------------------------------------------------------------------

@without_gc
def prepare(
    inputs: Sequence[Union[str, BilingualFile]],
    glossaries: Sequence[Union[str, Glossary]],
    settings: Settings = Settings(),
) -> Run:
    """Read the inputs and glossaries (paths, or records already read), settle languages, penalties and
    the lemmatiser mode, and check that they fit together (input sanity, loud and early)."""
    if not glossaries:
        raise UsageError("no glossary given", fix="pass --glossary FILE (TBX, SKOS, CSV/TSV)")
    src_lang, tgt_lang, glossary_lang = settings.src_lang, settings.tgt_lang, settings.glossary_lang
    table = validate_table(settings.penalty_table())
    # paths are read here; records already read (termqa compare reads them once for all systems) pass
    gl = [g if isinstance(g, Glossary) else read_glossary_cached(g, glossary_lang) for g in glossaries]
    files = read_inputs(expand_paths(inputs, expand), src_lang, tgt_lang)
    gl = give_languages(gl, files, src_lang, tgt_lang)
    if settings.match_case:
        gl = [hygiene.every_term_in_case(g) for g in gl]
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
    alerts = glossary_fits(concepts, documents, settings.source_only_glossary)
    # (the targets checked: copies of the source in units not translated yet are not the target language)
    alerts += sanity.language_alerts(regrouped(files, documents) if withheld.units else files,
                                     src_lang=src_lang, tgt_lang=tgt_lang, force_languages=settings.force_languages)
    if not isinstance(concepts, conceptrows.ConceptRows):
        concepts = tuple(concepts)
    return Run(files=tuple(files), glossaries=tuple(gl), concepts=concepts, documents=tuple(documents),
               table=table, lem=Lemmatisers(mode), warnings=tuple(alerts + warnings), alerts=tuple(alerts),
               settings=settings, withheld=withheld)



@without_gc
def count(run: Run, *, progress: Optional[Progress] = None) -> Run:
    """Counting: detect every occurrence, align its rendering, fix references, decide what rules can.

    Documents are counted in `run.settings.jobs` worker processes when that pays (see `parallel.plan_jobs`), each
    settled whole in its worker (references and counting verdicts are per document); in one process,
    references and verdicts are settled over all documents at once. Results never depend on which.
    """
    lem = run.lem
    concepts = run.concepts  # ConceptRows from the index cache: a record is made only when read
    warnings = list(run.warnings)
    documents = run.documents
    detections: dict[str, Detection] = {}  # per source language: how far detection goes (termqa.pipeline.detection)
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
        if src_l not in detections:
            detections[src_l] = Detection.of(run.settings, src_l, stop_words)
        detection = detections[src_l]
        scope = applicable(run.glossaries, tgt_l) if len(run.glossaries) > 1 else (0,)
        if (src_l, scope) not in built:
            if len(scope) == len(run.glossaries):
                built[(src_l, scope)] = cached_source_index(concepts, src_l, lem(src_l), doc.path, detection,
                                                               fingerprint)
            else:
                part = merge_glossaries(run.glossaries, only=scope)
                fp = hashlib.sha256(f"{fingerprint}\x1e{scope}".encode()).hexdigest()
                built[(src_l, scope)] = cached_source_index(part, src_l, lem(src_l), doc.path, detection, fp)
        tries[(src_l, tgt_l)] = built[(src_l, scope)]
    # glossary entries that are function words match nearly everything: said once per source language
    # (read off the source index: making every concept of a big termbase a record costs more)
    found: dict = {}
    for (src_l, _scope), (trie, _heads) in built.items():
        texts = found.setdefault(primary(src_l), [])
        texts += [t for t in hygiene.function_word_entries_of(trie.entries, src_l) if t not in texts]
    warnings += hygiene.warning(found)
    n_jobs = parallel.plan_jobs(run.settings.jobs, documents)
    if n_jobs > 1 and len({d.doc_id for d in documents}) < len(documents):
        n_jobs = 1  # workers settle references per document: two documents of one id share them
    rules = Rules(lem, run.table)
    if n_jobs > 1:
        references, verdicts, items, suspects, skipped = count_parallel(documents, concepts, tries, lem, rules,
                                                                         n_jobs, progress, detections,
                                                                         parallel.run_documents)
    else:
        work, skipped = count_sequential(documents, concepts, tries, lem, progress, detections)
        references = references_of(work)
        verdicts, items = verdicts_of(work, references, rules)  # empties `work`
        suspects = None
    found = bool(verdicts)
    verdicts = flag_misaligned(verdicts, documents, warnings, suspects)
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
    contradicting = list(combined.conflicts)  # in the file itself, and between the file and the answers
    if from_replies:
        merged = merge(combined, DecisionBook(tuple(from_replies)), into=combined.path)
        combined = merged.book
        contradicting += [f"an answer in the files contradicts a decision: {c}" for c in merged.conflicts]
    digest = hashlib.sha256(((book.sha256 if book else "") + json.dumps(
        [r.to_dict() for r in replies], sort_keys=True, ensure_ascii=False)).encode()).hexdigest()
    combined = replace(combined, sha256=digest if replies else (book.sha256 if book else None))
    verdicts, report = apply_decisions(run.verdicts, run.documents, combined, run.table)
    report = replace(report, replies=tuple(reply_report),
                     stale=tuple(d for d in report.stale if d not in from_replies))
    warnings = list(run.warnings) + contradicting
    if report.stale:
        warnings.append(f"{len(report.stale)} reviewer decision(s) in {book.path if book else 'the decisions'} match "
                        "nothing any more (the segment changed, or the term or rendering is gone): see decisions.stale")
    if reply_report:
        used = sum(1 for r in reply_report if r.get("applied"))
        warnings.append(f"{len(reply_report)} answer(s) to termqa's notes read from the files, {used} applied as "
                        "decisions: see decisions.replies")
    return replace(run, verdicts=tuple(verdicts), review=report, warnings=tuple(warnings))



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





__all__ = ["check", "CheckResult", "Run", "prepare", "count", "review", "counted", "finish", "index_cache_of",
           "index_cache_folder", "clear_index_cache"]
