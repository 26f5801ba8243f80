"""The speed machinery, in one room: what termqa keeps between runs or in compact form, and why.

A team checks each delivery against the same termbase, and a translation memory can hold millions of
units. Rebuilding what an unchanged termbase gives every time, or holding a big memory as records, is what
makes a run slow or big; results never depend on any of it (a run with `--no-index-cache` gives the same).

- `indexcache`: kept on disk between runs, keyed by the inputs and the code that built them: parsed
  glossaries, source indexes (trie and head terms), lemma tables and lexicons, the text analyses of the
  lemmatiser, tokenizer rules.
- `conceptrows`: a cached glossary's concepts held as tuples, made records only when read (a run reads
  the few concepts its text contains).
- `packed`: a document's segments held compressed (a big translation memory costs a fraction of its file).
- `pickling`: how records pickle (one idiom: a call that sets their fields), for the cache and for the
  counting workers that send their verdicts back; the data model's records are registered there.
- `gcpause`: the cyclic garbage collector paused while records are built in bulk (they form no cycles).
- `parallel`: the worker processes counting forks for a big project, and how many.

Measurements behind these choices are in bench/README.md.
"""
