"""The output of `termqa compare`: the comparison object (`--json`, the HTML report's input) and the
console summary.

Separate from termqa.evaluate.compare because it reads only the systems' result dicts and the ranking
statistics: the layout of the JSON and of the console text live here, the stages in compare.py.
"""
from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import replace
from typing import Sequence

from termqa.evaluate.ranking import EXACT_MAX_DOCUMENTS, SEGMENT_PAIRING_BELOW, paired_permutation_test, rank_systems
from termqa.model import OUTCOMES

COMPARE_VERSION = 1
# Above this many pairs the console lists only the significant ones.
MAX_CONSOLE_PAIRS = 10
# A spread of coverage (share of occurrences scored) above this is worth a warning: unjudged
# occurrences are left out of scores, so systems would be scored on different occurrences.
COVERAGE_GAP = 0.10


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


def compare_dict(cr) -> dict:
    """The comparison object of a termqa.evaluate.compare.CompareResult."""
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
