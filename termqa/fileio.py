"""Writing files safely: every file termqa writes goes through `atomic_write`.

The content goes to a temporary file beside the destination, is flushed to disk, and then replaces
the destination in one rename: a reader never sees half a file, and an interrupted run leaves the
old file as it was.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional, Union

from termqa.errors import TermqaError


def atomic_write(path: Union[str, os.PathLike], content: Union[str, bytes, None] = None, *,
                 json_data: object = None, like: Optional[Union[str, os.PathLike]] = None,
                 make_folder: bool = False, encoding: str = "utf-8") -> Path:
    """Write `content` (text or bytes) or `json_data` (as indented JSON) to `path` atomically.

    `like`: copy that file's permission bits (write-back keeps the translator's file mode).
    `make_folder`: create the destination folder; otherwise a missing folder is an error that names it.
    """
    dest = Path(path)
    folder = dest.parent
    if not folder.exists():
        if not make_folder:
            raise TermqaError(f"{path}: folder {folder} does not exist", fix="create it first, or write elsewhere")
        folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".termqa-tmp", dir=str(folder))
    try:
        with os.fdopen(fd, "wb") as fh:
            if json_data is not None:
                # streamed: json.dumps with an indent builds the whole text from millions of small
                # pieces first (over 100 MB for the result of a 1M-word project); same bytes either way
                text_fh = io.TextIOWrapper(fh, encoding="utf-8", newline="")
                json.dump(json_data, text_fh, ensure_ascii=False, indent=1)
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
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return dest


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
