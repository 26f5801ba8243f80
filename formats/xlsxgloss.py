"""Excel glossaries (`.xlsx`), read-only through openpyxl (the optional extra `termqa[xlsx]`).

Client termbases often arrive as spreadsheets (Xbench, memoQ and MultiTerm import them): one concept
per row, one column per language, as a CSV. The sheet's rows are handed to `csvgloss.from_rows`, so a
workbook follows exactly the CSV header rules (languages named by tag or in words, `id`, `definition`,
`<lang>_status`...) and gives the same concepts as the same table saved as CSV.

- The sheet: the first one, unless the path names one after `#` (`terms.xlsx#Sheet2`); `split_sheet`
  tells the two parts apart, and a name the workbook lacks is refused with the names it has.
- Cells: formulas are read as the value Excel last computed (`data_only=True`); a workbook written
  by a program that never computed them holds no value there, and such cells read as empty. Numbers
  read as written (`12`, not `12.0`), dates as ISO dates, booleans as `TRUE`/`FALSE` (as Excel's own
  CSV export writes them).
- Header: merged header cells keep their text in the first cell only (read-only mode does not see
  merges), so the other columns under a merge are headerless and ignored, as an empty header cell
  is. A title row above the header (one filled cell, the rest of the sheet wider) is skipped with a
  warning.

openpyxl is imported only when a workbook is read; without it, a one-line error names the extra.
"""
from __future__ import annotations

import datetime as _dt
import importlib
import io
import zipfile
from pathlib import Path
from typing import Optional

from termqa.errors import InputError
from termqa.model import Glossary

from . import csvgloss

_FIX = 'pip install "termqa[xlsx]"'
ZIP_MAGIC = b"PK\x03\x04"


def split_sheet(path) -> tuple[str, Optional[str]]:
    """(file, sheet name or None) of a glossary path: `terms.xlsx#Sheet2` names a sheet when no file
    has that whole name and the part before the last `#` is a file."""
    p = str(path)
    if "#" in p and not Path(p).exists():
        file, _sep, sheet = p.rpartition("#")
        if file and Path(file).is_file():
            return file, sheet
    return p, None


def is_workbook(data: bytes) -> bool:
    """An Office Open XML workbook: a zip archive holding `xl/workbook.xml`."""
    if not data.startswith(ZIP_MAGIC):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return "xl/workbook.xml" in z.namelist()
    except zipfile.BadZipFile:
        return False


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, _dt.datetime):
        return value.date().isoformat() if value.time() == _dt.time() else value.isoformat()
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    return str(value).strip()


def _load(path: str, data: bytes):
    try:
        openpyxl = importlib.import_module("openpyxl")
    except ImportError:
        raise InputError(path, "is an Excel workbook; reading it needs openpyxl, which is not installed",
                         fix=_FIX) from None
    try:
        return openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises zipfile, KeyError, its own InvalidFileException...
        raise InputError(path, f"cannot be read as an Excel workbook: {exc}",
                         fix="open it in a spreadsheet program and save it again as .xlsx") from None


def read(source) -> Glossary:
    """Read the sheet `source.root` names (None: the first) of the workbook `source.data`."""
    path, data, content_hash, sheet = split_sheet(source.path)[0], source.data, source.content_hash, source.root
    wb = _load(path, data)
    try:
        names = list(wb.sheetnames)
        if sheet is not None and sheet not in names:
            listed = ", ".join(repr(n) for n in names)
            raise InputError(path, f"has no sheet named {sheet!r} (its sheets: {listed})",
                             fix=f"name one of them after '#', e.g. {path}#{names[0]}" if names else None)
        ws = wb[sheet] if sheet is not None else wb[names[0]]
        rows = []
        for raw in ws.iter_rows(values_only=True):
            row = [_text(v) for v in raw]
            while row and not row[-1]:
                row.pop()
            if any(row):
                rows.append(row)
    finally:
        wb.close()
    warnings: list[str] = []
    if len(rows) > 1 and sum(1 for c in rows[0] if c) == 1 and max(len(r) for r in rows[1:]) > 1:
        title = next(c for c in rows[0] if c)
        warnings.append(f"row 1 ({title[:60]!r}) holds one cell above a wider table: read as a title, not "
                        "as the header")
        rows = rows[1:]
    shown = f"{path}#{ws.title}" if sheet is not None else path
    return csvgloss.from_rows(shown, rows, content_hash, fmt="xlsx", delimiter="\t", warnings=warnings)
