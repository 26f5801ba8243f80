"""A builder of realistic `termqa check` result dicts (see notes/result-json.md) for report tests.

The pipeline is not needed: segments, spans, counts and scores are derived here from a small
hand-written project so that every number in the dict agrees with every other one. It covers
several documents, concepts with synonyms and statuses, every outcome, several labels,
unjudged occurrences with their reasons, and hostile strings (markup, quotes, `</script>`,
non-BMP characters) in every place text from files can reach.
"""
from __future__ import annotations

import copy
from collections import Counter, defaultdict

PENALTIES = {
    "conforming": 0.0, "justified": 0.0, "unjustified": 0.5,
    "A1": 1.0, "A2": 1.0, "A3": 3.0, "A4": 4.0, "A5": 4.0, "A6": 4.0, "A7": 3.0,
    "C": 4.0, "D": 3.0, "E": 1.0, "F": 1.0, "G": 1.0, "H": 1.0,
}

SCRIPT_TAG = "<script>alert(1)</script>"
IMG_ONERROR = '"><img src=x onerror=alert(1)>'
HOSTILE_UNIT = 'u9"><b>x</b>&amp;'

DOC_MANUAL = "samples/manual.xlf"
DOC_SERVICE = "samples/service guide (v2).xlf"
DOC_TMX = "memories/legacy.tmx"

CONCEPTS = [
    {"id": "c12", "definition": "Replaceable element that removes particles from engine oil.",
     "subject": "engine maintenance", "dnt": False,
     "terms": [
         {"text": "oil filter", "lang": "en", "status": "preferred", "raw_status": "preferredTerm-admn-sts", "type": "fullForm"},
         {"text": "OF", "lang": "en", "status": "admitted", "raw_status": "admittedTerm-admn-sts", "type": "abbreviation"},
         {"text": "filtre à huile", "lang": "fr", "status": "preferred", "raw_status": "preferredTerm-admn-sts", "type": "fullForm"},
         {"text": "filtre d'huile", "lang": "fr", "status": "deprecated", "raw_status": "deprecatedTerm-admn-sts", "type": "fullForm"},
     ]},
    {"id": "c7", "definition": "Tool that applies a set torque to a fastener.",
     "subject": "tools", "dnt": False,
     "terms": [
         {"text": "torque wrench", "lang": "en", "status": "preferred", "raw_status": "preferred", "type": "fullForm"},
         {"text": "clé dynamométrique", "lang": "fr", "status": "preferred", "raw_status": "preferred", "type": "fullForm"},
         {"text": "clé de serrage", "lang": "fr", "status": "admitted", "raw_status": "admitted", "type": "fullForm"},
     ]},
    {"id": "c3", "definition": "Product name; never translated.", "subject": "brand", "dnt": True,
     "terms": [{"text": "AcmeDrive", "lang": "en", "status": "preferred", "raw_status": "", "type": "fullForm"}]},
    {"id": "c21", "definition": "Friction part pressed against the brake disc.", "subject": "brakes", "dnt": False,
     "terms": [
         {"text": "brake pad", "lang": "en", "status": "preferred", "raw_status": "preferredTerm-admn-sts", "type": "fullForm"},
         {"text": "plaquette de frein", "lang": "fr", "status": "preferred", "raw_status": "preferredTerm-admn-sts", "type": "fullForm"},
         {"text": "garniture", "lang": "fr", "status": "superseded", "raw_status": "supersededTerm-admn-sts", "type": "fullForm"},
     ]},
    # Hostile glossary text: must render as text everywhere, including in the embedded JSON.
    {"id": 'c99"><x', "definition": "Markup test </script><script>window.__pwned=1</script> & more",
     "subject": IMG_ONERROR, "dnt": False,
     "terms": [
         {"text": "control unit", "lang": "en", "status": "preferred", "raw_status": "", "type": "fullForm"},
         {"text": "unité <b>de</b> commande", "lang": "fr", "status": "unknown", "raw_status": "", "type": "fullForm"},
     ]},
    {"id": "c40", "definition": "", "subject": "", "dnt": False,
     "terms": [
         {"text": "spark plug", "lang": "en", "status": "preferred", "raw_status": "", "type": "fullForm"},
         {"text": "bougie d'allumage", "lang": "fr", "status": "preferred", "raw_status": "", "type": "fullForm"},
     ]},
]

