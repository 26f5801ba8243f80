"""Pass 1's last resort for a glossary term: a rendering that is an inflected or a derived form of one of
the concept's target terms, where no term matched on lemmas.

* `glossary`: every word is the term's word, or a form the language's lexicon lists under the term word's
  lemma among its readings (termqa.lang.lexicon.lemmas_of: French "infectées" is listed under the verb
  "infecter", its table lemma, and under the adjective "infecté", the glossary's word). The lookup table
  keeps one lemma per form, so the plural of a participle the glossary writes as an adjective did not
  match it. The same word in another form: conforming. Only the text word's readings are read, not the
  term word's: "voie" is also a form of "voir" (que je voie), and "voient" is no form of "voie".
* `glossary` too: a word that is the term's word with clitics written onto it, as the language's spelling
  joins them (`clitic_form`): Arabic proclitics ("بكوفيد", "with COVID", for "كوفيد"; "وفيروس", "and virus",
  for "فيروس"), Spanish pronouns after an infinitive or a gerund ("tocarse", "tocándolo" for "tocar").

* `inflected`: every word is the term's word, or shares its Snowball stem (termqa.lang.stems) where the word
  lists do not know one of the two words: Czech "kontextuálních" for "kontextuální", which no list holds.
  Left for review (termqa.labels.R_INFLECTED), never conforming: a stem is not a lemma. Two words the lists
  both know under different lemmas are different words, whatever their stems say (French "propagation" and
  "propager", "prélèvement" and "prélèvent" share a Snowball stem).
* `derived`: the same, with one word or more a relational adjective made from the term's word
  (termqa.lang.derivation: "budgétaire" for "budget"), a noun or verb made from it ("facturation",
  "экспортировать"). Left for review (termqa.labels.R_DERIVED).
* a closed compound holding the term's word (German "Rechnungsvorlage", "Restbudget") counts as `inflected`.
* also `inflected`: a word that is the term's word once an attached pronoun or agreement ending is taken
  off (termqa.lang.clitics: Arabic "مشاريعي" is "مشاريع" with "my", listed under "مشروع"; Persian "های").
* `inflected_spelling`: the stems agree only once the letters' marks are folded away, in an alphabet where
  those letters are letters of their own (Turkish "dökümanı" for "doküman": ö is not o). Left for review as
  a spelling question (termqa.labels.R_SPELLING_INFLECTED).

Any of the concept's glossary terms counts (not only the preferred one). Looked for only for an occurrence
that no glossary or forbidden term answers in its segment, so the common case costs nothing; the stems of a
segment's words are made once per segment (`Morph`) and each word's stem once per process.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from termqa.lang import clitics, dictlemma
from termqa.lang.derivation import compound_of, derived_from, hides_derivation
from termqa.lang.fold import lower, loose
from termqa.lang.identify import stop_words
from termqa.lang.lexicon import is_target_word, lemmas_of
from termqa.lang.stems import stemmer

_WORDS = re.compile(r"\w+")
# languages without inflection, whose affixes all derive (termqa.lang.dictlemma): a shared stem is a derived word
_AFFIXES_DERIVE = frozenset({"id", "ms"})
_MIN_WORD = 3  # letters a word needs before its stem or derivation counts
_FORM_STEMS: dict = {}  # (lang, form text, key, skey) -> per word, (the stems it is found under, known?)
_KNOWN: dict = {}  # (lang, word) -> does a word list know it
_BASES: dict = {}  # (lang, loose word) -> the lemma keys of the word without an attached pronoun or ending
# alphabets whose marked letters are letters of their own (ö, ü, ç, ş, ğ, ı beside o, u, c, s, g, i): a stem
# that agrees with the term's only without the marks is another spelling, not a form
_MARKED_LETTERS = frozenset({"tr", "az"})
# an Arabic noun written with the tanwin kasra on its last letter ("معدٍ", "تفشٍ") is defective: its "ي" comes
# back in the definite and feminine forms ("المعدي", "المعدية", "التفشي"), which are its forms, not derivations
_DEFECTIVE = "\u064d"


def known(word: str, lang: str) -> bool:
    """Does the language's lookup table or simplemma's dictionary know `word` (accents exact)?"""
    k = (lang, word)
    got = _KNOWN.get(k)
    if got is None:
        listed = dictlemma.lookup(lang)
        got = is_target_word(word, lang) or (listed is not None and listed(word) is not None)
        if len(_KNOWN) > 200_000:
            _KNOWN.clear()
        _KNOWN[k] = got
    return got


class Morph:
    """The stems of one target segment's content words (a `TargetIndex`'s positions), made on first need."""

    __slots__ = ("stems", "words", "known", "readings", "_texts", "_lang", "plain", "bases", "derived", "exact")

    def __init__(self, idx, lang: str):
        stem = stemmer(lang)
        stop = stop_words(lang)
        self.stems: list[frozenset] = []
        self.words: list[tuple[str, ...]] = []
        self.known: list[bool] = []
        self.readings: list = []  # each word's lemma readings (loose keys), made on first need
        self.plain: list[tuple[str, ...]] = []  # the keys of words too short or too common for stems
        self._texts: list[str] = []
        self._lang = lang
        self.bases: list[frozenset] = []
        self.derived: list[tuple] = []  # nouns the word is a relational adjective of (clitics.derived_bases)
        self.exact: list[frozenset] = []  # stems of the word as written (marks kept), where marks are letters
        marked = lang in _MARKED_LETTERS
        for i, p in enumerate(idx.pos):
            tok = idx.tokens[p]
            self._texts.append(tok.text)
            self.readings.append(None)
            k, s = idx.keys[i], idx.surf[i]
            self.plain.append(() if tok.punct else (k, s))
            based = attached_bases(s, lang) if not tok.punct else frozenset()
            self.bases.append(based)
            self.derived.append(clitics.derived_bases(s, lang) if not tok.punct else ())
            self.exact.append(frozenset())
            if tok.punct or (not based and (len(s) < _MIN_WORD or s in stop or k in stop)):
                self.stems.append(frozenset())
                self.words.append(())
                self.known.append(True)
                continue
            self.words.append((k, s) if k != s else (k,))
            self.known.append(stem is not None and known(tok.text, lang))
            if stem is None:
                self.stems.append(frozenset())
                continue
            self.stems.append(frozenset(loose(stem(w)) for w in (k, s, lower(tok.text, lang), tok.lemma)))
            if marked:
                self.exact[-1] = frozenset(stem(w) for w in (lower(tok.text, lang), tok.lemma))

    def lemma_readings(self, i: int) -> frozenset:
        """The loose keys of every lemma the lexicon lists the word at content position `i` under."""
        got = self.readings[i]
        if got is None:
            text, lang = self._texts[i], self._lang
            low = lower(text, lang)
            # a reading the word lists give a derived word ("bütçesiz" under "bütçe") is no reading of it
            got = self.readings[i] = frozenset(loose(lower(x, lang)) for x in lemmas_of(text, lang)
                                               if not hides_derivation(low, lower(x, lang), lang))
        return got


def attached_bases(word: str, lang: str) -> frozenset:
    """The keys loose word `word` has once an attached pronoun or agreement ending is taken off
    (termqa.lang.clitics): each base and the lemma simplemma's dictionary lists for it."""
    k = (lang, word)
    got = _BASES.get(k)
    if got is None:
        found = clitics.bases(word, lang)
        listed = dictlemma.lookup(lang) if found else None
        out = set(found)
        for b in found:
            lem = listed(b) if listed is not None else None
            if lem:
                out.add(loose(lower(lem, lang)))
        got = frozenset(out)
        if len(_BASES) > 200_000:
            _BASES.clear()
        _BASES[k] = got
    return got


