"""Every language pair of a multilingual translation memory, each a document of its own.

A TMX may hold one source and several targets (a delivery in many languages exported together). The
reader takes one pair at a time (formats/tmx.py: `--tgt-lang` picks it); `termqa check` without
`--tgt-lang` checks every pair: the reader makes every pair in one pass over the units, and each pair
becomes a document whose id is the file's path and its target language (`all.tmx#ru`), so that the
pairs' references, scores and notes never mix. `compare` reads such a file as systems instead
(termqa.evaluate.compare), and `--tgt-lang` still narrows a check to one pair.
"""
from __future__ import annotations

from typing import Optional

from termqa import formats
from termqa.errors import MissingLanguageError
from termqa.formats.tmx import EVERY_TARGET
from termqa.model import BilingualFile


def every_pair(path: str, exc: MissingLanguageError, src_lang: Optional[str] = None, *, sink=None) -> BilingualFile:
    """The file with a document per pair of the target languages `exc` (the reader's refusal to guess one)
    names, read once more in one pass; re-raises `exc` when it is not about several targets. `sink`: as
    formats.read_bilingual's."""
    if exc.which != "target" or len(exc.candidates) < 2:
        raise exc
    return formats.read_bilingual(path, src_lang=src_lang, tgt_lang=EVERY_TARGET, sink=sink)


__all__ = ["every_pair"]
