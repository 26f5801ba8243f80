"""The one place where real-world spellings of term status, term type and do-not-translate markers
are mapped onto termqa's vocabulary (termqa.model).

Glossary files spell the same idea many ways: TBX picklists (`preferredTerm-admn-sts`), ISO 12620
normativeAuthorization (`standardizedTerm`), TBX usageStatus (`notRecommended`, `obsolete`),
terminology tools' free text (`Preferred`, `Obsolete`, `forbidden`, `Do not use`). Every reader
calls `normalise_status`, `normalise_term_type` and the DNT helpers here, so a new spelling is
added once and every format benefits.

Decisions worth knowing:
- forbidden / notRecommended / obsolete / rejected / do-not-use -> deprecated: a translation must
  not use them. `obsolete` is not `superseded` because tools use it for "never use again", while
  TBX `supersededTerm` means "replaced by a newer preferred term" (also forbidden, kept apart so
  the report can say "superseded by ...").
- draft / proposed / new / candidate -> unknown: nobody has validated the term yet, so it is
  neither enforced as preferred nor flagged as forbidden. `raw_status` keeps the word for display.
- A value we do not recognise -> unknown (never guessed); `unrecognised_status` lets a reader warn.
"""
from __future__ import annotations

import re
from typing import Optional

from termqa.model import ADMITTED, DEPRECATED, PREFERRED, SUPERSEDED, UNKNOWN

# Keys are spellings after `_key`: lowercase, the TBX `-admn-sts` suffix and a trailing "term"
# removed, no spaces, hyphens or underscores. So `preferredTerm-admn-sts`, `Preferred term`,
# `PREFERRED` and `preferred_term` all become "preferred".
_STATUS = {
    # preferred
    "preferred": PREFERRED,
    "standardized": PREFERRED,  # ISO 12620 normativeAuthorization / TBX 2008 administrativeStatus
    "standardised": PREFERRED,
    "normative": PREFERRED,
    "legal": PREFERRED,  # legalTerm: mandated by law
    "regulated": PREFERRED,  # regulatedTerm: mandated by a regulator
    "approved": PREFERRED,  # MultiTerm / Weblate-style "Approved"
    "mandatory": PREFERRED,
    "recommended": PREFERRED,
    "main": PREFERRED,
    "entry": PREFERRED,  # Maryland/ISO termType "entryTerm" used as a status by some exports
    # admitted
    "admitted": ADMITTED,
    "admissible": ADMITTED,
    "accepted": ADMITTED,
    "acceptable": ADMITTED,
    "permitted": ADMITTED,
    "allowed": ADMITTED,
    "alternative": ADMITTED,
    "synonym": ADMITTED,
    "tolerated": ADMITTED,
    # deprecated (includes everything a translation must not use)
    "deprecated": DEPRECATED,
    "forbidden": DEPRECATED,
    "prohibited": DEPRECATED,
    "notrecommended": DEPRECATED,
    "notallowed": DEPRECATED,
    "notpermitted": DEPRECATED,
    "obsolete": DEPRECATED,
    "rejected": DEPRECATED,
    "donotuse": DEPRECATED,
    "dontuse": DEPRECATED,
    "avoid": DEPRECATED,
    "incorrect": DEPRECATED,
    "wrong": DEPRECATED,
    "banned": DEPRECATED,
    "blacklisted": DEPRECATED,
    "blocked": DEPRECATED,
    # superseded
    "superseded": SUPERSEDED,
    "outdated": SUPERSEDED,
    "replaced": SUPERSEDED,
    "archaic": SUPERSEDED,
    # not validated yet: neither enforced nor forbidden
    "draft": UNKNOWN,
    "proposed": UNKNOWN,
    "new": UNKNOWN,
    "candidate": UNKNOWN,
    "pending": UNKNOWN,
    "unverified": UNKNOWN,
    "unknown": UNKNOWN,
    "none": UNKNOWN,
}

# Data categories that carry a status, best first: when a term has several, the first one wins.
STATUS_CATEGORIES = ("administrativeStatus", "normativeAuthorization", "usageStatus", "status", "termStatus")


def _key(value: str) -> str:
    v = value.strip().lower()
    v = re.sub(r"-admn-sts$", "", v)
    v = re.sub(r"[\s_\-']+", "", v)
    if v.endswith("term") and len(v) > 4:
        v = v[: -len("term")]
    return v


def normalise_status(raw: Optional[str]) -> str:
    """Map a status spelling to one of termqa.model.STATUSES; empty or unrecognised -> unknown."""
    if not raw or not raw.strip():
        return UNKNOWN
    return _STATUS.get(_key(raw), UNKNOWN)


def unrecognised_status(raw: Optional[str]) -> bool:
    """True when `raw` is a non-empty value we do not know (readers warn about these once)."""
    return bool(raw and raw.strip()) and _key(raw) not in _STATUS