def _form_stems(f, lang: str) -> tuple[tuple[frozenset, bool, frozenset, bool], ...]:
    """For each word of a glossary form, the stems it is found under (of its lemma and surface keys, and of
    the words of the term's text those keys stand for, stemmed with their accents: Czech endings carry
    them), whether a word list knows it, the stems of those words as written (marks kept), and whether it
    is written as an Arabic defective noun (`_DEFECTIVE`)."""
    k = (lang, f.text, f.key, f.skey)
    got = _FORM_STEMS.get(k)
    if got is None:
        stem = stemmer(lang)
        skey = f.skey if len(f.skey) == len(f.key) else f.key
        words = [lower(w, lang) for w in _WORDS.findall(f.text)]
        raw = f.text.split() if _DEFECTIVE in f.text else ()  # \w+ leaves the tanwin out
        out = []
        for key, sk in zip(f.key, skey):
            if stem is None:
                out.append((frozenset(), True, frozenset(), False))
                continue
            written = [w for w in words if loose(w) in (key, sk)]
            found = {stem(key), stem(sk)} | {stem(w) for w in written}
            out.append((frozenset(loose(x) for x in found), any(known(w, lang) for w in written),
                        frozenset(stem(w) for w in written), any(w.endswith(_DEFECTIVE) and loose(w) in (key, sk) for w in raw)))
        got = _FORM_STEMS[k] = tuple(out)
        if len(_FORM_STEMS) > 100_000:
            _FORM_STEMS.clear()
    return got


