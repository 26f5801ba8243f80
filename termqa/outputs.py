"""Where a run's outputs go, decided and checked before the run starts.

A check can take minutes: an output path it cannot write should fail at once, not after the work, and
a run should never read, as input, what it (or an earlier run) wrote. So before anything is read:

- a path naming a folder (it ends with a separator, or it is an existing folder) gets the output's
  file name in it (`DEFAULT_NAMES`); a folder named with a trailing separator is made when its parent
  exists, never written as a file of that name;
- the folder each file goes into must exist (or be made: `--annotate`, `DIR/`) and be writable, and the
  path must not be an existing folder;
- no two outputs may share a path, and no output may be a file the run reads.

`excluded` says what a folder scan leaves out (`termqa.inputs.scan`): this run's --annotate folder and
its other output paths, but never a file that holds translations and that termqa did not write (an
output named like an input is refused by `OutputPlan.check_inputs`, not silently dropped). Every folder
termqa writes annotated copies into lists them in `ANNOTATED_MARK`, so that a later run scanning the
folder, or one above it, leaves those copies out whatever the run called them.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

from termqa.errors import UsageError
from termqa.fileio import atomic_write

# The file an output gets when its option names a folder (documented in docs/outputs.md and in --help).
DEFAULT_NAMES = {"--report": "report.html", "--json": "result.json", "--csv": "occurrences.csv",
                 "--xlsx": "issues.xlsx"}

# Written into every folder termqa writes annotated copies into: which files are copies, one path (from
# that folder) a line, and why a folder scan leaves them out.
ANNOTATED_MARK = ".termqa-annotated"
MARK_HEADER = ("# Files in this folder that termqa wrote as annotated copies (--annotate), one a line.\n"
               "# termqa leaves them out when it scans a folder for input files; name a file to check it,\n"
               "# or delete this list.\n")

XLIFF_SUFFIXES = (".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".mxliff")


def names_folder(path: str) -> bool:
    """The user named a folder: the path ends with a separator, or it is an existing folder."""
    return path.endswith(("/", os.sep)) or os.path.isdir(path)


def _same(a, b) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _writable_folder(option: str, folder: Path, *, make: bool) -> None:
    """`folder` can hold a new file: it exists and is writable, or (`make`) its nearest existing parent
    is a writable folder."""
    probe = folder
    if make:
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
    if not probe.exists():
        raise UsageError(f"{option}: folder {folder} does not exist",
                         fix="create it first, or name a folder that exists")
    if not probe.is_dir():
        raise UsageError(f"{option}: {probe} is a file, not a folder", fix="name a folder to write into")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise UsageError(f"{option}: folder {probe} is not writable", fix="name a folder you can write to")


@dataclass(frozen=True)
class OutputPlan:
    """The checked output paths of one run. `files`: option -> the file to write ('-' for standard
    output); `annotate`: the --annotate path as given (a file for one XLIFF input, else a folder);
    `folders`: folders named with a trailing separator that do not exist yet, made by `make_folders`."""

    files: Mapping[str, str] = field(default_factory=dict)
    annotate: Optional[str] = None
    folders: tuple = ()

    def get(self, option: str) -> Optional[str]:
        return self.files.get(option)

    def excluded(self) -> list[str]:
        """The paths a folder scan leaves out: the --annotate folder with everything in it, an annotated
        copy an earlier run wrote at this run's --annotate file, and the other outputs, unless one of
        those is a file with translations that termqa did not write (then it is read, and refused as an
        output by `check_inputs`)."""
        out = [p for p in self.files.values() if p != "-" and not holds_translations(p)]
        if self.annotate:
            target = Path(self.annotate)
            if target.is_dir() or not target.exists() or target.resolve() in marked_copies(target.parent):
                out.append(self.annotate)
        return out

    def make_folders(self) -> None:
        for folder in self.folders:
            os.makedirs(folder, exist_ok=True)

    def check_inputs(self, inputs: Sequence[str], reads=()) -> None:
        """Refuse an output that is a file the run reads (`inputs`, and the glossaries and other files in
        `reads`), and an annotated copy that would land on an input or on another output. A file given
        twice would be read, then overwritten by its own result. `reads` maps what a file is to the run
        ("the glossary": paths) so that the refusal names both roles; a plain list of paths is "a file"."""
        read = _roles(inputs, reads)
        written = dict((path, option) for option, path in self.files.items() if path != "-")
        for path, option in written.items():
            for r, role in read:
                if os.path.exists(path) and _same(path, r):
                    raise UsageError(f"{option} {path} is {role} this run reads",
                                     fix=f"name another file for {option}")
            if holds_translations(path):
                raise UsageError(f"{option} {path} is a translation file: it would be overwritten",
                                 fix=f"name another file for {option}")
        if not self.annotate:
            return
        for src, dest in annotated_paths(inputs, self.annotate).items():
            for r, role in read:
                if os.path.exists(dest) and _same(dest, r):
                    hint = ("name another file for --annotate" if not names_folder(self.annotate) else
                            "name another folder for --annotate")
                    if not _same(src, r):  # another file this run reads: --in-place would not help
                        raise UsageError(f"--annotate {self.annotate} would write the annotated copy of {src} "
                                         f"over {r}, {role} this run reads", fix=hint)
                    raise UsageError(f"--annotate {self.annotate} would write the annotated copy over the input {r}",
                                     fix=f"{hint}, or use --in-place to write the notes into the input itself "
                                         "(a .bak copy is kept)")
            for path, option in written.items():
                if os.path.abspath(dest) == os.path.abspath(path):
                    raise UsageError(f"--annotate and {option} both write {dest}",
                                     fix="name different paths")
            if holds_translations(dest) and not self._annotated_before(dest):
                raise UsageError(f"--annotate would write over {dest}, a translation file termqa did not write",
                                 fix="name another path for --annotate (or delete that file first if it is an "
                                     "annotated copy you no longer need)")
        # several inputs make --annotate a folder: one that is a file the run reads fails only at the end
        for r, role in read:
            if os.path.isfile(self.annotate) and _same(self.annotate, r):
                raise UsageError(f"--annotate {self.annotate} is {role} this run reads",
                                 fix="name a folder for the annotated copies")

    def _annotated_before(self, dest: str) -> bool:
        """`dest` is an annotated copy termqa wrote: listed beside it or in the --annotate folder, or
        holding termqa's notes (a copy written before the lists were kept)."""
        path = Path(dest).resolve()
        if path in marked_copies(path.parent) or path in marked_copies(self.annotate):
            return True
        try:
            data = path.read_bytes()
        except OSError:
            return False
        return any(mark in data for mark in _NOTE_MARKS)


