"""The read stage: bilingual files and glossaries read (paths, or records already read), languages given
to glossaries without language columns, and the check that a glossary can check the documents' target
languages at all.

Separate from `check.prepare`, which settles the options, calls these and the input sanity checks, and
makes the `Run`.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Optional, Sequence

from termqa import formats
from termqa.errors import LanguageError, MissingLanguageError
from termqa.fileio import file_sha256
from termqa.formats.csvgloss import assign_languages
from termqa.formats.xlsxgloss import split_sheet
from termqa.lang.langtags import normalise_tag
from termqa.model import BilingualFile, Concept, Document, Glossary
from termqa.pipeline.pairs import every_pair
from termqa.store import conceptrows, indexcache
from termqa.store.gcpause import paused_gc
from termqa.store.packed import SegmentPacker, packed_document

# Above this many bytes of input files, the documents of a project are kept packed once read (`read_inputs`):
# ~3M words of XLIFF; a smaller project keeps plain records (packing costs time, unpacking more).
PACK_PROJECT_BYTES = 64 * 1024 * 1024


def read_inputs(items, src_lang, tgt_lang) -> list[BilingualFile]:
    """The bilingual files (records already read pass as they are). In a project over PACK_PROJECT_BYTES, each
    file's segments are packed as soon as it is read: memory holds the file being read and the others
    compressed, not every segment of the project as records."""
    pack = _input_bytes(items) > PACK_PROJECT_BYTES
    files = []
    for item in items:
        if not isinstance(item, BilingualFile):
            try:
                # a big file read streaming keeps its segments packed as they are read
                item = formats.read_bilingual(item, src_lang=src_lang, tgt_lang=tgt_lang, sink=SegmentPacker)
            except MissingLanguageError as exc:  # a TMX of several targets: every pair (pipeline/pairs.py)
                if tgt_lang:
                    raise
                item = every_pair(item, exc, src_lang, sink=SegmentPacker)
            if pack:
                item = replace(item, documents=tuple(packed_document(d) for d in item.documents))
        files.append(item)
    return files


def read_file(path, **langs):
    """Any file read as the stages read theirs (formats.read_any's arguments): a big one streaming into packed
    segments, with the collector paused while its records are made (for `inspect` and `compare`)."""
    with paused_gc():
        return formats.read_any(path, sink=SegmentPacker, **langs)


def read_bilingual_file(path, **langs):
    """A bilingual file read as `read_file` reads it (formats.read_bilingual's arguments)."""
    with paused_gc():
        return formats.read_bilingual(path, sink=SegmentPacker, **langs)


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


def glossary_fits(concepts: Sequence[Concept], documents: Sequence[Document], source_only: bool) -> list[str]:
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
        digest = file_sha256(split_sheet(path)[0])  # a workbook's sheet (`terms.xlsx#Sheet2`): the key has the path
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



def expand_paths(inputs, expand) -> list:
    """Folders expanded to their files; records already read kept where they stand."""
    if inputs and all(isinstance(i, BilingualFile) for i in inputs):
        return list(inputs)
    out = []
    for item in inputs:
        out.extend([item] if isinstance(item, BilingualFile) else expand([item]))
    return out or expand([])


def give_languages(gl, files, src_lang, tgt_lang):
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
    return [g if g.languages or g.format not in ("csv", "tsv", "xlsx") else assign_languages(g, src, tgt)
            for g in gl]
