"""Turning what the user named (files, folders) into files to read, and glossaries into one list."""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Optional, Sequence

from termqa.store.conceptrows import ConceptRows, merged
from termqa.errors import InputError, UsageError
from termqa.glossaryscope import glossary_labels
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


def merge_glossaries(glossaries: Sequence[Glossary], only: Optional[Sequence[int]] = None) -> Sequence[Concept]:
    """All concepts of all glossaries. Ids that collide across glossaries get their glossary's label
    (termqa.glossaryscope: the file's stem, with parent folders when stems are equal): a concept is its
    glossary plus its id. `only`: the places of the glossaries whose concepts are wanted (names are
    still those of the whole set, so that a concept has one id in a run).

    Glossaries read through the index cache hold their concepts as rows (termqa.store.conceptrows): merged
    as rows, so that no concept record is made before a run reads it."""
    if len(glossaries) == 1:
        return glossaries[0].concepts
    parts = [list(g.concepts.ids()) if isinstance(g.concepts, ConceptRows) else [c.id for c in g.concepts]
             for g in glossaries]
    counts: dict[str, int] = {}
    for ids in parts:
        for cid in ids:
            counts[cid] = counts.get(cid, 0) + 1
    labels = glossary_labels(glossaries)
    names = [[f"{label}:{cid}" if counts[cid] > 1 else cid for cid in ids]
             for label, ids in zip(labels, parts)]
    keep = range(len(glossaries)) if only is None else sorted(only)
    if all(isinstance(g.concepts, ConceptRows) for g in glossaries):
        return merged([glossaries[i].concepts for i in keep], [names[i] for i in keep])
    out = []
    for i in keep:
        for c, cid in zip(glossaries[i].concepts, names[i]):
            if c.id != cid:
                c = replace(c, id=cid)
            out.append(c)
    return tuple(out)


def languages_with_terms(concepts: Iterable[Concept]) -> set[str]:
    return {t.lang for c in concepts for t in c.terms if t.lang}