def find(idx, forms: Sequence, lang: str, morph: Optional[Morph]) -> tuple[Optional[Morph], list]:
    """(the segment's Morph, [(a, b, kind, form)]): content-index spans [a, b) that render one of the
    glossary `forms` (the concept's own terms: variants and forbidden terms left out) as an inflected or a
    derived form. `morph` is the segment's, when made already."""
    out: list = []
    own = [f for f in forms if f.kind == "glossary" and not f.rule and f.key]
    if not own:
        return morph, out
    if morph is None:
        morph = Morph(idx, lang)
    n = len(idx.pos)
    for f in own:
        m = len(f.key)
        fstems = _form_stems(f, lang)
        skey = f.skey if len(f.skey) == len(f.key) else f.key
        for a in range(0, n - m + 1):
            kind = _match(morph, a, f.key, skey, fstems, lang)
            if kind is not None:
                out.append((a, a + m, kind, f))
        if m >= 2 and f.key[0] in _AUXILIARIES.get(lang, ()):
            out.extend(_without_auxiliary(morph, f, skey, fstems, lang))
    return morph, out


# the auxiliaries of the passive and the copula a glossary writes before a participle ("être infecté",
# "ser infetado"), as loose keys
_AUXILIARIES = {"fr": frozenset({"etre"}), "pt": frozenset({"ser", "estar"}), "es": frozenset({"ser", "estar"}),
                "it": frozenset({"essere"})}
_BETWEEN = frozenset({"pas", "ne", "n", "nao", "no", "non", "plus", "jamais", "nunca", "tambem", "aussi"})


def _without_auxiliary(morph: Morph, f, skey, fstems, lang: str) -> list:
    """Spans that render a glossary verb phrase "auxiliary + participle" by the participle alone ("les
    individus infectés" for "être infecté"): `inflected`, for review, never conforming (the auxiliary is
    missing, the grammar may still be right). Where a form of the auxiliary stands before the participle,
    with a negation or an adverb between them ("ne sont pas infectés"), the span starts at it."""
    out = []
    aux, n, m = f.key[0], len(morph.words), len(f.key)
    for a in range(0, n - m + 2):
        rest = range(1, m)
        exact = all(morph.plain[a + x - 1] and f.key[x] in morph.plain[a + x - 1] for x in rest)
        if not exact and _match(morph, a, f.key[1:], skey[1:], fstems[1:], lang) is None:
            continue
        start = a
        j = a - 1
        while j >= 0 and morph.plain[j] and morph.plain[j][1] in _BETWEEN and j > a - 3:
            j -= 1
        if j >= 0 and morph.plain[j] and aux in morph.lemma_readings(j):
            if j == a - 1:
                continue  # the whole phrase: the glossary rules have answered it
            start = j
        out.append((start, a + m - 1, "inflected", f))
    return out


def _match(morph: Morph, a: int, key, skey, fstems, lang: str) -> Optional[str]:
    """`glossary`, `inflected` or `derived` when the words from content position `a` render the form word
    by word, at least one of them not as the term's own word; else None. `glossary`: each such word a form
    the lexicon lists under the term word's lemma (the same word in another form)."""
    kind = None
    for x in range(len(key)):
        words = morph.words[a + x]
        want = (key[x], skey[x])
        if not words:
            if any(w in want for w in morph.plain[a + x]):
                continue  # the term's own short word ("19" of "كوفيد 19" beside "بكوفيد")
            return None
        if any(w in want for w in words):
            continue
        if key[x] in morph.lemma_readings(a + x) or clitic_form(morph._texts[a + x], skey[x], lang):
            kind = kind or "glossary"
            continue
        plain = morph.plain[a + x]
        if plain and plain[1] in (gerund_infinitive(skey[x], lang), gerund_infinitive(key[x], lang)):
            kind = kind or "glossary"  # "toucher" for the glossary's "touchant": the verb itself
            continue
        # a derivation first: Snowball gives "climatique" the stem of "climat", but it is another word
        stems_x, known_x, exact_x, defective = fstems[x]
        if any(b in want for b in morph.derived[a + x]):
            kind = ("inflected" if kind in (None, "glossary") else kind) if defective else "derived"  # "السطحي" from "سطح"; "المعدية" of "معدٍ"
            continue
        if any(w in clitics.derived_bases(b, lang, bare=False) for w in words for b in want):
            kind = "derived"  # the other way: "عدوى فيروس" (of the virus) for "عدوى فيروسية" (viral)
            continue
        if any(derived_from(w, b, lang) for w in words for b in want):
            kind = "derived"
            continue
        if any(compound_of(w, b, lang) for w in words for b in want):
            kind = "inflected" if kind in (None, "glossary") else kind  # the term in a compound ("Rechnungsvorlage"): there, but reviewed
            continue
        if stems_x and not (known_x and morph.known[a + x]) and not stems_x.isdisjoint(morph.stems[a + x]):
            if lang in _AFFIXES_DERIVE:
                kind = "derived"  # "bergejala" (to have symptoms) for "gejala" (symptom): another word
            elif exact_x and morph.exact[a + x] and exact_x.isdisjoint(morph.exact[a + x]):
                kind = "inflected_spelling"  # "dökümanı" for "doküman": the same stem only without the marks
            else:
                kind = "inflected" if kind in (None, "glossary") else kind
            continue
        if not morph.bases[a + x].isdisjoint(want):
            kind = "inflected" if kind in (None, "glossary") else kind  # "مشاريعي" ("my projects") for "مشروع"
            continue
        return None
    return kind


