"""termqa: terminology QA for translation projects (the TermJudge method, as a CAT-tool QA step).

Library first: `termqa.check(files, glossaries, termqa.Settings(...))` runs the whole pipeline; the CLI is a thin layer
over it. Heavy libraries (spaCy, openai, rdflib) are imported only when a stage needs them.
"""
from __future__ import annotations

from termqa.version import __version__

__all__ = ["__version__", "Settings", "check", "compare", "inspect_file"]


def __getattr__(name):  # lazy: importing termqa stays cheap (`termqa --version` loads no pipeline)
    if name == "Settings":
        from termqa.config import Settings

        return Settings
    if name == "check":
        from termqa.run import check

        return check
    if name == "compare":
        from termqa.run import compare

        return compare
    if name == "inspect_file":
        from termqa.inspect import inspect_file

        return inspect_file
    raise AttributeError(name)
