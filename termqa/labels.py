"""The vocabulary, defined once: outcomes, reference provenances, error labels (Q1), consistency
labels (Q2), their descriptions, default penalties, the names of the deterministic rules, ITS 2.0
issue types and the counting metrics' names.

Codes and penalties follow the TermJudge method (see ../shared/design/method.md); the
natural-language names are what prompts show the judge, mapped back to codes here. Every other
module (pipeline, judge, reports, write-back) takes its words from here.
"""
from __future__ import annotations

import hashlib
import json
from types import MappingProxyType
from typing import Optional

# Q1: error labels, natural-language name -> code.
ERROR_LABELS = MappingProxyType({
    "neighbouring_concept_term": "A1",
    "paraphrase_instead_of_term": "A2",
    "invented_calque": "A3",
    "left_untranslated": "A4",
    "do_not_translate_violated": "A5",
    "wrong_constituent": "A6",
    "general_word_instead_of_term": "A7",
    "misparsed_structure": "C",
    "wrong_semantic_relation": "D",
    "failed_transposition": "E",
    "grammar_or_phraseology": "F",
    "content_altered": "G",
    "defective_expression_or_register": "H",
})
ERROR_CODES = tuple(ERROR_LABELS.values())
NO_ERROR = "no_error"

# Q2: consistency labels -> outcome.
COHERENT_LABELS = (
    "first_mention",
    "explicitation",
    "avoid_repetition",
    "document_usage",
    "register",
    "facet",
    "synonym_merge",
)
INCONSISTENT_LABELS = ("neutralisation", "synonym_inconsistency", "gratuitous_divergence")
CONSISTENCY_LABELS = COHERENT_LABELS + INCONSISTENT_LABELS

# One line of description per code, for reports and prompts (our wording).
CODE_DESCRIPTIONS = MappingProxyType({
    "A1": "a real term, but for a neighbouring concept",
    "A2": "a descriptive paraphrase instead of the term",
    "A3": "an invented literal calque",
    "A4": "left untranslated",
    "A5": "a do-not-translate item was translated or altered",
    "A6": "part of a complex term is wrong",
    "A7": "a general-language word instead of the term",
    "C": "the structure of the complex term is misread",
    "D": "wrong relation between the term's parts",
    "E": "source structure calqued instead of transposed",
    "F": "grammar, spelling or phraseology around the term",
    "G": "content added, omitted or invented",
    "H": "defective expression or wrong register",
})

DEFAULT_PENALTIES = MappingProxyType({
    "conforming": 0.0,
    "justified": 0.0,
    "unjustified": 0.5,
    "A1": 1.0,
    "A2": 1.0,
    "A3": 3.0,
    "A4": 4.0,
    "A5": 4.0,
    "A6": 4.0,
    "A7": 3.0,
    "C": 4.0,
    "D": 3.0,
    "E": 1.0,
    "F": 1.0,
    "G": 1.0,
    "H": 1.0,
})


def penalty_table_hash(table) -> str:
    """Short hash of a penalty table, for the run signature."""
    canon = json.dumps({k: float(v) for k, v in sorted(dict(table).items())}, sort_keys=True)
    return hashlib.sha256(canon.encode()).hexdigest()[:12]


def code_for(label: str):
    """Map a judge's natural-language error label (or a bare code) to its code, or None."""
    label = (label or "").strip()
    if label in ERROR_LABELS:
        return ERROR_LABELS[label]
    if label.upper() in ERROR_CODES:
        return label.upper()
    return None


# --- outcomes: what became of an occurrence ------------------------------------------------------------

CONFORMING = "conforming"
JUSTIFIED = "justified"
UNJUSTIFIED = "unjustified"
ERROR = "error"
UNJUDGED = "unjudged"
# Order used everywhere: best to worst, unjudged last because it is "not known", not "bad".
OUTCOMES = (CONFORMING, JUSTIFIED, UNJUSTIFIED, ERROR, UNJUDGED)


# --- where a reference translation comes from ---------------------------------------------------

GLOSSARY = "glossary"
PSEUDO = "pseudo"  # most frequent own rendering, not yet validated by a judge
VALIDATED = "validated"
GENERATED = "generated"

