"""Is this text in the language it claims? A cheap check on function words, for input sanity.

A wrong `--src-lang`/`--tgt-lang`, a target file in another language, or a glossary built for another
language pair all give a run that finds nothing or judges nonsense, and exits 0. Function words
(articles, prepositions, pronouns: spaCy's stop-word lists, shipped with spaCy, no model download)
make up a large share of any running text and differ between languages, so the share of a text's
words found in each language's list is a good enough witness of which language it is in.
The check only speaks when the evidence is clear: enough words, and the declared language's share far
below another language's.
"""
from __future__ import annotations

import importlib.util
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional

from termqa.lang.fold import loose
from termqa.lang.langtags import primary

# Languages with a stop-word list in spaCy and words separated by spaces.
CANDIDATES = ("en", "fr", "de", "es", "it", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs", "ru", "uk", "tr",
              "ro", "hu", "el", "ca")
# Closely related languages share many function words; a text in one is not flagged as "not the other".
_RELATED = [frozenset({"da", "nb", "sv"}), frozenset({"es", "ca", "pt"}), frozenset({"ru", "uk"}),
            frozenset({"cs", "pl"})]
MIN_WORDS = 40  # below this, no verdict
MIN_SHARE = 0.12  # the best language must cover at least this share of the words
RATIO = 0.4  # the declared language is flagged when its share is below RATIO x the best share
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


@lru_cache(maxsize=None)
def spacy_stop_words(lang: str) -> frozenset:
    """spaCy's stop-word list of `lang`, read from its file alone.

    Importing `spacy.lang.<lang>.stop_words` as a module runs the language package's __init__ first,
    which compiles its tokenizer exceptions (several seconds for French): the file itself only
    defines a set, so it is loaded on its own, under a private module name.
    """
    try:
        spec = importlib.util.find_spec("spacy")
        if spec is None or not spec.submodule_search_locations:
            return frozenset()
        path = f"{list(spec.submodule_search_locations)[0]}/lang/{lang}/stop_words.py"
        file_spec = importlib.util.spec_from_file_location(f"_termqa_stop_words_{lang}", path)
        if file_spec is None or file_spec.loader is None:
            return frozenset()
        module = importlib.util.module_from_spec(file_spec)
        file_spec.loader.exec_module(module)
        return frozenset(module.STOP_WORDS)
    except (ImportError, AttributeError, OSError, SyntaxError):
        return frozenset()


@lru_cache(maxsize=None)
def stop_words(lang: str) -> frozenset:
    """spaCy's stop words for the language, loose-normalised (empty when spaCy has none).

    Read from spaCy's `lang/<xx>/stop_words.py` alone (spacy_stop_words): importing the language
    package would also compile its tokenizer exceptions, seconds of work for French that this does not need.
    """
    words = spacy_stop_words(lang)
    if not words:
        try:  # an unusual spaCy layout: ask spaCy the ordinary way
            from spacy.util import get_lang_class

            words = get_lang_class(lang).Defaults.stop_words
        except Exception:  # unknown language: no stop list, mining is just less selective
            words = ()
    return frozenset(loose(w) for w in words)


@dataclass(frozen=True)
class LanguageGuess:
    best: Optional[str]  # the language whose function words cover most words (None: too little text)
    shares: dict  # language -> share of words that are its function words
    words: int

    def contradicts(self, declared: str) -> bool:
        """The text clearly is not in `declared` (a language we can check)."""
        d = primary(declared)
        if self.best is None or d not in self.shares or d == self.best:
            return False
        if any(d in group and self.best in group for group in _RELATED):
            return False
        top = self.shares[self.best]
        return top >= MIN_SHARE and self.shares[d] < RATIO * top


def guess_language(texts: Iterable[str], max_words: int = 4000) -> LanguageGuess:
    """Which candidate language the texts are written in, from a sample of their words."""
    words: list[str] = []
    for t in texts:
        words.extend(w.lower() for w in _WORD.findall(t or ""))
        if len(words) >= max_words:
            break
    if len(words) < MIN_WORDS:
        return LanguageGuess(None, {}, len(words))
    # each distinct word looked up once per language (a sample of 4,000 words has a few hundred)
    counts = Counter(words)
    shares = {}
    for lang in CANDIDATES:
        stop = spacy_stop_words(lang)
        if stop:
            shares[lang] = sum(n for w, n in counts.items() if w in stop) / len(words)
    best = max(shares, key=shares.get) if shares else None
    return LanguageGuess(best, shares, len(words))
