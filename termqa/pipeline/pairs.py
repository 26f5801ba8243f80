"""Every language pair of a multilingual translation memory, each a document of its own.

A TMX may hold one source and several targets (a delivery in many languages exported together). The
reader takes one pair at a time (formats/tmx.py: `--tgt-lang` picks it); `termqa check` without
`--tgt-lang` checks every pair: the file is read once per target language it holds, and each pair
becomes a document whose id is the file's path and its target language (`all.tmx#ru`), so that the
pairs' references, scores and notes never mix. `compare` reads such a file as systems instead
(termqa.evaluate.compare), and `--tgt-lang` still narrows a check to one pair.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from termqa import formats
from termqa.errors import MissingLanguageError
from termqa.model import BilingualFile
from termqa.store.packed import PackedSegments, SegmentPacker


def every_pair(path: str, exc: MissingLanguageError, src_lang: Optional[str] = None) -> BilingualFile:
    """The file read once per target language `exc` (the reader's refusal to guess one) names, as one
    BilingualFile with a document per pair; re-raises `exc` when it is not about several targets."""
    if exc.which != "target" or len(exc.candidates) < 2:
        raise exc
    docs, warnings, problems, first = [], [], [], None
    for tgt in exc.candidates:
        f = formats.read_bilingual(path, src_lang=src_lang, tgt_lang=tgt)
        first = first or f
        warnings += [w for w in f.warnings if w not in warnings]
        problems += [p for p in f.problems if p not in problems]
        for d in f.documents:
            docs.append(_renamed(d, f"{d.doc_id}#{d.tgt_lang}"))
    return replace(first, documents=tuple(docs), tgt_lang=None, warnings=tuple(warnings), problems=tuple(problems))


def _renamed(doc, doc_id: str):
    """The document under another id (its segments carry it too)."""
    if isinstance(doc.segments, PackedSegments):
        packer = SegmentPacker()
        for s in doc.segments:
            packer.append(replace(s, doc_id=doc_id))
        segments = packer.done()
    else:
        segments = tuple(replace(s, doc_id=doc_id) for s in doc.segments)
    return replace(doc, doc_id=doc_id, segments=segments)


__all__ = ["every_pair"]
