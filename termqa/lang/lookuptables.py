"""spacy-lookups-data's word -> lemma tables: finding a language's data files, reading them (merging
per-part-of-speech tables), the accent- and case-insensitive index, and the fast-loading copy in the
index cache. One table per language, shared by its lemmatisers and the lexicon."""
from __future__ import annotations

import gzip
import json
import os
import sys
import threading
from collections import Counter
from itertools import compress, filterfalse
from operator import itemgetter, ne
from pathlib import Path
from typing import Mapping, Optional

from termqa.lang import installed
from termqa.lang.fold import loose_many
from termqa.lang.langtags import primary
from termqa.lang.sortedtext import SortedPairs, SortedWords
from termqa.lang import langcache


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
                    data = self.data
                    forms = list(filterfalse(str.isascii, data))
                    if "\n".join(forms).count("\n") != max(len(forms) - 1, 0):  # a form holding a newline: left out
                        forms = [f for f in forms if "\n" not in f]
                    # folded in a few passes over all forms joined (loose_many), and grouped with whole-list
                    # steps: Russian's 500k forms took ~1.8 s of CPU folded a character at a time and
                    # indexed one form at a time
                    loosed = loose_many(forms)
                    pairs = list(compress(zip(loosed, forms), map(ne, loosed, forms)))
                    first = dict(reversed(pairs))  # each loose form's first form (the last write wins)
                    counts = Counter(map(itemgetter(0), pairs))
                    shared = {lf for lf, n in counts.items() if n > 1}
                    lemmas: dict[str, set] = {}
                    for lf, f in pairs:
                        if lf in shared:
                            lemmas.setdefault(lf, set()).add(data[f].lower())
                    intern = sys.intern
                    idx: dict[str, Optional[tuple[str, str]]] = {}
                    for lf, form in first.items():
                        if lf in shared and len(lemmas[lf]) > 1:
                            idx[lf] = None  # forms of different lemmas: ambiguous
                            continue
                        low = form.lower()
                        # the form shares the table's strings, the lemma is interned
                        idx[lf] = (form if low == form else low, intern(data[form].lower()))
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
        if raw.__class__ is dict and set(map(type, raw.values())) == {str}:
            # one lemma per form (most tables): whole-table steps rather than a Python step per form, the
            # values interned in place (a second dict of 800k forms was ~40 MB more at a first run's peak)
            for k, v in zip(list(raw), map(intern, raw.values())):
                raw[k] = v
            if "" in raw.values():
                raw = {k: v for k, v in raw.items() if v}
            return raw, {}
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


class _FirstLemmas(Mapping):
    """form -> its first lemma, read from a lexicon's "form<TAB>lemma<TAB>..." lines (a `SortedTable`'s
    `data`: what a dict table's `data` answers; iterating decodes every line, for tests and reports)."""

    def __init__(self, forms: SortedPairs):
        self._forms = forms

    def get(self, form, default=None):
        v = self._forms.get(form) if isinstance(form, str) else None
        return v.split("\t", 1)[0] if v is not None else default

    def __getitem__(self, form):
        v = self.get(form)
        if v is None:
            raise KeyError(form)
        return v

    def __iter__(self):
        text = self._forms.text()
        lines = text.decode("utf-8", "surrogatepass").split("\n") if text else []
        return (line.split("\t", 1)[0] for line in lines)

    def __len__(self) -> int:
        text = self._forms.text()
        return text.count(b"\n") + 1 if text else 0


class _LooseLines(Mapping):
    """A table's loose index read from a lexicon's "loose<TAB>form<TAB>lemma" lines ("loose<TAB>" for an
    ambiguous one): `get` gives (form, lemma), None when ambiguous, as the dict `Table.loose_index` builds."""

    _KEPT_MAX = 100_000

    def __init__(self, pairs: SortedPairs):
        self._pairs = pairs
        self._kept: dict = {}  # key -> its line's value or None: the lemmatiser asks `get`, then `in`

    def _line(self, key) -> Optional[str]:
        kept = self._kept
        if key in kept:
            return kept[key]
        v = self._pairs.get(key) if isinstance(key, str) else None
        if len(kept) > self._KEPT_MAX:
            kept.clear()
        kept[key] = v
        return v

    def get(self, key, default=None):
        v = self._line(key)
        if v is None:
            return default
        return tuple(v.split("\t", 1)) if v else None

    def __contains__(self, key) -> bool:
        return self._line(key) is not None

    def __getitem__(self, key):
        if key not in self:
            raise KeyError(key)
        return self.get(key)

    def __iter__(self):
        text = self._pairs.text()
        lines = text.decode("utf-8", "surrogatepass").split("\n") if text else []
        return (line.split("\t", 1)[0] for line in lines)

    def __len__(self) -> int:
        text = self._pairs.text()
        return text.count(b"\n") + 1 if text else 0