REFERENCES = {
    # (doc, concept, source form) -> (text, provenance)
    (DOC_MANUAL, "c12", "oil filter"): ("filtre à huile", "glossary"),
    (DOC_MANUAL, "c12", "of"): ("FH", "validated"),
    (DOC_MANUAL, "c7", "torque wrench"): ("clé dynamométrique", "glossary"),
    (DOC_MANUAL, "c3", "acmedrive"): ("AcmeDrive", "glossary"),
    (DOC_MANUAL, 'c99"><x', "control unit"): ("unité <b>de</b> commande", "glossary"),
    (DOC_SERVICE, "c12", "oil filter"): ("filtre à huile", "glossary"),
    (DOC_SERVICE, "c21", "brake pad"): ("plaquette de frein", "glossary"),
    (DOC_SERVICE, "c7", "torque wrench"): ("clé dynamométrique", "glossary"),
    (DOC_TMX, "c21", "brake pad"): ("plaquette de frein", "glossary"),
    (DOC_TMX, "c40", "spark plug"): ("bougie d'allumage", "glossary"),
}

# (doc, unit, seg_id, source, target, [(concept, form, src_surface, tgt_surface|None, outcome,
#   label, reason, judge, variation)])
SEGMENTS = [
    (DOC_MANUAL, "u1", "", "Replace the oil filter every 10 000 km.",
     "Remplacez le filtre à huile tous les 10 000 km.",
     [("c12", "oil filter", "oil filter", "filtre à huile", "conforming", None,
       "matches the glossary's preferred term", "rule", "none")]),
    (DOC_MANUAL, "u2", "s1", "Tighten the oil filter by hand, then use the torque wrench.",
     "Serrez le filtre d'huile à la main, puis utilisez la clé dynamométrique.",
     [("c12", "oil filter", "oil filter", "filtre d'huile", "error", "F",
       "the glossary marks 'filtre d'huile' as deprecated", "rule", "none"),
      ("c7", "torque wrench", "torque wrench", "clé dynamométrique", "conforming", None,
       "matches the glossary's preferred term", "rule", "none")]),
    (DOC_MANUAL, "u3", "", "Check the OF seal before fitting the oil filter.",
     "Vérifiez le joint du filtre avant de monter le filtre à huile.",
     [("c12", "of", "OF", "filtre", "justified", "explicitation",
       "the short form is spelled out for clarity", "gpt-4o-mini-2024-07-18", "acronym"),
      ("c12", "oil filter", "oil filter", "filtre à huile", "conforming", None,
       "matches the glossary's preferred term", "rule", "none")]),
    (DOC_MANUAL, "u4", "", "AcmeDrive models use a torque wrench set to 25 N·m.",
     "Les modèles Acme Drive utilisent une clé de serrage réglée à 25 N·m.",
     [("c3", "acmedrive", "AcmeDrive", "Acme Drive", "error", "A5",
       "do-not-translate item was altered", "rule", "none"),
      ("c7", "torque wrench", "torque wrench", "clé de serrage", "conforming", None,
       "admitted target term", "rule", "none")]),
    (DOC_MANUAL, HOSTILE_UNIT, 'seg<"1">', "Reset the control unit. " + SCRIPT_TAG,
     "Réinitialisez le boîtier. " + SCRIPT_TAG,
     [('c99"><x', "control unit", "control unit", "boîtier", "error", "A2",
       "a vague word replaces the glossary term <img src=x onerror=\"window.__pwned=2\">",
       "gpt-4o-mini-2024-07-18", "none")]),
    (DOC_MANUAL, "u10", "", "The control unit " + IMG_ONERROR + " is under the seat 🚗.",
     "Le control unit " + IMG_ONERROR + " est sous le siège 🚗.",
     [('c99"><x', "control unit", "control unit", "control unit", "error", "A4",
       "the term was left in English", "rule", "none")]),
    (DOC_SERVICE, "t-1", "1", "🚗 Inspect each brake pad & the disc.",
     "🚗 Inspectez chaque garniture & le disque.",
     [("c21", "brake pad", "brake pad", "garniture", "unjudged", None,
       "divergent rendering, needs the judge", None, "none")]),
    (DOC_SERVICE, "t-2", "1", "Worn brake pads reduce braking force.",
     "Des plaquettes de frein usées réduisent la force de freinage.",
     [("c21", "brake pad", "brake pads", "plaquettes de frein", "conforming", None,
       "matches the glossary's preferred term", "rule", "inflection")]),
    (DOC_SERVICE, "t-3", "1", "Replace the brake pad and the oil filter together.",
     "Remplacez les patins et le filtre à huile ensemble.",
     [("c21", "brake pad", "brake pad", "patins", "unjustified", "gratuitous_divergence",
       "a second word for the same part with no reason in context", "gpt-4o-mini-2024-07-18", "none"),
      ("c12", "oil filter", "oil filter", "filtre à huile", "conforming", None,
       "matches the glossary's preferred term", "rule", "none")]),
    (DOC_SERVICE, "t-4", "2", "Calibrate the torque wrench yearly.",
     "Étalonnez l'outil chaque année.",
     [("c7", "torque wrench", "torque wrench", "outil", "error", "A7",
       "a general word instead of the term", "gpt-4o-mini-2024-07-18", "none")]),
    (DOC_SERVICE, "t-5", "1", "Never reuse an oil filter.",
     "Ne réutilisez jamais un élément filtrant.",
     [("c12", "oil filter", "oil filter", "élément filtrant", "unjudged", None,
       "divergent rendering, needs the judge", None, "none")]),
    (DOC_SERVICE, "t-6", "1", "Store the torque wrench in its case.",
     "Rangez-la dans son étui.",
     [("c7", "torque wrench", "torque wrench", None, "unjudged", None,
       "no rendering found (missing or paraphrased)", None, "none")]),
    (DOC_TMX, "tu3", "", "Remove the brake pad clip.",
     "Retirez le clip de la plaquette de frein.",
     [("c21", "brake pad", "brake pad", "plaquette de frein", "conforming", None,
       "matches the glossary's preferred term", "rule", "none")]),
    (DOC_TMX, "tu4", "", "Gap the spark plug to 0.8 mm.",
     "Réglez l'écartement de la bougie à 0,8 mm.",
     [("c40", "spark plug", "spark plug", "bougie", "justified", "document_usage",
       "the document consistently uses the short form", "gpt-4o-mini-2024-07-18", "reduction")]),
    (DOC_TMX, "tu5", "", "A fouled spark plug causes misfires.",
     "Une bougie d'allumage encrassée provoque des ratés.",
     [("c40", "spark plug", "spark plug", "bougie d'allumage", "conforming", None,
       "matches the glossary's preferred term", "rule", "none")]),
]

