"""Write termqa's verdicts back into the bilingual file, leaving every other byte as it was.

    annotations_from_result(result, level="flagged") -> [Annotation]
    annotate(path_in, annotations, out=..., in_place=False, its=False, backup=True) -> AnnotateReport
    annotate_bytes(data, annotations, its=False) -> (bytes, AnnotateReport)
    annotate_files(files, annotations, out=..., in_place=False, ...) -> [AnnotateReport]

One writer per XLIFF dialect, each described in its module: `xliff1` (XLIFF 1.0-1.2, Phrase MXLIFF:
notes), `memoq` (MQXLIFF: memoQ comments), `sdlxliff` (Trados comments), `xliff2` (XLIFF 2.0-2.2:
notes). They share `place` (finding a unit, its segment and the target span in the file's text, and
recording insertions as edits) and `its` (ITS 2.0 Localization Quality Issue markup, asked for with
`its=True`; not for SDLXLIFF). `notes` decides which occurrences become annotations and what they say:
one line for the translator per problem per unit (its first words say whether it is an error or a
question; then what was found, what the glossary or the document wants, and why; then where else the
problem is, in units), the same in every channel (note, memoQ or Trados comment, ITS comment); penalty,
run id and problem id only where a format has attributes for them (XLIFF 2 notes). A unit never gets
the same line twice: annotations of a unit with the same outcome and text are written as one
(`notes.merged`), their spans all marked with ITS, the Trados comment on the first.

In a unit with several segments, notes name them after their first words ("termqa error (segment 2):
..."; a text without those words starts "Segment 2: "). Units are found by id within the
`<file>` the annotation's doc_id names (the first unit when a file repeats an id, as XLIFF 1.0 tools do).
When a span does not map cleanly onto the file's text (no span, text inside CDATA, a span crossing an
inline code boundary or another marker), the ITS issues of that unit go into one standoff block
referenced from the unit's start tag; the report counts these as `unit_level`.

Note priority (XLIFF 1 to 10, 1 = most important) follows certainty: error with penalty >= 3 -> 1,
other error -> 2, unjustified -> 3, unjudged -> 4 (often wrong: a different word than the glossary's,
not found, kept in the source language), 5 (cannot tell) or 6 (likely fine: an inflected or derived
form), by the classes "Review first" ranks questions in (`termqa.results.triage`), justified -> 8,
conforming -> 10. Trados severity (its three levels are shown as Error, Warning and For your
information): error -> High, unjustified and a question often wrong -> Medium, anything else -> Low.
memoQ comments carry no severity termqa sets: their first words say it.

Idempotent: before writing, termqa's own earlier annotations are removed (`strip`: notes from="termqa" /
category="termqa", cmt-defs whose comments are all by user "termqa" and their markers, memoQ comments by
creatoruser "termqa", ITS markup whose ids start with "termqa-"); nothing written by anyone else is
touched. `annotate_bytes(data, [])` therefore strips termqa's annotations and returns the original bytes.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from termqa.errors import InputError, TermqaError, UsageError
from termqa.fileio import atomic_write, keep_original, remove_stale_temps
from termqa.formats.xmlsafe import local, parse_bytes
from termqa.outputs import XLIFF_SUFFIXES, annotated_destinations, mark_annotated, names_folder

from .names import ITS_NS, MQ_NS, SDL_NS, XLIFF12_NS
from .notes import (OUTCOMES_BY_LEVEL, Annotation, Place, annotations_from_result, merged, note_text, priority,
                    trados_severity)

if TYPE_CHECKING:
    from .place import Placement, XFile

# The writers, `place` and `strip` (and the XML splicing under them) are imported by the functions that
# write: every check reads replies through this package (`replies`), and only --annotate writes.

__all__ = ["AnnotateReport", "Annotation", "ITS_NS", "MQ_NS", "OUTCOMES_BY_LEVEL", "Place", "SDL_NS", "XLIFF12_NS",
           "annotate", "annotate_bytes", "annotate_files", "annotations_from_result", "merged", "note_text",
           "priority", "trados_severity"]


@dataclass(frozen=True)
class AnnotateReport:
    written: int = 0  # notes / Trados comments written
    spans_marked: int = 0  # annotations whose target span was marked inline
    unit_level: int = 0  # ITS issues (or Trados comments) that could only be attached to the unit/segment
    units_not_found: int = 0  # annotations whose document/unit id matched nothing in the file
    unmatched: tuple[str, ...] = ()  # "doc_id unit_id" of those
    removed: int = 0  # earlier termqa notes/comments replaced
    out: Optional[str] = None
    backup: Optional[str] = None


def writer_for(f: XFile, its: bool, dates: dict, now: datetime, path: str) -> Placement:
    """The writer of the file's dialect."""
    from .memoq import MemoqWriter
    from .sdlxliff import SdlWriter
    from .xliff1 import Xliff1Writer
    from .xliff2 import Xliff2Writer

    cls = SdlWriter if f.sdl else Xliff2Writer if f.v2 else MemoqWriter if f.memoq else Xliff1Writer
    return cls(f, its, dates, now, path)


