"""What the lemmatisers need to know about installed packages, asked once and then kept: spaCy's version,
spacy-lookups-data's version, and the data files spacy-lookups-data declares for each language.

Asking costs time on every run: importing `importlib.metadata` (it brings the `email` parser), then
every `entry_points()` or `version()` call walks the distributions of every folder on sys.path and
reads their metadata files (a warm run made two scans and several version look-ups). A warm run asks the same questions each time, so the answers
are kept in the index cache under a key made of `distributions_stamp()`: the name and modification
time of every `*.dist-info` / `*.egg-info` in the sys.path folders. Installing, upgrading or removing
a package adds, renames or removes one of those (pip writes a fresh one each time), so the key
changes and the questions are asked again; with the index cache off they are asked every run.
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Optional

from termqa.lang import langcache

_ANSWERS: Optional[dict] = None
_LOCK = threading.Lock()
_META_SUFFIXES = (".dist-info", ".egg-info")


def distributions_stamp() -> list:
    """[folder, [(metadata entry name, mtime_ns), ...]] for each sys.path folder holding any (a file on
    sys.path, a zip of packages, by its own mtime): what `importlib.metadata` would read to answer."""
    stamp: list = []
    for entry in sys.path:
        folder = entry or os.getcwd()  # '' is the current folder, as the import system reads it
        try:
            with os.scandir(folder) as found:
                names = sorted((e.name, e.stat(follow_symlinks=False).st_mtime_ns) for e in found
                               if e.name.endswith(_META_SUFFIXES))
        except NotADirectoryError:
            try:
                names = [("", os.stat(folder).st_mtime_ns)]
            except OSError:
                continue
        except OSError:  # a folder that does not exist (yet): nothing is installed there
            continue
        if names:  # a folder without any (the current one, a scripts folder) changes no answer
            stamp.append([folder, names])
    return stamp


def _ask() -> dict:
    """The answers from importlib.metadata itself. `spacy` is None when its metadata cannot be read
    (the caller then asks spaCy); a language whose entry point fails to load has no files, as when
    the package is missing (fallback mode, named in the signature)."""
    from importlib import metadata

    answers: dict = {"spacy": None, "lookups": "?", "files": {}}
    try:
        answers["spacy"] = metadata.version("spacy")
    except Exception:
        pass
    try:
        answers["lookups"] = metadata.version("spacy-lookups-data")
    except Exception:
        pass
    files: dict = {}
    try:
        for ep in metadata.entry_points(group="spacy_lookups"):
            if ep.name in files:  # the first entry point of a language is the one used
                continue
            try:
                got = ep.load()
            except Exception:  # a broken install: no tables for that language
                got = None
            files[ep.name] = dict(got) if isinstance(got, dict) else {}
    except Exception:
        files = {}
    answers["files"] = files
    answers["morph"] = _morphology(metadata)
    return answers


def _morphology(metadata) -> dict:
    """The morphology libraries the lemmatisers use beyond spaCy's tables (termqa.lang.dictlemma,
    termqa.lang.stems): their versions, simplemma's dictionary languages (its data files, listed without
    importing it) and Snowball's algorithms (PyStemmer's own list). None / empty when not installed."""
    import importlib.util

    out: dict = {"simplemma": None, "simplemma_langs": [], "pystemmer": None, "snowball": []}
    try:
        out["simplemma"] = metadata.version("simplemma")
        spec = importlib.util.find_spec("simplemma")
        if spec is not None and spec.origin:
            data = os.path.join(os.path.dirname(spec.origin), "strategies", "dictionaries", "data")
            out["simplemma_langs"] = sorted(n[:-len(".plzma")] for n in os.listdir(data) if n.endswith(".plzma"))
    except Exception:  # not installed, or laid out otherwise: no dictionary lemmas
        out["simplemma"], out["simplemma_langs"] = None, []
    try:
        out["pystemmer"] = metadata.version("PyStemmer")
        import Stemmer

        out["snowball"] = sorted(Stemmer.algorithms())
    except Exception:
        out["pystemmer"], out["snowball"] = None, []
    return out


def _usable(value) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("files"), dict)
            and isinstance(value.get("lookups"), str) and isinstance(value.get("spacy"), (str, type(None)))
            and isinstance(value.get("morph"), dict))


def answers() -> dict:
    """The answers for this process: from the index cache when the installed distributions are those
    it was stored for, else asked (and stored). Callers must not change the dict."""
    global _ANSWERS
    with _LOCK:
        if _ANSWERS is None:
            cache = langcache.active()
            key = langcache.make_key("installed", distributions_stamp()) if cache.enabled else None
            hit = cache.load(key) if key is not None else None
            if _usable(hit):
                _ANSWERS = hit
            else:
                _ANSWERS = _ask()
                if key is not None:
                    cache.store(key, _ANSWERS)
        return _ANSWERS


def forget() -> None:
    """Ask again at the next question (after installing a package in the running process: tests)."""
    global _ANSWERS
    with _LOCK:
        _ANSWERS = None


def spacy_version() -> Optional[str]:
    """spaCy's version from its metadata, or None when that cannot be read."""
    return answers()["spacy"]


def lookups_version() -> str:
    """spacy-lookups-data's version, "?" when it is not installed."""
    return answers()["lookups"]


def lookup_files(lang: str) -> dict:
    """spacy-lookups-data's data files of `lang` (table name -> path), empty without them."""
    return answers()["files"].get(lang, {})


def morphology() -> dict:
    """simplemma's and PyStemmer's versions and languages (`_morphology`)."""
    return answers()["morph"]


__all__ = ["answers", "morphology", "distributions_stamp", "forget", "lookup_files", "lookups_version", "spacy_version"]
