"""Which glossary applies to which document, and how concepts of several glossaries stay apart.

A delivery in several target languages often comes with one glossary per language, each exported with
the same file name (`de/terms.tbx`, `ru/terms.tbx`) and each numbering its concepts from the start (c0,
c1, ...). Two rules keep such glossaries apart:

- A concept's identity is its glossary plus its id. Ids that occur in more than one glossary are
  qualified with a label of their glossary (`terms:c64`); when two glossaries share a file name, the
  label takes as many parent folders as tell them apart (`de/terms:c64`, `ru/terms:c64`), and failing
  that the glossary's place on the command line (`terms#2:c64`). No id is ever taken as the same concept
  across files, not even a URI: a concept meant to be one across languages belongs in one multilingual
  termbase (TBX, SKOS), where its terms of every language sit under one entry.
- A glossary applies to a document only when it has terms in the document's target language. A
  German glossary says nothing about the Russian files of the same delivery: its concepts are not
  looked for there (said once per run). When no glossary has the target language, all apply, as before
  (consistency only: `--source-only-glossary`). Concepts of a multilingual termbase that lack the
  document's language are checked for consistency only, as in a single-language run.
"""
from __future__ import annotations

from pathlib import PurePath
from typing import Sequence

from termqa.lang.langtags import lang_matches, normalise_tag
from termqa.model import Glossary


def glossary_labels(glossaries: Sequence[Glossary]) -> list[str]:
    """A short readable label per glossary, distinct among `glossaries`: the file's stem, with as many
    parent folders as it takes to tell equal stems apart, else `stem#n` (n its place, from 1)."""
    paths = [PurePath(str(g.path)) for g in glossaries]
    labels = [p.stem for p in paths]
    for depth in range(1, 4):
        if len(set(labels)) == len(labels):
            return labels
        dup = {lab for lab in labels if labels.count(lab) > 1}
        labels = ["/".join(p.parent.parts[-depth:] + (p.stem,)) if lab in dup and p.parent.parts else lab
                  for p, lab in zip(paths, labels)]
    if len(set(labels)) == len(labels):
        return labels
    return [f"{p.stem}#{n}" for n, p in enumerate(paths, start=1)]


def glossary_languages(g: Glossary) -> set[str]:
    """The languages a glossary has terms in."""
    if g.languages:
        return {normalise_tag(lang) for lang in g.languages if lang}
    return {normalise_tag(t.lang) for c in g.concepts for t in c.terms if t.lang}


def applicable(glossaries: Sequence[Glossary], tgt_lang: str) -> tuple[int, ...]:
    """The places of the glossaries that apply to a document in `tgt_lang`: those with terms in it, or
    all of them when none has (a source-only glossary: consistency only)."""
    langs = [glossary_languages(g) for g in glossaries]
    have = tuple(i for i, ls in enumerate(langs) if any(lang_matches(lang, tgt_lang) for lang in ls))
    return have or tuple(range(len(glossaries)))


def scope_notes(glossaries: Sequence[Glossary], tgt_langs: Sequence[str]) -> list[str]:
    """One warning per target language for the glossaries that do not apply to its documents."""
    if len(glossaries) < 2:
        return []
    labels = glossary_labels(glossaries)
    notes = []
    for tgt in dict.fromkeys(normalise_tag(t) for t in tgt_langs if t):
        used = set(applicable(glossaries, tgt))
        left = [glossaries[i].path for i in range(len(glossaries)) if i not in used]
        if left:
            notes.append(f"{', '.join(str(p) for p in left)}: no terms in '{tgt}': not applied to the '{tgt}' "
                         f"documents (glossaries used there: {', '.join(labels[i] for i in sorted(used))})")
    return notes


__all__ = ["glossary_labels", "glossary_languages", "applicable", "scope_notes"]
