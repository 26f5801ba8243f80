"""`termqa compare`: several translations of the same source, judged against the same anchors.

A *system* is one input (a file or a folder) or, for a TMX holding several target languages, one target
language. The inputs must translate the same source: same documents in the same order, same segments
with the same source text; otherwise the comparison is refused, naming the first difference.

Each system goes through the ordinary counting pipeline (`termqa.pipeline.check.check`). Then, per document
position, concept and source form, one reference is chosen for all systems that share a target
language: the glossary's term where it has one, else the rendering most frequent across all systems'
aligned occurrences (ties by first appearance: document position first, then system order). Occurrences
whose reference changed are decided again by the same deterministic rules the judge stage uses, so a
system is never scored against an anchor of its own making while another is scored against another.
With a judge, the shared pseudo-references are validated once on the pooled evidence of all systems and
every system is judged against the result; identical questions are asked once (the backend and its
cache are shared and keyed by prompt content).

Systems are compared on their document scores with a paired sign-flip permutation test, and ranked into
clusters of systems that the test cannot tell apart.

This module sequences the comparison; its parts are rooms of their own: the systems and the same-source
check (termqa.evaluate.systems), the shared references (termqa.evaluate.shared_refs), the test and the
ranking (termqa.evaluate.ranking), the JSON object and console text (termqa.evaluate.compare_output).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

from termqa.config import LemmatiserMode, Settings
from termqa.errors import UsageError
from termqa.evaluate import stats
from termqa.evaluate.compare_output import compare_dict
from termqa.evaluate.ranking import EXACT_MAX_DOCUMENTS, SEGMENT_PAIRING_BELOW
from termqa.evaluate.shared_refs import SystemRun, align_across, pooled_reference_check, shared_references
from termqa.evaluate.systems import check_same_source, documents_of, one_pair_per_system, plan_systems, read_system
from termqa.judge.llm import Backend
from termqa.judge.progress import Ticker
from termqa.judge.stages import DocView, Stage, System, account, judge_part, judge_phases
from termqa.pipeline import sanity
from termqa.pipeline.check import count, finish, index_cache_of, prepare
from termqa.pipeline.lemmatisers import TRAINED_MAX_WORDS, Lemmatisers, project_words
from termqa.pipeline.read import read_glossary_cached
from termqa.score import validate_table


# --- the comparison -----------------------------------------------------------------------------------

@dataclass
class CompareResult:
    runs: list[SystemRun]
    results: list  # per system: the CheckResult after sharing references (and judging)
    alpha: float
    resamples: int
    seed: int
    changed: list[dict]  # per system: references / verdicts changed by sharing
    accounting: Optional[dict] = None
    asked: list = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    config_path: Optional[str] = None  # the config file the settings came from (recorded in the signature)
    flags: dict = field(default_factory=dict)  # system name -> what makes its place in the ranking doubtful
    alerts: list[str] = field(default_factory=list)  # inputs that do not fit: also first in `warnings`

    def to_dict(self) -> dict:
        return compare_dict(self)


def compare(
    inputs: Sequence[str],
    glossaries: Sequence[str],
    settings: Settings = Settings(),
    *,
    names: Sequence[str] = (),
    tgt_langs: Sequence[str] = (),
    judge=None,
    progress=None,
) -> CompareResult:
    """Check several systems' translations of the same source against shared references.

    `settings` as in `termqa.check` (the same for every system: languages, lemmatiser mode, variant
    level, penalties, unit states, worker processes, index cache...), and the permutation test's
    `alpha`, `resamples` and `seed`. `tgt_langs` picks and orders the target languages of one TMX
    (default: `settings.tgt_lang`, else all of them); `names` names the systems.
    """
    with index_cache_of(settings):
        return _compare(inputs, glossaries, settings, names=names, tgt_langs=tgt_langs, judge=judge,
                        progress=progress)


def _compare(inputs, glossaries, settings: Settings, *, names, tgt_langs, judge, progress) -> CompareResult:
    alpha, resamples, seed = settings.alpha, settings.resamples, settings.seed
    tgt_langs = list(tgt_langs) or ([settings.tgt_lang] if settings.tgt_lang else [])
    src_lang, glossary_lang = settings.src_lang, settings.glossary_lang
    exhaustive, domain = settings.exhaustive, settings.domain
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must be between 0 and 1, not {alpha}")
    if resamples < 1:
        raise UsageError(f"resamples must be at least 1, not {resamples}")
    if not glossaries:
        raise UsageError("no glossary given", fix="pass --glossary FILE (TBX, SKOS, CSV/TSV)")
    table = validate_table(settings.penalty_table())
    specs = plan_systems(inputs, names=names, tgt_langs=tgt_langs, src_lang=src_lang)
    files = [read_system(spec, src_lang) for spec in specs]
    read = [(spec, documents_of(fs)) for spec, fs in zip(specs, files)]
    one_pair_per_system(read)
    check_same_source(read)
    gloss = [read_glossary_cached(g, glossary_lang) for g in glossaries]  # once for all

    # one lemmatiser mode for every system, so that all are read the same way
    mode = settings.lemmatiser
    if mode is LemmatiserMode.AUTO:
        if max(project_words(docs) for _spec, docs in read) > TRAINED_MAX_WORDS:
            mode = LemmatiserMode.LOOKUP
    lem = Lemmatisers(mode)

    runs = []
    for n, spec in enumerate(specs):
        if progress:
            progress("systems", n, len(specs))
        # the same stages as `termqa check`, with references shared before judging
        run = count(prepare(files[n], gloss, replace(settings, tgt_lang=spec.tgt_lang, lemmatiser=mode)))
        res = finish(run)
        runs.append(SystemRun(spec, res, {d.doc_id: k for k, d in enumerate(res.documents)},
                              list(res.verdicts), {(r.doc_id, r.concept_id, r.source_form): r
                                                   for r in res.references}))
    if progress:
        progress("systems", len(specs), len(specs))
    concepts = runs[0].result.concepts
    alerts: list[str] = []
    flags: dict[str, list[str]] = {s.name: [] for s in specs}
    for group in sanity.identical_systems([s.name for s in specs], [docs for _s, docs in read]):
        names_ = ", ".join(group[:-1]) + f" and {group[-1]}"
        alerts.append(f"{names_} are identical (the same target text in every segment): comparing them "
                      "measures nothing; was a file given twice?")
        for n in group:
            flags[n].append("identical to " + ", ".join(m for m in group if m != n))
    for run in runs:
        for alert in run.result.alerts:
            alerts.append(f"{run.spec.name}: {alert}")
            if "looks like" in alert and "target text" in alert:
                flags[run.spec.name].append("target text not in the target language")
            elif alert.startswith("no glossary term was found"):
                flags[run.spec.name].append("no glossary term found")
    warnings = list(alerts)
    for run in runs:
        warnings += [f"{run.spec.name}: {w}" for w in run.result.warnings if w not in run.result.alerts]

    own_refs = [dict(r.references) for r in runs]
    own_verdicts = [list(r.verdicts) for r in runs]
    accounting, asked, judge_sig = None, [], None
    backend = Backend(judge) if judge is not None else None
    try:
        stages = [Stage([DocView(d) for d in r.result.documents], concepts, backend, lem, domain, exhaustive)
                  for r in runs]
        added = align_across(runs, lem)  # deterministic first: fewer questions for the judge
        systems = [System(st, r.verdicts, r.references, frozenset(ad)) for r, st, ad in zip(runs, stages, added)]

        def shared(systems_, progress_):
            for run, s in zip(runs, systems_):
                run.verdicts = s.verdicts  # the judge may have aligned more of them
            refs = shared_references(runs, lem, added)
            if backend is not None:
                groups = defaultdict(list)
                for k, run in enumerate(runs):
                    groups[run.tgt_group].append(k)
                for members in groups.values():
                    pooled_reference_check(runs, members, refs, stages, progress_)
            for s, rf in zip(systems_, refs):
                s.references = rf

        # a progress line every 10 s while the judge waits (termqa.judge.progress), as a check has
        with Ticker(backend, progress if backend is not None else None, judge.progress_every if judge else 10.0):
            judge_phases(systems, table, references=shared, progress=progress, missing_too=True)
        for run, s in zip(runs, systems):
            run.verdicts, run.references = s.verdicts, s.references
    finally:
        if backend is not None:
            backend.close()
    if backend is not None:
        accounting = account(backend, stages)
        asked = [dict(st.asked) for st in stages]
        judge_sig = judge_part(judge)

    n_docs = len(runs[0].result.documents)
    results, changed = [], []
    for run, refs0, v0 in zip(runs, own_refs, own_verdicts):
        res = run.result
        sig = res.signature
        if judge_sig is not None:
            sig = replace(sig, judge=judge_sig, exhaustive=exhaustive, domain=domain)
        sig = sig.with_settings(mode="judge" if judge is not None else "counting", references="shared",
                                systems=len(runs), exhaustive=exhaustive if judge is not None else False,
                                domain=domain if judge is not None else None)
        results.append(replace(res, verdicts=run.verdicts, references=list(run.references.values()),
                               signature=sig, warnings=list(res.warnings)))
        changed.append({
            "references": sum(1 for k, r in run.references.items() if refs0.get(k) != r),
            "verdicts": sum(1 for a, b in zip(v0, run.verdicts)
                            if (a.outcome, a.label, a.penalty) != (b.outcome, b.label, b.penalty)),
        })
    if n_docs < SEGMENT_PAIRING_BELOW:
        # too few documents for a test over documents: systems are paired on segment scores instead
        units = len({(k, v.occurrence.segment_index) for run in runs for v in run.verdicts
                     if v.penalty is not None for k in (run.doc_index[v.occurrence.doc_id],)})
        what = (f"{n_docs} document(s): systems are compared on paired segment scores ({units} segments hold "
                "scored terms)")
        warnings.insert(len(alerts), what)
    else:
        units, what = n_docs, f"{n_docs} document(s)"
    min_p = stats.smallest_p_value(units, exact_max=EXACT_MAX_DOCUMENTS, resamples=resamples)
    if min_p >= alpha:
        warnings.insert(len(alerts) + (n_docs < SEGMENT_PAIRING_BELOW),
                        f"with {what.split(':')[0] if n_docs >= SEGMENT_PAIRING_BELOW else f'{units} segments'} no "
                        f"difference can reach p < {alpha} (the smallest possible p-value is {min_p:.3g}): every pair "
                        "is a tie; compare more documents")
    return CompareResult(runs, results, alpha, resamples, seed, changed, accounting, asked, warnings,
                         flags=flags, alerts=alerts)




__all__ = ["compare", "CompareResult"]
