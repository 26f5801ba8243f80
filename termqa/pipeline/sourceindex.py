"""The source index of a run: the trie of every source designation and each concept's head term, built
once per source language (and set of glossaries) and kept in the index cache between runs.

Separate from `detect` (which defines the trie and matches with it) because it is the cached, per-run
part: what the index is keyed on decides when a stored one may be reused.
"""
from __future__ import annotations

from typing import Optional

from termqa.config import VariantLevel
from termqa.pipeline.detection import Detection
from termqa.errors import LanguageError
from termqa.model import terms_fingerprint
from termqa.pipeline import detect as dt
from termqa.pipeline.sourcevariants import variant_indexes
from termqa.store import indexcache


def cached_source_index(concepts, src_l: str, lemmatiser, path, detection: Detection,
                        fingerprint: Optional[str] = None) -> tuple:
    """`source_index` through the active index cache.

    Keyed by a fingerprint of every designation that can enter the index (`terms_fingerprint`: concept
    id, text, language, status, type: what build_entries and the head terms read; `fingerprint` when the
    caller has it already), the source language, the lemmatiser (name = tool, version and tables; mode)
    and the variant level (static variants enter the index): the same termbase read another way gives
    the same key, and any change to a term gives another.
    """
    cache = indexcache.active()
    if not cache.enabled:
        return source_index(concepts, src_l, lemmatiser, path, detection)
    key = indexcache.make_key("source-index", fingerprint or terms_fingerprint(concepts), src_l, lemmatiser.name,
                              lemmatiser.mode, str(detection.variants))
    hit = cache.load(key)
    if isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[0], dt.TermTrie):
        return hit
    built = source_index(concepts, src_l, lemmatiser, path, detection)
    if detection.any_variants:  # stored with the variant passes' indexes built
        variant_indexes(built[0], detection.variants == VariantLevel.DYNAMIC)
    cache.store(key, built)
    return built


def source_index(concepts, src_l, lemmatiser, path, detection: Detection):
    """The trie of every source designation, and each concept's head term (its preferred term).

    `detection.variants` decides which entries the trie holds (static variants from "static" on): the
    cache of the index keys on it."""
    entries = dt.build_entries(concepts, src_l, lemmatiser, detection)
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
