"""Term variants beyond the glossary's own forms, and the variation typology they are labelled with.

Three detection levels (`variants=`, termqa.config.VariantLevel):

- `none`: the glossary's designations (lemmas, all synonyms) and the acronyms a document defines.
- `static`: plus forms generated from each glossary designation before reading any text: closed
  or split compounds ("work flow" / "workflow"), English "X of Y" / "Y X", French "N de N" with an
  article added or changed, never dropped ("N du N", "N de la N", "N des N"; "à" / "au" / "aux" /
  "à la" likewise), a
  modifier's noun or adjective form ("viral infection" / "virus infection", "transmission du virus" /
  "transmission virale"), and a designation without its outermost adjective ("protective equipment"
  for "personal protective equipment") where `modifier_reductions` finds that safe.
- `dynamic`: plus forms found in context: one inserted modifier ("centrifugal feed pump"),
  coordinations ("inlet and outlet valves"), and the bare head of a multi-word term after a full
  mention of it in the same document, when no other concept found in that document shares the head.

Every occurrence carries a variation type (the typology of Cárcamo et al. 2025, as used by the
Variation Matters paper: GRAPH, MORPH, RED, EXP, LEX, COMBO) and, for variants, the subtype of the
rule that found it. A variant of a designation that is itself a variant of the preferred term
(a synonym, an acronym) combines two variations: COMBO.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

from termqa.labels import TYPE_CODES
from termqa.lang.lexicon import known_form, part_of_speech_keys
from termqa.lang.lookuptables import table_lemma
from termqa.lang.normalise import loose

# our rule -> (variation, subtype); the table of docs/matching.md lists the same
RULES = {
    "closed_compound": ("graphical", "GRAPH4"),  # work flow -> workflow
    "split_compound": ("graphical", "GRAPH3"),  # workflow -> work flow
    "of_phrase": ("morphosyntactic", "MORPH5"),  # contract of employment <-> employment contract
    "article": ("morphosyntactic", "MORPH2"),  # taux de change -> taux du change
    "derivation": ("morphosyntactic", "MORPH4"),  # viral infection <-> virus infection
    "modifier_reduction": ("reduction", "RED1"),  # personal protective equipment -> protective equipment
    "extension_reduction": ("reduction", "RED2"),  # automatic control system ... the automatic system
    "insertion": ("expansion", "EXP3"),  # centrifugal pump -> centrifugal feed pump
    "coordination": ("reduction", "RED2"),  # inlet [valve] and outlet valves
    "reduction": ("reduction", "RED1"),  # centrifugal pump ... the pump
}

# languages whose noun phrases put the head first (French "pompe centrifuge")
HEAD_FIRST = frozenset({"fr", "es", "it", "pt", "ca", "ro"})
CONJUNCTIONS = frozenset({"and", "or", "et", "ou", "und", "oder", "y", "o", "e"})
_OF = {"en": "of"}
# French prepositions with the article forms they take inside a term, as lemma keys ("d'" keys as
# "de", "la" and "l'" as "le"): "taux de la ...", "taux de change", "taux du change", "taux des
# changes". The second of each group is the bare preposition.
_FR_LINKS = (
    (("de", "le"), ("de",), ("du",), ("des",)),
    (("a", "le"), ("a",), ("au",), ("aux",)),
)
# noun -> relational adjective suffix changes (loose keys: accents folded) that derivation tries; a
# result counts only when the language's part-of-speech index lists it as an adjective (and the noun
# as a noun). Only adjectives meaning "of the noun" ("viral": of a virus): "infectious" is not "of
# an infection" (an infectious period is no infection period), so -ious / -ieux are left out.
DERIVATIONS = {
    "en": (("y", "ical"), ("y", "ic"), ("e", "ic"), ("", "ic"), ("", "al"), ("e", "al"), ("us", "al"),
           ("um", "al"), ("a", "al"), ("ion", "ory"), ("le", "ular"), ("e", "ar"),
           ("sis", "tic"), ("ia", "ic"), ("y", "ial")),
    "fr": (("ie", "ique"), ("ie", "ical"), ("e", "al"), ("us", "al"), ("", "al"), ("ion", "ionnel"),
           ("ion", "oire"), ("e", "aire"), ("le", "ulaire"), ("", "ique"), ("e", "ique"),
           ("ose", "otique")),
}
_LINK_WORDS = (frozenset(w for group in _FR_LINKS for form in group for w in form)
               | {"of", "for", "the", "an", "en", "pour", "par", "sur"})
MIN_DERIVED_STEM = 5  # a noun of fewer letters pairs with chance look-alikes ("cost" / "costal")
# pairs the suffix rules make that are not noun and adjective of one meaning
NOT_DERIVED = frozenset({
    ("event", "eventual"), ("vitus", "vital"), ("orient", "oriental"), ("roman", "romanic"), ("virtue", "virtual"),
    ("virtu", "virtual"), ("locus", "local"), ("locum", "local"), ("media", "medial"), ("persona", "personal"),
    ("compulsion", "compulsory"), ("organ", "organic"), ("stomach", "stomachal"), ("stomach", "stomachic"),
    ("estive", "estival"), ("legende", "legendaire"), ("socius", "social"), ("physe", "physique"),
    ("memory", "memorial"), ("mediate", "mediatique"), ("principe", "principal"), ("alimente", "alimentaire"), ("initie", "initial"),
    ("pandeme", "pandemique"), ("masse", "massique"), ("pulmone", "pulmonaire"), ("obligation", "obligatoire"),
})


# a term whose writing carries its meaning: a hashtag or @handle (its sigil is part of it), a URL, a
# code-like name (snake_case, camelCase: "AndNow" is no "and now"). Such a term matches only as written
# (case aside: "#andnow" is the same hashtag), never split into words nor varied.
_SIGILS = ("#", "@")
_CAMEL = re.compile(r"[a-z]{2}[A-Z]|^[a-z]+[A-Z]|[A-Za-z]_[A-Za-z0-9]|[A-Za-z0-9]_[A-Za-z]")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.)", re.I)


def written_form(text: str) -> bool:
    """Does the designation's writing carry its meaning (hashtag, @handle, URL, code-like name)? Such a
    term gets no variant and is never matched on plain words ("#AndNow" is not "and now"). Letters and
    digits alone do not make a name code-like ("COVID-19", "SARS-CoV-2" are written many ways)."""
    t = text.strip()
    return bool(t) and (t.startswith(_SIGILS) or bool(_URL.match(t)) or bool(_CAMEL.search(t)))


def sigil(text: str) -> str:
    """The hashtag or handle sign a designation starts with, which its occurrences must have too."""
    t = text.strip()
    return t[0] if t.startswith(_SIGILS) else ""


def variation_for_rule(rule: str, base_variation: str) -> tuple[str, Optional[str]]:
    """(variation, subtype) of a variant made by `rule` from a designation of variation
    `base_variation` (relative to the preferred term): a variant of a variant is COMBO. The
    written-out conjunct of a coordination ("coordinated") is the designation as it stands."""
    if rule == "coordinated":
        return base_variation, None
    var, sub = RULES[rule]
    if base_variation in ("none", "morphosyntactic") or base_variation == var:
        return var, sub
    return "combined", f"{TYPE_CODES[base_variation]}+{sub}"


def static_keys(key: tuple[str, ...], lang: str, text: str = "") -> list[tuple[str, tuple[str, ...]]]:
    """(rule, key) variants of one designation's lemma key, generated without looking at text.

    `text`, the designation as written, keeps derivation away from names (a capitalised word) and
    hyphenated compounds ("alcohol-based" is no "alcoholic base"). A term whose writing carries its
    meaning (`written_form`) has none."""
    out = []
    if text and written_form(text):
        return out
    words = [k for k in key if not k.startswith("=")]
    if len(key) >= 2 and len(words) == len(key) and all(k.isalpha() and len(k) >= 2 for k in key):
        out.append(("closed_compound", ("".join(key),)))
    of = _OF.get(lang)
    if of and not any(w[:1].isupper() for w in text.split()):
        # a last word written inflected ("virus spreads") is a verb: the term is a clause, not "Y X"
        last = text.split()[-1] if text.split() else ""
        if len(key) != len(text.split()) or key[1:2] == (of,) or loose(last) == key[-1]:
            out += [("of_phrase", k) for k in of_phrase_keys(key, of)]
    if lang == "fr":
        out += [("article", k) for k in article_keys(key)]
    if "-" not in text and not any(w[:1].isupper() for w in text.split()):
        out += [("derivation", k) for k in derived_keys(key, lang)]
    return list(dict.fromkeys(out))


_ARTICLES_EN = ("the",)


def of_phrase_keys(key: tuple[str, ...], of: str = "of") -> list[tuple[str, ...]]:
    """English syntactic restructuring (MORPH5) both ways, with the article the "of" phrase may take
    (MORPH2):

    - "X of Y" / "X of the Y" -> "Y X" ("contract of employment" -> "employment contract"), and each
      "of" form -> the other ("loss of head" <-> "loss of the head"); Y up to two words;
    - "Y X" -> "X of Y", "X of the Y" ("head loss" -> "loss of head"), where every word of Y is a noun
      by the part-of-speech index and never an adjective (a "viral infection" is no "infection of
      viral"; "personal" and "automatic" are both). Two or three words, none a link word.
    Whether the "of" phrase goes on into a longer noun phrase ("loss of head office") is for the
    matcher to tell (detect.drop_open_of_phrases)."""
    if not all(k.isalpha() for k in key):
        return []
    out = []
    if len(key) >= 3 and key[1] == of:
        x, rest = key[0], key[2:]
        bare = rest[1:] if rest[0] in _ARTICLES_EN else rest
        if 1 <= len(bare) <= 2 and not any(w in _LINK_WORDS for w in bare):
            out.append(bare + (x,))
            out.append((x, of) + (bare if rest[0] in _ARTICLES_EN else ("the",) + bare))
        return out
    if 2 <= len(key) <= 3 and not any(w in _LINK_WORDS or w in CONJUNCTIONS for w in key):
        nouns, adjs, _verbs = part_of_speech_keys("en")
        y, x = key[:-1], key[-1]
        if x in nouns and all(w in nouns and w not in adjs for w in y):
            out += [(x, of) + y, (x, of, "the") + y]
    return out


def _link_at(key: tuple[str, ...], i: int):
    """(group, length) of the French preposition + article standing at key[i], or (None, 0)."""
    for group in _FR_LINKS:
        for form in group:  # "de le" before "de": the longest form first
            if key[i:i + len(form)] == form:
                return group, len(form)
    return None, 0


def article_keys(key: tuple[str, ...]) -> list[tuple[str, ...]]:
    """French: the key with the preposition linking two words in another article form, one link at a
    time ("taux de change" -> "taux du change", "taux des change", "taux de le change"). A link must
    stand between two words; the words themselves never change. An article is added or changed,
    never dropped: "mise à terre" is not "mise à la terre" (earthing), it is another term."""
    out = []
    i = 1
    while i < len(key) - 1:
        group, n = _link_at(key, i)
        if group is None or i + n >= len(key):
            i += 1
            continue
        for alt in group:
            if alt != key[i:i + n] and alt != group[1]:  # group[1], the bare preposition, drops the article
                out.append(key[:i] + alt + key[i + n:])
        i += n
    return out


def _is_noun(word: str, lang: str, pos: tuple) -> bool:
    """A noun by the part-of-speech index, or (the index misses some: French "virus") a word the
    lookup table knows that the index lists neither as an adjective nor as a verb."""
    nouns, adjs, verbs = pos
    return word in nouns or (word not in adjs and word not in verbs and known_form(word, lang) is not None)


@lru_cache(maxsize=65536)
def _adjectives_of(noun: str, lang: str) -> tuple[str, ...]:
    pos = part_of_speech_keys(lang)
    if len(noun) < MIN_DERIVED_STEM or not _is_noun(noun, lang, pos):
        return ()
    out = []
    for old, new in DERIVATIONS[lang]:
        if noun.endswith(old) and len(noun) - len(old) >= 3:
            adj = noun[:len(noun) - len(old)] + new
            if adj != noun and adj in pos[1] and (noun, adj) not in NOT_DERIVED:
                out.append(adj)
    return tuple(out)


@lru_cache(maxsize=65536)
def _nouns_of(adj: str, lang: str) -> tuple[str, ...]:
    pos = part_of_speech_keys(lang)
    if adj not in pos[1]:
        return ()
    out = []
    for old, new in DERIVATIONS[lang]:
        if adj.endswith(new) and len(adj) - len(new) >= 3:
            if not old and adj.endswith("ical"):
                continue  # "clinical" is not of a "clinic", nor "medical" of a "medic"
            noun = adj[:len(adj) - len(new)] + old
            if (noun != adj and len(noun) >= MIN_DERIVED_STEM and (noun, adj) not in NOT_DERIVED
                    and _is_noun(noun, lang, pos)):
                out.append(noun)
    return tuple(out)


def derived_keys(key: tuple[str, ...], lang: str) -> list[tuple[str, ...]]:
    """The key with one modifier in its noun or adjective form (morphological derivation).

    Only a word that modifies the head changes; the head never does (a "viral" is not a "virus"),
    and one-word designations get none. English, head last: a word before the head, when only nouns
    and adjectives stand between it and the head ("virus infection" <-> "viral infection"). French,
    head first: a last word joined by "de" becomes an adjective ("transmission du virus" ->
    "transmission virale") and a last adjective a "de" phrase in each article form ("épidémie
    grippale" -> "épidémie de grippe", "épidémie de la grippe"...). A pair counts only when the
    language's part-of-speech index knows the noun as a noun and the adjective as an adjective.
    """
    if lang not in DERIVATIONS or len(key) < 2 or not all(k.isalpha() for k in key):
        return []
    pos = part_of_speech_keys(lang)
    nouns, adjs, _verbs = pos
    if not nouns or not adjs:
        return []
    out = []
    if lang in HEAD_FIRST:
        last = key[-1]
        group, n = _link_at(key, len(key) - 2) if len(key) >= 3 else (None, 0)
        if group is None and len(key) >= 4:
            group, n = _link_at(key, len(key) - 3)
            n = n if n == 2 else 0
        if group is _FR_LINKS[0] and n and len(key) - 1 - n >= 1:
            out += [key[:len(key) - 1 - n] + (a,) for a in _adjectives_of(last, lang)]
        elif _is_noun(key[-2], lang, pos):
            for noun in _nouns_of(last, lang):
                out += [key[:-1] + form + (noun,) for form in _FR_LINKS[0]]
        return out
    for i in range(len(key) - 1):
        if not all(k in nouns or k in adjs for k in key[i + 1:]):
            continue
        w = key[i]
        for alt in _adjectives_of(w, lang) + _nouns_of(w, lang):
            out.append(key[:i] + (alt,) + key[i + 1:])
    return out


def modifier_reductions(key: tuple[str, ...], text: str, lang: str) -> Optional[tuple[str, ...]]:
    """The designation without its outermost modifier, where that is safe to look for anywhere:

    - three words or more, all alphabetic and written apart in the glossary ("alcohol-based hand rub"
      is not cut inside its compound), none capitalised (a name: "Severe Acute Respiratory Syndrome");
    - the dropped word and the next one are adjectives by the part-of-speech index, the next one
      never a noun ("overall case fatality" is no stack of adjectives) (English
      "personal protective equipment" -> "protective equipment"; French "maladie respiratoire
      chronique" -> "maladie respiratoire"), and the head is a noun: stacked adjectives each qualify
      the head, so what remains still names the thing, whereas in "white blood cell count" the first
      word qualifies "blood cell", not "count";
    - the dropped word is no participle ("compromised immune system", "système immunitaire
      affaibli"): a state the term names is not an optional modifier.
    The caller (detect.build_entries) also drops a result that is another concept's designation, or
    the reduction of designations of two concepts.
    """
    if len(key) < 3 or not all(k.isalpha() and len(k) >= 2 for k in key):
        return None
    if len(text.split()) != len(key) or any(c.isupper() for c in text):
        return None
    pos = part_of_speech_keys(lang)
    nouns, adjs, verbs = pos
    if not adjs:
        return None
    if lang in HEAD_FIRST:
        dropped, nxt, rest, head = key[-1], key[-2], key[:-1], key[0]
        last = text.split()[-1].lower().rstrip("s")
        stem = last[:-1] if last.endswith("ie") else last
        # "confirmé": the accent tells; "affaibli": the verb's present "affaiblit" is a form of "affaiblir"
        participle = last.endswith(("é", "ée")) or (
            stem.endswith("i") and (dropped + "r" in verbs or table_lemma(stem + "t", lang) == stem + "r"))
    else:
        dropped, nxt, rest, head = key[0], key[1], key[1:], key[-1]
        participle = dropped.endswith(("ed", "ing"))
    if participle or dropped not in adjs or nxt not in adjs or nxt in nouns or not _is_noun(head, lang, pos):
        return None  # "compromised immune system": the state is what the term names
    return rest


def outer_modifier_dropped(key: tuple[str, ...], lang: str) -> Optional[tuple[str, ...]]:
    """A target designation without its outermost word (the first in English, the last in French),
    for rendering a source occurrence already known to be a modifier reduction: no guard beyond
    keeping two words and not ending on a preposition or article ("équipement de protection
    individuelle" -> "équipement de protection")."""
    if len(key) < 3:
        return None
    rest = key[:-1] if lang in HEAD_FIRST else key[1:]
    if not rest[-1].isalpha() or rest[-1] in _LINK_WORDS or rest[0] in _LINK_WORDS:
        return None
    return rest


def split_index(keys: Sequence[tuple[str, ...]], singles: dict, skip=frozenset(),
                lefts: Optional[frozenset] = None) -> list[tuple[int, object]]:
    """(position, entry) where two adjacent words written apart make a one-word designation
    ("work flow" for "workflow"). Both parts need three letters: "a part" is not "apart".
    Pairs touching a position in `skip` (taken by a match) are not tried, nor (with `lefts`, the
    `split_lefts` of `singles`) a first word that begins no designation."""
    out = []
    n = len(keys) - 1
    # the first words that begin a designation, picked in one pass (most words begin none)
    at = range(n) if lefts is None else [i for i in range(n) if keys[i][1] in lefts]
    for i in at:
        if i in skip or i + 1 in skip:
            continue
        b = keys[i + 1]
        left = keys[i][1]
        if len(left) < 3 or not left.isalpha():
            continue
        for right in dict.fromkeys(b[:2]):
            if len(right) >= 3 and right.isalpha():
                e = singles.get(left + right)
                if e is not None:
                    out.append((i, e))
                    break
    return out


def split_lefts(singles: dict) -> frozenset:
    """Every first part `split_index` can join into a key of `singles`: its prefixes that leave three
    letters or more on each side."""
    return frozenset(k[:n] for k in singles for n in range(3, len(k) - 2))


@dataclass(frozen=True)
class Found:
    """A variant occurrence in content positions [a, b) of a segment."""

    a: int
    b: int
    entry: object  # the designation it is a variant of (a detect.SourceEntry)
    rule: str
    partner: object = None  # for a coordination: the match of the written-out conjunct


def head_of(key: tuple[str, ...], lang: str) -> Optional[str]:
    """The head word of a multi-word designation: last word in English, first in French."""
    if len(key) < 2:
        return None
    return key[0] if lang in HEAD_FIRST else key[-1]


def head_noun(key: tuple[str, ...], lang: str) -> Optional[str]:
    """The head noun of a multi-word designation's lemma key: the first noun in a head-first language
    (French "partis de l'opposition": "parti"), the last noun in English ("opposition parties":
    "party"), by the part-of-speech index; where the index names no noun, the first (last) word.
    None for a one-word designation."""
    if len(key) < 2:
        return None
    pos = part_of_speech_keys(lang)
    words = list(key) if lang in HEAD_FIRST else list(reversed(key))
    for w in words:
        if w.isalpha() and w not in _LINK_WORDS and w in pos[0]:
            return w
    return head_of(key, lang)


def is_content(tok, key: str, stop: frozenset) -> bool:
    """A word that can modify a term: alphabetic, not a function word, not an article."""
    return (not tok.punct and not tok.article and key.isalpha() and len(key) >= 2
            and key not in stop and key not in CONJUNCTIONS)


def target_variation(rendering_text: Optional[str], rendering_key: Optional[tuple], form,
                     preferred_key) -> Optional[str]:
    """The variation of a rendering relative to the target preferred term, for CTV.

    `form` is the target form the rendering matched (a glossary designation or a variant of one),
    None when it was found some other way. A rendering in capitals is an acronym (GRAPH); the
    preferred term itself is NO-VAR; another glossary designation is LEX (GRAPH if typed as an
    acronym); a variant form takes its rule's type; otherwise the words decide: fewer words of the
    preferred term is RED, more is EXP, others LEX.
    """
    if not rendering_text or not rendering_key:
        return None
    if form is not None and getattr(form, "rule", ""):
        return RULES[form.rule][0]
    letters = [c for c in rendering_text if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return "graphical"
    if not preferred_key:
        return None
    if tuple(rendering_key) == tuple(preferred_key):
        return "none"
    if form is not None:
        return "lexical"
    r, p = set(rendering_key), set(preferred_key)
    if r < p:
        return "reduction"
    if p < r:
        return "expansion"
    return "lexical"

