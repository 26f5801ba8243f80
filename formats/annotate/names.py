"""Names the annotation writers and the reply reader share: XML namespaces and termqa's own marks.

Apart from `place` (and its XML splicing) so that reading translators' replies, which every check of an
XLIFF file does, loads none of the writers.
"""
from __future__ import annotations

ITS_NS = "http://www.w3.org/2005/11/its"
SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
MQ_NS = "MQXliff"  # memoQ's namespace name is literally this string
XLIFF12_NS = "urn:oasis:names:tc:xliff:document:1.2"
TERMQA = "termqa"
# termqa's own attributes (XLIFF 2 notes allow attributes from other namespaces)
TERMQA_NS = "urn:x-termqa:note"
ID_PREFIX = "termqa-"

__all__ = ["ID_PREFIX", "ITS_NS", "MQ_NS", "SDL_NS", "TERMQA", "TERMQA_NS", "XLIFF12_NS"]