# --- term types ----------------------------------------------------------------------------------

# Canonical TBX spellings, looked up case- and separator-insensitively.
_TERM_TYPES = {
    "fullform": "fullForm",
    "full": "fullForm",
    "acronym": "acronym",
    "abbreviation": "abbreviation",
    "abbreviatedform": "abbreviation",
    "abbr": "abbreviation",
    "abbrev": "abbreviation",
    "initialism": "acronym",
    "shortform": "shortForm",
    "short": "shortForm",
    "clippedterm": "shortForm",
    "variant": "variant",
    "phrase": "phrase",
    "setphrase": "phrase",
    "synonym": "synonym",
    "entryterm": "entryTerm",
    "mainentryterm": "entryTerm",
    "symbol": "symbol",
    "formula": "formula",
    "equation": "equation",
    "internationalism": "internationalism",
    "transliteratedform": "transliteratedForm",
    "transcribedform": "transcribedForm",
    "romanizedform": "romanizedForm",
    "commonname": "commonName",
    "partnumber": "partNumber",
    "productname": "productName",
    "standardtext": "standardText",
    "sku": "sku",
}


def normalise_term_type(raw: Optional[str]) -> Optional[str]:
    """`Acronym` -> `acronym`, `full form` -> `fullForm`; unknown values are kept as written."""
    if not raw or not raw.strip():
        return None
    key = re.sub(r"[\s_\-]+", "", raw.strip().lower())
    return _TERM_TYPES.get(key, raw.strip())


# --- do not translate ----------------------------------------------------------------------------

_YES = frozenset({"yes", "y", "true", "1", "x", "oui", "ja", "si", "sí", "on"})
_NO = frozenset({"no", "n", "false", "0", "non", "nein", "off"})

# Values that by themselves say "keep this term unchanged", whatever data category carries them
# (e.g. <termNote type="usageNote">doNotTranslate</termNote>, a termType of "DNT").
_DNT_VALUES = frozenset(
    {
        "donottranslate",
        "dnt",
        "nontranslatable",
        "untranslatable",
        "nottranslatable",
        "notranslation",
        "nottotranslate",
        "translate:no",
        "keepintranslation",
    }
)
# Categories whose yes/true value means "do not translate".
_DNT_CATEGORIES = frozenset(
    {"donottranslate", "dnt", "nontranslatable", "untranslatable", "nottranslatable", "nottranslate"}
)
# Categories whose no/false value means "do not translate" (openSUSE TermWeb, Weblate).
_TRANSLATE_CATEGORIES = frozenset({"translationneeded", "translatable", "translate", "totranslate"})


def _flat(value: str) -> str:
    return re.sub(r"[\s_\-]+", "", value.strip().lower())


def is_yes(value: Optional[str]) -> bool:
    return bool(value) and value.strip().lower() in _YES


def is_no(value: Optional[str]) -> bool:
    return bool(value) and value.strip().lower() in _NO


def dnt_marker(category: Optional[str], value: Optional[str]) -> bool:
    """True when a data category (`type` attribute or column name) and its value mark DNT.

    `descrip type="Translation needed"` No -> True; `termNote type="doNotTranslate"` yes -> True;
    any category whose value is itself `doNotTranslate` / `DNT` / `non-translatable` -> True.
    """
    cat = _flat(category or "")
    val = (value or "").strip()
    if cat in _TRANSLATE_CATEGORIES:
        return is_no(val)
    if cat in _DNT_CATEGORIES:
        return val == "" or is_yes(val)
    return _flat(val) in _DNT_VALUES


# --- match case ----------------------------------------------------------------------------------

# Names of the data category (a TBX `<termNote type=...>`, a CSV column) saying a term is found only
# written with its own capitals. TBX has no standard category for it: termqa reads `caseSensitive`
# (documented in docs/formats.md, "Unit states") and the spellings exports use for the same thing.
MATCH_CASE_CATEGORIES = frozenset({"casesensitive", "xcasesensitive", "matchcase", "xmatchcase", "case",
                                   "casesensitivity", "keepcase"})
# Values that mean "case-sensitive" besides a plain yes.
_CASE_VALUES = frozenset({"casesensitive", "sensitive", "matchcase", "exact", "keep", "keepcase"})


def match_case_marker(value: Optional[str]) -> bool:
    """Does a match-case cell or term note say yes ("yes", "true", "case-sensitive", "exact")?"""
    return is_yes(value) or _flat(value or "") in _CASE_VALUES


def part_of_speech(raw: Optional[str]) -> Optional[str]:
    """A word class as a glossary writes it, trimmed ("Noun" -> "noun"); None for an empty cell.
    TBX's own values ("properNoun") keep their spelling."""
    if not raw or not raw.strip():
        return None
    v = raw.strip()
    return v if v == "properNoun" else v.lower()
