"""The HTML comparison report of `termqa compare`: one self-contained file, no script.

It renders the comparison object (`termqa.evaluate.compare.compare(...).to_dict()`, `termqa compare --json`)
with the check report's stylesheet and helpers (`reports/html.py`): the same autoescaping jinja2
environment, the same badges, label chips and verdict bars. Highlighted spans are made by splitting
the raw text at the offsets and escaping each piece; the page has no script at all, so its CSP allows
none.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Optional

from termqa.errors import UsageError
from termqa.evaluate.compare_output import COMPARE_VERSION
from termqa.fileio import atomic_write
from termqa.labels import METRIC_TEXT, OUTCOME_TEXT, OUTCOMES, PROVENANCE_TEXT, label_info
from termqa.shownpath import path_names, paths_in, scrub_all

from .html import STATUS_CLASS, _asset, _chart, _concept_name, _env, _Ids, fmt_pct, fmt_score, split_at_span
from .issues import base_name

# Below this many documents the exact sign-flip test over documents cannot reach p < 0.05.
FEW_DOCUMENTS = 6
# Side-by-side occurrence rows shown per concept; the JSON has them all.
MAX_ROWS_PER_CONCEPT = 150

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def _badge(outcome: str) -> dict:
    text, icon, meaning = OUTCOME_TEXT.get(outcome, (outcome, "•", ""))
    return {"outcome": outcome, "text": text, "icon": icon, "meaning": meaning}


def _fmt_p(p: Optional[float]) -> str:
    if p is None:
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _fmt_diff(d: Optional[float]) -> str:
    return "—" if d is None else f"{d:+.3f}"


def _identical_groups(data: dict, order: list) -> list[list[str]]:
    """Systems whose every occurrence has the same rendering and verdict: one system under several
    names (a file given twice, an engine that did not change). Groups of 2+, in ranking order."""
    keys = {n: [] for n in order}
    for c in data.get("concepts") or []:
        for o in c.get("occurrences") or []:
            for n in order:
                s = (o.get("systems") or {}).get(n)
                keys[n].append(None if s is None else (s.get("target_text"), s.get("outcome"), s.get("label")))
    by_key: dict = {}
    for n in order:
        by_key.setdefault(tuple(keys[n]), []).append(n)
    return [g for g in by_key.values() if len(g) > 1]


def _heat(p: Optional[float], better: bool, worse: bool) -> str:
    """Background of a p-value cell: the smaller p, the stronger the colour; green when the row
    system is significantly better, red when worse, grey otherwise."""
    if p is None:
        return "#f6f8fa"
    import math

    strength = min(1.0, -math.log10(max(p, 1e-4)) / 4)  # p=1 -> 0, p=1e-4 -> 1
    if better:
        base = (26, 127, 55)
    elif worse:
        base = (194, 31, 43)
    else:
        base = (87, 96, 106)
        strength *= 0.5
    mix = 0.12 + 0.7 * strength
    r, g, b = (round(255 + (c - 255) * mix) for c in base)
    return f"#{r:02x}{g:02x}{b:02x}"


def build_compare_view(data: dict) -> dict:
    """Everything the template shows, precomputed (testable without HTML)."""
    if not isinstance(data, dict) or data.get("termqa_compare") != COMPARE_VERSION:
        got = data.get("termqa_compare") if isinstance(data, dict) else type(data).__name__
        raise UsageError(f"the comparison report needs a termqa comparison object of version {COMPARE_VERSION}, "
                         f"got {got!r}", fix="render the JSON written by termqa compare --json")
    sig = data["signature"]
    systems = data["systems"]
    names = [s["name"] for s in systems]
    by_name = {s["name"]: s for s in systems}
    docs = data.get("documents") or []
    src_lang = docs[0]["src_lang"] if docs else ""
    tgt_langs = sorted({s["tgt_lang"] for s in systems if s.get("tgt_lang")})

    ranking = []
    for r in data["ranking"]:
        ranking.append({
            **r, "rank_text": "—" if r["rank"] is None else f"{r['rank']}{'=' if r['tie'] else ''}",
            "score_text": fmt_score(r["score"]), "micro_text": fmt_score(r["micro"]),
            "form_text": fmt_score(r["by_source_form"]), "concept_text": fmt_score(r["by_concept"]),
            "coverage_text": fmt_pct(r["coverage"]),
            "inputs": by_name[r["name"]]["inputs"],
            "input_names": [base_name(i) for i in by_name[r["name"]]["inputs"]],
            # the file is worth naming when the system's name does not already say it
            "show_inputs": [Path(base_name(i)).stem for i in by_name[r["name"]]["inputs"]] != [r["name"]],
            "tied_text": ("all other systems" if len(r["tied_with"]) == len(systems) - 1 > 1
                          else ", ".join(r["tied_with"]) or "—"),
            "tied_count": len(r["tied_with"]),
        })
    order = [r["name"] for r in data["ranking"]]
    identical = _identical_groups(data, order)
    same_as = {n: [m for m in g if m != n] for g in identical for n in g}
    warnings = data.get("warnings") or []
    for r in ranking:
        r["identical_to"] = same_as.get(r["name"], [])
        r["warned"] = [w for w in warnings if re.search(rf"(?<![\w-]){re.escape(r['name'])}(?![\w-])", w)]
    # rank clusters, shown once: rank, members, best and worst score
    clusters = []
    for r in ranking:
        key = r["rank_text"].rstrip("=")
        if clusters and clusters[-1]["key"] == key:
            clusters[-1]["members"].append(r)
        else:
            clusters.append({"key": key, "members": [r]})
    for i, cl in enumerate(clusters):
        for j, r in enumerate(cl["members"]):
            r["cluster_first"] = j == 0
            r["cluster_size"] = len(cl["members"])
            r["cluster_index"] = i
    # columns of the side-by-side tables: identical systems share one
    columns, seen = [], set()
    for n in order:
        if n in seen:
            continue
        members = [n] + same_as.get(n, [])
        seen.update(members)
        columns.append({"name": n, "members": members, "all": " = ".join(members),
                        "title": n if len(members) == 1 else f"{n} +{len(members) - 1} identical"})

    verdicts = []
    for name in [r["name"] for r in data["ranking"]]:
        s = by_name[name]
        chart = _chart(s["outcomes"])
        verdicts.append({
            "name": name, "chart": chart,
            "labels": [dict(label_info(k), count=n) for k, n in s["labels"].items()],
        })

    tests = {}
    for p in data["pairwise"]:
        tests[(p["a"], p["b"])] = p
        tests[(p["b"], p["a"])] = dict(p, mean_diff=None if p["mean_diff"] is None else -p["mean_diff"])
    matrix = []
    for a in order:
        cells = []
        for b in order:
            if a == b:
                cells.append(None)
                continue
            t = tests[(a, b)]
            cells.append({"p": _fmt_p(t["p_value"]), "diff": _fmt_diff(t["mean_diff"]),
                          "significant": t["significant"], "pairs": t.get("pairs", t["documents"]),
                          "unit": t.get("unit", "document"), "method": t["method"],
                          "better": t["better"] == a, "worse": t["better"] == b, "b": b,
                          "bg": _heat(t["p_value"], t["better"] == a, t["better"] == b)})
        matrix.append({"name": a, "cells": cells})

    col_names = [col["name"] for col in columns]
    metrics = []
    keys = list(METRIC_TEXT) + sorted({k for s in systems for k in s["metrics"]} - set(METRIC_TEXT))
    for k in keys:
        if not any(k in s["metrics"] for s in systems):
            continue
        name, meaning = METRIC_TEXT.get(k, (k, ""))
        metrics.append({"name": name, "meaning": meaning, "cells": [
            {"value": fmt_pct((by_name[n]["metrics"].get(k) or {}).get("value")),
             "scored": (by_name[n]["metrics"].get(k) or {}).get("scored")} for n in col_names]})

    doc_rows = []
    for d in docs:
        ids = [d["doc_ids"][n] for n in order]
        doc_rows.append({"index": d["index"] + 1, "segments": d["segments"], "ids": ids,
                         "name": base_name(ids[0]) if len(set(ids)) == 1 else f"{base_name(ids[0])} …",
                         "all_ids": "; ".join(f"{n}: {i}" for n, i in zip(order, ids)),
                         "scores": [fmt_score(d["scores"][n]) for n in col_names]})
    same_ids = all(len(set(r["ids"])) == 1 for r in doc_rows)

    anchors = _Ids("concept", [(c["id"],) for c in data["concepts"]])
    concepts = []
    for c in data["concepts"]:
        concepts.append(_concept_view(c, col_names, src_lang, tgt_langs, anchors))
    # concepts where the systems differ most come first
    concepts.sort(key=lambda cv: (-cv["spread"], -cv["differs"], str(cv["id"])))

    acc = data.get("accounting") or None
    return {
        "sig": sig, "names": order, "input_names": names, "n_systems": len(systems), "n_documents": len(docs),
        "src_lang": src_lang, "tgt_langs": tgt_langs, "judge": sig.get("judge"),
        "mode": (sig.get("settings") or {}).get("mode", "counting"),
        "test": sig.get("test") or {}, "ranking": ranking, "verdicts": verdicts, "matrix": matrix,
        "metrics": metrics, "documents": doc_rows, "same_doc_ids": same_ids, "concepts": concepts,
        # an identical-systems alert of the compare JSON is said once, by the group's own line
        "warnings": [w for w in warnings if not ("are identical" in w and any(
            all(n in w for n in g) for g in identical))],
        "identical": identical, "columns": columns,
        "compact_matrix": len(order) > 8,
        "few_documents": len(docs) < FEW_DOCUMENTS and not any(
            "no difference can reach" in w or "paired segment scores" in w for w in warnings),
        "min_p": _fmt_p(2 / 2 ** len(docs)) if docs else "—",
        "agreeing_rows": sum(cv["agreeing_rows"] for cv in concepts),
        "accounting": [(k, v) for k, v in acc.items() if not isinstance(v, dict)] if acc else None,
        "systems": [by_name[n] for n in order], "outcome_badges": [_badge(o) for o in OUTCOMES],
    }


def _concept_view(c: dict, order: list, src_lang: str, tgt_langs: list, anchors) -> dict:
    terms = []
    for t in c.get("terms") or []:
        if t.get("lang") and any(t["lang"].split("-")[0] == g.split("-")[0] for g in tgt_langs):
            terms.append({"text": t["text"], "status": t.get("status") or "unknown",
                          "css": STATUS_CLASS.get(t.get("status") or "unknown", "plain")})
    forms = []
    per_system_pen = {n: [] for n in order}
    rendering_sets = {n: set() for n in order}
    for f in c["forms"]:
        cells = []
        for n in order:
            s = f["systems"].get(n)
            if s is None:
                cells.append(None)
                continue
            rendering_sets[n].update(r["text"] for r in s["renderings"])
            if s["score"] is not None:
                per_system_pen[n].append(s["score"])
            cells.append({
                "renderings": s["renderings"], "score": fmt_score(s["score"]),
                "badges": [dict(_badge(o), count=k) for o, k in s["outcomes"].items() if k],
            })
        ref = f.get("reference")
        forms.append({
            "doc": f["doc_index"] + 1, "source_form": f["source_form"],
            # shown: the form as written (an older comparison JSON has only its first surface)
            "source_text": f.get("source_display") or f["source_text"],
            "ref_text": ref["text"] if ref else None, "ref_provenance": ref["provenance"] if ref else None,
            "ref_provenance_text": PROVENANCE_TEXT.get(ref["provenance"], "") if ref else "",
            "refs_differ": ref is None and bool(f.get("references")),
            "references": f.get("references") or {}, "cells": cells,
        })
    rows = []
    agreeing = 0
    differing = []
    for o in c["occurrences"]:
        seen = {None if (o["systems"].get(n) is None) else
                (o["systems"][n]["target_text"], o["systems"][n]["outcome"]) for n in order}
        if len(seen) <= 1 and len(order) > 1:
            agreeing += 1  # every system says the same here: the form table already shows it
            continue
        differing.append(o)
    for o in differing[:MAX_ROWS_PER_CONCEPT]:
        cells = []
        for n in order:
            s = o["systems"].get(n)
            if s is None:
                cells.append(None)
                continue
            cells.append({
                "target": split_at_span(s["target"], s["target_span"]) if s["target"] is not None else [],
                "rendering": s["target_text"], "badge": _badge(s["outcome"]), "label": label_info(s["label"]),
                "reason": s["reason"],
            })
        rows.append({"doc": o["doc_index"] + 1, "unit": o["unit_id"], "segment": o["segment_id"],
                     "source": split_at_span(o["source"], o["source_span"]), "cells": cells})
    means = [sum(v) / len(v) for v in per_system_pen.values() if v]
    outcome_by_system = []
    for n in order:
        total = Counter()
        for f in c["forms"]:
            s = f["systems"].get(n)
            if s:
                total.update(s["outcomes"])
        outcome_by_system.append(total)
    return {
        "id": c["id"], "anchor": anchors[(c["id"],)], "name": _concept_name(c, src_lang), "dnt": c.get("dnt"),
        "definition": c.get("definition"), "terms": terms, "forms": forms, "rows": rows,
        "more_rows": max(0, len(differing) - MAX_ROWS_PER_CONCEPT), "agreeing_rows": agreeing,
        "differing_rows": len(differing),
        "n_occurrences": len(c["occurrences"]),
        "spread": (max(means) - min(means)) if len(means) > 1 else 0.0,
        "differs": len({frozenset(v) for v in rendering_sets.values() if v}) > 1,
    }


def render_compare_html(data: dict) -> str:
    """The comparison report as one self-contained HTML string."""
    from markupsafe import Markup

    # forwarded like the check report: no path of the machine that ran it (termqa.shownpath)
    view = scrub_all(build_compare_view(data), path_names(paths_in(data)))
    css = _asset("report.css", "</style")
    return _env().get_template("compare.html.j2").render(v=view, css=Markup(css), csp=CSP)


def write_compare_html(data: dict, path) -> Path:
    path = Path(path)
    atomic_write(path, render_compare_html(data))
    return path
