"""The readers, declared once: every format family under one contract, in a registry imported lazily.

A reader is a name (the kind `formats.sniff` tells from a file's content, never from its extension), what
in the content tells it (`sniff`), the family it belongs to (a bilingual file or a glossary) and a module
whose `read(source)` makes the record. Every reader takes the same `Source`: the file's path, bytes and
what sniffing already parsed (an XML root, a workbook's sheet name), and the languages the run asks for;
each uses what its format needs. The module is imported the first time a file of its kind is read, so
`import termqa.formats` loads no reader (rdflib, openpyxl and translate-toolkit stay unloaded).
"""
from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Optional

BILINGUAL_FAMILY = "bilingual"
GLOSSARY_FAMILY = "glossary"


@dataclass(frozen=True)
class Source:
    """One file as every reader receives it."""

    path: str
    data: bytes
    root: Any = None  # the parsed XML root, or for a workbook the sheet named after '#' (None: the first)
    src_lang: Optional[str] = None
    tgt_lang: Optional[str] = None
    default_lang: Optional[str] = None  # the language of glossary labels that name none

    @cached_property
    def content_hash(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class Reader:
    name: str
    sniff: str  # what in the content tells this format, in words
    family: str
    module: str  # termqa.formats.<module>, imported on first use

    def read(self, source: Source):
        return importlib.import_module(f"{__package__}.{self.module}").read(source)


READERS = {r.name: r for r in (
    # "toolkit": gettext PO/POT and Qt TS, read through the optional translate-toolkit (formats/toolkit.py)
    Reader("xliff1", "XML root <xliff> of version 1.x", BILINGUAL_FAMILY, "xliff1"),
    Reader("xliff2", "XML root <xliff> of version 2.x", BILINGUAL_FAMILY, "xliff2"),
    Reader("tmx", "XML root <tmx>", BILINGUAL_FAMILY, "tmx"),
    Reader("toolkit", "gettext msgid/msgstr text, or XML root <TS>", BILINGUAL_FAMILY, "toolkit"),
    Reader("tbx", "XML root <martif> or <tbx>", GLOSSARY_FAMILY, "tbx"),
    Reader("skos-xml", "XML root <rdf:RDF>", GLOSSARY_FAMILY, "skos"),
    Reader("skos-text", "Turtle, N-Triples or JSON-LD text", GLOSSARY_FAMILY, "skos"),
    Reader("csv", "any other text: delimited columns", GLOSSARY_FAMILY, "csvgloss"),
    Reader("xlsx", "a zip holding an Excel workbook", GLOSSARY_FAMILY, "xlsxgloss"),
)}
