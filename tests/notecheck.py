"""termqa's notes in an XLIFF file, read with lxml (not with termqa's own reader): one note per problem
per unit (#34). `repeated_notes` finds a unit carrying the same termqa note twice; `tests/conftest.py`
runs it over every XLIFF file the tests write, and the annotation tests over the bytes they make.

A note is termqa's XLIFF 1.2 `<note from="termqa">`, XLIFF 2 `<note category="termqa">` (whose
`termqa:problem` must not repeat in a unit either, for one outcome: a problem whose occurrences were
given two verdicts, which the pipeline never does, would have two notes that say different things),
memoQ comment by `termqa`, or Trados comment by user `termqa` (counted in the unit that holds its
marker).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from lxml import etree

SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
MQ_NS = "MQXliff"
PROBLEM = "{urn:x-termqa:note}problem"
OUTCOME = "{urn:x-termqa:note}outcome"
# the files a test may write that CAT tools read as XLIFF
SUFFIXES = (".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".mxliff")
_MARKS = tuple("termqa".encode(enc) for enc in ("utf-8", "utf-16-le", "utf-16-be"))


def _parser():
    return etree.XMLParser(no_network=True, resolve_entities=False, load_dtd=False, huge_tree=True)


def _local(el) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def unit_notes(root) -> list[tuple[str, list[str], list[str]]]:
    """(unit id, termqa's note texts, their XLIFF 2 (problem id, outcome)) of every unit with a note of termqa's."""
    comments = {}
    for d in root.iter(f"{{{SDL_NS}}}cmt-def"):
        ours = [c for c in d.iter(f"{{{SDL_NS}}}Comment") if c.get("user") == "termqa"]
        if ours:
            comments[d.get("id")] = ours[0].text or ""
    out = []
    for unit in root.iter():
        if _local(unit) not in ("trans-unit", "unit"):
            continue
        texts, problems = [], []
        for el in unit.iter():
            name = _local(el)
            if name == "note" and (el.get("from") == "termqa" or el.get("category") == "termqa"):
                texts.append(el.text or "")
                if el.get(PROBLEM):
                    problems.append((el.get(PROBLEM), el.get(OUTCOME)))
            elif name == "comment" and etree.QName(el).namespace == MQ_NS and el.get("creatoruser") == "termqa":
                texts.append(el.text or "")
            elif name == "mrk" and el.get("mtype") == "x-sdl-comment" and el.get(f"{{{SDL_NS}}}cid") in comments:
                texts.append(comments[el.get(f"{{{SDL_NS}}}cid")])
        if texts:
            out.append((unit.get("id") or "", texts, problems))
    return out


def repeated_notes(data: bytes) -> list[str]:
    """"unit <id>: <note> x<n>" for each note termqa wrote more than once in one unit (and each problem
    id written twice in one unit); [] when there is none or the bytes are not XML."""
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError:
        return []
    found = []
    for uid, texts, problems in unit_notes(root):
        for text, n in Counter(texts).items():
            if n > 1:
                found.append(f"unit {uid}: {text!r} x{n}")
        for (pid, outcome), n in Counter(problems).items():
            if n > 1:
                found.append(f"unit {uid}: problem {pid} ({outcome}) in {n} notes")
    return found


def repeated_notes_under(folder: Path, seen: dict | None = None) -> list[str]:
    """`repeated_notes` of every XLIFF file under `folder` that termqa annotated, as "path: finding".
    `seen` (path -> (size, mtime)) skips files already read unchanged."""
    found = []
    try:
        paths = sorted(folder.rglob("*"))
    except OSError:
        return found
    for p in paths:
        if p.suffix.lower() not in SUFFIXES:
            continue
        try:  # (pytest may remove an old session's folder while this one reads it)
            if not p.is_file():
                continue
            st = p.stat()
            if seen is not None and seen.get(p) == (st.st_size, st.st_mtime_ns):
                continue
            data = p.read_bytes()
        except OSError:
            continue
        if seen is not None:
            seen[p] = (st.st_size, st.st_mtime_ns)
        if not any(mark in data for mark in _MARKS):  # never annotated by termqa: nothing to read
            continue
        found += [f"{p}: {f}" for f in repeated_notes(data)]
    return found
