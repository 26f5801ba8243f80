"""termqa.lang's one door to the speed machinery (termqa.store): the index cache its tables are kept in
between runs (lemma tables, word lists, tokenizer rules, analyses) and the collector pause of bulk
tokenising.

The lang modules reach the cache deep inside a lemmatiser or a tokenizer, far from the stage that opens
it (termqa.pipeline.check), so it is not passed in: they read the active cache through here. What is
cached and its keys are the store's (`make_lang_key`: a key that changes with any edit of termqa/lang).
"""
from __future__ import annotations

from termqa.store import indexcache
from termqa.store.gcpause import paused_gc

active = indexcache.active  # the cache of this run (termqa.store.indexcache.using), maybe disabled
make_key = indexcache.make_key
make_lang_key = indexcache.make_lang_key

__all__ = ["active", "make_key", "make_lang_key", "paused_gc"]
