"""Input sanity: do the files, the languages and the glossary fit together?

A run whose inputs do not fit still "works": it finds nothing, or checks a French glossary against a
German file, and exits 0 with a score that looks fine. These checks say so first, in plain words:
in the console's first lines, first in the JSON `warnings` (and in `alerts`), at the top of the report.
"""
from __future__ import annotations

from typing import Optional, Sequence

from termqa.lang.identify import guess_language
from termqa.lang.langtags import language_name, normalise_tag
from termqa.model import BilingualFile, Concept, Document


def language_alerts(files: Sequence[BilingualFile], *, src_lang: Optional[str] = None,
                    tgt_lang: Optional[str] = None) -> list[str]:
    """Files whose source or target text is clearly not in the language the run reads them as."""
    alerts = []
    for f in files:
        for side, override in (("source", src_lang), ("target", tgt_lang)):
            # the documents of each declared language apart: a TMX of several targets is a document per pair
            by_lang: dict = {}
            for d in f.documents:
                lang = d.src_lang if side == "source" else d.tgt_lang
                if lang:
                    by_lang.setdefault(lang, []).append(d)
            for declared, docs in by_lang.items():
                texts = (s.source if side == "source" else (s.target or "") for d in docs for s in d.segments)
                guess = guess_language(texts)
                if guess.contradicts(declared):
                    how = f"given with --{'src' if side == 'source' else 'tgt'}-lang" if override else "as the file says"
                    alerts.append(f"{f.path}: the {side} text looks like {language_name(guess.best)}, not "
                                  f"{language_name(declared)} ({how}): check the {side} language")
    return alerts


def nothing_found(documents: Sequence[Document], concepts: Sequence[Concept]) -> str:
    """The alert for a run in which no glossary term occurs in any source segment."""
    src = sorted({normalise_tag(d.src_lang) for d in documents if d.src_lang})
    segments = sum(len(d.segments) for d in documents)
    return (f"no glossary term was found in the {segments} source segments (source language "
            f"{', '.join(src) or 'unknown'}, {len(concepts)} concepts): check that the glossary belongs to this "
            "project and that the source language is right")


def identical_systems(names: Sequence[str], documents: Sequence[Sequence[Document]]) -> list[list[str]]:
    """Groups (2+, in input order) of systems whose target text is the same in every segment (a file
    given twice, or an engine that did not change anything): comparing them measures nothing."""
    groups: dict[tuple, list[str]] = {}
    for name, docs in zip(names, documents):
        fp = tuple(" ".join((s.target or "").split()) for d in docs for s in d.segments)
        groups.setdefault(fp, []).append(name)
    return [g for g in groups.values() if len(g) > 1]
