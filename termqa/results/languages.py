"""A run over several target languages, language by language.

A delivery is one source in many languages. Its figures are read per language: a score averaged over
German and Russian documents says nothing about either. `per_language` slices a run by its documents'
target language and gives each slice what a run of that language alone gives (summary, scores, metrics
and glossary backlog candidates), made by the same functions: the serialiser hands in its own builder
(`streamed_result`), so this module computes no figure itself. `totals_only` turns the top-level
figures of such a run into totals: counts stay, averaged scores and shares move to the languages.

The JSON result gets `languages` (keyed by target language tag) only when a run has documents of
several target languages: a single-language result keeps its shape.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping

from termqa.results.backlog import backlog
from termqa.lang.langtags import normalise_tag
from termqa.results.gate import failures
from termqa.results.langslice import LANGUAGE_KEYS, language_of, slice_result, target_languages

_AVERAGED = ("system", "micro", "by_source_form", "by_concept", "coverage")


def slice_run(res, lang: str):
    """The CheckResult of the documents in `lang` only, as a run of that language alone gives it."""
    docs = [d for d in res.documents if language_of(d) == lang]
    ids = {d.doc_id for d in docs}
    files = []
    for f in res.files:
        mine = tuple(d for d in f.documents if d.doc_id in ids)
        if mine:
            files.append(replace(f, documents=mine) if len(mine) != len(f.documents) else f)
    return replace(
        res, files=files, documents=docs,
        verdicts=[v for v in res.verdicts if v.occurrence.doc_id in ids],
        references=[r for r in res.references if r.doc_id in ids],
        metric_items=[i for i in res.metric_items if i.doc_id in ids],
        skipped_untranslated=res.skipped_by_language.get(lang, 0),
        skipped_by_language={lang: res.skipped_by_language.get(lang, 0)},
    )


def per_language(res, build: Callable) -> dict:
    """language -> {documents, source_languages, summary, scores, metrics, backlog_candidates}, each from
    `build` (termqa.results.serialise.streamed_result: its long lists made as read) over the run sliced
    to that language."""
    out = {}
    for lang in target_languages(res.documents):
        part = slice_run(res, lang)
        data = build(part)
        out[lang] = {
            "documents": [d.doc_id for d in part.documents],
            "source_languages": sorted({normalise_tag(d.src_lang or "") for d in part.documents}),
            "source_words": data["summary"]["source_words"],  # the one definition (termqa.wordcount)
            **{k: data[k] for k in LANGUAGE_KEYS},
            "backlog_candidates": backlog(data)["candidates"],
        }
    return out


def totals_only(data: dict) -> dict:
    """The top-level scores and metrics of a mixed-language result as totals: counts stay, averages
    (scores, coverage, metric ratios, variation shares) are per language only."""
    see = "per language: see languages.<tag>"
    data["scores"] = {**{k: None for k in _AVERAGED}, "scored": data["scores"]["scored"],
                      "unjudged": data["scores"]["unjudged"], "averages": see}
    data["metrics"] = {"overall": {}, "documents": data["metrics"]["documents"], "variation": {}, "averages": see}
    return data


def gate(data: Mapping, conditions) -> dict:
    """language -> the `--fail-on` conditions that hold for it (termqa.results.gate.failures on its own
    summary and scores); for a single-language result, its one language."""
    langs = data.get("languages")
    if not langs:
        return {",".join(target_languages(data.get("documents") or [])) or "und": failures(data, conditions)}
    return {lang: failures(part, conditions) for lang, part in langs.items()}


def gate_message(failed: Mapping[str, list]) -> str:
    """One line saying which languages failed, and why."""
    bad = {lang: f for lang, f in failed.items() if f}
    if len(failed) == 1:
        return "; ".join(next(iter(bad.values()), []))
    return (f"{len(bad)} of {len(failed)} languages failed ({', '.join(bad)}): "
            + " | ".join(f"{lang}: {'; '.join(f)}" for lang, f in bad.items()))


__all__ = ["language_of", "target_languages", "slice_run", "slice_result", "per_language", "totals_only", "gate", "gate_message"]
