"""Turning what the user named (files, folders) into files to read, and glossaries into one list."""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Iterator, Optional, Sequence

from termqa.errors import InputError, UsageError
from termqa.glossaryscope import glossary_labels
from termqa.model import Concept, Glossary
from termqa.outputs import ANNOTATED_MARK, marked_copies

# Files picked up when a folder is given. Content decides the format; the extension only chooses
# which files in a folder are candidates, so that a folder's other files are not read.
BILINGUAL_EXTENSIONS = (".xlf", ".xliff", ".xlz", ".sdlxliff", ".mqxliff", ".mxliff", ".tmx", ".xml", ".po", ".ts")


@dataclass(frozen=True)
class Scan:
    """The files to read, and the annotated copies of earlier runs a folder scan left out
    (`termqa.outputs.ANNOTATED_MARK`), for the CLI to name."""

    files: list
    skipped: tuple = ()


def expand(paths: Sequence[str], exclude: Iterable[str] = ()) -> list[str]:
    """Files named directly, plus every bilingual-looking file under each folder (sorted), leaving out
    `exclude` and annotated copies (see `scan`)."""
    return scan(paths, exclude).files


def scan(paths: Sequence[str], exclude: Iterable[str] = ()) -> Scan:
    """`expand`, saying which annotated copies it left out.

    A folder scan leaves out the run's own outputs (`exclude`: files, and folders with everything under
    them, e.g. the --annotate folder; termqa.outputs.OutputPlan.excluded) and the files an earlier run
    wrote as annotated copies (listed in their folder's `ANNOTATED_MARK`): a second run must read the
    documents the first one read, not the copies it wrote beside them. A file named directly is always
    read, and so are the copies of a folder that holds nothing else (the user named a folder of copies)."""
    out: list[str] = []
    skipped: list[str] = []
    left_out = {os.path.realpath(p) for p in exclude if p and p != "-"}
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found, copies = [], []
            for f, copy in _files_under(path, left_out):
                if f.suffix.lower() in BILINGUAL_EXTENSIONS and not f.name.startswith(".") \
                        and (f.suffix.lower() != ".ts" or _looks_like_xml(f)):
                    (copies if copy else found).append(str(f))
            if not found:
                found, copies = copies, []
            if not found:
                raise InputError(p, "is a folder with no XLIFF or TMX files in it")
            out.extend(sorted(found))
            skipped.extend(sorted(copies))
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
    return Scan(unique, tuple(s for s in skipped if os.path.realpath(s) not in seen))


def _files_under(top: Path, left_out: set) -> Iterator[tuple[Path, bool]]:
    """Every file under `top` but the paths in `left_out` (real paths, a folder with all it holds), each
    with whether it is an annotated copy an earlier run wrote (listed in an ANNOTATED_MARK above it).
    Folders are walked top down, so a list of copies is read before the files it names."""
    copies: set = set()
    for folder, subfolders, names in os.walk(top):
        subfolders[:] = sorted(s for s in subfolders if os.path.realpath(os.path.join(folder, s)) not in left_out)
        if ANNOTATED_MARK in names:
            copies |= {str(p) for p in marked_copies(folder)}
        for name in names:
            full = os.path.join(folder, name)
            real = os.path.realpath(full)
            if real not in left_out and os.path.isfile(full):
                yield Path(full), real in copies


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

    Glossaries read through the index cache hold their concepts as rows (termqa.store.conceptrows: they give
    their `ids()` and are `merged` as rows), so that no concept record is made before a run reads it."""
    if len(glossaries) == 1:
        return glossaries[0].concepts
    parts = [list(g.concepts.ids()) if _as_rows(g.concepts) else [c.id for c in g.concepts] for g in glossaries]
    counts: dict[str, int] = {}
    for ids in parts:
        for cid in ids:
            counts[cid] = counts.get(cid, 0) + 1
    labels = glossary_labels(glossaries)
    names = [[f"{label}:{cid}" if counts[cid] > 1 else cid for cid in ids]
             for label, ids in zip(labels, parts)]
    keep = range(len(glossaries)) if only is None else sorted(only)
    if all(_as_rows(g.concepts) for g in glossaries):
        return glossaries[0].concepts.merged([glossaries[i].concepts for i in keep], [names[i] for i in keep])
    out = []
    for i in keep:
        for c, cid in zip(glossaries[i].concepts, names[i]):
            if c.id != cid:
                c = replace(c, id=cid)
            out.append(c)
    return tuple(out)


def _as_rows(concepts) -> bool:
    """Concepts held as rows (termqa.store.conceptrows.ConceptRows), which merge without making records."""
    return hasattr(concepts, "ids") and hasattr(concepts, "merged")


def languages_with_terms(concepts: Iterable[Concept]) -> set[str]:
    return {t.lang for c in concepts for t in c.terms if t.lang}
