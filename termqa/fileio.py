"""Writing files safely: every file termqa writes goes through `atomic_write`.

The content goes to a temporary file beside the destination, is flushed to disk, and then replaces
the destination in one rename: a reader never sees half a file, and an interrupted run leaves the
old file as it was. A full disk fails while the temporary file is written, before anything is
replaced. `keep_original` makes the backup of a file about to be rewritten in place (`FILE.bak`,
written once and never overwritten); `remove_stale_temps` clears the temporary files a killed run
left beside a file.
"""
from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterator, Optional, Union

from termqa.errors import TermqaError, WriteError


class Rows:
    """A list of records made one at a time as it is iterated, never held whole (the long lists of a
    big result). `dump_json`, hence `atomic_write(json_data=...)`, writes it as a list, each record
    written before the next is made; `list(rows)` makes the list. It can be iterated again (the records
    are made again); its truth value says whether it has any."""

    __slots__ = ("_make", "_any")

    def __init__(self, make: Callable[[], Iterator[dict]], any_rows: bool):
        self._make = make
        self._any = any_rows

    def __iter__(self) -> Iterator[dict]:
        return self._make()

    def __bool__(self) -> bool:
        return self._any


def file_sha256(path: Union[str, os.PathLike], block: int = 1 << 20) -> str:
    """sha256 (hex) of a file's bytes, read a block at a time into one buffer: a big termbase is hashed
    without holding its bytes (the index cache's glossary key; a hit never reads the file otherwise)."""
    h = hashlib.sha256()
    buf = bytearray(block)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as fh:
        while True:
            n = fh.readinto(buf)
            if not n:
                break
            h.update(view[:n])
    return h.hexdigest()


def atomic_write(path: Union[str, os.PathLike], content: Union[str, bytes, None] = None, *,
                 json_data: object = None, like: Optional[Union[str, os.PathLike]] = None,
                 make_folder: bool = False, encoding: str = "utf-8") -> Path:
    """Write `content` (text or bytes) or `json_data` (as JSON, see `dump_json`) to `path` atomically.

    `like`: copy that file's permission bits (write-back keeps the translator's file mode).
    `make_folder`: create the destination folder; otherwise a missing folder is an error that names it.
    """
    dest = Path(path)
    folder = dest.parent
    if not folder.exists():
        if not make_folder:
            raise TermqaError(f"{path}: folder {folder} does not exist", fix="create it first, or write elsewhere")
        folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=TEMP_SUFFIX, dir=str(folder))
    try:
        with os.fdopen(fd, "wb") as fh:
            if json_data is not None:
                text_fh = io.TextIOWrapper(fh, encoding="utf-8", newline="")
                dump_json(json_data, text_fh)
                text_fh.flush()
                text_fh.detach()  # `fh` stays open: flushed and synced below
            elif isinstance(content, bytes):
                fh.write(content)
            else:
                fh.write((content or "").encode(encoding))
            fh.flush()
            os.fsync(fh.fileno())
        if like is not None:
            try:
                shutil.copymode(like, tmp)
            except OSError:
                pass  # permissions are a nicety; the content is what matters
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, dest)
        _sync_folder(folder)  # the rename itself survives a power cut
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, TermqaError):
            reason = exc.strerror or str(exc)
            raise WriteError(f"{path}: cannot be written ({reason}); nothing was replaced", errno=exc.errno,
                             reason=reason, fix=_write_fix(exc.errno)) from None
        raise
    return dest


def _write_fix(code: Optional[int]) -> str:
    if code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return "free some space on that disk, or write elsewhere"
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "write to a folder you can write to"
    return "check the folder, or write elsewhere"


TEMP_SUFFIX = ".termqa-tmp"


def remove_stale_temps(path: Union[str, os.PathLike]) -> list[Path]:
    """Remove the temporary files `atomic_write` left beside `path` when a run was killed mid-write
    (`.NAME.*.termqa-tmp`); the ones removed. Called before a file is rewritten: two runs writing one
    file at once are not supported anyway."""
    dest = Path(path)
    removed = []
    for stale in dest.parent.glob(f".{glob_escape(dest.name)}.*{TEMP_SUFFIX}"):
        try:
            stale.unlink()
            removed.append(stale)
        except FileNotFoundError:
            pass
    return removed


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def keep_original(path: Union[str, os.PathLike]) -> tuple[Path, bool]:
    """`path + ".bak"`, written from `path` unless it exists already; (backup, written now).

    The backup holds the file as it was before termqa first rewrote it: a later run (a re-run, a
    resume after a kill) keeps it rather than copying termqa's own output over it. It is written
    whole through `atomic_write` (temporary file, fsync, rename), so it exists complete or not at
    all, and a full disk fails here, before the file itself is touched."""
    src = Path(path)
    bak = Path(str(src) + ".bak")
    if bak.exists():
        return bak, False
    remove_stale_temps(bak)
    try:
        atomic_write(bak, src.read_bytes(), like=src)
    except WriteError as exc:  # said about the file the user cares for: it is untouched
        raise WriteError(f"{src}: its backup {bak.name} cannot be written ({exc.reason}); {src.name} is untouched",
                         errno=exc.errno, reason=exc.reason, fix=exc.fix) from None
    try:
        shutil.copystat(src, bak)  # the original's dates too, as a copy would have them
    except OSError:
        pass
    return bak, True


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(str(folder), os.O_RDONLY)
    except OSError:
        return  # not every system opens folders (Windows): the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def dump_json(data: object, out, depth: int = 2) -> None:
    """Write `data` as JSON to the text stream `out`: the first `depth` levels of objects and arrays
    indented one member per line, anything deeper on one line.

    Results are read by machines and grepped by people: one occurrence, segment or concept per line
    serves both. The lines come from the C encoder (json.dump with an indent runs the pure-Python one,
    much slower on a big result), written as they are made.
    `Rows` (a list made while it is written) is written as a list.
    """
    _dump(data, out, depth, 0, json.JSONEncoder(ensure_ascii=False, check_circular=False).encode)


def _dump(value, out, depth: int, level: int, encode) -> None:
    if isinstance(value, Rows) and (level >= depth or not value):
        value = list(value)  # on one line, as a list is (the C encoder knows lists only)
    if level >= depth or not isinstance(value, (dict, list, Rows)) or not value:
        out.write(encode(value))
        return
    pad = "\n" + " " * (level + 1)
    if isinstance(value, dict):
        out.write("{")
        for n, (k, v) in enumerate(value.items()):
            out.write(("," if n else "") + pad + encode(str(k)) + ": ")
            _dump(v, out, depth, level + 1, encode)
        out.write("\n" + " " * level + "}")
    else:  # a list, or Rows: records made one at a time, each written before the next is made
        out.write("[")
        for n, v in enumerate(value):
            out.write(("," if n else "") + pad)
            _dump(v, out, depth, level + 1, encode)
        out.write("\n" + " " * level + "]")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
