"""`termqa meta-eval`: how well termqa's scores (and the counting metrics) agree with human scores.

The statistics on score matrices (SPA, tie-calibrated pairwise accuracy, the metric-vs-metric test) are
in termqa.evaluate.agreement; this module builds those matrices and runs them.

The matrices come from termqa results (`termqa check --json`, one per system) and human
annotations: bio-MQM span annotations (termqa.formats.biomqm), where the human penalty of an
aligned occurrence is the sum of the MQM weights of the errors overlapping its target span (a
`biomqm.Weighting`: by default by severity alone, Critical 25, Major 5, Minor 1, Neutral 0; or
the WMT weighting), averaged over the segment's annotators (an annotator who marked nothing there
counts 0); a segment's or document's human score is minus the mean penalty of its aligned
occurrences. Error spans that do not cut out their own text are re-located or dropped by the
loader; the counts go into the report. Or a plain table of human scores per (system, document,
segment) (see `read_human_table`).

numpy is imported inside functions (the `stats` extra); the rest of termqa does not need it.
"""
from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Mapping, Optional, Sequence

from termqa.errors import InputError, UsageError
from termqa.evaluate import stats
from termqa.evaluate.agreement import acc_eq, compare, rounded as _r, sign_vectors, spa
from termqa.config import DEFAULT_WEIGHTING
from termqa.formats.biomqm import SpanRepairs, Weighting, _natural, weighting as mqm_weighting
from termqa.formats.xmlsafe import local, parse_bytes
from termqa.lang.langtags import lang_matches, primary
from termqa.results.serialise import load_result

TERMQA_METRICS = ("termqa", "termqa_form", "termqa_concept")
COUNTING_METRICS = ("em", "tcr_pr", "tcr_t", "tcr_em", "conformity_first", "conformity_majority")
ALL_METRICS = TERMQA_METRICS + COUNTING_METRICS


def _np():
    return stats.numpy()


# --- human scores --------------------------------------------------------------------------------


def category_filter(categories: str) -> Optional[frozenset]:
    """'all' -> None (every error counts); 'terminology' or 'Cat1,Cat2' -> lower-cased category names."""
    c = (categories or "all").strip().lower()
    if c == "all":
        return None
    return frozenset(x.strip() for x in c.split(",") if x.strip())


def span_penalty(segment, start: int, end: int, categories: Optional[frozenset] = None,
                 weights: Optional[Weighting] = None) -> float:
    """Mean over the segment's annotators of the MQM weights (default: severity-25-5-1) of the errors
    overlapping [start, end)."""
    weights = weights or mqm_weighting(DEFAULT_WEIGHTING)
    anns = segment.annotations
    if not anns:
        return 0.0
    total = 0.0
    for ann in anns:
        for e in ann.errors:
            if categories is not None and e.category.lower() not in categories:
                continue
            if e.start < end and start < e.end:
                total += weights.weight(e)
    return total / len(anns)