class SortedTable(Table):
    """A table answered from the lexicon's sorted lines (`lexicon_parts`), searched in place: what the index
    cache keeps of a language, one copy for the lemmatiser and the lexicon. A dict of the forms took 0.4-0.6 s
    to unpickle and ~100 MB per language (Spanish, Russian, Portuguese); the lines load as one byte string."""

    def __init__(self, lang: str, parts: tuple, source: str, files: Optional[dict] = None):
        forms = SortedPairs.from_text(parts[5])
        super().__init__(lang, {}, source, files)
        self._forms = forms
        self.data = _FirstLemmas(forms)  # type: ignore[assignment]
        self._loose = _LooseLines(SortedPairs.from_text(parts[6]))  # type: ignore[assignment]

    def get(self, word: str) -> Optional[str]:
        # Table.get's probes, each spelling searched once (a search costs microseconds, not a dict's
        # nanoseconds: running text is mostly lowercase, where the three spellings are one)
        f = self._forms.get
        v = f(word)
        if v is None:
            low = word.lower()
            if low != word:
                v = f(low)
                if v is None:
                    cap = word[:1] + word[1:].lower()  # ALLCAPS German noun -> Noun
                    if cap != word and cap != low:
                        v = f(cap)
        return v.split("\t", 1)[0] if v is not None else None

    @property
    def alternatives(self) -> dict:  # type: ignore[override]
        """Forms the table gives several lemmas (decoded from every line: for tests, not for runs)."""
        out = {}
        text = self._forms.text()
        for line in text.decode("utf-8", "surrogatepass").split("\n") if text else ():
            form, *lemmas = line.split("\t")
            if len(lemmas) > 1:
                out[form] = tuple(lemmas)
        return out

    @alternatives.setter
    def alternatives(self, value) -> None:
        pass  # set by Table.__init__; read from the lines instead


def lexicon_parts(table: Table) -> tuple:
    """What the index cache keeps of a table and the data files beside it: (words, lemmas, {part of speech:
    lemmas}, {part of speech: exceptions}, suffix rules, forms -> lemmas, loose index), the lists as
    `SortedWords` text and the mappings as `SortedPairs` text (termqa.lang.lexicon reads them)."""
    files = table.files
    # whole-table steps (map, set: C loops) rather than a Python step per form: building a lexicon was
    # the largest part of a first run (~2 s of CPU for Portuguese's 800k forms)
    words: set[str] = set(map(str.lower, table.data))
    # lemmas keep the table's case: German "Gut" (goods) is not "gut" (good)
    lemmas: set[str] = set(table.data.values())
    for vs in table.alternatives.values():
        lemmas.update(vs)
    index: dict[str, frozenset[str]] = {}
    exc: dict[str, dict[str, tuple[str, ...]]] = {}
    rules: list[tuple[str, str, str]] = []  # (part of speech, old suffix, new suffix)
    try:
        if "lemma_index" in files:
            index = {pos: frozenset(w.lower() for w in ws) for pos, ws in read_data(files["lemma_index"]).items()}
        if "lemma_exc" in files:
            exc = {pos: {k.lower(): tuple(x.lower() for x in (v if isinstance(v, list) else [v]))
                         for k, v in d.items()}
                   for pos, d in read_data(files["lemma_exc"]).items()}
        if "lemma_rules" in files and index:
            for group, rs in read_data(files["lemma_rules"]).items():
                pos = group.split("_")[0]  # Spanish groups rules by inflection: verb_fin_ind_...
                if pos in index and isinstance(rs, list):
                    rules.extend((pos, old, new) for old, new in rs if old)
    except Exception:  # an unexpected table layout: the lookup table alone still answers
        index, exc, rules = {}, {}, []
    for ws in index.values():
        lemmas.update(ws)
    for d in exc.values():
        words.update(d)
        for vs in d.values():
            lemmas.update(vs)
    words |= set(map(str.lower, lemmas))
    # each text made and its set let go before the next: the peak of a first run is this build's
    words_text = SortedWords(words).text()
    del words
    lemmas_text = SortedWords(lemmas).text()
    del lemmas
    index_texts = {pos: SortedWords(ws).text() for pos, ws in index.items()}
    del index
    exc_texts = {pos: SortedPairs({k: "\t".join(v) for k, v in d.items()}).text() for pos, d in exc.items()}
    del exc
    forms = table.data
    if table.alternatives:
        forms = dict(forms)
        for k, alts in table.alternatives.items():
            if k in forms:
                forms[k] = "\t".join(dict.fromkeys((forms[k], *alts)))
    forms_text = SortedPairs(forms).text()
    del forms
    loose_text = SortedPairs({k: "\t".join(v) if v else "" for k, v in table.loose_index().items()}).text()
    return words_text, lemmas_text, index_texts, exc_texts, rules, forms_text, loose_text


