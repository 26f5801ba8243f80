"""How a file is named in what people read (console lines, report, spreadsheet, CSV, notes).

A report or a spreadsheet gets forwarded: an absolute path tells its readers where the file sat on the
machine that ran the check (a user name, a client's folder) and nothing they need. A path as given on
the command line when it was relative (the project's own layout), else the file name alone. Document
ids built from a path ("/…/manual.xlf#2") follow the same rule. The JSON result keeps the path given.
"""
from __future__ import annotations

import os
import re
from typing import Iterable, Mapping


def is_local(path) -> bool:
    """An absolute path (POSIX, Windows drive or UNC) or one under the home folder ("~/...")."""
    p = str(path)
    return os.path.isabs(p) or p.startswith("~") or bool(re.match(r"^[A-Za-z]:[\\/]|^\\\\", p))


def shown_path(path) -> str:
    """`path` as people should read it: as given when relative, else its last part (file name, and the
    "#k" of a document id)."""
    if path is None:
        return ""
    p = str(path)
    if not is_local(p):
        return p
    return re.split(r"[\\/]", p.rstrip("/\\"))[-1] or p


def path_names(paths: Iterable) -> dict:
    """{absolute path: shown name} for the local paths among `paths` (to clean free text with `scrub`)."""
    out = {}
    for p in paths:
        if p and is_local(p):
            out[str(p)] = shown_path(p)
            # other files of the same folder (named in a reader's warning): their names alone
            folder = os.path.dirname(str(p)).rstrip("/\\")
            if len(re.split(r"[\\/]", folder)) > 2:  # never "/" or "/home"
                out.setdefault(folder + os.sep, "")
    return out


def scrub(text, names: Mapping[str, str]) -> str:
    """`text` with every path of `names` replaced by its shown name (longest first, so a document id
    "/a/x.xlf#2" is not cut at its file's path)."""
    if not text or not names:
        return text
    s = str(text)
    for p in sorted(names, key=len, reverse=True):
        if p in s:
            s = s.replace(p, names[p])
    return s


def result_names(result: Mapping) -> dict:
    """`path_names` for every path a result carries: inputs, documents, glossaries, decisions file."""
    paths = [f.get("path") for f in result.get("inputs") or []]
    for d in result.get("documents") or []:
        paths += [d.get("doc_id"), d.get("path")]
    paths += [g.get("path") for g in (result.get("signature") or {}).get("glossaries") or []]
    paths.append((result.get("decisions") or {}).get("path"))
    settings = (result.get("signature") or {}).get("settings") or {}
    paths += [v for v in settings.values() if isinstance(v, str)]  # a config file, a cache named in the run
    return path_names(paths)


_PATH_KEYS = {"path", "doc_id", "doc_ids", "inputs", "file", "files", "original"}


def paths_in(data, key: str = "") -> list:
    """Every local path a result-like object names under a path-like key (a comparison's inputs and
    document ids included), for `path_names`."""
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += paths_in(v, k if k in _PATH_KEYS else key)
    elif isinstance(data, (list, tuple)):
        for v in data:
            out += paths_in(v, key)
    elif isinstance(data, str) and key and is_local(data) and "\n" not in data:
        out.append(data)
    return out


def scrub_all(value, names: Mapping[str, str]):
    """`value` (dicts, lists, tuples, strings: what a report is made of) with `scrub` applied to every
    string in it, keys included."""
    if not names:
        return value
    if isinstance(value, str):
        return scrub(value, names)
    if isinstance(value, dict):
        return {scrub_all(k, names): scrub_all(v, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub_all(v, names) for v in value)
    return value

def with_path(path, message: str) -> str:
    """`message` led by the file's path once: readers write some messages with the path (or a document id
    made of it, `path#2`) and others without; whoever shows them adds it only where it is missing."""
    p = str(path)
    if message.startswith((f"{p}:", f"{p}#")):
        return message
    return f"{p}: {message}"


def without_path(path, message: str) -> str:
    """`message` without the file's path in front, for lines shown under the file's own name; a document id
    `path#2` becomes `<file> #2`."""
    p = str(path)
    if message.startswith(f"{p}: "):
        return message[len(p) + 2:]
    if message.startswith(f"{p}#"):
        return "<file> #" + message[len(p) + 1:]
    return message
