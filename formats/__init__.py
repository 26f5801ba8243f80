"""Readers and writers, one module per format family. Installs as `termqa.formats`.

`read_bilingual`, `read_glossary` and `read_any` detect the format from the file's content (never
from its extension) and hand the file to its reader (`formats.readers.READERS`), imported lazily.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Optional, Union

from termqa.errors import InputError, UnknownFormatError
from termqa.model import BilingualFile, Glossary

from .readers import BILINGUAL_FAMILY, GLOSSARY_FAMILY, READERS, Source
from .sink import TupleSink
from .sniff import detect_text, kind_of_root, looks_binary, text_start
from .xmlsafe import local, parse_bytes

BILINGUAL = tuple(r.name for r in READERS.values() if r.family == BILINGUAL_FAMILY)
GLOSSARY = tuple(r.name for r in READERS.values() if r.family == GLOSSARY_FAMILY)

def _read_bytes(path) -> bytes:
    p = Path(path)
    if not p.exists():
        raise InputError(path, "does not exist")
    if p.is_dir():
        raise InputError(path, "is a folder, not a file")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot be read: {exc.strerror}") from None


def _parse(path) -> tuple[str, bytes, object]:
    """Read and classify a file: (kind, bytes, root element or None). An Excel workbook's root is the
    sheet named after `#` in its path (`terms.xlsx#Sheet2`), or None."""
    from .xlsxgloss import is_workbook, split_sheet  # light: openpyxl is imported when a sheet is read

    file, sheet = split_sheet(path)
    data = _read_bytes(file)
    if is_workbook(data):  # a zip: told apart before any text sniffing
        return "xlsx", data, sheet
    if sheet is not None:
        raise InputError(path, "does not exist")  # only a workbook has sheets to name after '#'
    if data.startswith(b"PK\x03\x04"):
        raise UnknownFormatError(path, "unknown format: a zip archive, not an Excel workbook (.xlsx)")
    start = text_start(data)
    if not start:
        raise InputError(path, "is empty")
    if start.startswith("<") and detect_text(start) != "skos-text":
        root = parse_bytes(data, str(path))
        kind = kind_of_root(root)
        if kind is None:
            raise UnknownFormatError(
                path,
                f"unknown format: XML root <{local(root.tag)}> is not XLIFF, TMX, Qt TS, TBX or RDF/SKOS",
            )
        return kind, data, root
    whole_lines = start.split("\n")[:-1]
    if start.startswith("#") and all(not ln.strip() or ln.lstrip().startswith("#") for ln in whole_lines):
        # only comment lines in the first 4 KB (a PO licence header can be longer): look further
        start = text_start(data, 65536)
    if looks_binary(start):
        raise UnknownFormatError(path, "unknown format: binary data, not XLIFF, TMX, PO, TBX, SKOS or CSV")
    kind = detect_text(start)
    if kind is None:
        raise UnknownFormatError(path, "unknown format")
    return kind, data, None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _dispatch(path, kind, data, root, *, src_lang=None, tgt_lang=None, default_lang=None):
    reader = READERS.get(kind)
    if reader is None:  # pragma: no cover - sniffing gives only registered kinds
        raise UnknownFormatError(path, "unknown format")
    return reader.read(Source(str(path), data, root, src_lang=src_lang, tgt_lang=tgt_lang, default_lang=default_lang))


# TMX and XLIFF files larger than this are read streaming (formats.tmx.read_stream,
# formats.xliff1.read_stream, formats.xliff2.read_stream): no XML tree in memory.
STREAM_MIN_BYTES = 16 * 1024 * 1024
_FIRST_ELEMENT = re.compile(rb"<(?![?!])([A-Za-z_][\w.:-]*)")
_STREAMED = ("tmx", "xliff")


def _big_xml(path) -> Optional[str]:
    """"tmx" or "xliff": the first element of a file large enough to stream (UTF-8 or another ASCII
    superset; only the head of the file is read), else None."""
    p = Path(path)
    try:
        if not p.is_file() or p.stat().st_size < STREAM_MIN_BYTES:
            return None
        with open(p, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return None  # the ordinary path reports it
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in head[:200]:
        return None  # UTF-16: the whole-file parser handles it
    body = re.sub(rb"<!--.*?-->", b"", head, flags=re.S)
    m = _FIRST_ELEMENT.search(body)
    name = m.group(1).split(b":")[-1].decode("ascii") if m else None
    return name if name in _STREAMED else None


def _read_streaming(path, *, src_lang=None, tgt_lang=None, sink=None) -> Optional[BilingualFile]:
    """The record of a big TMX or XLIFF file read streaming, its segments put in `sink()` (formats.sink; default:
    a tuple); None for any other file."""
    name = _big_xml(path)
    sink = sink or TupleSink
    if name == "tmx":
        from . import tmx

        return tmx.read_stream(str(path), src_lang=src_lang, tgt_lang=tgt_lang, sink=sink)
    if name == "xliff":
        from . import xmlsafe, xmlstream

        xmlsafe.refuse_entities(xmlsafe.prolog_of(path), path)  # before any parsing
        # 1.x or 2.x is told by the root element (namespace, version), read from the file's head
        if kind_of_root(xmlstream.root_of(str(path))) == "xliff2":
            from . import xliff2 as reader
        else:
            from . import xliff1 as reader
        return reader.read_stream(str(path), src_lang=src_lang, tgt_lang=tgt_lang, sink=sink)
    return None


def read_any(path, *, src_lang=None, tgt_lang=None, default_lang=None, sink=None) -> Union[BilingualFile, Glossary]:
    """Read a bilingual file or a glossary, whichever it is (`sink`: as `read_bilingual`)."""
    streamed = _read_streaming(path, src_lang=src_lang, tgt_lang=tgt_lang, sink=sink)
    if streamed is not None:
        return streamed
    kind, data, root = _parse(path)
    return _dispatch(path, kind, data, root, src_lang=src_lang, tgt_lang=tgt_lang, default_lang=default_lang)


def read_bilingual(path, *, src_lang=None, tgt_lang=None, sink=None) -> BilingualFile:
    """Read a bilingual file. `sink`: what makes the holder of each document's segments when a big file is read
    streaming (formats.sink; the pipeline passes the packer of termqa.store.packed)."""
    streamed = _read_streaming(path, src_lang=src_lang, tgt_lang=tgt_lang, sink=sink)
    if streamed is not None:
        return streamed
    kind, data, root = _parse(path)
    if kind not in BILINGUAL:
        raise InputError(path, f"is a glossary ({kind}), not a bilingual file", fix="pass it with --glossary")
    return _dispatch(path, kind, data, root, src_lang=src_lang, tgt_lang=tgt_lang)


def read_glossary(path, *, default_lang=None) -> Glossary:
    kind, data, root = _parse(path)
    if kind not in GLOSSARY:
        raise InputError(path, f"is a bilingual file ({kind}), not a glossary", fix="pass glossaries with --glossary")
    g = _dispatch(path, kind, data, root, default_lang=default_lang)
    if not g.concepts:
        raise InputError(path, "is an empty glossary: no concept with a term was found")
    return g
