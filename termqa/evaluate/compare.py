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
"""
from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence, Union

from termqa import formats
from termqa.config import DEFAULT_LEMMATISER, DEFAULT_VARIANTS, LemmatiserMode, VariantLevel
from termqa.errors import InputError, MissingLanguageError, UsageError
from termqa.evaluate import stats
from termqa.evaluate.stats import PermutationTest
from termqa.inputs import expand
from termqa.judge.llm import Backend
from termqa.judge.stages import DocView, Stage, System, account, check_references, judge_part, judge_phases
from termqa.lang.langtags import primary
from termqa.model import GLOSSARY, OUTCOMES, PSEUDO, UNJUDGED, Reference, Span
from termqa.pipeline import align as al, sanity
from termqa.pipeline.check import count, finish, prepare
from termqa.pipeline.detect import keys_of, rendering_key
from termqa.pipeline.lemmatisers import TRAINED_MAX_WORDS, Lemmatisers, project_words
from termqa.pipeline.read import read_glossary_cached
from termqa.pipeline.score import validate_table
from termqa.store import indexcache

COMPARE_VERSION = 1
DEFAULT_ALPHA = 0.05
DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 20240601
# Up to this many documents the sign-flip distribution is enumerated exactly (2^12 = 4096 patterns).
EXACT_MAX_DOCUMENTS = 12
# Above this many pairs the console lists only the significant ones.
MAX_CONSOLE_PAIRS = 10
# A spread of coverage (share of occurrences scored) above this is worth a warning: unjudged
# occurrences are left out of scores, so systems would be scored on different occurrences.
COVERAGE_GAP = 0.10
# Below this many documents systems are tested on paired segment scores rather than document scores.
SEGMENT_PAIRING_BELOW = 6


# --- statistics ------------------------------------------------------------------------------------

def paired_permutation_test(a: Sequence[float], b: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                            seed: int = DEFAULT_SEED, exact_max: int = EXACT_MAX_DOCUMENTS) -> PermutationTest:
    """Two-sided paired sign-flip test of the mean difference of document scores (termqa.evaluate.stats):
    exact up to `exact_max` documents, else `resamples` seeded patterns with p = (hits + 1) / (resamples + 1).
    """
    return stats.paired_sign_flip_test(a, b, alternative=stats.TWO_SIDED, exact_max=exact_max,
                                       resamples=resamples, seed=seed, include_observed=True)


@dataclass(frozen=True)
class Rank:
    name: str
    rank: Optional[int]  # None: the system has no scored occurrence
    tie: bool
    score: Optional[float]
    cluster: Optional[int]


def rank_systems(scores: Mapping[str, Optional[float]], p_value: Callable[[str, str], Optional[float]],
                 alpha: float = DEFAULT_ALPHA) -> list[Rank]:
    """Systems from best (lowest score) to worst, in significance clusters.

    Walking down the sorted list, a system joins the current cluster when the test cannot tell it from
    the cluster's best system (p >= alpha, or no shared document to test on); otherwise it opens a new
    cluster. Members of a cluster share its rank (1 + the number of systems in better clusters) and are
    marked as a tie when the cluster has more than one member.
    """
    order = list(scores)
    scored = sorted((n for n in order if scores[n] is not None), key=lambda n: (scores[n], order.index(n)))
    clusters: list[list[str]] = []
    for name in scored:
        if clusters:
            p = p_value(clusters[-1][0], name)
            if p is None or p >= alpha:
                clusters[-1].append(name)
                continue
        clusters.append([name])
    out, before = [], 0
    for k, members in enumerate(clusters, 1):
        for name in members:
            out.append(Rank(name, before + 1, len(members) > 1, scores[name], k))
        before += len(members)
    out += [Rank(n, None, False, None, None) for n in order if scores[n] is None]
    return out


# --- systems and their alignment --------------------------------------------------------------------

@dataclass(frozen=True)
class SystemSpec:
    name: str
    inputs: tuple[str, ...]
    tgt_lang: Optional[str] = None


def plan_systems(inputs: Sequence[str], *, names: Sequence[str] = (), tgt_langs: Sequence[str] = (),
                 src_lang: Optional[str] = None) -> list[SystemSpec]:
    """Which systems the inputs hold: one per input, or one per target language of a single input."""

    inputs = list(inputs)
    tgt_langs = [t for t in tgt_langs if t]
    if not inputs:
        raise UsageError("no input files given", fix="name two or more XLIFF/TMX files, or one multilingual TMX")
    if len(inputs) == 1:
        langs = list(tgt_langs)
        if not langs:
            files = expand(inputs)
            try:
                for f in files:
                    formats.read_bilingual(f, src_lang=src_lang)
            except MissingLanguageError as exc:
                if exc.which != "target" or len(exc.candidates) < 2:
                    raise
                langs = list(exc.candidates)
        if len(langs) < 2:
            raise UsageError(f"{inputs[0]} holds one translation; compare needs at least two systems",
                             fix="name two or more files, or one TMX with several target languages "
                                 "(--tgt-lang repeated picks them)")
        specs = [SystemSpec(lang, (inputs[0],), lang) for lang in langs]
    else:
        if len(tgt_langs) > 1:
            raise UsageError("several --tgt-lang with several inputs is ambiguous",
                             fix="give one --tgt-lang for all inputs, or compare the languages of one TMX")
        tgt = tgt_langs[0] if tgt_langs else None
        specs = [SystemSpec(_stem(p), (p,), tgt) for p in inputs]
        if len({s.name for s in specs}) < len(specs):
            # same file name in different folders: the path as given tells them apart
            specs = [replace(s, name=s.inputs[0]) for s in specs]
    if names:
        if len(names) != len(specs):
            raise UsageError(f"{len(names)} --name for {len(specs)} systems",
                             fix="give one --name per system, in input order")
        if len(set(names)) != len(names):
            raise UsageError("system names must be different", fix="give each --name once")
        specs = [replace(s, name=n) for s, n in zip(specs, names)]
    if len({s.name for s in specs}) < len(specs):
        raise UsageError("two systems would have the same name", fix="name them with --name")
    return specs


def _stem(path: str) -> str:
    p = Path(path)
    return p.name if p.is_dir() else p.stem


def read_system(spec: SystemSpec, src_lang: Optional[str]):
    """The files of one system, read once, in input order (folders expanded, sorted)."""

    return [formats.read_bilingual(f, src_lang=src_lang, tgt_lang=spec.tgt_lang) for f in expand(spec.inputs)]


def _documents(files) -> list:
    return [d for f in files for d in f.documents]


def _norm_text(s: str) -> str:
    return " ".join(s.split())


def one_pair_per_system(systems: Sequence[tuple[SystemSpec, list]]) -> None:
    """Refuse a system whose documents have several target languages: compare takes one language pair
    per system (`termqa check` gives per-language results of a multilingual delivery)."""
    for spec, docs in systems:
        langs = sorted({primary(d.tgt_lang or "") for d in docs})
        if len(langs) > 1:
            raise UsageError(f"system {spec.name} has documents in {len(langs)} target languages ({', '.join(langs)}); "
                             "compare takes one language pair per system",
                             fix="compare the files of one target language at a time (termqa check reports a "
                                 "multilingual delivery per language)")


def check_same_source(systems: Sequence[tuple[SystemSpec, list]]) -> None:
    """Refuse inputs that do not translate the same source, naming the first difference.

    Documents are matched by position; segments by position, and must have the same source text
    (whitespace aside). Unit and segment ids may differ (MT outputs are often renumbered): the text is
    what the systems translated.
    """
    (ref_spec, ref_docs), rest = systems[0], systems[1:]
    for spec, docs in rest:
        where = ", ".join(spec.inputs)
        if len(docs) != len(ref_docs):
            raise InputError(where, f"has {len(docs)} document(s) where {ref_spec.name} has {len(ref_docs)}; "
                             "compare needs translations of the same source",
                             fix="give files that translate the same documents, in the same order")
        for k, (d, r) in enumerate(zip(docs, ref_docs)):
            if primary(d.src_lang) != primary(r.src_lang):
                raise InputError(where, f"document {k + 1} is in {d.src_lang} where {ref_spec.name} is in "
                                 f"{r.src_lang}", fix="compare translations of the same source")
            for i, (s, t) in enumerate(itertools.zip_longest(d.segments, r.segments)):
                if s is None or t is None:
                    present = s or t
                    owner = spec.name if s is not None else ref_spec.name
                    raise InputError(where, f"document {d.doc_id}: segment {i + 1} (unit {present.unit_id}) exists "
                                     f"only in {owner} ({len(d.segments)} segments against "
                                     f"{len(r.segments)} in {ref_spec.name})",
                                     fix="compare translations of the same source segments")
                if _norm_text(s.source) != _norm_text(t.source):
                    raise InputError(where, f"document {d.doc_id}: segment {i + 1} (unit {s.unit_id}"
                                     f"{' seg ' + s.seg_id if s.seg_id else ''}) has source "
                                     f"{_clip(s.source)!r} where {ref_spec.name} has {_clip(t.source)!r}",
                                     fix="compare translations of the same source segments")


def _clip(s: str, n: int = 60) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


# --- shared references --------------------------------------------------------------------------------

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


def _pooled_reference_check(runs, members, refs, stages, progress):
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
    *,
    names: Sequence[str] = (),
    tgt_langs: Sequence[str] = (),
    src_lang: Optional[str] = None,
    glossary_lang: Optional[str] = None,
    lemmatiser: Union[LemmatiserMode, str] = DEFAULT_LEMMATISER,
    penalties: Optional[Mapping[str, float]] = None,
    judge=None,
    exhaustive: bool = False,
    domain: Optional[str] = None,
    source_only_glossary: bool = False,
    force_languages: bool = False,
    alpha: float = DEFAULT_ALPHA,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    progress=None,
    jobs: Optional[int] = None,
    index_cache=True,
    variants: Union[VariantLevel, str] = DEFAULT_VARIANTS,
    include_states: Sequence[str] = (),
) -> CompareResult:
    """Check several systems' translations of the same source against shared references.

    `jobs`, `index_cache`, `variants`, `include_states` and `force_languages` as in `termqa.check` (worker
    processes for counting; the on-disk index cache; the term-variant detection level, the same for every
    system; unit states checked although not translated yet; swapped-looking languages checked as declared).
    """
    with indexcache.using(indexcache.resolve(index_cache)):
        return _compare(inputs, glossaries, names=names, tgt_langs=tgt_langs, src_lang=src_lang,
                        glossary_lang=glossary_lang, lemmatiser=lemmatiser, penalties=penalties, judge=judge,
                        exhaustive=exhaustive, domain=domain, source_only_glossary=source_only_glossary,
                        force_languages=force_languages, alpha=alpha, resamples=resamples, seed=seed,
                        progress=progress, jobs=jobs, variants=variants, include_states=include_states)


def _compare(inputs, glossaries, *, names, tgt_langs, src_lang, glossary_lang, lemmatiser, penalties, judge,
             exhaustive, domain, source_only_glossary, alpha, resamples, seed, progress, jobs,
             variants, include_states=(), force_languages=False) -> CompareResult:

    if not 0 < alpha < 1:
        raise UsageError(f"alpha must be between 0 and 1, not {alpha}")
    if resamples < 1:
        raise UsageError(f"resamples must be at least 1, not {resamples}")
    if not glossaries:
        raise UsageError("no glossary given", fix="pass --glossary FILE (TBX, SKOS, CSV/TSV)")
    table = validate_table(penalties or {})
    specs = plan_systems(inputs, names=names, tgt_langs=tgt_langs, src_lang=src_lang)
    files = [read_system(spec, src_lang) for spec in specs]
    read = [(spec, _documents(fs)) for spec, fs in zip(specs, files)]
    one_pair_per_system(read)
    check_same_source(read)
    gloss = [read_glossary_cached(g, glossary_lang) for g in glossaries]  # once for all

    # one lemmatiser mode for every system, so that all are read the same way
    mode = LemmatiserMode.parse(lemmatiser, "lemmatiser mode")
    if mode is LemmatiserMode.AUTO:
        if max(project_words(docs) for _spec, docs in read) > TRAINED_MAX_WORDS:
            mode = LemmatiserMode.LOOKUP
    lem = Lemmatisers(mode)

    runs = []
    for n, spec in enumerate(specs):
        if progress:
            progress("systems", n, len(specs))
        # the same stages as `termqa check`, with references shared before judging
        run = count(prepare(files[n], gloss, src_lang=src_lang, tgt_lang=spec.tgt_lang, glossary_lang=glossary_lang,
                            lemmatiser=mode, penalties=table, source_only_glossary=source_only_glossary,
                            variants=variants, include_states=include_states, force_languages=force_languages),
                    jobs=jobs)
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
                    _pooled_reference_check(runs, members, refs, stages, progress_)
            for s, rf in zip(systems_, refs):
                s.references = rf

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


# --- the result object ----------------------------------------------------------------------------

def _rowkey(o: dict, k: int) -> tuple:
    return (k, o["segment_index"], o["source_span"][0], o["source_span"][1], o["concept_id"])


def segment_scores(names: Sequence[str], datas: Sequence[dict]) -> dict[str, dict[tuple, float]]:
    """Per system, the mean penalty of each segment's scored occurrences, keyed by (document position,
    segment index): the same key for every system, since they translate the same segments."""
    out = {}
    for n, data in zip(names, datas):
        kidx = {d["doc_id"]: k for k, d in enumerate(data["documents"])}
        pens: dict = defaultdict(list)
        for o in data["occurrences"]:
            if o["penalty"] is not None:
                pens[(kidx[o["doc_id"]], o["segment_index"])].append(o["penalty"])
        out[n] = {k: sum(v) / len(v) for k, v in pens.items()}
    return out


def compare_dict(cr: CompareResult) -> dict:
    names = [r.spec.name for r in cr.runs]
    datas = [res.to_dict() for res in cr.results]
    n_docs = len(cr.results[0].documents)
    doc_scores = {n: [d["score"] for d in data["documents"]] for n, data in zip(names, datas)}

    # with few documents a test over documents cannot tell systems apart: pair segments instead
    unit = "segment" if n_docs < SEGMENT_PAIRING_BELOW else "document"
    unit_scores = segment_scores(names, datas) if unit == "segment" else \
        {n: dict(enumerate(doc_scores[n])) for n in names}
    tests = {}
    pairwise = []
    for a, b in itertools.combinations(names, 2):
        ks = sorted(k for k, v in unit_scores[a].items() if v is not None and unit_scores[b].get(k) is not None)
        t = paired_permutation_test([unit_scores[a][k] for k in ks], [unit_scores[b][k] for k in ks],
                                    resamples=cr.resamples, seed=cr.seed)
        tests[(a, b)] = tests[(b, a)] = t
        both_docs = sum(1 for k in range(n_docs) if doc_scores[a][k] is not None and doc_scores[b][k] is not None)
        pairwise.append({
            "a": a, "b": b, "unit": unit, "pairs": t.n, "documents": both_docs, "mean_diff": _r(t.mean_diff),
            "p_value": _r(t.p_value), "method": t.method, "resamples": t.resamples,
            "significant": t.p_value is not None and t.p_value < cr.alpha,
            "better": None if t.mean_diff in (None, 0) or t.p_value is None or t.p_value >= cr.alpha
            else (a if t.mean_diff < 0 else b),
        })
    system_scores = {n: data["scores"]["system"] for n, data in zip(names, datas)}
    ranks = rank_systems(system_scores, lambda a, b: tests[(a, b)].p_value, cr.alpha)
    by_name = dict(zip(names, datas))
    ranking = []
    for rk in ranks:
        sc = by_name[rk.name]["scores"]
        ranking.append({
            "rank": rk.rank, "tie": rk.tie, "cluster": rk.cluster, "name": rk.name, "score": sc["system"],
            "micro": sc["micro"], "by_source_form": sc["by_source_form"], "by_concept": sc["by_concept"],
            "coverage": sc["coverage"],
            "tied_with": [o for o in names if o != rk.name and tests[(rk.name, o)].p_value is not None
                          and tests[(rk.name, o)].p_value >= cr.alpha],
            "flags": list(cr.flags.get(rk.name, [])),
        })

    systems = []
    for s, (run, data) in enumerate(zip(cr.runs, datas)):
        systems.append({
            "name": run.spec.name,
            "inputs": list(run.spec.inputs),
            "tgt_lang": run.spec.tgt_lang or (data["documents"][0]["tgt_lang"] if data["documents"] else None),
            "signature": data["signature"]["string"],
            "scores": data["scores"],
            "outcomes": data["summary"]["outcomes"],
            "labels": data["summary"]["labels"],
            "unjudged_reasons": data["summary"]["unjudged_reasons"],
            "occurrences": data["summary"]["occurrences"],
            "occurrences_in_untranslated_segments": data["summary"]["occurrences_in_untranslated_segments"],
            "metrics": data["metrics"]["overall"],
            "documents": [{"doc_id": d["doc_id"], "score": d["score"], "scored": d["scored"],
                           "unjudged": d["unjudged"], "occurrences": d["occurrences"]} for d in data["documents"]],
            "shared_references_changed": cr.changed[s],
            "questions": cr.asked[s] if s < len(cr.asked) else None,
        })

    first = datas[0]
    documents = []
    for k in range(n_docs):
        d0 = first["documents"][k]
        documents.append({
            "index": k, "segments": d0["segments"], "src_lang": d0["src_lang"],
            "doc_ids": {n: data["documents"][k]["doc_id"] for n, data in zip(names, datas)},
            "scores": {n: doc_scores[n][k] for n in names},
        })

    warnings = list(cr.warnings)
    covs = [data["scores"]["coverage"] for data in datas if data["scores"]["coverage"] is not None]
    if covs and max(covs) - min(covs) > COVERAGE_GAP:
        warnings.append(f"coverage differs across systems ({100 * min(covs):.0f}% to {100 * max(covs):.0f}% of "
                        "occurrences scored): the scores rest on different occurrences; a judge settles the rest")
    sig0 = cr.results[0].signature
    lemmatisers = {k: v for res in cr.results for k, v in res.signature.lemmatisers.items()}
    signature = replace(sig0, lemmatisers=lemmatisers).with_extra(compare=len(names), refs="shared").with_settings(
        tgt_langs=[s["tgt_lang"] for s in systems], **({"config": cr.config_path} if cr.config_path else {})).to_dict()
    signature.update({
        "test": {"name": f"paired sign-flip permutation test over {unit}s", "unit": unit,
                 "statistic": f"mean difference of {unit} scores", "alpha": cr.alpha,
                 "resamples": cr.resamples, "seed": cr.seed, "exact_up_to_documents": EXACT_MAX_DOCUMENTS},
    })
    acc = cr.accounting
    return {
        "termqa_compare": COMPARE_VERSION,
        "kind": "compare",
        "signature": signature,
        "systems": systems,
        "ranking": ranking,
        "pairwise": pairwise,
        "documents": documents,
        "concepts": _side_by_side(names, datas),
        "accounting": acc,
        "warnings": warnings,
        "alerts": list(cr.alerts),
    }


def _side_by_side(names, datas) -> list[dict]:
    """Per concept: per (document, source form) the reference and each system's renderings, and per
    occurrence position each system's rendering and verdict."""
    concepts = {}
    forms = {}
    occs = {}
    refs = {}
    for n, data in zip(names, datas):
        kidx = {d["doc_id"]: k for k, d in enumerate(data["documents"])}
        segs = {(s["doc_id"], s["index"]): s for s in data["segments"]}
        for c in data["concepts"]:
            concepts.setdefault(c["id"], {key: c[key] for key in ("id", "definition", "subject", "dnt", "terms")})
        for r in data["references"]:
            refs[(n, kidx[r["doc_id"]], r["concept_id"], r["source_form"])] = r
        for o in data["occurrences"]:
            k = kidx[o["doc_id"]]
            fk = (o["concept_id"], k, o["source_form"])
            # `source_form` is a lemma key; `source_display` is the form as the document writes it
            f = forms.setdefault(fk, {"doc_index": k, "source_form": o["source_form"],
                                      "source_display": o.get("source_display") or o["source_text"],
                                      "source_text": o["source_text"], "systems": {}})
            sysf = f["systems"].setdefault(n, {"renderings": Counter(), "outcomes": Counter(), "penalties": []})
            sysf["renderings"][o["target_text"]] += 1
            sysf["outcomes"][o["outcome"]] += 1
            if o["penalty"] is not None:
                sysf["penalties"].append(o["penalty"])
            row = occs.setdefault(_rowkey(o, k), {
                "doc_index": k, "segment_index": o["segment_index"], "unit_id": o["unit_id"],
                "segment_id": o["segment_id"], "source_text": o["source_text"], "source_span": o["source_span"],
                "source_form": o["source_form"], "source_display": o.get("source_display") or o["source_text"],
                "concept_id": o["concept_id"],
                "source": segs[(o["doc_id"], o["segment_index"])]["source"], "systems": {},
            })
            row["systems"][n] = {"target_text": o["target_text"], "target_span": o["target_span"],
                                 "target": segs[(o["doc_id"], o["segment_index"])]["target"],
                                 "outcome": o["outcome"], "label": o["label"], "penalty": o["penalty"],
                                 "reason": o["reason"]}
    out = []
    for cid, c in concepts.items():
        cforms = []
        for (fc, k, sf), f in sorted(forms.items(), key=lambda kv: (kv[0][1], kv[0][2])):
            if fc != cid:
                continue
            per = {}
            sys_refs = {}
            for n in names:
                r = refs.get((n, k, cid, sf))
                if r is not None:
                    sys_refs[n] = {"text": r["text"], "provenance": r["provenance"]}
                sf_ = f["systems"].get(n)
                if sf_ is None:
                    continue
                pens = sf_["penalties"]
                per[n] = {
                    "renderings": [{"text": t, "count": c_} for t, c_ in sorted(
                        sf_["renderings"].items(), key=lambda kv: (-kv[1], kv[0] is None, kv[0] or ""))],
                    "outcomes": {o: sf_["outcomes"].get(o, 0) for o in OUTCOMES},
                    "score": _r(sum(pens) / len(pens)) if pens else None,
                }
            distinct = {(r["text"], r["provenance"]) for r in sys_refs.values()}
            cforms.append({
                "doc_index": k, "source_form": sf, "source_display": f["source_display"],
                "source_text": f["source_text"],
                "reference": next(iter(sys_refs.values())) if len(distinct) == 1 else None,
                "references": sys_refs, "systems": per,
            })
        rows = sorted((r for key, r in occs.items() if key[4] == cid),
                      key=lambda r: (r["doc_index"], r["segment_index"], r["source_span"][0]))
        out.append({**c, "forms": cforms, "occurrences": rows})
    out.sort(key=lambda c: c["id"])
    return out


