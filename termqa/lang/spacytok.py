"""spaCy's tokenizers as the lemmatiser uses them: the blank tokenizer of a language (without its
`token_match` pattern), kept as bytes in the cache folder, its rules kept as chunktok data in the index
cache so later runs tokenise without importing spaCy, which language's tokenizer serves a language, and
the versions that name them in the run signature."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Optional

from termqa.errors import TermqaError
from termqa.fileio import atomic_write
from termqa.lang import chunktok, installed
from termqa.lang import langcache


def package_meta(pkg: str) -> dict:
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


def spacy_version() -> str:
    found = installed.spacy_version()
    if found is not None:
        return found
    import spacy  # its metadata is unreadable: ask the package itself

    return spacy.__version__


def blank_language(lang: str):
    """(language whose blank tokenizer serves `lang`, that tokenizer or None when not built yet).

    `lang` itself, or the multilingual "xx" when spaCy has no class for it or the class needs a
    package that is missing (ja, ko, th, vi). Finding out means building the tokenizer (and importing
    spaCy): the answer is kept in the index cache, so later runs build it only when a text needs it.
    """
    cache = langcache.active()
    key = langcache.make_lang_key("blank-language", spacy_version(), lang) if cache.enabled else None
    if key is not None:
        hit = cache.load(key)
        if hit in (lang, "xx"):
            return hit, None
    try:
        nlp, got = blank(lang), lang
    except Exception:  # no language class, or one needing an extra package
        nlp, got = blank("xx"), "xx"
    if key is not None:
        cache.store(key, got)
    return got, nlp


class _TokenizerOnly:
    """What lookup mode needs of a spaCy pipeline: its tokenizer."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer


def _tokenizer_cache(lang: str):
    cache = langcache.active()
    if not cache.enabled:
        return None
    return cache.folder / f"tokenizer-spacy-{spacy_version()}-{lang}.bin"


def blank(lang: str):
    """spaCy's tokenizer for `lang`, without its `token_match` exception pattern.

    That pattern only keeps listed hyphenated or elided words whole (French "arc-en-ciel"), which
    this module splits at hyphens anyway; compiling it is slow for French, in every process. The
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


def chunk_rules_key(lang: str) -> str:
    # the Python version too: the patterns are compiled by this Python's `re`, as spaCy's would be
    return langcache.make_lang_key("chunk-rules", spacy_version(), lang, chunktok.FORMAT,
                                    list(sys.version_info[:2]))


def _keep_chunk_rules(lang: str, tokenizer) -> None:
    """Store the rules of the tokenizer just built for `lang` as chunktok data (once per spaCy version,
    language and termqa code), for later processes to tokenise new text without spaCy."""
    cache = langcache.active()
    if not cache.enabled:
        return
    key = chunk_rules_key(lang)
    # stored and usable: nothing to do. A file that is there but fails its checks (damaged, truncated)
    # is written again: testing only that it exists kept a damaged file, and spaCy, for good
    if cache.path_of(key).is_file() and chunk_rules(lang) is not None:
        return
    try:
        data = chunktok.extract(tokenizer)
    except Exception:  # rules this module cannot read: spaCy keeps tokenising, as before
        data = None
    if data is not None:
        cache.store(key, data)


def chunk_rules(lang: str) -> Optional[dict]:
    """The stored chunktok data of `lang`'s tokenizer, or None (not stored yet, or not usable)."""
    cache = langcache.active()
    if not cache.enabled:
        return None
    data = cache.load(chunk_rules_key(lang))
    if data is None or not chunktok.valid(data) or data.get("spacy") != spacy_version():
        return None
    return data
