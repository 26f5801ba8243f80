"""Tokens and lemmas for matching glossary terms in running text.

One `Lemmatiser` per language turns text into `Token`s (surface, offsets, lemma, loose key, article
and punctuation flags). Glossary terms and segment text go through the same lemmatiser, so their
keys are comparable. Three ways to get lemmas, chosen by `get_lemmatiser(lang, mode=...)`:

* "lookup": spaCy's rule-based tokenizer of the language (`spacy.blank(lang)`) + the word -> lemma
  table from spacy-lookups-data. No model, no context: fast. Once
  one run has stored the tokenizer's rules in the index cache, chunktok applies them with spaCy's
  steps and the same tokens, without importing spaCy.
* "trained": a trained spaCy pipeline (e.g. fr_core_news_sm) when its package is installed;
  context-aware lemmas, but much slower.
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
import importlib.util
import re
import threading
import unicodedata
from typing import Optional, Sequence, Union

from termqa.config import LemmatiserMode, Settings
from termqa.errors import UsageError
from termqa.lang import analyses, chunktok, dictlemma, markup, markupcut, segment, stems
from termqa.lang.derivation import hides_derivation
from termqa.lang.fold import exact_key, lower, loose
from termqa.lang.langtags import primary
from termqa.lang.lookuptables import Table, load_table, lookups_version, table_names
from termqa.lang.spacytok import blank, blank_language, chunk_rules, package_meta, spacy_version
from termqa.lang.tokens import Piece, Token, make_token
from termqa.lang.wordlists import (
    ARTICLE_MIN_STEM, ARTICLE_PREFIXES, ARTICLES, DICTIONARY_UNSAFE, LEMMA_OVERRIDES, PLURAL_RULES, trained_package,
)
from termqa.lang.langcache import paused_gc

_HYPHENS = "-\u2010\u2011"
_INTRA_HYPHEN = re.compile(r"(?<=\w)([-\u2010\u2011])(?=\w)")
_HAS_WORDCHAR = re.compile(r"\w")
_CHUNK = re.compile(r"\S+")


def _is_punct(s: str) -> bool:
    return _HAS_WORDCHAR.search(s) is None


def _key(lemma: str) -> str:
    k = loose(lemma)
    return k if len(k) < 2 or "-" not in k else (k.replace("-", "") or k)


_ZWNJ = "\u200c"
_ZWNJ_SPLITS = frozenset({"fa"})  # languages that write a ZWNJ where others write a space between words


class Lemmatiser:
    """Tokenises and lemmatises text of one language. Get one with `get_lemmatiser`."""

    # whole texts; bounded so a large project does not keep every token. Small: a text is re-made from
    # its chunks' cached pieces quickly, and a large bound cost memory without saving time
    _TEXT_CACHE_MAX = 4_000
    _WORD_CACHE_MAX = 500_000

    def __init__(self, lang: str, mode: str, name: str, nlp, table: Optional[Table],
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
        self._article = ARTICLE_PREFIXES.get(lang)
        self._overrides = LEMMA_OVERRIDES.get(lang, {})
        # simplemma's dictionary of the language (dictlemma), asked for the words the table does not know
        self._dictionary = dictlemma.lookup(lang)
        self._unsafe = DICTIONARY_UNSAFE.get(lang)
        self._words: dict[str, tuple[Piece, ...]] = {}
        self._chunks: dict[str, tuple[Piece, ...]] = {}
        self._lemmas: dict[str, str] = {}
        self._texts: dict[str, tuple[Token, ...]] = {}
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()
        # analyses kept between runs, and what this process made that they lacked
        self._analyses = analyses.Analyses(name, mode, lang)

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
    def _table(self) -> Optional[Table]:
        if self._table_value is None and self._load_table is not None:
            with self._load_lock:
                if self._table_value is None and self._load_table is not None:
                    self._table_value = self._load_table()
                    self._load_table = None
        return self._table_value

    # -- analyses kept between runs: the pipeline's calls (worker processes, end of a run), passed on to
    # termqa.lang.analyses.Analyses

    def analyses_key(self) -> str:
        return self._analyses.key()

    def take_fresh(self) -> dict[str, tuple]:
        return self._analyses.take_fresh()

    def absorb(self, fresh: dict[str, tuple]) -> None:
        self._analyses.absorb(fresh)

    def save_analyses(self) -> None:
        self._analyses.save()

    # -- words ----------------------------------------------------------------------------------

    def lemma_of(self, word: str) -> str:
        """Lowercase lemma of one word (no hyphen splitting): table, then loose index, then simplemma's
        dictionary, then rules."""
        lem = self._lemmas.get(word)
        if lem is not None:
            return lem
        lem = self._lemma_of(word)
        if len(self._lemmas) > self._WORD_CACHE_MAX:
            self._lemmas.clear()
        self._lemmas[word] = lem
        return lem

    def _lemma_of(self, word: str) -> str:
        lang = self.lang
        lem = self._overrides.get(loose(word))
        t = self._table
        if "\u2019" in word or "\u02bc" in word:
            word_n = word.replace("\u2019", "'").replace("\u02bc", "'")  # tables use ASCII '
        else:
            word_n = word
        low = lower(word_n, lang)  # Turkish DİĞER is diğer, not di̇ğer
        ask = self._dictionary is not None and (self._unsafe is None or self._unsafe.search(word) is None)
        if lem is None and t is not None:
            lem = t.get(word_n if low == word_n.lower() else low)
            if lem is None:
                # an unaccented capital (ETATS, Etats) or a missing accent: find the accented form
                index = t.loose_index()
                hit = index.get(loose(word_n))
                if hit:
                    lem = hit[1]
                # the table knows the word up to its accents or ß (ambiguously): the rules key it as those
                # forms are keyed, where a dictionary could list it as another word (German "Strasse" as "Strass")
                ask = ask and loose(word_n) not in index
        if lem is None and ask:
            lem = self._dictionary_lemma(word_n if low == word_n.lower() else low, low)
        if lem is None:
            lem = self._rule_lemma(low)
        lem = lower(lem, lang)
        if lem != low and hides_derivation(low, lem, lang):
            return low  # Turkish "bütçesiz" ("without a budget") is not a form of "bütçe"
        return lem

    def _dictionary_lemma(self, word: str, low: str) -> Optional[str]:
        """The lemma simplemma's dictionary lists for the word; None when it does not list it.

        Where an article is written onto words (Arabic), the word is looked up without it and the lemma
        is taken without it too, as the rule lemmatiser keys every word: "بالمتعقبات" -> "متعقبات" ->
        "متعقب", and "التهاب" keys as "تهاب" with or without the dictionary, as "الالتهاب" and "بالتهاب" do."""
        if self._article is None:
            return self._dictionary(word)
        lem = self._dictionary(self._without_article(low))
        return self._without_article(lower(lem, self.lang)) if lem is not None else None

    def _rule_lemma(self, low: str) -> str:
        """The lemma of a word no table knows: the article written onto it taken off, then the plural rules."""
        if self._article is not None:
            low = self._without_article(low)
        if not low.isalpha():
            return low
        for suf, rep, minlen, blockers in self._rules:
            if low.endswith(suf) and len(low) >= minlen and not any(low.endswith(b) for b in blockers):
                return low[: len(low) - len(suf)] + rep
        return low

    def _without_article(self, low: str) -> str:
        """The word without the article written onto it (wordlists.ARTICLE_PREFIXES), taken off as long as
        ARTICLE_MIN_STEM letters stay (vowel signs do not count)."""
        while True:
            m = self._article.match(low)
            if m is None or sum(c.isalpha() and not unicodedata.combining(c) for c in low[m.end():]) < ARTICLE_MIN_STEM:
                return low
            low = low[m.end():]

    def _piece(self, text: str, a: int, b: int, lemma: str) -> Piece:
        punct = _is_punct(text)
        surface = loose(text)
        key = surface if punct else _key(lemma)
        article = (not punct) and surface in self._articles
        return (text, a, b, lemma if not punct else text, key, article, punct, (key, surface, exact_key(text)))

    def _analyse(self, word: str, lemma: Optional[str] = None) -> tuple[Piece, ...]:
        """Pieces of one tokenizer token: hyphenated compounds split into words and hyphens.

        `lemma` is the trained pipeline's lemma for the whole token, when there is one.
        """
        if not word or word.isspace():
            return ()
        if _ZWNJ in word and self.lang in _ZWNJ_SPLITS:
            # Persian writes "پیش‌فرض" and "پیش فرض", "فعالیت‌ها" and "فعالیت ها": the zero-width
            # non-joiner parts words as a space does, so its parts are words (the ZWNJ itself is left out)
            out, pos = [], 0
            for part in word.split(_ZWNJ):
                out.extend((p[0], p[1] + pos, p[2] + pos) + p[3:] for p in self._analyse(part))
                pos += len(part) + 1
            return tuple(out)
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
                stored = self._analyses.stored(todo_list)
                missing = [t for t in todo_list if t not in stored]
                made = dict(zip(missing, self._run_trained(missing))) if missing else {}
                for t, toks in made.items():
                    self._analyses.fresh[t] = tuple((x.text, x.start, x.end, x.lemma, x.key, x.article, x.punct, x.keys)
                                           for x in toks)
                results = [made[t] if t in made else tuple(make_token(Token, p) for p in stored[t]) for t in todo_list]
            else:
                results = self._run_lookup(todo_list, first_try=True)
                retry = [i for i, r in enumerate(results) if r is None]
                if retry:
                    self._fetch_chunks(_CHUNK.findall(todo_list[i]) for i in retry)
                    for i, toks in zip(retry, self._run_lookup([todo_list[i] for i in retry])):
                        results[i] = toks
            results = [markupcut.unmark(t, r, self._analyse) for t, r in zip(todo_list, results)]  # markup is not words
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
        and tokenises only the few that answer yes."""
        if self._trained:  # a trained pipeline tokenises whole texts: ask the tokens
            return [not keys.isdisjoint([x.key for x in toks]) for toks in self.tokenize_many(texts)]
        # a text tokenised already answers from its tokens; the others from their chunks, but for text
        # with markup, whose tokens are cut at it (`markupcut.unmark`), which its chunks do not know
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
            chunks.update(self._analyses.stored(unseen))

    def _run_lookup(self, texts: list[str], first_try: bool = False) -> list:
        """Tokens of each text. With `first_try`, a text holding a chunk not yet in memory is None
        instead (the caller reads the stored analyses of all such chunks at once, then asks again)."""
        # spaCy's tokenizer splits on whitespace first and handles each chunk on its own (checked
        # on the TICO-19 and bio-MQM texts: identical tokens), so we cache the finished pieces per
        # whitespace-delimited chunk: running text repeats chunks constantly, and a cache hit costs
        # a dict lookup instead of a trip through spaCy and the lemma table.
        chunks = self._chunks
        chunk_pieces = self._chunk_pieces
        T, make = Token, make_token
        results = []
        # Tokens hold no reference cycles: no collections while we allocate millions of them
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

    def _chunk_pieces(self, chunk: str) -> tuple[Piece, ...]:
        words = self._words
        out: list[Piece] = []
        seps = [(m.start(), m.end()) for m in markupcut.MARKUP.finditer(chunk)]
        for s, i in self._chunk_splitter()(chunk):
            if seps and markupcut.touches(seps, i, i + len(s), s):
                out.extend(markupcut.cut(s, i, seps, self._analyse))  # markup glued to a word: cut it apart
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
        self._analyses.fresh[chunk] = res
        return res

    def _run_trained(self, texts: list[str]) -> list[tuple[Token, ...]]:
        results = []
        for text, doc in zip(texts, self.nlp.pipe(texts, batch_size=64)):
            toks: list[Token] = []
            seps = [(m.start(), m.end()) for m in markupcut.MARKUP.finditer(text)]
            for t in doc:
                s = t.text
                if seps and markupcut.touches(seps, t.idx, t.idx + len(s), s):
                    # markup glued to a word ("Change</Affiliation"): cut at the markup, lemmas from
                    # the table for the words (the pipeline saw the glued token)
                    for piece in markupcut.cut(s, t.idx, seps, self._analyse):
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