def _r(x):
    return None if x is None else round(x, 6)


# --- console ---------------------------------------------------------------------------------------

def _fmt(x, pct=False):
    if x is None:
        return "n/a"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


def render_text(data: dict) -> str:
    """The console summary of a comparison: ranking table, verdicts, pairwise tests, warnings."""
    lines = [f"{data['signature']['tool']}  {data['signature']['string']}"]
    n_docs = len(data["documents"])
    mode = data["signature"]["settings"].get("mode", "counting")
    lines.append(f"{len(data['systems'])} systems, {n_docs} document(s), references shared per source form"
                 f" ({mode} mode)")
    width = max(6, *(len(s["name"]) for s in data["systems"]))
    head = (f"{'rank':<6}{'system':<{width}}  {'score':>7} {'micro':>7} {'form':>7} {'concept':>7} {'cover':>7}"
            f"  {'conf':>5} {'just':>5} {'unjus':>5} {'error':>5} {'unjdg':>5}  {'EM':>6} {'TCR-T':>6}")
    lines += ["", head, "-" * len(head)]
    sysd = {s["name"]: s for s in data["systems"]}
    for r in data["ranking"]:
        s = sysd[r["name"]]
        oc = s["outcomes"]
        rank = "-" if r["rank"] is None else f"{r['rank']}{'=' if r['tie'] else ''}"
        m = s["metrics"]
        lines.append(
            f"{rank:<6}{r['name']:<{width}}  {_fmt(r['score']):>7} {_fmt(r['micro']):>7} "
            f"{_fmt(r['by_source_form']):>7} {_fmt(r['by_concept']):>7} {_fmt(r['coverage'], True):>7}  "
            f"{oc['conforming']:>5} {oc['justified']:>5} {oc['unjustified']:>5} {oc['error']:>5} {oc['unjudged']:>5}  "
            f"{_fmt(m['em']['value'], True):>6} {_fmt(m['tcr_t']['value'], True):>6}")
    lines.append("scores: mean penalty, lower is better; '=' marks systems the test cannot tell apart")
    for r in data["ranking"]:
        if r.get("flags"):
            lines.append(f"  doubtful: {r['name']}: {'; '.join(r['flags'])}")
    if data["pairwise"]:
        t = data["signature"]["test"]
        lines += ["", f"pairwise ({t['name']}, alpha {t['alpha']}):"]
        shown = data["pairwise"]
        if len(shown) > MAX_CONSOLE_PAIRS:
            # many systems: the significant differences are the news; the rest is in --json / --report
            shown = [p for p in shown if p["significant"]]
            lines.append(f"  {len(data['pairwise']) - len(shown)} of {len(data['pairwise'])} pairs show no "
                         "significant difference (all pairs: --json or --report)")
        for p in shown:
            if p["p_value"] is None:
                lines.append(f"  {p['a']} vs {p['b']}: no document scored in both")
                continue
            verdict = f"{p['better']} better" if p["better"] else "no significant difference"
            over = f"{p.get('pairs', p['documents'])} {p.get('unit', 'document')}(s)"
            lines.append(f"  {p['a']} vs {p['b']}: mean diff {p['mean_diff']:+.3f} over {over}, "
                         f"p = {p['p_value']:.4f} ({p['method']}): {verdict}")
    for s in data["systems"]:
        if s["labels"]:
            lines.append(f"{s['name']} labels: " + ", ".join(f"{k} x{v}" for k, v in s["labels"].items()))
    if data.get("accounting"):
        a = data["accounting"]
        lines.append("judge: " + ", ".join(f"{k} {v}" for k, v in a.items() if not isinstance(v, dict)))
    for w in data["warnings"][:10]:
        lines.append(f"warning: {w}")
    if len(data["warnings"]) > 10:
        lines.append(f"... and {len(data['warnings']) - 10} more warnings (see --json)")
    return "\n".join(lines)


__all__ = ["compare", "CompareResult", "paired_permutation_test", "rank_systems", "plan_systems",
           "check_same_source", "render_text", "PermutationTest", "Rank", "SystemSpec"]
