"""Input sanity: do the files, the languages and the glossary fit together?

A run whose inputs do not fit still "works": it finds nothing, or checks a French glossary against a
German file, and exits 0 with a score that looks fine. These checks say so first, in plain words:
in the console's first lines, first in the JSON `warnings` (and in `alerts`), at the top of the report.
"""
from __future__ import annotations

from typing import Optional, Sequence

from termqa.errors import LanguageError
from termqa.lang.identify import guess_language
from termqa.lang.langtags import language_name, normalise_tag, primary
from termqa.model import BilingualFile, Concept, Document
from termqa.shownpath import shown_path


def _side_guesses(f: BilingualFile):
    """(side, declared language, guess) for the source and the target text of `f`."""
    for side in ("source", "target"):
        docs = [d for d in f.documents if (d.src_lang if side == "source" else d.tgt_lang)]
        if not docs:
            continue
        declared = docs[0].src_lang if side == "source" else docs[0].tgt_lang
        texts = (s.source if side == "source" else (s.target or "") for d in docs for s in d.segments)
        yield side, declared, guess_language(texts)


def language_alerts(files: Sequence[BilingualFile], *, src_lang: Optional[str] = None,
                    tgt_lang: Optional[str] = None, force_languages: bool = False) -> list[str]:
    """Files whose source or target text is clearly not in the language the run reads them as.

    When the source reads as the declared target language and the target as the declared source, the
    languages are swapped: every "error" such a run finds is made up, so it is refused with a
    LanguageError saying how to fix it, unless `force_languages` (then it is an alert like the others).
    """
    alerts = []
    for f in files:
        guesses = {side: (declared, guess) for side, declared, guess in _side_guesses(f)}
        swap = swapped(guesses)
        if swap and not force_languages:
            src, tgt = swap
            given = "--src-lang/--tgt-lang" if (src_lang or tgt_lang) else "the file's language attributes"
            raise LanguageError(
                f"{shown_path(f.path)}: the source and target languages look swapped: the source text reads as "
                f"{language_name(tgt)} and the target text as {language_name(src)}, but {given} say "
                f"{src} -> {tgt}",
                fix=f"pass --src-lang {tgt} --tgt-lang {src}"
                    + (" or drop the overriding options" if (src_lang or tgt_lang) else "")
                    + "; --force-languages checks as declared")
        if swap:
            alerts.append(f"{shown_path(f.path)}: the source and target languages look swapped (checked as "
                          "declared: --force-languages)")
        for side, (declared, guess) in guesses.items():
            if guess.contradicts(declared):
                override = src_lang if side == "source" else tgt_lang
                how = f"given with --{'src' if side == 'source' else 'tgt'}-lang" if override else "as the file says"
                alerts.append(f"{shown_path(f.path)}: the {side} text looks like {language_name(guess.best)}, not "
                              f"{language_name(declared)} ({how}): check the {side} language")
    return alerts


def swapped(guesses: dict) -> Optional[tuple[str, str]]:
    """(declared source, declared target) when the source text reads as the declared target language and
    the target text as the declared source, each clearly (`LanguageGuess.contradicts`); else None."""
    if "source" not in guesses or "target" not in guesses:
        return None
    (src, src_guess), (tgt, tgt_guess) = guesses["source"], guesses["target"]
    if not (src_guess.contradicts(src) and tgt_guess.contradicts(tgt)):
        return None
    if src_guess.best == primary(tgt) and tgt_guess.best == primary(src):
        return src, tgt
    return None


NOTHING_CHECKED = "nothing checked"  # how the alert begins: termqa.results.gate reads it back from a result


def nothing_checked(documents: Sequence[Document], found: bool, skipped: int) -> Optional[str]:
    """The alert for a run that could check no occurrence because the targets are missing or untranslated,
    else None. Such a run must never read as a pass. `skipped`: occurrences found in segments without a
    translation, whatever made them count as untranslated (no target, an empty one, a unit whose state
    says it is not translated yet and whose target the pipeline took away)."""
    if found:
        return None
    segments = sum(len(d.segments) for d in documents)
    translated = sum(1 for d in documents for s in d.segments if s.translated)
    if not segments:
        return None  # an empty file
    if translated and not skipped:
        return None  # translated segments without any term: nothing_found says so
    where = (f"{skipped} term occurrence{'s are' if skipped != 1 else ' is'} in untranslated segments"
             if skipped else "no translated segment is left to check")
    return (f"{NOTHING_CHECKED}: {translated} of the {segments} segments have a translation and "
            f"{where}, so no occurrence could be checked (this is not a pass): check the file once translated, "
            "or export it from the CAT tool with its targets")


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