# --- construction -----------------------------------------------------------------------------

_CACHE: dict[tuple, Lemmatiser] = {}
_CACHE_LOCK = threading.Lock()


def get_lemmatiser(lang: str, *, mode: Union[LemmatiserMode, str] = Settings.lemmatiser,
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


def _morphology_name(lang: str) -> str:
    """What the signature adds for the morphology beyond spaCy's tables: simplemma's dictionary (lemmas of
    the words the table lacks) and the Snowball stemmer (inflected forms, termqa.lang.stems)."""
    out = f" + {dictlemma.name()}" if dictlemma.available(lang) else ""
    stem = stems.name(lang)
    return out + (f" + {stem}" if stem else "")


def _build(lang: str, mode: str, seg: Optional[segment.Segmenter] = None) -> Lemmatiser:
    pkg = trained_package(lang)
    installed = importlib.util.find_spec(pkg) is not None
    if mode == "trained" and not installed:
        raise UsageError(
            f"no trained spaCy pipeline for '{lang}' is installed",
            fix=f"pip install {pkg.replace('_', '-')} (or use the lookup lemmatiser)",
        )
    if mode == "trained":
        meta = package_meta(pkg)
        name = f"{meta.get('lang', lang)}_{meta.get('name', 'pipeline')}-{meta.get('version', '?')}"

        def load_pipeline():
            import spacy

            # parser and NER do nothing for lemmas; leaving them out saves their cost
            return spacy.load(pkg, exclude=["parser", "ner", "senter"])

        return Lemmatiser(lang, "trained", name, None, None, trained=True, load_nlp=load_pipeline,
                          load_table=lambda: load_table(lang))

    if seg is not None:
        # a script written without spaces: the multilingual tokenizer, whose pieces the segmenter cuts
        # into words (spaCy's own classes for these languages need packages of their own)
        head = f"spacy-{spacy_version()} blank:xx + segmenter:{seg.name}"
        return Lemmatiser(lang, "fallback", f"{head} + fallback:{lang} (no lookup table)", None, None,
                          load_nlp=lambda: blank("xx"), load_rules=lambda: chunk_rules("xx"), segmenter=seg)
    blank_lang, nlp = blank_language(lang)
    names = table_names(lang) if blank_lang != "xx" else []
    head = f"spacy-{spacy_version()} blank:{blank_lang}"
    if names:
        name = f"{head} + spacy-lookups-data-{lookups_version()}"
        if names != ["lemma_lookup"]:
            name += f" ({'+'.join(names)})"
        name += _morphology_name(lang)
        return Lemmatiser(lang, "lookup", name, nlp, None, load_nlp=lambda: blank(blank_lang),
                          load_table=lambda: load_table(lang), load_rules=lambda: chunk_rules(blank_lang))
    rules = " + plural rules" if lang in PLURAL_RULES else ""
    rules += " + article rules" if lang in ARTICLE_PREFIXES else ""
    name = f"{head} + fallback:{lang} (no lookup table{rules}){_morphology_name(lang)}"
    return Lemmatiser(lang, "fallback", name, nlp, None, load_nlp=lambda: blank(blank_lang),
                      load_rules=lambda: chunk_rules(blank_lang))
