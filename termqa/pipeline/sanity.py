"""Input sanity: do the files, the languages and the glossary fit together?

A run whose inputs do not fit still "works": it finds nothing, or checks a French glossary against a
German file, and exits 0 with a score that looks fine. These checks say so first, in plain words:
in the console's first lines, first in the JSON `warnings` (and in `alerts`), at the top of the report.
"""
from __future__ import annotations

from typing import Optional, Sequence

from termqa.errors import LanguageError
from termqa.labels import NOTHING_CHECKED
from termqa.lang.identify import guess_language
from termqa.lang.langtags import language_name, normalise_tag, primary
from termqa.model import BilingualFile, Concept, Document
from termqa.shownpath import shown_path


def _guesses_by_language(f: BilingualFile, side: str) -> dict:
    """{declared language: guess} for one side ("source" or "target") of `f`, each language's documents
    read apart (a TMX of several target languages is a document per pair)."""
    by_lang: dict = {}
    for d in f.documents:
        lang = d.src_lang if side == "source" else d.tgt_lang
        if lang:
            by_lang.setdefault(lang, []).append(d)
    return {lang: guess_language(s.source if side == "source" else (s.target or "") for d in docs for s in d.segments)
            for lang, docs in by_lang.items()}


def language_alerts(files: Sequence[BilingualFile], *, src_lang: Optional[str] = None,
                    tgt_lang: Optional[str] = None, force_languages: bool = False) -> list[str]:
    """Files whose source or target text is clearly not in the language the run reads them as.

    When the source reads as the declared target language and the target as the declared source, the
    languages are swapped: every "error" such a run finds is made up, so it is refused with a
    LanguageError saying how to fix it, unless `force_languages` (then it is an alert like the others).
    """
    alerts = []
    for f in files:
        # each declared language's documents apart: a TMX of several targets is a document per pair
        guesses = {side: _guesses_by_language(f, side) for side in ("source", "target")}
        pairs = sorted({(d.src_lang, d.tgt_lang) for d in f.documents if d.src_lang and d.tgt_lang})
        for src, tgt in pairs:
            swap = swapped({"source": (src, guesses["source"][src]), "target": (tgt, guesses["target"][tgt])})
            if swap and not force_languages:
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
        for side, override in (("source", src_lang), ("target", tgt_lang)):
            for declared, guess in guesses[side].items():
                if guess.contradicts(declared):
                    how = f"given with --{'src' if side == 'source' else 'tgt'}-lang" if override else "as the file says"
                    alerts.append(f"{shown_path(f.path)}: the {side} text looks like {language_name(guess.best)}, "
                                  f"not {language_name(declared)} ({how}): check the {side} language")
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
    """The alert for a run in which no glossary term occurs in any source segment: nothing was checked, so
    it is no pass either (it begins as `nothing_checked`'s does, and the gate and the report read it so)."""
    src = sorted({normalise_tag(d.src_lang) for d in documents if d.src_lang})
    segments = sum(len(d.segments) for d in documents)
    return (f"{NOTHING_CHECKED}: no glossary term was found in the {segments} source segments (source language "
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