# How reports name each outcome: (name, symbol, one-line meaning).
OUTCOME_TEXT = {
    "conforming": ("Conforming", "✓", "matches the reference; no penalty"),
    "justified": ("Justified", "≈", "differs from the reference for a good reason; no penalty"),
    "unjustified": ("Unjustified", "!", "inconsistent without a reason in context"),
    "error": ("Error", "✗", "a wrong or defective rendering of the term"),
    "unjudged": ("Not judged", "?", "a divergence nobody judged; not scored"),
}

# One line of description per consistency label (our wording).
CONSISTENCY_DESCRIPTIONS = {
    "first_mention": "the first mention uses a fuller or different form on purpose",
    "explicitation": "the term is spelled out or explained for the reader",
    "avoid_repetition": "a variant avoids repeating the same word too closely",
    "document_usage": "follows a usage the document itself establishes",
    "register": "the wording fits the register of the passage",
    "facet": "another facet of the concept is meant in this context",
    "synonym_merge": "source synonyms are rendered with one target term",
    "neutralisation": "a distinction the source makes is lost in the target",
    "synonym_inconsistency": "one source term gets different target synonyms without reason",
    "gratuitous_divergence": "differs from the reference with no reason in context",
}

PROVENANCE_TEXT = {
    "glossary": "from the glossary (authoritative)",
    "validated": "the document's most frequent rendering, accepted by the judge",
    "pseudo": "the document's most frequent rendering (not validated)",
    "generated": "generated by the judge from the concept and its contexts",
}


# --- what the deterministic rules decided, in the words a reader expects ---------------------------------

RULE_NAMES = {
    "forbidden_term": "deprecated term",
    "untranslated": "left untranslated",
    "dnt_altered": "do-not-translate item altered",
    "dnt_translated": "do-not-translate item translated",
    "dnt_missing": "do-not-translate item missing",
    "spelling": "spelling (diacritics)",
}


# --- ITS 2.0 Localization Quality Issue types for labels (write-back) ----------------------------------

ITS_TYPES = MappingProxyType({
    "A1": "terminology", "A2": "terminology", "A3": "terminology", "A4": "untranslated",
    "A5": "terminology", "A6": "terminology", "A7": "terminology", "C": "mistranslation",
    "D": "mistranslation", "E": "style", "F": "grammar", "G": "mistranslation", "H": "register",
    "neutralisation": "inconsistency", "synonym_inconsistency": "inconsistency",
    "gratuitous_divergence": "inconsistency",
})


# --- counting metrics ---------------------------------------------------------------------------------

METRIC_TEXT = {
    "em": ("EM term accuracy", "occurrences whose rendering matches the glossary or reference"),
    "tcr_pr": ("TCR-PR consistency", "occurrences rendered like the first occurrence of their term"),
    "tcr_t": ("TCR-T consistency", "successive occurrences of a term rendered identically"),
    "tcr_em": ("TCR-EM consistency", "per term (2+ occurrences): share matching the glossary, averaged"),
    "conformity_first": ("Conformity to first rendering", "agreement with a term's first rendering"),
    "conformity_majority": ("Conformity to majority rendering", "agreement with a term's most frequent rendering"),
}

ERROR_NAMES = {code: name for name, code in ERROR_LABELS.items()}


def label_info(label: Optional[str]) -> Optional[dict]:
    """Name, description and family of an error or consistency label (None for no label)."""
    if not label:
        return None
    if label in CODE_DESCRIPTIONS:
        return {"code": label, "name": ERROR_NAMES.get(label, label).replace("_", " "),
                "description": CODE_DESCRIPTIONS[label], "kind": "error"}
    if label in CONSISTENCY_DESCRIPTIONS:
        kind = "justified" if label in COHERENT_LABELS else "unjustified"
        if label not in COHERENT_LABELS and label not in INCONSISTENT_LABELS:
            kind = "other"
        return {"code": label, "name": label.replace("_", " "),
                "description": CONSISTENCY_DESCRIPTIONS[label], "kind": kind}
    return {"code": label, "name": label.replace("_", " "),
            "description": "a label outside termqa's registry (recorded as the judge gave it)",
            "kind": "other"}