# a verb's gerund or present participle ending and its infinitive's, longest first: the glossary word with the first
# ending, listed under the infinitive made with the second, is that verb's gerund ("touchant" of "toucher")
_GERUNDS = {
    "fr": (("geant", "ger"), ("issant", "ir"), ("ant", "er")),
    "pt": (("ando", "ar"), ("endo", "er"), ("indo", "ir")),
    "es": (("ando", "ar"), ("iendo", "er"), ("iendo", "ir")),
}
_GERUND_OF: dict = {}  # (lang, loose word) -> its infinitive's loose key, or None


def gerund_infinitive(term_word: str, lang: str) -> Optional[str]:
    """The infinitive (loose key) of a glossary word that is a verb's gerund or present participle by its
    regular ending, where the lexicon lists the word under that infinitive; else None. English "-ing" after a
    preposition is rendered by the infinitive ("without touching" -> "sans toucher", "sem tocar"), so a text
    word that IS that infinitive is the glossary's verb, not another word. Only the infinitive: another form
    of the verb ("touchez", "infectait") may be another use, and stays for the other rules."""
    k = (lang, term_word)
    if k in _GERUND_OF:
        return _GERUND_OF[k]
    got = None
    for ger, inf in _GERUNDS.get(lang, ()):
        if term_word.endswith(ger) and len(term_word) > len(ger) + 1:
            verb = term_word[: len(term_word) - len(ger)] + inf
            if verb in {loose(lower(x, lang)) for x in lemmas_of(term_word, lang)}:
                got = verb
                break
    if len(_GERUND_OF) > 100_000:
        _GERUND_OF.clear()
    _GERUND_OF[k] = got
    return got


# Arabic proclitics written onto the next word: "wa" and "fa" (and, so), "bi" (with, by), "li" (for), "ka" (as),
# and their pairs ("wa-bi", "fa-li"...). The article "al" is not among them: the dictionary lemmatiser reads it.
_AR_PROCLITICS = tuple(sorted({a + b for a in ("", "و", "ف") for b in ("", "ب", "ل", "ك")} - {""}, key=len, reverse=True))
_AR_MIN_BASE = 3  # letters the rest must keep: "بحث" (research) is no "ب" + "حث"
# Spanish object and reflexive pronouns an infinitive or a gerund takes at its end, one or two ("dárselo")
_ES_CLITICS = ("me", "te", "se", "nos", "os", "lo", "la", "los", "las", "le", "les")
_ES_CLITIC_PAIRS = tuple(sorted({a + b for a in _ES_CLITICS for b in _ES_CLITICS} | set(_ES_CLITICS), key=len,
                                reverse=True))
_AR_MARKS = re.compile("[\u064b-\u0652\u0670\u0640]")  # short vowels, tanwin, shadda, sukun, dagger alif, tatweel


def clitic_form(word: str, term_word: str, lang: str) -> bool:
    """Is `word` (as written) the glossary word `term_word` (its loose surface key) with clitics joined to it?

    Arabic: one of `_AR_PROCLITICS` before the term's word exactly (short vowels aside), the rest at least
    `_AR_MIN_BASE` letters, and the word itself no word the dictionary lists under another lemma. Spanish: the
    term's infinitive ("tocar") or its gerund with one or two pronouns after it ("tocarse", "tocándoselo": the
    accent the pronouns make written is folded away). The same word with its clitics: not another word."""
    if lang == "ar":
        w = _AR_MARKS.sub("", word)
        t = _AR_MARKS.sub("", term_word)
        if len(t) < _AR_MIN_BASE or len(w) <= len(t) or not w.endswith(t):
            return False
        if w[: len(w) - len(t)] not in _AR_PROCLITICS:
            return False
        listed = dictlemma.lookup(lang)
        other = listed(w) if listed is not None else None
        return other is None or _AR_MARKS.sub("", other) == t
    if lang == "es":
        w = loose(lower(word, lang))
        if len(w) <= len(term_word) or not w.startswith(term_word[:-2] if term_word.endswith("r") else term_word):
            return False
        for c in _ES_CLITIC_PAIRS:
            if w.endswith(c):
                base = w[: len(w) - len(c)]
                if base == term_word and base.endswith(("ar", "er", "ir")):
                    return True
                if term_word.endswith(("ar", "er", "ir")) and base in (term_word[:-2] + "ando", term_word[:-2] + "iendo"):
                    return True
        return False
    return False
