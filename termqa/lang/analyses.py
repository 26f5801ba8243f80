"""The analyses cache: what a lemmatiser made of texts or chunks, kept between runs in an index-cache
table so that text met before is never tokenised again (and spaCy never imported for it). Separate from
the lemmatiser because it is storage: what a row means (`ANALYSES_FORMAT`), where it lives (the key),
reading rows and writing back the new ones."""
from __future__ import annotations

from termqa.lang import langcache

# The layout of a stored analysis (a tuple of `Piece`s per chunk or text), part of the analyses table's
# key. The table is keyed by the language code's fingerprint (langcache.make_lang_key), which any edit
# of this package changes; this number says what a row means, so that a change of meaning is a new table
# even where the code reads the same. 2: since the table's key left the whole-code fingerprint.
ANALYSES_FORMAT = 2


class Analyses:
    """One lemmatiser's stored analyses, read per text or chunk as needed; `fresh` holds what this
    process analysed that the table lacked (chunks in lookup mode, whole texts when trained), written
    back by `save`."""

    def __init__(self, name: str, mode: str, lang: str):
        self._key_parts = (name, mode, lang)
        self.fresh: dict[str, tuple] = {}

    def key(self) -> str:
        return langcache.make_lang_key("analyses", ANALYSES_FORMAT, *self._key_parts)

    def stored(self, keys) -> dict:
        """The stored analyses of `keys` (texts or chunks) that the table has."""
        cache = langcache.active()
        table = cache.table(self.key()) if cache.enabled else None
        return table.get_many(keys) if table is not None else {}

    def take_fresh(self) -> dict[str, tuple]:
        """What this process analysed since the last call (for a parent process to keep)."""
        fresh, self.fresh = self.fresh, {}
        return fresh

    def absorb(self, fresh: dict[str, tuple]) -> None:
        """Analyses made by a worker process, kept as if made here."""
        self.fresh.update(fresh)

    def save(self) -> None:
        """Add this run's new analyses to the table (nothing to do when there are none)."""
        cache = langcache.active()
        if not self.fresh or not cache.enabled:
            return
        table = cache.table(self.key())
        if table is not None:
            table.put_many(self.fresh)
        self.fresh = {}
