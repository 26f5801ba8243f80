"""The lemmatisers of a run: one per language, built on first use in the mode the run chose, and how big a
project may be for `--lemmatiser auto` to use a trained pipeline (`TRAINED_MAX_WORDS`, `project_words`).

Separate from `check` (which only sequences the stages): `compare` builds the same `Lemmatisers` for
several systems, and the judge stages read them from the `Run`.
"""
from __future__ import annotations

from typing import Sequence

from termqa.lang.langtags import primary
from termqa.lang.lemma import Lemmatiser, get_lemmatiser
from termqa.model import Document, segment_texts

# Above this many words (source + target), `--lemmatiser auto` uses the lookup tables even when a
# trained spaCy pipeline is installed.
TRAINED_MAX_WORDS = 50_000


class Lemmatisers:
    """One lemmatiser per language (primary subtag), built on first use in the mode the run chose."""

    def __init__(self, mode: str):
        self.mode = mode
        self._by_lang: dict[str, Lemmatiser] = {}

    def __call__(self, lang: str) -> Lemmatiser:
        key = primary(lang)
        if key not in self._by_lang:
            self._by_lang[key] = get_lemmatiser(key, mode=self.mode)
        return self._by_lang[key]

    def names(self) -> dict[str, str]:
        return {k: v.name for k, v in sorted(self._by_lang.items())}

    def save_analyses(self) -> None:
        """Keep what the lemmatisers analysed for the next run (termqa.lang.lemma's analyses cache)."""
        for lemmatiser in self._by_lang.values():
            lemmatiser.save_analyses()



def project_words(documents: Sequence[Document]) -> int:
    """Source and target words of a project (what the lemmatiser choice depends on)."""
    return sum(len(source.split()) + len((target or "").split())
               for d in documents for _i, source, target in segment_texts(d.segments))