def _roles(inputs: Sequence[str], reads) -> list[tuple[str, str]]:
    """(path, what it is to the run) for every file a run reads."""
    out = [(p, "an input file") for p in inputs if p]
    if isinstance(reads, Mapping):
        for role, paths in reads.items():
            for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths or ()):
                if p:
                    out.append((os.fspath(p), role))
    else:
        out += [(os.fspath(p), "a file") for p in reads if p]
    return out


def plan(outputs: Mapping[str, Optional[str]], *, annotate: Optional[str] = None) -> OutputPlan:
    """Check the output paths of a run before it starts (see the module docstring). `outputs`:
    option -> path as given, e.g. {"--report": "out/", "--json": "-"}; options without a path are
    left out. Raises `UsageError` naming the option and the fix."""
    files: dict[str, str] = {}
    given = {option: path for option, path in outputs.items() if path}
    # folders named with a trailing separator that do not exist yet: made before the run, so another
    # output may go into them too (--report out/ --json out/run.json)
    folders = [p for p in given.values() if p != "-" and p.endswith(("/", os.sep)) and not os.path.exists(p)]
    made = {os.path.abspath(f) for f in folders}
    for option, path in given.items():
        if path == "-":
            files[option] = path
            continue
        if names_folder(path):
            folder = Path(path)
            # DIR/ is made, but only inside a folder that exists (a typo should not build a tree)
            _writable_folder(option, folder if folder.exists() else folder.parent, make=False)
            path = os.path.join(path, DEFAULT_NAMES.get(option, "output"))
        elif os.path.abspath(Path(path).parent) not in made:
            _writable_folder(option, Path(path).parent, make=False)
        if os.path.isdir(path):
            raise UsageError(f"{option} {path} is a folder", fix=f"name a file for {option}")
        files[option] = path
    seen: dict[str, str] = {}
    for option, path in files.items():
        if path == "-":
            continue
        key = os.path.abspath(path)
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} both write {path}", fix="name different paths")
        seen[key] = option
    if annotate:
        # the folder of annotated copies (or the annotated file's folder) and its parents are made
        target = Path(annotate)
        _writable_folder("--annotate", target if names_folder(annotate) else target.parent, make=True)
        key = os.path.abspath(annotate)
        for option, path in files.items():
            if path != "-" and os.path.abspath(path) == key:
                raise UsageError(f"--annotate and {option} both write {path}", fix="name different paths")
    return OutputPlan(files=files, annotate=annotate, folders=tuple(folders))


