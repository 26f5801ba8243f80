"""How a document is named in what people read: the report, the CSV, the spreadsheet and the console.

A document's `original` names it when it is its own; a file name otherwise (see `document_names`). Reads
only the result dict's documents, and their ids."""
from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from typing import Iterable, Optional


def base_name(path: Optional[str]) -> str:
    """The last part of a path or URL-ish name, whatever the separator."""
    if not path:
        return ""
    return posixpath.basename(str(path).replace("\\", "/").rstrip("/")) or str(path)


def document_names(documents: Iterable[dict], extra_ids: Iterable[str] = ()) -> dict:
    """doc_id -> a short name a person recognises.

    A document goes by its `original` (base name) when that names it alone: no other input file has a
    document of that original. A CAT tool or an MT campaign often writes one `original` into every file
    of a delivery ("wmt25-track1" in en-de.xlf, en-ru.xlf...): those documents, and those without an
    original, go by their file's name (with the original, or the document's "#k", when the file holds
    several). Two files of one name in different folders are told apart by their folder, and only what
    still reads alike gets a counter."""
    docs = list(documents)
    file_of = {d["doc_id"]: _file_of(d) for d in docs}
    for did in extra_ids:
        file_of.setdefault(did, re.sub(r"#[^#/\\]*$", "", did) or did)
    original = {d["doc_id"]: base_name(d.get("original")) for d in docs}
    files_with: dict = defaultdict(set)  # original -> the files holding a document of it
    docs_in: Counter = Counter(file_of.values())
    for did, o in original.items():
        if o:
            files_with[o].add(file_of[did])
    # a file's name, or its last folders too where two input files share a name
    short = _file_names(set(file_of.values()))
    raw = {}
    for did, path in file_of.items():
        o = original.get(did, "")
        if o and len(files_with[o]) == 1:
            raw[did] = o
        elif docs_in[path] == 1:
            raw[did] = short[path]
        elif o:
            raw[did] = f"{o} ({short[path]})"
        else:
            part = did[len(path):] if did.startswith(path) else ""
            raw[did] = f"{short[path]} {part}" if part.startswith("#") else short[path]
    counts = Counter(raw.values())
    seen: Counter = Counter()
    out = {}
    for did, name in raw.items():
        if counts[name] > 1:  # still alike (one file repeating an original): number them, in input order
            seen[name] += 1
            name = f"{name} ({seen[name]})"
        out[did] = name
    return out


def _file_of(d: dict) -> str:
    """The input file a document of the result comes from."""
    return d.get("path") or re.sub(r"#[^#/\\]*$", "", d["doc_id"]) or d["doc_id"]


def _file_names(paths: set) -> dict:
    """path -> its base name, or as many of its last parts as tell it from the other paths."""
    parts = {p: [x for x in str(p).replace("\\", "/").split("/") if x] or [str(p)] for p in paths}
    out = {}
    for p, ps in parts.items():
        k = 1
        while k < len(ps) and any(q != p and qs[-k:] == ps[-k:] for q, qs in parts.items()):
            k += 1
        out[p] = "/".join(ps[-k:])
    return out
