"""Term variants beyond the glossary's own forms, and the variation typology they are labelled with.

Three detection levels (`variants=`):

- `none`: the glossary's designations (lemmas, all synonyms) and the acronyms a document defines.
- `static`: plus forms generated from each glossary designation before reading any text: closed
  or split compounds ("work flow" / "workflow"), English "X of Y" / "Y X", French "N de N" with an
  article ("N du N", "N de la N").
- `dynamic`: plus forms found in context: one inserted modifier ("centrifugal feed pump"),
  coordinations ("inlet and outlet valves"), and the bare head of a multi-word term after a full
  mention of it in the same document, when no other concept found in that document shares the head.

Every occurrence carries a variation type (the typology of Cárcamo et al. 2025, as used by the
Variation Matters paper: GRAPH, MORPH, RED, EXP, LEX, COMBO) and, for variants, the subtype of the
rule that found it. A variant of a designation that is itself a variant of the preferred term
(a synonym, an acronym) combines two variations: COMBO.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

LEVELS = ("none", "static", "dynamic")
DEFAULT_LEVEL = "dynamic"

# the coarse `variation` values of an occurrence, and the paper's type codes they stand for
TYPE_CODES = {
    "none": "NO-VAR", "graphical": "GRAPH", "morphosyntactic": "MORPH", "reduction": "RED",
    "expansion": "EXP", "lexical": "LEX", "combined": "COMBO",
}

# our rule -> (variation, subtype); the README's table lists the same
RULES = {
    "closed_compound": ("graphical", "GRAPH4"),  # work flow -> workflow
    "split_compound": ("graphical", "GRAPH3"),  # workflow -> work flow
    "of_phrase": ("morphosyntactic", "MORPH5"),  # contract of employment <-> employment contract
    "article": ("morphosyntactic", "MORPH2"),  # taux de change -> taux du change
    "insertion": ("expansion", "EXP3"),  # centrifugal pump -> centrifugal feed pump
    "coordination": ("reduction", "RED2"),  # inlet [valve] and outlet valves
    "reduction": ("reduction", "RED1"),  # centrifugal pump ... the pump
}

# languages whose noun phrases put the head first (French "pompe centrifuge")
HEAD_FIRST = frozenset({"fr", "es", "it", "pt", "ca", "ro"})
CONJUNCTIONS = frozenset({"and", "or", "et", "ou", "und", "oder", "y", "o", "e"})
_OF = {"en": "of"}
_FR_ARTICLES = ("du", "des")


def check_level(level: str) -> str:
    """The level, or a ValueError naming the choices (the CLI's click.Choice says it earlier)."""
    if level not in LEVELS:
        raise ValueError(f"variants must be one of {', '.join(LEVELS)}, not {level!r}")
    return level


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


def static_keys(key: tuple[str, ...], lang: str) -> list[tuple[str, tuple[str, ...]]]:
    """(rule, key) variants of one designation's lemma key, generated without looking at text."""
    out = []
    words = [k for k in key if not k.startswith("=")]
    if len(key) >= 2 and len(words) == len(key) and all(k.isalpha() and len(k) >= 2 for k in key):
        out.append(("closed_compound", ("".join(key),)))
    of = _OF.get(lang)
    if of and len(key) == 3 and key[1] == of:
        out.append(("of_phrase", (key[2], key[0])))  # contract of employment -> employment contract
    if lang == "fr" and len(key) == 3 and key[1] == "de":
        for art in _FR_ARTICLES:
            out.append(("article", (key[0], art, key[2])))
    return out


def split_index(keys: Sequence[tuple[str, ...]], singles: dict, skip=frozenset(),
                lefts: Optional[frozenset] = None) -> list[tuple[int, object]]:
    """(position, entry) where two adjacent words written apart make a one-word designation
    ("work flow" for "workflow"). Both parts need three letters: "a part" is not "apart".
    Pairs touching a position in `skip` (taken by a match) are not tried, nor (with `lefts`, the
    `split_lefts` of `singles`) a first word that begins no designation."""
    out = []
    for i in range(len(keys) - 1):
        if i in skip or i + 1 in skip:
            continue
        a, b = keys[i], keys[i + 1]
        left = a[1]
        if len(left) < 3 or (lefts is not None and left not in lefts) or not left.isalpha():
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


# the source variation types CTV scores, and the target types that preserve each
CTV_PRESERVES = {
    "graphical": frozenset({"graphical"}),
    "reduction": frozenset({"reduction"}),
    "expansion": frozenset({"expansion"}),
    "lexical": frozenset({"lexical", "none"}),
}