def annotated_paths(inputs: Sequence[str], out: str) -> dict[str, str]:
    """input -> where its annotated copy goes under `--annotate out`, for the XLIFF inputs.

    One XLIFF input: `out` itself, or the input's file name inside it when `out` names a folder. Several:
    inside the folder `out`, each at its path below the folder the inputs share (their file names when
    they sit in one folder; `de/strings.xlf` and `fr/strings.xlf` keep apart)."""
    xliffs = [p for p in inputs if Path(p).suffix.lower() in XLIFF_SUFFIXES]
    return annotated_destinations(xliffs, out, inputs)


def annotated_destinations(files: Sequence[str], out: str, every_input: Sequence[str] = ()) -> dict[str, str]:
    """`annotated_paths` for `files` known to be XLIFF; `every_input` (default `files`) gives the folder
    the run's inputs share, so that the writer and the check before the run agree."""
    if not files:
        return {}
    if len(files) == 1 and not names_folder(out):
        return {files[0]: out}
    if len(files) == 1:
        return {files[0]: os.path.join(out, Path(files[0]).name)}
    base = shared_folder(every_input or files)
    return {f: os.path.join(out, os.path.relpath(os.path.abspath(f), base)) for f in files}


def shared_folder(paths: Iterable[str]) -> str:
    """The deepest folder holding every one of `paths` (absolute)."""
    folders = [os.path.dirname(os.path.abspath(p)) for p in paths]
    return os.path.commonpath(folders) if folders else os.getcwd()


def mark_annotated(folder, copies: Iterable[str]) -> None:
    """Add `copies` (paths of files written into `folder`) to its `ANNOTATED_MARK` list."""
    folder = Path(folder)
    mark = folder / ANNOTATED_MARK
    names = {os.path.relpath(os.path.abspath(c), os.path.abspath(folder)).replace(os.sep, "/") for c in copies}
    listed = _listed(mark)
    if names <= set(listed):
        return
    atomic_write(mark, MARK_HEADER + "".join(f"{n}\n" for n in sorted(set(listed) | names)))


def marked_copies(folder) -> set[Path]:
    """The annotated copies `folder`'s `ANNOTATED_MARK` lists (resolved paths; empty without one)."""
    folder = Path(folder)
    return {(folder / name).resolve() for name in _listed(folder / ANNOTATED_MARK)}


def _listed(mark: Path) -> list[str]:
    try:
        text = mark.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


# What termqa's notes and comments carry in an annotated file (formats/annotate/names.py: from="termqa",
# creatoruser="termqa", user="termqa", category="termqa", the XLIFF 2 notes' namespace)
_NOTE_MARKS = (b'="termqa"', b"urn:x-termqa:note")

# What the first bytes of a bilingual file hold (XLIFF, TMX, Qt TS, PO): a file like that at an output
# path is the user's, never overwritten by a report.
_TRANSLATION_MARKS = (b"<xliff", b"<tmx", b"<TS", b"msgid ")


def holds_translations(path) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return any(m in head for m in _TRANSLATION_MARKS)
