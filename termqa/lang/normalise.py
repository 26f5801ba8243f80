"""The one normalisation family used for matching terms: `loose`, `term_tokens`, `term_key`,
`spelling_issue`.

Every comparison of a glossary term with a span of text goes through these functions, so that
detection, alignment and the reference check agree on what "the same term" means:

* `loose(s)`: case-folded, diacritics removed, ligatures expanded, apostrophes and dashes unified.
  It is deliberately language-independent (a token's `key` is `loose(lemma)`).
* `term_tokens(tokens)`: the tokens of a term or span without LEADING articles / partitive
  prepositions and without leading/trailing punctuation (issue #8). Articles inside a term are kept:
  "ministère de l'Intérieur" keeps "de l'".
* `term_key(tokens)`: the keys of `term_tokens`, hyphen tokens dropped, so "machine-translation"
  and "machine translation" have the same key. The lemmatiser emits one token per word of a
  hyphenated compound plus a punctuation token for each hyphen, so the parts always line up.
* `spelling_issue(found, expected, lang)`: once two spans match loosely, is the found spelling
  acceptable (issue #7)? Rules per language live in `SPELLING_RULES`.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Optional, Sequence

from termqa.lang.fold import (  # noqa: F401 (loose, strip_marks: part of this family)
    _APOSTROPHES, _DASHES, dotless_i, loose, lower, strip_marks,
)
from termqa.lang import dictlemma
from termqa.lang.identify import stop_words
from termqa.lang.langtags import primary
from termqa.lang.lemma import Token
from termqa.lang.lexicon import is_target_word, known_form, lemmas_of

# --- term_tokens / term_key ------------------------------------------------------------------

# Elided prepositions that open a partitive/genitive phrase ("d'huile", "d'acqua"): stripped when
# they lead a span, whatever follows.
_LEADING_ELIDED = frozenset({"d'"})
# Full prepositions stripped when they lead a span AND an article follows ("de la", "de l'",
# "di la"): "de facto" or "de Gaulle" keep their "de".
_LEADING_BEFORE_ARTICLE = frozenset({"de", "di"})
HYPHEN = "-"


def term_tokens(tokens: Sequence[Token]) -> tuple[Token, ...]:
    """`tokens` without leading articles/partitives and leading/trailing punctuation.

    Strips, at the start only: punctuation, articles (`Token.article`: le, la, l', les, un, des,
    du, the, a, der, el, il...), an elided "d'", and "de"/"di" when an article follows. Stops before
    removing the last word, so a term that *is* an article-like word ("A", Dutch "De") keeps it.
    Trailing punctuation is stripped too. Articles inside the term are kept (issue #8).
    """
    toks = list(tokens)
    i, n = 0, len(toks)
    while i < n and toks[i].punct:
        i += 1
    while n > i and toks[n - 1].punct:
        n -= 1
    while i < n - 1:
        t = toks[i]
        low = loose(t.text)  # the key is the lemma ("d'" -> "de"): test the surface instead
        if t.article or low in _LEADING_ELIDED:
            i += 1
        elif low in _LEADING_BEFORE_ARTICLE and toks[i + 1].article:
            i += 1
        elif t.punct:
            i += 1
        else:
            break
    return tuple(toks[i:n])


def term_key(tokens: Sequence[Token]) -> tuple[str, ...]:
    """The matching key of a term or a span: keys of `term_tokens`, hyphen tokens dropped."""
    return tuple(t.key for t in term_tokens(tokens) if t.key != HYPHEN)


def compact_key(tokens: Sequence[Token]) -> str:
    """`term_key` joined without separators: also matches "e-mail" / "email" / "e mail".

    Coarser than `term_key` (word boundaries are lost); offered for a second-chance comparison.
    """
    return "".join(term_key(tokens))


def surface(tokens: Sequence[Token]) -> str:
    """The text the tokens cover, rebuilt from their offsets (any gap becomes one space)."""
    out: list[str] = []
    prev_end = None
    for t in tokens:
        if prev_end is not None and t.start > prev_end:
            out.append(" ")
        out.append(t.text)
        prev_end = t.end
    return "".join(out)


# --- spelling_issue --------------------------------------------------------------------------


@dataclass(frozen=True)
class SpellingRule:
    """How strict spelling comparison is for one language.

    `unaccented_capitals`: a capital letter written without its accent is acceptable (ETAT, Etat
    for État). `equivalences`: lowercase spellings that count as the same (German ä = ae, ß = ss).
    `note`: the convention the rule follows, for people reading the table.
    """

    unaccented_capitals: bool = False
    equivalences: tuple[tuple[str, str], ...] = ()
    note: str = ""
    optional_marks: str = ""  # marks a writer may put or leave out: their presence is no spelling question
    # marks whose omission is common but may be a spelling fault: a difference there is for the judge
    uncertain_marks: str = ""
    # accents the language's norms write both ways (pairs of lowercase letters): for the judge too
    uncertain_swaps: tuple[tuple[str, str], ...] = ()
    # marks that tell case forms apart in a word's ending (Czech length marks: "anotace", "anotací"): a
    # difference there is an inflected form, not a misspelling (`marks_inflect`)
    inflecting_marks: str = ""
    # whose capital letters: "tr" for Turkish and Azeri, where I is ı's capital and İ is i's
    casing: str = ""


# Arabic-script vowel signs (harakat: fatha, damma, kasra, their tanwin, shadda, sukun, the dagger alif) and
# the tatweel that only stretches a line: everyday text leaves them out, a glossary may write them, and
# either way the word is spelt the same. Hamza and the letters ى/ي, ة/ه are letters, not marks: they count.
ARABIC_OPTIONAL = "".join(map(chr, range(0x064B, 0x0653))) + "\u0670\u0640"
# Hebrew points and cantillation marks (niqqud): modern text is written without them.
HEBREW_OPTIONAL = "".join(chr(c) for c in range(0x0591, 0x05C8) if unicodedata.combining(chr(c)))
# Hamza and madda on alif (أ إ آ for ا): standard spelling writes them, much everyday text leaves them out, and
# usage differs between regions (أسبانيا / إسبانيا): not a certain misspelling either way.
ARABIC_UNCERTAIN = "\u0653\u0654\u0655"
_ARABIC_NOTE = ("Vowel signs (harakat, shadda, sukun) and the tatweel are optional: مؤكَّدة = مؤكدة. A hamza "
                "or madda on alif written or not (أ إ آ ا) goes to the judge. ى/ي and ة/ه are letters.")


# THE table of per-language spelling rules (issue #7). Languages not listed use DEFAULT_RULE:
# accents count everywhere, no equivalences. Typographic variants are never issues in any language:
# apostrophes (’ vs '), dashes, compatibility ligatures (ﬁ), Unicode composition (NFC vs NFD).
SPELLING_RULES: dict[str, SpellingRule] = {
    "fr": SpellingRule(
        unaccented_capitals=True,
        # the 1990 spelling reform moves the diaeresis: aigüe = aiguë, ambigüité = ambiguïté
        equivalences=(("güe", "guë"), ("güi", "guï")),
        note="Capitals may lose their accents (common practice, tolerated by usage guides although "
             "the Académie recommends keeping them): ETAT, Etat for État. Lowercase letters must "
             "keep them. œ/æ spelled out as oe/ae is an issue (coeur for cœur). The 1990 reform's "
             "diaeresis on u (aigüe, ambigüité) equals the older aiguë, ambiguïté.",
    ),
    "es": SpellingRule(
        note="RAE: capitals keep their accents (CAMIÓN, Camión); a missing accent is always an issue.",
    ),
    "pt": SpellingRule(
        uncertain_swaps=(("é", "ê"), ("ó", "ô"), ("á", "â")),
        note="Capitals keep their accents. Brazil and Portugal accent some words differently (eletrônico / "
             "eletrónico, Antônio / António): an é/ê, ó/ô or á/â difference goes to the judge.",
    ),
    "it": SpellingRule(note="Capitals keep their accents (È, not E')."),
    "ca": SpellingRule(note="IEC: capitals keep their accents."),
    "ru": SpellingRule(equivalences=(("ё", "е"),),
                       note="ё is written as е in most text (легких for лёгких): the same spelling."),
    "be": SpellingRule(equivalences=(("ё", "е"),), note="As Russian."),
    "de": SpellingRule(
        equivalences=(("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")),
        note="ä/ae, ö/oe, ü/ue, ß/ss are accepted transliterations (Swiss German writes ss "
             "throughout; ae/oe/ue where umlauts are unavailable). Mull for Müll is an issue.",
    ),
    "da": SpellingRule(equivalences=(("æ", "ae"), ("ø", "oe"), ("å", "aa")),
                       note="æ/ae, ø/oe, å/aa: the standard fallback transliterations."),
    "nb": SpellingRule(equivalences=(("æ", "ae"), ("ø", "oe"), ("å", "aa")),
                       note="As Danish."),
    "no": SpellingRule(equivalences=(("æ", "ae"), ("ø", "oe"), ("å", "aa")),
                       note="As Danish."),
    "sv": SpellingRule(equivalences=(("ä", "ae"), ("ö", "oe")),
                       note="ä/ae, ö/oe transliterations; å has none."),
}
# Czech and Slovak: the acute (and Czech ring) lengthen a vowel, and length alone tells many case endings
# apart (anotace / anotací, hrad / hradů, žena / žená is no word but ženy / žený neither): in an ending it is
# inflection, not spelling
SPELLING_RULES["cs"] = SpellingRule(inflecting_marks="\u0301\u030a",
                                    note="A length mark (á, í, ů, ...) in the last letters makes another case form "
                                         "(anotace, anotací): an inflected form, not a misspelling.")
SPELLING_RULES["sk"] = SpellingRule(inflecting_marks="\u0301\u0302",
                                    note="As Czech: length marks (á, í, ô, ...) in an ending make case forms.")
for _lg in ("tr", "az"):
    SPELLING_RULES[_lg] = SpellingRule(casing=_lg, note="I is the capital of ı and İ of i: DİĞER is diğer, "
                                                        "TANIMLAYICI is tanımlayıcı.")
# Greek: σ is written ς at the end of a word; a word in capitals (ΟΔΟΣ) has one sigma for both
SPELLING_RULES["el"] = SpellingRule(equivalences=(("ς", "σ"),), note="Final ς and σ are one letter.")
for _lg in ("ar", "fa", "ur", "ps", "sd", "ug", "ckb"):  # languages written in Arabic script
    SPELLING_RULES[_lg] = SpellingRule(optional_marks=ARABIC_OPTIONAL, uncertain_marks=ARABIC_UNCERTAIN,
                                       note=_ARABIC_NOTE)
for _lg in ("he", "yi"):
    SPELLING_RULES[_lg] = SpellingRule(optional_marks=HEBREW_OPTIONAL,
                                       note="Points (niqqud) and cantillation marks are optional.")
DEFAULT_RULE = SpellingRule(note="Accents count on every letter, capitals included.")

# Typographic variants that are never spelling differences.
_TYPO_TABLE = str.maketrans(
    {**{c: "'" for c in _APOSTROPHES}, **{c: "-" for c in _DASHES if c != "\u00ad"}, "\u00ad": ""}
)


def _typo(s: str) -> str:
    """NFKC (ﬁ -> fi, composed accents) + unified apostrophes/dashes; case and accents kept.

    NFKC does not touch œ/æ (they are letters, not compatibility ligatures) nor ß.
    """
    return unicodedata.normalize("NFKC", s).translate(_TYPO_TABLE)


def _lower(s: str, rule: SpellingRule) -> str:
    return dotless_i(s, rule.casing).lower() if rule.casing else s.lower()


def _fold(s: str, rule: SpellingRule) -> str:
    s = _lower(_typo(s), rule)
    if rule.optional_marks:
        s = "".join(c for c in s if c not in rule.optional_marks)
    for a, b in rule.equivalences:
        s = s.replace(a, b)
    return s


def _accents_ok(found: str, ref: str, rule: SpellingRule, caps: Optional[list[bool]] = None) -> bool:
    """Does `found` spell `ref` acceptably, letter for letter?

    Both are walked in step on their loose forms, so "œ" in one and "oe" in the other form one group.
    A group that differs only in case is fine; one that differs in accents is fine only when the
    found letter is an unaccented capital and the language allows that. `caps`, when given, says
    which letters of `found` count as capitals (used when `found` is a lowercase lemma).
    """
    found, ref = _typo(found), _typo(ref)
    if _fold(found, rule) == _fold(ref, rule):
        return True
    if loose(found) != loose(ref):
        return False  # different letters, not an accent question
    i = j = 0
    while i < len(found) and j < len(ref):
        gi, gj = i + 1, j + 1
        lf, lr = loose(found[i:gi]), loose(ref[j:gj])
        while lf != lr:  # extend the shorter side until both groups cover the same loose text
            if len(lf) <= len(lr) and gi < len(found):
                gi += 1
                lf = loose(found[i:gi])
            elif gj < len(ref):
                gj += 1
                lr = loose(ref[j:gj])
            else:
                return False
        f, r = found[i:gi], ref[j:gj]
        if _lower(f, rule) != _lower(r, rule) and _fold(f, rule) != _fold(r, rule):
            is_cap = caps[i] if caps is not None and i < len(caps) else f.isupper()
            forgiven = (
                rule.unaccented_capitals and len(f) == 1 and len(r) == 1 and is_cap
                and strip_marks(f) == f and strip_marks(r).lower() == f.lower()
            )
            if not forgiven:
                return False
        i, j = gi, gj
    return i == len(found) and j == len(ref)


def _lemma_caps(surface_text: str, lemma: str) -> list[bool]:
    """Which letters of a (lowercase) lemma stood as capitals in the surface form.

    All of them when the surface is written in capitals (ETATS), the first when it is capitalised
    (Etats), none otherwise: lemma and surface need not have the same length, so nothing finer is
    safe.
    """
    letters = [c for c in surface_text if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 1:
        return [True] * len(lemma)
    return [i == 0 and bool(surface_text[:1].isupper()) for i in range(len(lemma))]


def spelling_issue(found: Sequence[Token], expected: Sequence[Token], lang: str) -> Optional[str]:
    """None when `found` spells `expected` acceptably, else a short reason naming the expected spelling.

    Meant for spans that already match loosely (`term_key(found) == term_key(expected)`), i.e.
    that differ at most in case, accents, ligatures, apostrophes, dashes and inflection.
    Word by word, two checks, both with the language's rule from `SPELLING_RULES`:
    1. the found word against its reference spelling: the expected word itself when both are the
       same form loosely, else the correctly accented form of the found word in the language's
       lookup table (so "CAMIONES" is checked against "camiones", not against "camión");
    2. the found lemma against the expected lemma, so that an inflected form of a different
       spelling (cotes for côte) is caught; capitals are mapped from the surface.
    A word that fails either check is still accepted when it is itself a word of the language that
    can be a form of one of the expected word's lemmas (homographs: "infecte", present tense of
    "infecter", for the participle "infecté"; German "Mütter" for "Mutter"): an inflection is not a
    misspelling. Unknown words ("debit" for "débit") and other words ("cote" for "côte") stay issues.
    """

    lg = primary(lang)
    rule = SPELLING_RULES.get(lg, DEFAULT_RULE)
    pairs = _word_pairs(found, expected)
    if pairs is None:
        return None  # not a loose match: not a spelling question
    if all(_word_ok(f, e, lg, rule) for f, e in pairs):
        return None
    return f"spelled '{surface(term_tokens(found))}', the glossary spells it '{surface(term_tokens(expected))}'"


def uncertain_spelling(found: Sequence[Token], expected: Sequence[Token], lang: str) -> bool:
    """Is every word of `found` that `spelling_issue` faults one whose difference from its word of
    `expected` usage allows, so that the judge, not a rule, decides? Those differences are:

    * marks the language's rule leaves open (`SpellingRule.uncertain_marks`: Arabic hamza on alif) or
      accents its norms write both ways (`SpellingRule.uncertain_swaps`: Portuguese é/ê, ó/ô, á/â);
    * accents on a found word whose glossary word is written without any ("período", "Ébola" where the
      glossary writes "periodo", "ebola"): a glossary typed without accents, or a spelling the language
      allows both ways ("debit" for "débit", a missing accent, stays an issue, and so does "côté" for
      "côte");
    * function words that differ in letters ("de" for "da"): a contraction, not a misspelling.
    """
    lg = primary(lang)
    rule = SPELLING_RULES.get(lg, DEFAULT_RULE)
    faults = [(f, e) for f, e in _word_pairs(found, expected) or () if not _word_ok(f, e, lg, rule)]
    # where the rule has letters of its own, compare the lemmas too: an Arabic word without the article
    # written onto it, a Portuguese word without its plural ("epidêmicas" for "epidémica")
    lemmas_too = bool(rule.uncertain_marks or rule.uncertain_swaps)
    return bool(faults) and all(_usage_allows(f.text, e.text, lg, rule) or (
        lemmas_too and _usage_allows(f.lemma, e.lemma, lg, rule)) for f, e in faults)


_ENDING = 3  # letters at the end of a word that carry its case ending


def marks_inflect(found: Sequence[Token], expected: Sequence[Token], lang: str) -> bool:
    """Does every word `spelling_issue` faults differ from its glossary word only by the language's
    inflecting marks (`SpellingRule.inflecting_marks`), put or left out within the word's last letters?
    Czech "anotací" for "anotace"'s form "anotaci": the length mark makes a case form, so the word is an
    inflected form of the term, not a misspelling. A mark elsewhere ("anótace") stays a spelling question."""
    lg = primary(lang)
    rule = SPELLING_RULES.get(lg, DEFAULT_RULE)
    if not rule.inflecting_marks:
        return False
    faults = [(f, e) for f, e in _word_pairs(found, expected) or () if not _word_ok(f, e, lg, rule)]
    return bool(faults) and all(_ending_marks(f.text, e.text, rule.inflecting_marks) for f, e in faults)


def _ending_marks(found: str, expected: str, marks: str) -> bool:
    f = unicodedata.normalize("NFD", _typo(found).lower())
    e = unicodedata.normalize("NFD", _typo(expected).lower())
    if "".join(c for c in f if c not in marks) != "".join(c for c in e if c not in marks) or f == e:
        return False
    at = next((i for i, (a, b) in enumerate(zip(f, e)) if a != b), min(len(f), len(e)))
    rest = f[at:] if len(f) >= len(e) else e[at:]
    return sum(1 for c in rest if not unicodedata.combining(c)) <= _ENDING


def _word_pairs(found: Sequence[Token], expected: Sequence[Token]) -> Optional[list[tuple[Token, Token]]]:
    """The words of `found` beside those of `expected` (hyphens and articles left out); None when they
    do not pair up one to one."""
    f_toks = [t for t in term_tokens(found) if t.key != HYPHEN]
    e_toks = [t for t in term_tokens(expected) if t.key != HYPHEN]
    return list(zip(f_toks, e_toks)) if len(f_toks) == len(e_toks) else None


def _usage_allows(found: str, expected: str, lang: str, rule: SpellingRule) -> bool:
    f = unicodedata.normalize("NFC", _fold(found, rule))
    e = unicodedata.normalize("NFC", _fold(expected, rule))
    for a, b in rule.uncertain_swaps:
        f, e = f.replace(b, a), e.replace(b, a)
    if rule.uncertain_marks:
        f, e = (unicodedata.normalize("NFC", "".join(c for c in unicodedata.normalize("NFKD", x)
                                                     if c not in rule.uncertain_marks)) for x in (f, e))
    if f == e:
        return True
    if strip_marks(e) == e and strip_marks(f) == e:
        return True  # a glossary word written without any accent, found with them
    if loose(f) != loose(e):
        stop = stop_words(lang)
        return loose(found) in stop and loose(expected) in stop
    return False


def _word_ok(f: Token, e: Token, lang: str, rule: SpellingRule) -> bool:
    if _typo(f.text) == _typo(e.text):
        return True
    if loose(f.text) == loose(e.text):
        ref: Optional[str] = e.text
    else:
        ref = known_form(f.text, lang)
    if ref is not None and not _accents_ok(f.text, ref, rule):
        # "infecte" is not "infecté" misspelt but another form of the same verb: a word the language
        # knows that can be a form of the expected word's lemma is an inflection, not a misspelling
        return _same_lemma(f, e, lang)
    if f.lemma == e.lemma:
        return True
    if loose(f.lemma) != loose(e.lemma):
        # lemmas differ in letters, not accents: one of them was lemmatised out of context
        # ("pompe" -> "pomper"); the surface check above has already settled the spelling
        return True
    if _accents_ok(f.lemma, e.lemma, rule, caps=_lemma_caps(f.text, f.lemma)):
        return True
    # one lemma per form hides homographs ("côte" is listed under "coté"): any shared lemma will do
    return _same_lemma(f, e, lang)


def _same_lemma(f: Token, e: Token, lang: str) -> bool:
    """Is `f` a correctly spelled word of the language that can be a form of one of `e`'s lemmas?

    Both sides get every lemma the language's tables allow (lookup table, rule lemmatiser,
    homographs). The tokens' own lemmas are not used: the lemmatiser finds an unaccented word's lemma
    through its accented neighbour ("público" -> "publico" -> "publicar"), which would make any
    accent error pass. An unknown word (debit for débit) never qualifies.
    """
    if is_target_word(f.text, lang) and lemmas_of(f.text, lang) & lemmas_of(e.text, lang):
        return True
    # where length marks make case forms (Czech, Slovak), a form simplemma's dictionary lists as written under
    # the expected word's lemma: "přístupů" (genitive plural of "přístup") is no misspelling of "přístupu".
    # Not elsewhere: the dictionaries also list unaccented misspellings under their lemma (French "etat")
    if not SPELLING_RULES.get(lang, DEFAULT_RULE).inflecting_marks:
        return False
    listed = dictlemma.lookup(lang)
    lem = listed(f.text) if listed is not None else None
    return lem is not None and lower(lem, lang) in {e.lemma, *lemmas_of(e.text, lang)}
