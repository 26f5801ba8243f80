"""The verdict registry: error labels (Q1), consistency labels (Q2), default penalties.

Codes and penalties follow the TermJudge method (see ../shared/design/method.md); the
natural-language names are what prompts show the judge, mapped back to codes here.
"""
from __future__ import annotations

import hashlib
import json
from types import MappingProxyType

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
