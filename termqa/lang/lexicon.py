"""The words of a language and every lemma each can be a form of (homographs included), and the
part-of-speech lemma keys: what tells a copied source word from a target-language word, or an
inflection from another word. Built from spacy-lookups-data's tables and data files, kept in the index
cache as sorted text (termqa.lang.sortedtext)."""
from __future__ import annotations

from typing import Optional

from termqa.lang.fold import dotless_i, loose, loose_many
from termqa.lang.langtags import primary
from termqa.lang.lookuptables import (TABLES_LOCK, Table, cached_parts, lexicon_parts, load_table, lookup_files,
                                      read_data, table_key, table_names)
from termqa.lang.sortedtext import SortedPairs, SortedWords
from termqa.lang import langcache


class Lexicon:
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
        self.words = SortedWords.from_text(words)
        self.lemmas = SortedWords.from_text(lemmas)
        self.index = {pos: SortedWords.from_text(ws) for pos, ws in index.items()}
        self.exc = {pos: SortedPairs.from_text(t) for pos, t in exc.items()}
        self.forms = SortedPairs.from_text(forms)  # the lookup table: form -> its lemma(s), tab-separated
        self.loose = SortedPairs.from_text(loose_forms)  # the table's loose index: "form<TAB>lemma", "" ambiguous
        self._cache: dict[str, frozenset[str]] = {}

    @staticmethod
    def parts_of(table: "Table") -> tuple:
        """What the index cache keeps of a table (termqa.lang.lookuptables.lexicon_parts)."""
        return lexicon_parts(table)

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


_LEXICONS: dict[str, Optional[Lexicon]] = {}


def _lexicon(lang: str) -> Optional[Lexicon]:
    """The language's lexicon (None without tables), from the index cache when it is there (the same
    parts that answer the lemmatiser's table: termqa.lang.lookuptables.cached_parts): building it loads the
    table, reads three more data files and walks every form."""
    if lang in _LEXICONS:
        return _LEXICONS[lang]
    names = table_names(lang)
    lex = None
    if names:
        parts = cached_parts(lang, names, lookup_files(lang))
        if parts is not None:
            lex = Lexicon(lang, parts[:7])
        else:
            table = load_table(lang)
            if table is not None:
                lex = Lexicon(lang, Lexicon.parts_of(table))
    with TABLES_LOCK:
        _LEXICONS[lang] = lex
    return lex


def _apostrophe(word: str) -> str:
    return word.replace("\u2019", "'").replace("\u02bc", "'") if ("\u2019" in word or "\u02bc" in word) else word


def known_form(word: str, lang: str) -> Optional[str]:
    """The correctly accented form of `word` in `lang`'s lookup table (lowercase), or None."""
    lg = primary(lang)
    lex = _lexicon(lg)
    return lex.known_form(dotless_i(word, lg)) if lex is not None else None


def is_target_word(word: str, lang: str) -> bool:
    """Is `word` a word of `lang` as its lookup tables know it (case-insensitive, accents exact)?

    False when the language has no tables: nothing is known, so nothing is claimed.
    """
    lg = primary(lang)
    lex = _lexicon(lg)
    return lex is not None and lex.is_word(dotless_i(word, lg))


def lemmas_of(word: str, lang: str) -> frozenset[str]:
    """Every lemma `word` can be a form of in `lang` (homographs included); empty when unknown."""
    lg = primary(lang)
    lex = _lexicon(lg)
    return lex.lemmas_of(dotless_i(word, lg)) if lex is not None else frozenset()



_POS_KEYS: dict[str, tuple] = {}


def part_of_speech_keys(lang: str) -> tuple:
    """(nouns, adjectives, verbs) of `lang` as loose lemma keys, from spacy-lookups-data's
    per-part-of-speech lemma index, nouns also from its exception list (French "virus" is only
    there); all empty when the language has none. Neither is complete: a word absent is unknown, not
    proven another part of speech. Each is a `SortedWords` (membership, iteration, len), kept in the
    index cache as text, which loads far faster than the data files are read."""
    lang = primary(lang)
    with TABLES_LOCK:
        got = _POS_KEYS.get(lang)
        if got is not None:
            return got
        empty = SortedWords()
        got = (empty, empty, empty)
        files = lookup_files(lang)
        if "lemma_index" in files:
            cache = langcache.active()
            names = [n for n in ("lemma_index", "lemma_exc") if n in files]
            key = table_key(lang, names, files, kind="pos-keys") if cache.enabled else None
            hit = cache.load(key) if key else None
            if isinstance(hit, tuple) and len(hit) == 3 and all(isinstance(x, bytes) for x in hit):
                got = tuple(SortedWords.from_text(x) for x in hit)
            else:
                try:
                    texts = _read_pos_keys(files)
                except Exception:  # another layout of the data: no derivations
                    pass
                else:
                    got = tuple(SortedWords.from_text(x) for x in texts)
                    if key:
                        cache.store(key, texts)
        _POS_KEYS[lang] = got
        return got


def _read_pos_keys(files) -> tuple[bytes, bytes, bytes]:
    index = read_data(files["lemma_index"])
    exc = (read_data(files["lemma_exc"]).get("noun") or {}) if "lemma_exc" in files else {}

    def keys(words) -> bytes:
        words = {w.lower() for w in words if isinstance(w, str) and "\n" not in w}
        plain = {w for w in words if w.isascii()}  # most: loose is lower() for them
        return SortedWords(plain | set(loose_many(sorted(words - plain)))).text()

    nouns = list(index.get("noun", ()))
    for form, lemmas in exc.items():
        nouns.append(form)
        nouns.extend(lemmas if isinstance(lemmas, list) else [lemmas])
    return keys(nouns), keys(index.get("adj", ())), keys(index.get("verb", ()))
