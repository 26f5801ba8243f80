"""Glossary hygiene: entries that will flag nearly every sentence, said before they do.

A glossary entry that is a function word of its language ("about", "following", "use", "select" as a
whole entry) matches almost any running text: one such entry made 118 flags on a parliamentary file.
`termqa inspect` and `termqa check` warn about them (`function_word_entries`, `warning`), and name the
fix: remove the entry, or mark it match-case (a UI label "Select" then matches only "Select").

A function word is a word of spaCy's stop-word list of the language (`termqa.lang.identify.stop_words`),
or of a short hand-written list of words that are not on it but work as little more than glue in running
text (`_GLUE`: "following", "use", "select"...). Entries marked match-case are not warned about: the
glossary has already said what they are.
"""
from __future__ import annotations

from typing import Iterable, Optional

from termqa.lang.fold import loose
from termqa.lang.identify import stop_words
from termqa.lang.langtags import primary
from termqa.model import Concept, Glossary

# beyond spaCy's stop words: words that stand in most instructions or prose as glue, not as terms
_GLUE = {
    "en": frozenset({"following", "follow", "use", "using", "used", "select", "click", "note", "see", "also",
                     "below", "above", "via", "etc", "new", "set", "get", "make", "like", "need", "want"}),
}
_LISTED = 5  # entries named in the warning; the others are counted


def function_word(text: str, lang: str) -> bool:
    """Is a glossary entry one word that is a function word of language `lang`?"""
    words = text.split()
    if len(words) != 1 or (len(text) > 1 and text.isupper()):
        return False  # an entry in capitals ("WHO") matches only capitals: an acronym, not the word
    w = loose(words[0].strip(".,:;!?"))
    lang = primary(lang)
    return bool(w) and (w in stop_words(lang) or w in _GLUE.get(lang, ()))


def function_word_entries(concepts: Iterable[Concept], langs: Optional[Iterable[str]] = None) -> dict:
    """{language: [entry texts]} of the terms that are function words, in the languages `langs` (every
    language of the glossary when None); terms marked match-case are left out."""
    wanted = None if langs is None else {primary(x) for x in langs if x}
    out: dict = {}
    for c in concepts:
        for t in c.terms:
            lang = primary(t.lang or "")
            if not lang or (wanted is not None and lang not in wanted) or t.match_case:
                continue
            if function_word(t.text, lang) and t.text not in out.get(lang, ()):
                out.setdefault(lang, []).append(t.text)
    return out


def function_word_entries_of(entries, lang: str) -> list[str]:
    """The texts of the glossary's own one-word designations (`detect.SourceEntry`, a source index's
    entries) that are function words of `lang`; match-case ones left out."""
    out: list[str] = []
    for e in entries:
        if e.via == "glossary" and not e.rule and len(e.key) == 1 and not e.match_case and e.text not in out \
                and function_word(e.text, lang):
            out.append(e.text)
    return out


def every_term_in_case(g: Glossary) -> Glossary:
    """The glossary with every term marked match-case (the `match_case` setting)."""
    from dataclasses import replace

    return replace(g, concepts=tuple(replace(c, terms=tuple(replace(t, match_case=True) for t in c.terms))
                                     for c in g.concepts))


def warning(found: dict) -> list[str]:
    """One warning line per language of `function_word_entries`' result."""
    out = []
    for lang, texts in sorted(found.items()):
        if not texts:  # a language whose entries are all fine
            continue
        shown = ", ".join(f"'{t}'" for t in texts[:_LISTED])
        more = f" and {len(texts) - _LISTED} more" if len(texts) > _LISTED else ""
        n = len(texts)
        out.append(f"{n} glossary {'entry is a function word' if n == 1 else 'entries are function words'} of "
                   f"'{lang}' ({shown}{more}) and will match nearly every sentence: remove "
                   f"{'it' if n == 1 else 'them'}, or mark {'it' if n == 1 else 'them'} match-case "
                   "(a 'match_case' column, a TBX termNote type=\"caseSensitive\")")
    return out