def _usable_parts(hit) -> bool:
    return isinstance(hit, tuple) and len(hit) == 8 and isinstance(hit[0], bytes) and isinstance(hit[7], bool)


def _lines_keep(table: Table) -> bool:
    """Do the sorted lines keep every answer of `table`: no form or lemma holding a tab or a newline (a line
    could not hold it whole), no empty form?"""
    lemmas = set(table.data.values())
    for vs in table.alternatives.values():
        lemmas.update(vs)
    for loose_hit in table.loose_index().values():
        if loose_hit:
            lemmas.update(loose_hit)
    text = "\n".join(lemmas)
    if "\t" in text or text.count("\n") != max(len(lemmas) - 1, 0):
        return False
    forms = "\n".join(table.data)
    return "" not in table.data and "\t" not in forms and forms.count("\n") == max(len(table.data) - 1, 0)


_PARTS: dict[tuple[str, str], tuple] = {}
_PARTS_LOCK = threading.Lock()


def cached_parts(lang: str, names: list[str], files) -> Optional[tuple]:
    """The lexicon parts of `lang` (`lexicon_parts`) and whether their lines keep every answer of the table
    (`_lines_keep`), from the index cache, or built from spacy-lookups-data's files and stored; kept for the
    process, so the lemmatiser's table and the lexicon share one copy. None without an index cache. Keyed by
    the data files (path, size, modification time) and the package version, so an upgrade of
    spacy-lookups-data is a new key."""
    cache = langcache.active()
    if not cache.enabled:
        return None
    key = table_key(lang, names, files, kind="lemma-lexicon")
    kept = (str(cache.folder), key)  # per folder: a run with another cache folder reads (and fills) its own
    with _PARTS_LOCK:
        got = _PARTS.get(kept)
        if got is not None:
            return got
        hit = cache.load(key)
        if _usable_parts(hit):
            got = hit
        else:
            source = "+".join(names) if names != ["lemma_lookup"] else "lemma_lookup"
            data, alternatives = _table_data(names, files)
            table = Table(lang, data, source, files, alternatives)
            got = lexicon_parts(table) + (_lines_keep(table),)
            cache.store(key, got)
            del table, data, alternatives  # a first run keeps the lines, not the dict (~100 MB a language)
        _PARTS[kept] = got
        return got


def cached_table(lang: str, names: list[str], files) -> Table:
    """The table of `lang`: answered from its lexicon's sorted lines (`cached_parts`, one load from the index
    cache, or built and stored), or read from spacy-lookups-data as a dict without an index cache (or for a
    table whose forms the lines cannot keep whole)."""
    source = "+".join(names) if names != ["lemma_lookup"] else "lemma_lookup"
    parts = cached_parts(lang, names, files)
    if parts is not None and parts[7]:
        return SortedTable(lang, parts, source, files)
    data, alternatives = _table_data(names, files)
    return Table(lang, data, source, files, alternatives)


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
    return langcache.make_lang_key(kind, lang, source, lookups_version(), stamp)


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
