"""Reports rendered from the `termqa check` result object: a self-contained HTML page, a CSV and a
spreadsheet (.xlsx).

Both read only the result dict (see `termqa.check(...).to_dict()` or the `--json` file).
"""
from __future__ import annotations

from .csvout import CSV_COLUMNS, write_csv
from .html import render_html, write_html
from .xlsx import write_xlsx

__all__ = ["CSV_COLUMNS", "render_html", "write_csv", "write_html", "write_xlsx"]