def annotate_bytes(data: bytes, annotations, *, its: bool = False, path: str = "<bytes>",
                   now: Optional[datetime] = None) -> tuple[bytes, AnnotateReport]:
    """Annotated bytes of an XLIFF file (see the module docstring) and what was done."""
    from termqa.formats import splice

    from .place import XFile, file_for
    from .strip import strip

    tree = parse_bytes(data, path)  # hardened: no entities, well-formed, or a typed error
    if local(tree.tag) != "xliff":
        raise InputError(path, f"is not XLIFF (root <{local(tree.tag)}>); only XLIFF files can be annotated")
    dec = splice.decode(data, path)
    f = XFile(splice.parse(dec.text, path))
    strip_edits, removed, dates = strip(f)
    text = dec.text
    if strip_edits:
        text = splice.apply(text, strip_edits)
        f = XFile(splice.parse(text, path))
    writer = writer_for(f, its, dates, now or datetime.now(timezone.utc), path)
    by_unit: dict = {}
    for a in annotations:
        file_el = file_for(f, a.doc_id)
        key = (id(file_el), a.unit_id)
        by_unit.setdefault(key, (file_el, a.doc_id, []))[2].append(a)
    unit_index: dict = {}
    for (fid, unit_id), (file_el, doc_id, anns) in by_unit.items():
        unit = None
        if file_el is not None:
            if fid not in unit_index:
                unit_index[fid] = f.units(file_el)
            unit = unit_index[fid].get(unit_id)
        if unit is None:
            writer.counts.not_found.extend(f"{doc_id} {unit_id}" for _ in anns)
            continue
        k = f.files.index(file_el) + 1
        writer.unit(unit, f"{k}", merged(anns))  # never the same line twice in a unit
    writer.finish()
    text = splice.apply(text, writer.edits)
    out = dec.encode(text)
    try:
        parse_bytes(out, path)
    except InputError as exc:  # our own splice broke the file: never write that
        raise TermqaError(f"internal error: annotating {path} produced malformed XML ({exc.problem})") from None
    c = writer.counts
    return out, AnnotateReport(written=c.written, spans_marked=c.spans, unit_level=c.unit_level,
                               units_not_found=len(c.not_found), unmatched=tuple(c.not_found), removed=removed)


def annotate(path_in, annotations, *, out=None, in_place: bool = False, its: bool = False,
             backup: bool = True, now: Optional[datetime] = None) -> AnnotateReport:
    """Write annotations into a copy of `path_in` (`out`), or over it when `in_place`.

    In place: temporary files an earlier, killed run left beside the file are removed; the original is
    kept in `path_in + ".bak"` (when `backup`): written once, whole (temporary file, fsync, rename),
    before the file is replaced, and never overwritten by a later run, which keeps the first backup
    (`termqa.fileio.keep_original`); then the new content is written to a temporary file in the same
    folder and moved over the original in one step. So at every moment the original is in place or in
    the `.bak`, and a full disk fails before anything is replaced. Without `in_place`, `path_in` is
    never modified.
    """
    src = Path(path_in)
    if in_place and out is not None:
        raise UsageError("give either an output path or in-place, not both")
    if not in_place and out is None:
        raise UsageError("no output path for the annotated file", fix="pass out=... or in_place=True (--in-place)")
    if not src.is_file():
        raise InputError(path_in, "does not exist" if not src.exists() else "is not a file")
    dest = src if in_place else Path(out)
    if not in_place and dest.exists() and dest.resolve() == src.resolve():
        raise UsageError(f"the output path is the input file {path_in}",
                         fix="name another output path, or annotate in place (in_place=True, --in-place)")
    if in_place:
        remove_stale_temps(src)
    data = src.read_bytes()
    new, report = annotate_bytes(data, annotations, its=its, path=str(path_in), now=now)
    bak = None
    if in_place and backup:
        bak = str(keep_original(src)[0])
    atomic_write(dest, new, like=src, make_folder=True)
    return dataclasses.replace(report, out=str(dest), backup=bak)


def annotate_files(files, annotations, *, out: Optional[str] = None, in_place: bool = False, its: bool = False,
                   backup: bool = True, now: Optional[datetime] = None) -> list[AnnotateReport]:
    """Write each XLIFF file's annotations: into `out` (a file for one input, a folder for several) or,
    with `in_place`, over the inputs themselves. `files` are the BilingualFile records of a run; files
    that are not XLIFF are skipped (notes go into XLIFF only).
    """
    if out and in_place:
        raise UsageError("--annotate and --in-place exclude each other", fix="choose one")
    if not out and not in_place:
        raise UsageError("no output for the annotated files", fix="pass --annotate OUT or --in-place")
    xliffs = [f for f in files if f.format.startswith("xliff")]
    if not xliffs:
        raise TermqaError("nothing to annotate: notes are written into XLIFF files only")
    if out and len(xliffs) > 1:
        out_dir = Path(out)
        if out_dir.exists() and not out_dir.is_dir() or not out_dir.exists() and not names_folder(out) and \
                out_dir.suffix.lower() in XLIFF_SUFFIXES:
            raise UsageError(f"{out}: several files are annotated, so this must be a folder",
                             fix="name a folder (it is created if missing)")
    # where each copy goes: the same rule the CLI checked before the run (termqa.outputs)
    dests = annotated_destinations([f.path for f in xliffs], out, [f.path for f in files]) if out else {}
    inputs = {os.path.realpath(f.path) for f in files}
    for dest in dests.values():
        if os.path.realpath(dest) in inputs:
            raise UsageError(f"{dest}: the annotated copy would overwrite an input file",
                             fix="name another path for the annotated copies, or use --in-place to write "
                                 "the notes into the inputs themselves (a .bak copy is kept)")
    reports = []
    for f in xliffs:
        doc_ids = {d.doc_id for d in f.documents}
        mine = [a for a in annotations if a.doc_id in doc_ids]
        if in_place:
            reports.append(annotate(f.path, mine, in_place=True, its=its, backup=backup, now=now))
            continue
        reports.append(annotate(f.path, mine, out=dests[f.path], its=its, now=now))
    if dests:  # listed as copies beside them: a later run scanning the folder does not read them as input
        folder = out if len(xliffs) > 1 or names_folder(out) else os.path.dirname(os.path.abspath(out))
        mark_annotated(folder, dests.values())
    return reports