DOC_META = {
    DOC_MANUAL: {"format": "xliff-1.2", "segments": 40},
    DOC_SERVICE: {"format": "xliff-2.1", "segments": 25},
    DOC_TMX: {"format": "tmx-1.4", "segments": 12},
}

OUTCOMES = ("conforming", "justified", "unjustified", "error", "unjudged")


def _penalty(outcome: str, label):
    if outcome == "unjudged":
        return None
    if outcome == "error":
        return PENALTIES[label]
    return PENALTIES[outcome]


def _mean(values):
    values = list(values)
    return round(sum(values) / len(values), 4) if values else None


def _metric(value, scored, total):
    return {"value": value, "scored": scored, "total": total}


def build_result(*, judge: bool = True, accounting: bool = True) -> dict:
    """Return a fresh result dict following notes/result-json.md exactly."""
    occurrences, segments = [], []
    for index, (doc, unit, seg_id, src, tgt, occs) in enumerate(SEGMENTS):
        segments.append({"doc_id": doc, "unit_id": unit, "segment_id": seg_id, "index": index,
                         "source": src, "target": tgt})
        for concept, form, src_surface, tgt_surface, outcome, label, reason, who, variation in occs:
            s0 = src.index(src_surface)
            t_span = None
            if tgt_surface is not None:
                t0 = tgt.index(tgt_surface)
                t_span = [t0, t0 + len(tgt_surface)]
            ref_text, provenance = REFERENCES[(doc, concept, form)]
            occurrences.append({
                "doc_id": doc, "unit_id": unit, "segment_id": seg_id, "segment_index": index,
                "concept_id": concept, "source_form": form, "source_text": src_surface,
                "source_span": [s0, s0 + len(src_surface)],
                "target_text": tgt_surface, "target_span": t_span,
                "variation": variation, "chain_size": 0, "is_first_mention": False,
                "via": "acronym" if variation == "acronym" else "glossary",
                "align_method": "glossary" if tgt_surface else None,
                "reference": {"text": ref_text, "provenance": provenance},
                "outcome": outcome, "label": label, "penalty": _penalty(outcome, label),
                "reason": reason, "judge": who,
                "prompt_version": "error_judge@1+ab12cd" if who and who != "rule" else None,
            })
    # Chains: size and first mention per (doc, concept, form), in document order.
    chains = defaultdict(list)
    for o in occurrences:
        chains[(o["doc_id"], o["concept_id"], o["source_form"])].append(o)
    for chain in chains.values():
        for i, o in enumerate(chain):
            o["chain_size"] = len(chain)
            o["is_first_mention"] = i == 0

    documents = []
    for doc, meta in DOC_META.items():
        mine = [o for o in occurrences if o["doc_id"] == doc]
        scored = [o["penalty"] for o in mine if o["penalty"] is not None]
        outcomes = Counter(o["outcome"] for o in mine)
        documents.append({
            "doc_id": doc, "path": doc, "format": meta["format"], "src_lang": "en", "tgt_lang": "fr",
            "segments": meta["segments"], "occurrences": len(mine), "score": _mean(scored),
            "scored": len(scored), "unjudged": outcomes["unjudged"],
            "outcomes": {k: outcomes[k] for k in OUTCOMES},
        })

    outcomes = Counter(o["outcome"] for o in occurrences)
    labels = Counter(o["label"] for o in occurrences if o["label"])
    reasons = Counter(o["reason"] for o in occurrences if o["outcome"] == "unjudged")
    scored = [o for o in occurrences if o["penalty"] is not None]
    by_form, by_concept = defaultdict(list), defaultdict(list)
    for o in scored:
        by_form[(o["doc_id"], o["concept_id"], o["source_form"])].append(o["penalty"])
        by_concept[(o["doc_id"], o["concept_id"])].append(o["penalty"])
    scores = {
        "system": _mean(d["score"] for d in documents if d["score"] is not None),
        "micro": _mean(o["penalty"] for o in scored),
        "by_source_form": _mean(_mean(v) for v in by_form.values()),
        "by_concept": _mean(_mean(v) for v in by_concept.values()),
        "scored": len(scored), "unjudged": outcomes["unjudged"],
        "coverage": round(len(scored) / len(occurrences), 4),
    }

    concepts = []
    for c in CONCEPTS:
        mine = [o for o in occurrences if o["concept_id"] == c["id"]]
        if not mine:
            continue
        penalties = [o["penalty"] for o in mine if o["penalty"] is not None]
        concepts.append({**copy.deepcopy(c), "occurrences": len(mine),
                         "worst_penalty": max(penalties) if penalties else None})

    references = [{"doc_id": d, "concept_id": c, "source_form": f, "text": t, "provenance": p}
                  for (d, c, f), (t, p) in REFERENCES.items()]

    judge_sig = None
    judge_part = "judge:none|prompts:none"
    if judge:
        judge_sig = {"model": "gpt-4o-mini-2024-07-18", "endpoint": "openai",
                     "prompt_versions": {"error_judge": "error_judge@1+ab12cd",
                                         "consistency_judge": "consistency_judge@1+77e0f1"}}
        judge_part = "judge:gpt-4o-mini-2024-07-18@openai|prompts:error_judge@1+ab12cd,consistency_judge@1+77e0f1"

    metrics_doc = {}
    for d in documents:
        n, s = d["occurrences"], d["scored"]
        metrics_doc[d["doc_id"]] = {
            "em": _metric(round(d["outcomes"]["conforming"] / n, 4), n, n),
            "tcr_pr": _metric(0.75, s, n), "tcr_t": _metric(0.8, s, n), "tcr_em": _metric(0.66, s, n),
            "conformity_first": _metric(0.5, s, n), "conformity_majority": _metric(None, 0, n),
        }
    n = len(occurrences)
    result = {
        "termqa_result": 1,
        "kind": "check",
        "signature": {
            "string": ("termqa:0.1.0|gloss:3f2a9c1d|lem:en=spacy-3.8.18 blank:en+lookups;"
                       "fr=spacy-3.8.18 blank:fr+lookups|" + judge_part + "|pen:9b1c0d2e"),
            "tool": "termqa 0.1.0",
            "glossaries": [{"path": "samples/terms.tbx", "format": "tbx-2008",
                            "sha256": "3f2a9c1d" + "0" * 56},
                           {"path": "glossaries/extra <terms>.csv", "format": "csv",
                            "sha256": "77" * 32}],
            "glossary_hash": "3f2a9c1d5e6f",
            "lemmatiser": {"en": "spacy-3.8.18 blank:en+lookups", "fr": "spacy-3.8.18 blank:fr+lookups"},
            "judge": judge_sig,
            "penalties": dict(PENALTIES),
            "penalties_hash": "9b1c0d2e4f5a",
            "settings": {"src_lang": "en", "tgt_lang": "fr", "mode": "judge" if judge else "counting",
                         "exhaustive": False, "domain": "automotive"},
        },
        "inputs": [
            {"path": DOC_MANUAL, "format": "xliff-1.2", "dialect": None, "documents": 1, "segments": 40},
            {"path": DOC_SERVICE, "format": "xliff-2.1", "dialect": None, "documents": 1, "segments": 25},
            {"path": DOC_TMX, "format": "tmx-1.4", "dialect": None, "documents": 1, "segments": 12},
        ],
        "documents": documents,
        "summary": {
            "documents": len(documents), "segments": sum(d["segments"] for d in documents),
            "occurrences": n, "concepts_found": len(concepts),
            "outcomes": {k: outcomes[k] for k in OUTCOMES},
            "labels": dict(labels),
            "unjudged_reasons": dict(reasons),
            "needs_judge": outcomes["unjudged"],
        },
        "scores": scores,
        "metrics": {
            "overall": {
                "em": _metric(round(outcomes["conforming"] / n, 4), n, n),
                "tcr_pr": _metric(0.7, scores["scored"], n), "tcr_t": _metric(0.78, scores["scored"], n),
                "tcr_em": _metric(0.61, scores["scored"], n),
                "conformity_first": _metric(0.5, scores["scored"], n),
                "conformity_majority": _metric(0.6667, scores["scored"], n),
            },
            "documents": metrics_doc,
        },
        "concepts": concepts,
        "references": references,
        "segments": segments,
        "occurrences": occurrences,
        "accounting": ({"calls": 12, "cached": 30, "failed": 1, "tokens_in": 18234, "tokens_out": 2210,
                        "cost_usd": 0.0123, "calls_per_scored_occurrence": 0.8}
                       if accounting else None),
        "warnings": ["memories/legacy.tmx: 2 translation units have no target and were skipped",
                     "glossary entry " + SCRIPT_TAG + " has no French term"],
    }
    return result


def build_empty_result() -> dict:
    """A run that found nothing: every list empty and every score null."""
    r = build_result(judge=False, accounting=False)
    r["documents"] = [dict(d, occurrences=0, score=None, scored=0, unjudged=0,
                           outcomes={k: 0 for k in OUTCOMES}) for d in r["documents"]]
    r["summary"].update(occurrences=0, concepts_found=0, outcomes={k: 0 for k in OUTCOMES},
                        labels={}, unjudged_reasons={}, needs_judge=0)
    r["scores"] = {"system": None, "micro": None, "by_source_form": None, "by_concept": None,
                   "scored": 0, "unjudged": 0, "coverage": None}
    r["metrics"] = {"overall": {}, "documents": {}}
    r["concepts"], r["references"], r["segments"], r["occurrences"] = [], [], [], []
    r["warnings"] = []
    return r
