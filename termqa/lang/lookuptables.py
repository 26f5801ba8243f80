"""spacy-lookups-data's word -> lemma tables: finding a language's data files, reading them (merging
per-part-of-speech tables), the accent- and case-insensitive index, and the fast-loading copy in the
index cache. One table per language, shared by its lemmatisers and the lexicon."""
from __future__ import annotations

import gzip
import json
import os
import sys
import threading
from pathlib import Path
from typing import Optional

from termqa.lang import installed
from termqa.lang.fold import loose
from termqa.lang.langtags import primary
from termqa.store import indexcache


def _first(value) -> Optional[str]:
    """Lookup tables store either a string or a list of candidate lemmas."""
    if isinstance(value, str):
        return value
    if value:
        return value[0]
    return None


class Table:
    """A language's word -> lemma table plus a loose index for unaccented/capitalised variants."""

    def __init__(self, lang: str, data: dict[str, str], source: str, files: Optional[dict] = None,
                 alternatives: Optional[dict[str, tuple[str, ...]]] = None):
        self.lang = lang
        self.data = data
        self.source = source
        self.files = files or {}  # spacy-lookups-data entry points, for the lexicon (loaded on need)
        self.alternatives = alternatives or {}  # forms the table gives several lemmas
        self._loose: Optional[dict[str, Optional[tuple[str, str]]]] = None
        self._lock = threading.Lock()

    def get(self, word: str) -> Optional[str]:
        d = self.data
        v = d.get(word)
        if v is None:
            low = word.lower()
            v = d.get(low)
            if v is None and low != word:
                v = d.get(word[:1] + word[1:].lower())  # ALLCAPS German noun -> Noun
        return v

    def loose_index(self) -> dict[str, Optional[tuple[str, str]]]:
        """loose(form) -> (form, lemma) for forms whose loose form differs from their lowercase.

        Lets "ETATS"/"Etats"/"etats" find "états" -> "état". None marks a loose form shared by forms
        of different lemmas (ambiguous: not used). Built on first need: it walks every accented form.
        """
        if self._loose is None:
            with self._lock:
                if self._loose is None:
                    idx: dict[str, Optional[tuple[str, str]]] = {}
                    forms = [f for f in self.data if not f.isascii() and "\n" not in f]
                    # one loose() call over all forms joined rather than one call per form: far fewer calls
                    loosed = loose("\n".join(forms)).split("\n")
                    if len(loosed) != len(forms):  # a form whose folding adds a newline: be slow
                        loosed = [loose(f) for f in forms]
                    for form, lf in zip(forms, loosed):
                        if lf == form:
                            continue
                        lem = sys.intern(self.data[form].lower())
                        prev = idx.get(lf, False)
                        if prev is False:
                            low = form.lower()
                            idx[lf] = (form if low == form else low, lem)  # shares the table's strings
                        elif prev is not None and prev[1] != lem:
                            idx[lf] = None
                    self._loose = idx
        return self._loose


_TABLES: dict[str, Optional[Table]] = {}
TABLES_LOCK = threading.Lock()


def load_table(lang: str) -> Optional[Table]:
    """The lemma lookup table of `lang` from spacy-lookups-data, or None when there is none.

    Languages with per-part-of-speech tables only (Polish, Irish) get them merged, nouns first:
    glossary terms are mostly nouns.
    """
    with TABLES_LOCK:
        if lang in _TABLES:
            return _TABLES[lang]
        table = None
        names = table_names(lang)
        if names:
            table = cached_table(lang, names, lookup_files(lang))
        _TABLES[lang] = table
        return table


def lookup_files(lang: str) -> dict:
    """spacy-lookups-data's data files for `lang` (name -> path), found through the `spacy_lookups`
    entry point it declares (where spaCy's registry finds them): no spaCy import, which alone takes
    noticeable time per process. Empty when the package is missing (fallback mode). The entry points are
    read once and kept in the index cache (termqa.lang.installed); callers must not change the dict."""
    return installed.lookup_files(lang)


def read_data(path) -> object:
    """A spacy-lookups-data file (JSON, or gzipped JSON next to the name given), as spaCy reads it."""
    p = Path(path)
    if not p.exists() and Path(f"{p}.gz").exists():
        p = Path(f"{p}.gz")
    if p.suffix == ".gz":
        with gzip.open(p, "rt", encoding="utf-8") as f:
            return json.load(f)
    with open(p, encoding="utf-8") as f:
        return json.load(f)


def _table_data(names, files) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """(form -> first lemma, form -> every lemma for forms the table gives several: homographs)."""
    # lemmas are interned: a table has many forms per lemma, so sharing the strings saves memory (and
    # the cached copy keeps the sharing)
    intern = sys.intern
    if names == ["lemma_lookup"]:
        raw = read_data(files["lemma_lookup"])
        data = {k: intern(v if v.__class__ is str else v[0]) for k, v in raw.items() if v}
        alts = {k: tuple(intern(x) for x in v) for k, v in raw.items() if v.__class__ is not str and len(v) > 1}
        return data, alts
    merged: dict[str, str] = {}
    for p in names:
        for k, v in read_data(files[p]).items():
            v = _first(v)
            if v and k not in merged:
                merged[k] = intern(v)
    return merged, {}


def cached_table(lang: str, names: list[str], files) -> Table:
    """The table (with its loose index) from the index cache, or read from spacy-lookups-data and stored.

    Keyed by the data files (path, size, modification time) and the package version, so an upgrade
    of spacy-lookups-data is a new key. Loading the cached form takes a fraction of reading the JSON.
    """
    source = "+".join(names) if names != ["lemma_lookup"] else "lemma_lookup"
    cache = indexcache.active()
    key = None
    if cache.enabled:
        key = table_key(lang, names, files)
        hit = cache.load(key)
        if isinstance(hit, tuple) and len(hit) == 3 and isinstance(hit[0], dict) and isinstance(hit[2], dict):
            table = Table(lang, hit[0], source, files, hit[2])
            table._loose = hit[1]
            return table
    data, alternatives = _table_data(names, files)
    table = Table(lang, data, source, files, alternatives)
    if key is not None:
        # the loose index is needed by nearly every run (any unknown word asks it): cache it too
        cache.store(key, (table.data, table.loose_index(), alternatives))
    return table


def table_key(lang: str, names: list[str], files: dict, kind: str = "lemma-table") -> str:
    """The index cache key of what is built from a language's tables: the data files (path, size,
    modification time) and the package version, so an upgrade of spacy-lookups-data is a new key."""
    source = "+".join(names) if names != ["lemma_lookup"] else "lemma_lookup"
    stamp = []
    for n in names:
        try:
            st = os.stat(files[n])
            stamp.append([n, str(files[n]), st.st_size, st.st_mtime_ns])
        except OSError:
            stamp.append([n, str(files[n])])
    return indexcache.make_lang_key(kind, lang, source, lookups_version(), stamp)


def table_lemma(word: str, lang: str) -> Optional[str]:
    """The lemma `lang`'s lookup table gives `word` (any case), or None when it has no entry."""
    table = load_table(primary(lang))
    return table.get(word) if table else None


def table_names(lang: str) -> list[str]:
    """The spacy-lookups-data tables `load_table` merges for `lang` (empty: no table)."""
    files = lookup_files(lang)
    if "lemma_lookup" in files:
        return ["lemma_lookup"]
    names = sorted(k for k in files if k.startswith("lemma_lookup_"))
    names.sort(key=lambda k: (k != "lemma_lookup_noun", k != "lemma_lookup_adj", k))
    return names


def lookups_version() -> str:
    return installed.lookups_version()
