"""Turning what the user named (files, folders) into files to read, and glossaries into one list."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

from termqa.errors import InputError, UsageError
from termqa.model import Concept, Glossary

# Files picked up when a folder is given. Content decides the format; the extension only chooses
# which files in a folder are candidates, so that a folder's other files are not read.
BILINGUAL_EXTENSIONS = (".xlf", ".xliff", ".xlz", ".sdlxliff", ".mqxliff", ".mxliff", ".tmx", ".xml", ".po", ".ts")


def expand(paths: Sequence[str]) -> list[str]:
    """Files named directly, plus every bilingual-looking file under each folder (sorted)."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(
                str(f) for f in path.rglob("*")
                if f.is_file() and f.suffix.lower() in BILINGUAL_EXTENSIONS and not f.name.startswith(".")
                and (f.suffix.lower() != ".ts" or _looks_like_xml(f))
            )
            if not found:
                raise InputError(p, "is a folder with no XLIFF or TMX files in it")
            out.extend(found)
        elif path.exists():
            out.append(str(p))
        else:
            raise InputError(p, "does not exist")
    if not out:
        raise UsageError("no input files given", fix="name one or more XLIFF/TMX files or folders")
    seen, unique = set(), []
    for f in out:
        k = os.path.realpath(f)
        if k not in seen:
            seen.add(k)
            unique.append(f)
    return unique


def _looks_like_xml(path: Path) -> bool:
    """`.ts` is Qt Linguist (XML) or TypeScript: only the first belongs to a translation project."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def merge_glossaries(glossaries: Sequence[Glossary]) -> tuple[Concept, ...]:
    """All concepts of all glossaries. Ids that collide across glossaries get the file's stem."""
    if len(glossaries) == 1:
        return glossaries[0].concepts
    counts: dict[str, int] = {}
    for g in glossaries:
        for c in g.concepts:
            counts[c.id] = counts.get(c.id, 0) + 1
    out = []
    for g in glossaries:
        stem = Path(g.path).stem
        for c in g.concepts:
            if counts[c.id] > 1:
                from dataclasses import replace

                c = replace(c, id=f"{stem}:{c.id}")
            out.append(c)
    return tuple(out)


def languages_with_terms(concepts: Iterable[Concept]) -> set[str]:
    return {t.lang for c in concepts for t in c.terms if t.lang}