def read_human_table(path) -> dict:
    """Human scores from a TSV/CSV (header `system, doc, segment, score`) or a JSON list of such
    objects. Higher is better; give `penalty` instead of `score` for lower-is-better values (they are
    negated). Returns {(system, doc, segment): score}."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except ValueError as exc:
            raise InputError(p, f"is not valid JSON: {exc}") from None
    else:
        dialect = "excel-tab" if "\t" in text.splitlines()[0] else "excel"
        rows = list(csv.DictReader(text.splitlines(), dialect=dialect))
    out = {}
    for n, r in enumerate(rows, 1):
        r = {str(k).strip().lower(): v for k, v in r.items()}
        missing = [c for c in ("system", "doc", "segment") if c not in r]
        if missing or ("score" not in r and "penalty" not in r):
            raise InputError(p, f"row {n}: needs columns system, doc, segment and score (or penalty)")
        try:
            v = float(r["score"]) if "score" in r else -float(r["penalty"])
        except (TypeError, ValueError):
            raise InputError(p, f"row {n}: score is not a number: {r.get('score', r.get('penalty'))!r}") from None
        out[(str(r["system"]), str(r["doc"]), str(r["segment"]))] = v
    if not out:
        raise InputError(p, "has no human scores")
    return out


# --- results -> per-item scores ------------------------------------------------------------------


@dataclass
class Run:
    """One system's termqa result, with each document's key in the human data."""

    system: str
    result: dict
    doc_keys: dict = field(default_factory=dict)  # result doc_id -> dataset doc id


def _xliff_originals(path) -> list:

    root = parse_bytes(Path(path).read_bytes(), str(path))
    return [f.get("original") for f in root if isinstance(f.tag, str) and local(f.tag) == "file"]


def doc_keys(result: Mapping, base_dirs: Sequence = ()) -> dict:
    """result doc_id -> the document's own id: its `original` (when the result carries it, or read
    from the XLIFF `<file original>` the doc_id points at), else the doc_id itself."""
    keys = {}
    cache: dict = {}
    for d in result.get("documents", []):
        did = d["doc_id"]
        if d.get("original"):
            keys[did] = d["original"]
            continue
        path, _, k = did.rpartition("#")
        if not (path and k.isdigit()):
            path, k = did, "1"
        origs = None
        for cand in [Path(path)] + [Path(b) / path for b in base_dirs] + [Path(b) / Path(path).name for b in base_dirs]:
            if str(cand) in cache:
                origs = cache[str(cand)]
                break
            if cand.is_file():
                try:
                    origs = cache[str(cand)] = _xliff_originals(cand)
                except Exception:  # not an XLIFF we can read: fall back to the doc_id
                    origs = cache[str(cand)] = []
                break
        i = int(k) - 1
        keys[did] = origs[i] if origs and 0 <= i < len(origs) and origs[i] else did
    return keys


def load_runs(paths: Sequence[str]) -> list[Run]:
    """Result JSONs (files or folders of *.json); the system name is the file's stem."""
    files = []
    for p in paths:
        q = Path(p)
        if q.is_dir():
            files += sorted(x for x in q.glob("*.json") if x.name != "biomqm-manifest.json")
        elif q.is_file():
            files.append(q)
        else:
            raise InputError(p, "does not exist")
    runs = []
    for f in files:
        data = load_result(f)
        if not isinstance(data, dict) or data.get("termqa_result") is None or "occurrences" not in data:
            raise InputError(f, "is not a termqa result (written by termqa check --json)")
        if data.get("languages"):  # meta-evaluation compares systems of one language pair
            raise UsageError(f"{f} holds results of {len(data['languages'])} target languages "
                             f"({', '.join(data['languages'])}); meta-eval takes one language pair per run",
                             fix="meta-evaluate each language on its own: termqa check the files of one target "
                                 "language (or --tgt-lang) per result")
        runs.append(Run(f.stem, data, doc_keys(data, [f.parent])))
    pairs = {r.system: sorted({(primary(d.get("src_lang") or ""), primary(d.get("tgt_lang") or ""))
                               for d in r.result.get("documents") or []})
             for r in runs}
    if len({tuple(v) for v in pairs.values()}) > 1:
        shown = "; ".join(f"{n}: {', '.join(f'{a}->{b}' for a, b in v)}" for n, v in pairs.items())
        raise UsageError(f"the results are of different language pairs ({shown}); meta-eval takes one pair per run",
                         fix="meta-evaluate the results of one language pair together, each pair in a run of its own")
    names = [r.system for r in runs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UsageError(f"two results for system {dup[0]}", fix="name each result JSON after its system")
    if len(runs) < 2:
        raise UsageError("meta-eval needs the results of at least two systems")
    return runs


def _mean_or_nan(xs):
    return mean(xs) if xs else math.nan


def _by_form(rows):
    g = defaultdict(list)
    for r in rows:
        g[(r["concept_id"], r["source_form"])].append(r["penalty"])
    return mean(mean(v) for v in g.values()) if g else math.nan


def _by_concept(rows):
    g = defaultdict(list)
    for r in rows:
        g[r["concept_id"]].append(r["penalty"])
    return mean(mean(v) for v in g.values()) if g else math.nan


_AGGREGATE = {"termqa": lambda rows: _mean_or_nan([r["penalty"] for r in rows]),
              "termqa_form": _by_form, "termqa_concept": _by_concept}


def _rendering(text):
    # segment-level counting metrics compare renderings by their case-folded surface (the lemma keys
    # the document-level values use are not in the result JSON)
    return " ".join((text or "").replace("\u2019", "'").casefold().split()) or None


def item_hits(result: Mapping) -> list[dict]:
    """Per occurrence, per counting metric: True/False when the metric scores it, else absent.

    Mirrors termqa.metrics on the result JSON, for segment-level values: em and tcr_em on glossary
    match; tcr_pr against the chain's first rendering; tcr_t per consecutive pair, counted on the
    pair's second occurrence; conformity against the glossary or the chain's first/majority
    rendering."""

    allowed = {}
    for c in result.get("concepts", []):
        allowed[c["id"]] = (c.get("dnt", False), [t for t in c.get("terms", [])
                                                 if t.get("status") in ("preferred", "admitted", "unknown")])
    tgt_of = {d["doc_id"]: d.get("tgt_lang") for d in result.get("documents", [])}
    occ = result.get("occurrences", [])
    out = [dict() for _ in occ]
    chains = defaultdict(list)
    for n, o in enumerate(occ):
        chains[(o["doc_id"], o["concept_id"], o["source_form"])].append(n)
    for (doc, cid, _sf), idx in chains.items():
        dnt, terms = allowed.get(cid, (False, []))
        tl = tgt_of.get(doc)
        has_terms = dnt or any(tl is None or lang_matches(t.get("lang") or "", tl) for t in terms)
        rend = [_rendering(occ[n]["target_text"]) if occ[n]["target_span"] is not None else None for n in idx]
        gm = []
        for n in idx:
            o = occ[n]
            if not has_terms:
                gm.append(None)
            elif dnt:
                gm.append(o.get("align_method") == "dnt")
            else:
                gm.append(o.get("align_method") == "glossary" and o.get("label") != "F")
        seen = [r for r in rend if r is not None]
        first = seen[0] if seen else None
        counts = defaultdict(int)
        for r in seen:
            counts[r] += 1
        major = next((r for r in seen if counts[r] == max(counts.values())), None) if seen else None
        for pos, n in enumerate(idx):
            h = out[n]
            if gm[pos] is not None:
                h["em"] = gm[pos]
                h["conformity_first"] = h["conformity_majority"] = gm[pos]
            elif first is not None:
                h["conformity_first"] = rend[pos] == first
                h["conformity_majority"] = rend[pos] == major
            if len(idx) >= 2:
                h["tcr_pr"] = rend[0] is not None and rend[pos] == rend[0]
                if gm[pos] is not None:
                    h["tcr_em"] = gm[pos]
                if pos > 0:
                    h["tcr_t"] = rend[pos - 1] is not None and rend[pos] == rend[pos - 1]
    return out


@dataclass(frozen=True)
class Table:
    """Scores per system, per item: {metric or 'human': {system: {item: value}}}."""

    segments: dict
    documents: dict
    systems: tuple


def build_tables(runs: Sequence[Run], *, biomqm: Optional[Mapping] = None, human_table: Optional[Mapping] = None,
                 categories: Optional[frozenset] = None, metrics: Sequence[str] = ALL_METRICS,
                 weights: Optional[Weighting] = None) -> tuple:
    """Per-segment and per-document human and metric scores for every run; and the warnings."""
    unknown = [m for m in metrics if m not in ALL_METRICS]
    if unknown:
        raise UsageError(f"unknown metrics: {', '.join(unknown)}", fix=f"choose from {', '.join(ALL_METRICS)}")
    if (biomqm is None) == (human_table is None):
        raise UsageError("give human scores: a bio-MQM folder or a table")  # pragma: no cover - CLI decides
    seg = {m: {} for m in ("human", *metrics)}
    doc = {m: {} for m in ("human", *metrics)}
    warnings = []
    for run in runs:
        res = run.result
        occ = res.get("occurrences", [])
        hits = item_hits(res)
        key = run.doc_keys
        targets = {(s["doc_id"], s["unit_id"], s["segment_id"]): s.get("target") for s in res.get("segments", [])}
        # human penalty per occurrence (bio-MQM) or human score per segment (table)
        bio_segs = None
        if biomqm is not None:
            sysdata = biomqm.get(run.system)
            if sysdata is None:
                raise UsageError(f"no bio-MQM annotations for system {run.system!r}",
                                 fix=f"name result files after the systems: {', '.join(sorted(biomqm))}")
            bio_segs = {(d, s.seg_id): s for d, g in sysdata.documents for s in g}
        hum_seg: dict = defaultdict(list)
        hum_doc: dict = defaultdict(list)
        mismatched = missing = 0
        for o in occ:
            dk = key.get(o["doc_id"], o["doc_id"])
            sk = (dk, o["unit_id"] if not o["segment_id"] else f"{o['unit_id']}:{o['segment_id']}")
            if bio_segs is not None:
                if o["target_span"] is None:
                    continue
                b = bio_segs.get((dk, o["unit_id"]))
                if b is None:
                    missing += 1
                    continue
                t = targets.get((o["doc_id"], o["unit_id"], o["segment_id"]))
                if t is not None and t != b.target:
                    mismatched += 1  # offsets would point elsewhere
                    continue
                pen = span_penalty(b, o["target_span"][0], o["target_span"][1], categories, weights)
                hum_seg[sk].append(pen)
                hum_doc[dk].append(pen)
        if bio_segs is not None:
            if missing:
                warnings.append(f"{run.system}: {missing} aligned occurrences in segments the annotations lack")
            if mismatched:
                warnings.append(f"{run.system}: {mismatched} occurrences skipped: target text differs from the "
                                "annotated one")
            seg["human"][run.system] = {k: -mean(v) for k, v in hum_seg.items()}
            doc["human"][run.system] = {k: -mean(v) for k, v in hum_doc.items()}
        else:
            mine = {(d, s): v for (sy, d, s), v in human_table.items() if sy == run.system}
            if not mine:
                raise UsageError(f"the human table has no scores for system {run.system!r}")
            seg["human"][run.system] = {(d, s): v for (d, s), v in mine.items()}
            per_doc = defaultdict(list)
            for (d, _s), v in mine.items():
                per_doc[d].append(v)
            doc["human"][run.system] = {d: mean(v) for d, v in per_doc.items()}
        # metric scores (higher is better: termqa penalties are negated)
        rows_seg, rows_doc = defaultdict(list), defaultdict(list)
        hits_seg = defaultdict(list)
        for o, h in zip(occ, hits):
            dk = key.get(o["doc_id"], o["doc_id"])
            sk = (dk, o["unit_id"] if not o["segment_id"] else f"{o['unit_id']}:{o['segment_id']}")
            hits_seg[sk].append(h)
            if o["penalty"] is not None:
                rows_seg[sk].append(o)
                rows_doc[dk].append(o)
        mdocs = res.get("metrics", {}).get("documents", {})
        for m in metrics:
            if m in _AGGREGATE:
                f = _AGGREGATE[m]
                seg[m][run.system] = {k: -f(v) for k, v in rows_seg.items() if v}
                doc[m][run.system] = {k: -f(v) for k, v in rows_doc.items() if v}
            else:
                sv = {}
                for k, hs in hits_seg.items():
                    vals = [h[m] for h in hs if m in h]
                    if vals:
                        sv[k] = sum(vals) / len(vals)
                seg[m][run.system] = sv
                dv = {}
                for did, md in mdocs.items():
                    v = (md.get(m) or {}).get("value")
                    if v is not None:
                        dv[key.get(did, did)] = float(v)
                doc[m][run.system] = dv
    systems = tuple(r.system for r in runs)
    return Table(seg, doc, systems), warnings


def matrix(scores: Mapping, systems: Sequence[str], items: Sequence):
    np = _np()
    return np.array([[scores.get(s, {}).get(i, np.nan) for i in items] for s in systems], dtype=float)


def evaluate(table: Table, *, k: int = 1000, seed: int = 0, compare_k: int = 0,
             metrics: Optional[Sequence[str]] = None) -> dict:
    """SPA (over documents), acc*_eq at segment and document level, per metric; with compare_k > 0,
    each metric against the best one by SPA and by segment acc*_eq (PERM-BOTH p-values)."""
    _np()  # fail early, naming the extra to install, when numpy is missing
    systems = list(table.systems)
    metrics = [m for m in (metrics or table.documents) if m != "human"]
    seg_items = sorted({i for v in table.segments["human"].values() for i in v}, key=_item_order)
    doc_items = sorted({i for v in table.documents["human"].values() for i in v}, key=_item_order)
    h_seg = matrix(table.segments["human"], systems, seg_items)
    h_doc = matrix(table.documents["human"], systems, doc_items)
    signs = sign_vectors(len(doc_items), k, seed)
    out = {}
    mats = {}
    for m in metrics:
        m_seg = matrix(table.segments[m], systems, seg_items)
        m_doc = matrix(table.documents[m], systems, doc_items)
        mats[m] = (m_seg, m_doc)
        s = spa(h_doc, m_doc, signs=signs)
        out[m] = {
            "spa": s.as_dict(systems),
            "acc_eq_segment": acc_eq(h_seg, m_seg).as_dict(),
            "acc_eq_document": acc_eq(h_doc, m_doc).as_dict(),
            "system_scores": {sy: _r(_nanmean(m_doc[n])) for n, sy in enumerate(systems)},
        }
    human_sys = {sy: _r(_nanmean(h_doc[n])) for n, sy in enumerate(systems)}
    significance = {}
    if compare_k and len(metrics) > 1:
        for stat_name, level, fn in (
            ("spa", 1, lambda h, x: spa(h, x, signs=signs).value),
            ("acc_eq_segment", 0, lambda h, x: acc_eq(h, x).value),
        ):
            hmat = h_doc if level else h_seg
            key = "spa" if stat_name == "spa" else "acc_eq_segment"
            best = max(metrics, key=lambda m: -1 if out[m][key]["value"] is None else out[m][key]["value"])
            rows = {}
            for m in metrics:
                if m == best:
                    continue
                rows[m] = compare(fn, hmat, mats[best][level], mats[m][level], k=compare_k, seed=seed + 1)
            significance[stat_name] = {"best": best, "against": rows, "permutations": compare_k}
    return {
        "systems": systems,
        "documents": len(doc_items),
        "segments": len(seg_items),
        "permutations": int(signs.shape[0]),
        "exact_test": bool(signs.shape[0] == 2 ** len(doc_items)),
        "seed": seed,
        "human_system_scores": human_sys,
        "metrics": out,
        "significance": significance,
    }


def _nanmean(row):
    np = _np()
    v = row[np.isfinite(row)]
    return float(v.mean()) if v.size else None


def _item_order(item):

    if isinstance(item, tuple):
        return [_natural(str(x)) for x in item]
    return [_natural(str(item))]


def render_text(report: Mapping) -> str:
    """The table the CLI prints."""
    lines = [f"meta-evaluation: {len(report['systems'])} systems, {report['documents']} documents, "
             f"{report['segments']} segments; human: {report.get('human', {}).get('source', 'given')}"
             f" ({report.get('human', {}).get('categories', 'all')} errors)"]
    lines.append(f"SPA over documents, {report['permutations']} "
                 f"{'sign vectors (exact test)' if report['exact_test'] else 'permutations'}, seed {report['seed']}")
    lines.append(f"{'metric':<20} {'SPA':>7} {'acc*eq seg':>11} {'eps':>8} {'acc*eq doc':>11} {'eps':>8}")

    def f(x):
        return "    n/a" if x is None else f"{x:7.3f}"

    for m, v in report["metrics"].items():
        s, a, d = v["spa"], v["acc_eq_segment"], v["acc_eq_document"]
        lines.append(f"{m:<20} {f(s['value'])} {f(a['value']):>11} {f(a['epsilon']):>8} {f(d['value']):>11} "
                     f"{f(d['epsilon']):>8}")
    human = report.get("human") or {}
    if human.get("mqm_weights"):
        lines.append(f"MQM weights: {human['mqm_weights']['name']} ({human['mqm_weights']['description']})")
    spans = (human.get("error_spans") or {}).get("total")
    if spans:
        lines.append(f"bio-MQM {SpanRepairs.from_dict(spans).describe()}")
    for stat, sig in report.get("significance", {}).items():
        parts = [f"{m} p={r['p']}" for m, r in sig["against"].items()]
        lines.append(f"{stat}: best {sig['best']}; better than: {', '.join(parts)} ({sig['permutations']} permutations)")
    for w in report.get("warnings", []):
        lines.append(f"warning: {w}")
    return "\n".join(lines)


def meta_evaluate(runs: Sequence[Run], *, biomqm: Optional[Mapping] = None, human_table: Optional[Mapping] = None,
                  categories: str = "all", metrics: Sequence[str] = ALL_METRICS, k: int = 1000, seed: int = 0,
                  compare_k: int = 0, human_source: str = "", mqm_weights: str) -> dict:
    """The whole meta-evaluation: tables from results and human data, then the statistics.

    `mqm_weights` names how bio-MQM errors weigh (termqa.formats.biomqm.WEIGHTINGS)."""
    weights = mqm_weighting(mqm_weights)
    table, warnings = build_tables(runs, biomqm=biomqm, human_table=human_table,
                                   categories=category_filter(categories), metrics=metrics, weights=weights)
    report = evaluate(table, k=k, seed=seed, compare_k=compare_k, metrics=metrics)
    human = {"source": human_source or ("bio-MQM" if biomqm is not None else "table"), "categories": categories,
             "mqm_weights": weights.as_dict() if biomqm is not None else None,
             "error_spans": _error_spans(biomqm, runs) if biomqm is not None else None}
    return {
        "termqa_meta_eval": 1,
        "human": human,
        **report,
        "signatures": {r.system: r.result.get("signature", {}).get("string") for r in runs},
        "warnings": warnings,
    }


def _error_spans(biomqm: Mapping, runs: Sequence[Run]) -> dict:
    """What the loader did with the error spans of the systems evaluated, per system and in total."""
    per = {r.system: biomqm[r.system].spans for r in runs if r.system in biomqm}
    total = SpanRepairs()
    for v in per.values():
        total += v
    return {"total": total.as_dict(), "systems": {k: v.as_dict() for k, v in per.items()}}


__all__ = ["span_penalty", "read_human_table",
           "load_runs", "doc_keys", "item_hits", "build_tables", "evaluate", "meta_evaluate", "render_text",
           "Run", "ALL_METRICS"]
