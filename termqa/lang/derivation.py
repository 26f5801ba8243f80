"""Words derived from a glossary term's word: a relational adjective made from a noun ("budgétaire" from
"budget", "climatiques" from "climat", "pandémique" from "pandémie", "вирусный" from "вирус").

No library we can depend on gives derivations for these languages (simplemma and Snowball give lemmas and
stems of one word's inflection), so this is a small hand-written table of the common relational-adjective
suffixes per language, each with its inflected endings. It is deliberately short: a derived form is only
ever "left for review" (termqa.labels.R_DERIVED, ranked likely fine), never conforming, and a suffix that
also ends unrelated words would only send those to review. Everything works on loose keys
(termqa.lang.fold.loose: no case, no accents).

Two more kinds of word formation live here, as short per-language tables too: a nominalisation or a verb made
from the term's word (French "facturation" from "facture", Russian "экспортировать" from "экспорт"), also a
derived form; and a closed compound holding the term's word (German "Rechnungsvorlage", "Restbudget"), which
`compound_of` tells and the caller reports as an inflected form: the term is there, in its compound form, but
a compound may also name something else ("Rechnungswesen", accounting), so it is reviewed, never conforming.
"""
from __future__ import annotations

from typing import Iterable

_MIN_BASE = 4  # letters the base word must keep: shorter ones ("eau", "roi") make too many false pairs


def _inflect(stems: Iterable[str], endings: Iterable[str]) -> tuple[str, ...]:
    return tuple(s + e for s in stems for e in endings)


# language -> the suffixes (with their inflected endings) that make a relational adjective from a noun
SUFFIXES: dict[str, tuple[str, ...]] = {
    "fr": _inflect(("aire", "ique", "ale", "elle", "ienne", "iere"), ("", "s")) + ("al", "aux", "el", "els",
                                                                                  "ien", "iens", "ier", "iers"),
    "en": ("al", "ic", "ical", "ary"),
    "es": _inflect(("ari", "ic"), ("o", "a", "os", "as")) + ("al", "ales"),
    "pt": _inflect(("ari", "ic"), ("o", "a", "os", "as")) + ("al", "ais"),
    "it": _inflect(("ari", "ic"), ("o", "a", "i", "e")) + ("ale", "ali", "iche"),
    "ca": _inflect(("ari", "ic"), ("", "a", "s", "es")) + ("al", "als"),
    "de": _inflect(("isch", "lich"), ("", "e", "en", "er", "es", "em")),
    # Turkish adjectives "without" and "with" (-sIz, -lI: "bütçesiz" from "bütçe"), with the commonest case and
    # plural endings after them (loose keys: ı, ü are i, u)
    "tr": _inflect(("siz", "suz", "li", "lu"), ("", "ler", "lar", "i", "u", "e", "a", "de", "da", "den", "dan")),
    "ru": _inflect(("н", "ск", "ическ"), ("ый", "ий", "ая", "ое", "ые", "ие", "ого", "ой", "ому", "ым", "им", "ых",
                                          "их", "ыми", "ими", "ую", "ом")),
}
# language -> the suffixes that make a noun of action or a verb from a noun
FORMATIONS: dict[str, tuple[str, ...]] = {
    "fr": ("ation", "ations"),  # "facture" -> "facturer" -> "facturation"
    "ru": ("ировать", "ировал", "ировала", "ировали", "ирую", "ирует", "ируют", "ируйте", "ирован",
           "ирована", "ировано", "ированы"),  # "экспорт" -> "экспортировать", with its common forms
}
# the final vowels a noun drops before the suffix ("pandémie" -> "pandém" + "ique")
_FINAL_VOWELS = "aeiouyаеиоуыэюяйь"


def bases(word: str, lang: str) -> tuple[str, ...]:
    """The words `word` may be derived from by one suffix of the table (its loose key without that suffix),
    longest base first; empty when no suffix fits or too little is left."""
    out = []
    for suf in SUFFIXES.get(lang, ()) + FORMATIONS.get(lang, ()):
        if word.endswith(suf) and len(word) - len(suf) >= _MIN_BASE:
            out.append(word[: len(word) - len(suf)])
    return tuple(sorted(set(out), key=len, reverse=True))


def derived_from(word: str, base_word: str, lang: str) -> bool:
    """Is loose key `word` a suffix derivation of loose key `base_word` ("budgetaire" of "budget",
    "pandemique" of "pandemie")? Never of itself."""
    if word == base_word or len(base_word) < _MIN_BASE:
        return False
    for b in bases(word, lang):
        if base_word == b or (base_word.startswith(b) and base_word[len(b):].strip(_FINAL_VOWELS) == ""):
            return True
    return False


# languages whose word lists give a derived word its base as lemma (Turkish "bütçesiz" -> "bütçe"): that
# lemma would make the derivation match the term as the term itself
_LISTS_DERIVATIONS = frozenset({"tr"})


def hides_derivation(word: str, lemma: str, lang: str) -> bool:
    """Is lowercase `word` its lemma `lemma` with a derivational suffix of the table (and its endings)
    after it? Then the lemma names another word than `word`'s own."""
    if lang not in _LISTS_DERIVATIONS:
        return False
    from termqa.lang.fold import loose

    word, lemma = loose(word), loose(lemma)
    if len(word) <= len(lemma) or not word.startswith(lemma):
        return False
    return word[len(lemma):] in _SUFFIX_SET.get(lang, ())


_SUFFIX_SET = {lang: frozenset(s) for lang, s in SUFFIXES.items() if lang in _LISTS_DERIVATIONS}


def base_keys(word: str) -> tuple[str, ...]:
    """The keys a base word is found under: itself and itself without its final vowels (what `bases` gives
    for a derivation that dropped them)."""
    short = word.rstrip(_FINAL_VOWELS)
    return (word, short) if short != word and len(short) >= _MIN_BASE else (word,)


# languages that write compounds closed up, with the linking elements a modifier takes ("Rechnung|s|nummer")
_COMPOUNDING = {"de": ("", "s", "es", "n", "en", "e", "er")}
_HEAD_ENDINGS = ("", "e", "en", "n", "s", "es", "er", "ern")  # a compound head's inflection ("Restbudgets")
_MIN_PART = 3  # letters the other part of a compound needs: shorter ones are endings, not words


def compound_of(word: str, base_word: str, lang: str) -> bool:
    """Is loose key `word` a closed compound with loose key `base_word` as its first part (with a linking
    element) or as its head ("rechnungsvorlage", "restbudget" for "rechnung", "budget")?"""
    links = _COMPOUNDING.get(lang)
    if links is None or word == base_word or len(base_word) < _MIN_BASE:
        return False
    for end in _HEAD_ENDINGS:
        head = base_word + end
        if word.endswith(head) and len(word) - len(head) >= _MIN_PART:
            return True
    return any(word.startswith(base_word + link) and len(word) - len(base_word) - len(link) >= _MIN_PART
               for link in links)
