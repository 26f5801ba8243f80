"""Word stems from the Snowball stemmers (PyStemmer), for telling an inflected form of a glossary term
from another word where no lemma says so: two words whose stems agree but whose lemmas do not are "an
inflected form" (termqa.labels.R_INFLECTED, left for review), never conforming. A stem is evidence of
shared morphology, not of identity ("organ" and "organisation" can share one), so it never decides alone.

Stems are taken of loose keys (termqa.lang.fold.loose), the form both the glossary's and the text's words
have in the matching indexes; each word is stemmed once per process.
"""
from __future__ import annotations

import threading
from typing import Callable, Optional

from termqa.lang.installed import morphology

# BCP 47 primary subtags -> Snowball algorithm names (PyStemmer lists the names it has)
ALGORITHMS = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "nb": "norwegian", "no": "norwegian",
    "nn": "norwegian", "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "st": "sesotho", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish",
    "yi": "yiddish",
}
_MIN_STEM = 3  # a shorter stem says too little: "in" from "inn", "ina"
_CACHE_MAX = 200_000
_LOCK = threading.Lock()
_STEMMERS: dict[str, Callable[[str], str]] = {}


def algorithm(lang: str) -> Optional[str]:
    """The Snowball algorithm PyStemmer has for `lang`, None without one."""
    alg = ALGORITHMS.get(lang)
    return alg if alg is not None and alg in morphology()["snowball"] else None


def name(lang: str) -> Optional[str]:
    """How the signature names the stemmer of `lang`, None without one."""
    alg = algorithm(lang)
    return f"snowball:{alg} (PyStemmer-{morphology()['pystemmer']})" if alg else None


def stemmer(lang: str) -> Optional[Callable[[str], str]]:
    """key -> its stem for `lang` (a cached function), None when Snowball has no stemmer for it. A stem
    shorter than _MIN_STEM letters is the key itself: it is no evidence of a shared word."""
    got = _STEMMERS.get(lang)
    if got is not None or algorithm(lang) is None:
        return got
    with _LOCK:
        got = _STEMMERS.get(lang)
        if got is None:
            import Stemmer

            snow = Stemmer.Stemmer(algorithm(lang))
            cache: dict[str, str] = {}

            def got(key: str) -> str:
                s = cache.get(key)
                if s is None:
                    s = snow.stemWord(key)
                    if len(s) < _MIN_STEM:
                        s = key
                    if len(cache) > _CACHE_MAX:
                        cache.clear()
                    cache[key] = s
                return s

            _STEMMERS[lang] = got
    return got
