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
from enum import Enum
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

# The one name of each error label a person reads (report filter, badges, decide menu, console, notes'
# subjects): short, and wide enough for every case scored under it (the spelling rule scores as F, a
# deprecated term as A1). A deterministic rule adds its own name beside it (RULE_NAMES), never instead.
LABEL_NAMES = MappingProxyType({
    "A1": "term of a neighbouring concept",
    "A2": "paraphrase instead of the term",
    "A3": "invented calque",
    "A4": "left untranslated",
    "A5": "do-not-translate item changed",
    "A6": "wrong part of a complex term",
    "A7": "general word instead of the term",
    "C": "structure misread",
    "D": "wrong relation between parts",
    "E": "structure calqued",
    "F": "grammar, spelling or phraseology",
    "G": "content altered",
    "H": "defective expression or register",
})


def label_name(label: Optional[str]) -> str:
    """The one name of an error or consistency label (its code's name, or the label in words)."""
    if not label:
        return ""
    return LABEL_NAMES.get(label) or str(label).replace("_", " ")


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

# How the rendering of an occurrence was found in the target (`align_method`), in a reader's words.
ALIGN_METHOD_TEXT = {
    "glossary": "a target term of the glossary",
    "forbidden": "a deprecated or forbidden term of the glossary",
    "dnt": "the do-not-translate item, kept as it is",
    "dnt_altered": "the do-not-translate item, changed",
    "untranslated": "left as in the source",
    "copied_word": "kept as in the source; it is also a word of the target language",
    "inflected": "an inflected form of a target term of the glossary",
    "inflected_spelling": "an inflected form of a target term of the glossary, spelt differently",
    "derived": "a word derived from a target term of the glossary",
    "established": "a rendering the document itself establishes",
    "judge": "located by the judge",
}



class Rule(str, Enum):
    """The deterministic rules (termqa.pipeline.prejudge), each declared once: its id (the `rule` of a verdict in
    every output), the error label it scores (None for a rule that finds the rendering conforming), the ITS 2.0
    issue type write-back gives it (more precise than its label's), the NOTE_TEXT sentence a note for it starts
    from, and its name in a reader's words beside the label's (reports, console).

    A member is its id as a string (`Rule.SPELLING == "spelling"`, hashed as the string), so it is looked up by
    the ids results hold."""

    # errors the rules settle
    FORBIDDEN_TERM = ("forbidden_term", "A1", "terminology", "forbidden_term", "deprecated term")
    UNTRANSLATED = ("untranslated", "A4", "untranslated", "untranslated", "left untranslated")
    DNT_ALTERED = ("dnt_altered", "A5", "terminology", "dnt_altered", "do-not-translate item altered")
    DNT_TRANSLATED = ("dnt_translated", "A5", "terminology", "dnt_altered", "do-not-translate item translated")
    DNT_MISSING = ("dnt_missing", "A5", "terminology", "dnt_missing", "do-not-translate item missing")
    SPELLING = ("spelling", "F", "misspelling", "spelling", "spelling (diacritics)")
    # renderings the rules find conforming
    DNT_KEPT = ("dnt_kept", None, None, None, "do-not-translate item kept")
    GLOSSARY = ("glossary", None, None, None, "the glossary's preferred term")
    GLOSSARY_ADMITTED = ("glossary_admitted", None, None, None, "a glossary term")
    REFERENCE = ("reference", None, None, None, "the generated reference")
    PSEUDO_REFERENCE = ("pseudo_reference", None, None, None, "the document's majority rendering")

    def __new__(cls, id: str, label: Optional[str], its: Optional[str], note: Optional[str], name: str):
        member = str.__new__(cls, id)
        member._value_ = id
        member.label, member.its, member.note, member.reader_name = label, its, note, name
        return member

    __hash__ = str.__hash__  # found by its id in dicts keyed by strings, and the other way round
    __str__ = str.__str__
    __format__ = str.__format__

    @property
    def id(self) -> str:
        return self.value


# the names and ITS types of the rules that settle errors, by id (derived from Rule)
RULE_NAMES = MappingProxyType({r.value: r.reader_name for r in Rule if r.label})


# --- ITS 2.0 Localization Quality Issue types (write-back) -------------------------------------------
#
# The ITS 2.0 type values and what they mean decide the map. "terminology" covers an incorrect term
# and terms used inconsistently, and ITS says "inconsistency" is NOT for terminology inconsistency:
# so termqa's consistency labels are "terminology". "omission" means necessary text is missing: a
# divergence is not that. A do-not-translate item changed is a wrong term ("terminology"), not
# garbled or disallowed characters ("characters"). A spelling the rules caught is "misspelling" (the
# judge's F also covers grammar and phraseology, so it stays "grammar"). An unjudged occurrence has
# not been categorised by anyone: "uncategorized".

ITS_TYPES = MappingProxyType({
    "A1": "terminology", "A2": "terminology", "A3": "terminology", "A4": "untranslated",
    "A5": "terminology", "A6": "terminology", "A7": "terminology", "C": "mistranslation",
    "D": "mistranslation", "E": "style", "F": "grammar", "G": "mistranslation", "H": "register",
    "neutralisation": "terminology", "synonym_inconsistency": "terminology",
    "gratuitous_divergence": "terminology",
})
# Errors the deterministic rules settle, by rule (more precise than their label).
ITS_TYPES_BY_RULE = MappingProxyType({r.value: r.its for r in Rule if r.its})
ITS_OMISSION = "omission"  # an error whose rendering the judge found missing altogether (G, no span)
ITS_UNJUDGED = "uncategorized"
ITS_DEFAULT = "terminology"


# --- XLIFF notes: one plain sentence for the translator ----------------------------------------------
#
# formats/annotate/notes.py picks a sentence and fills it: {found} the target text flagged, {term} the
# source term, {expected} the reference rendering, {origin} where that comes from (NOTE_ORIGIN),
# {reference} the reference as a divergence names it (NOTE_REFERENCE), {status} the glossary status of
# a forbidden term, {language} the source language's name, {description} a label's description,
# {subject} the found-for-term phrase, {use} the "Use ..." sentence (or nothing). No penalty, no run
# id: those go into attributes where the format allows them.
#
# Every note opens with NOTE_LEAD: its first words say how sure termqa is (an error a rule or the judge
# decided; a question termqa could not decide), so the sentences below continue it in lower case. A
# question says what to check first ("check whether ..."), then why.

NOTE_LEAD = MappingProxyType({
    "error": "termqa error", "unjustified": "termqa warning", "unjudged": "termqa question",
    "justified": "termqa info",
})

NOTE_TEXT = MappingProxyType({
    # errors the rules settle (keys: Rule.note)
    "forbidden_term": '"{found}" is a {status} term in the glossary: use "{expected}".',
    "forbidden_term_alone": '"{found}" is a {status} term in the glossary: replace it.',
    "untranslated": '"{found}" is left in {language}: use "{expected}" ({origin}).',
    "dnt_altered": 'keep "{expected}" as it is (do not translate); found "{found}".',
    "dnt_translated": 'keep "{expected}" as it is (do not translate); found "{found}".',
    "dnt_missing": 'keep "{expected}" as it is (do not translate): it is not found in the target.',
    "spelling": 'write "{expected}" as in the glossary, not "{found}" (spelling).',
    # errors the judge found: the label's description
    "error": "{subject}: {description}.{use}",
    # divergences the judge weighed
    "unjustified": "{subject} differs from {reference} without a reason in context.",
    "unjustified_label": "{subject} differs from {reference}: {description}.",
    "unjustified_alone": "{subject} is rendered inconsistently in this document without a reason in context.",
    "justified": "{subject} differs from {reference}, which is fine here: {description}.",
    "justified_alone": "{subject} differs from the other renderings, which is fine here.",
    # unjudged: a question, what to check first
    "missing": 'check that "{term}" is translated: no rendering found ({origin}: "{expected}").',
    "missing_alone": 'check that "{term}" is translated: no rendering found (the glossary gives no target term).',
    "misaligned": ('check the segment: no rendering of "{term}" found, and the target does not look like a '
                   'translation of the source ({origin}: "{expected}").'),
    "diverges": 'check whether "{found}" is right for "{term}" here: it differs from {reference}.',
    "diverges_alone": ('check whether "{found}" is the right term for "{term}": there is no glossary term or other '
                       "rendering to compare with."),
    "kept": 'check whether "{found}", kept as in the {language} source, is right here ({origin}: "{expected}").',
    "inflected": 'check that the form "{found}" fits here: it is an inflected form of {reference}.',
    "derived": 'check that "{found}" fits here: it is a word derived from {reference}.',
    "spelling_document": 'check the spelling of "{found}": it is written differently from {reference}.',
    "abbreviation_kept": ('check whether the abbreviation "{found}", kept as in the {language} source, is acceptable '
                          'here: the glossary gives "{expected}".'),
    "in_kept_name": ('check whether "{found}" is part of a name or title: it is left in {language} inside a longer '
                     'expression kept as it is (otherwise use "{expected}").'),
    # pieces
    "subject": '"{found}" for "{term}"',
    "subject_alone": '"{term}"',
    "use": ' Use "{expected}" ({origin}).',
    "lead": "{lead}: {note}",
    "segment": "{lead} (segment {segments}): {note}",
    "segments": "{lead} (segments {segments}): {note}",
    "segment_plain": "Segment {segments}: {note}",  # a caller's own text, without a lead
    # the same problem (termqa.problems) again in this unit, and in other units, after the note: places
    # are counted in units, never in occurrences
    "times_here": "\u00d7{count} in this unit.",
    "also": "Also in {count} other {units}: {ids}.",
    "also_and_files": "Also in {count} other {units}: {ids} in this file and {elsewhere} in {files}.",
    "also_files": "Also in {count} other {units}, in {files}.",
    "ids_more": "{shown} and {more} more",
    "unit": "unit",
    "units": "units",
    "file": "another file",
    "files": "other files",
})
NOTE_ORIGIN = MappingProxyType({
    "glossary": "glossary", "validated": "elsewhere in this document", "pseudo": "elsewhere in this document",
    "generated": "suggested by the judge",
})
NOTE_REFERENCE = MappingProxyType({
    "glossary": 'the glossary term "{expected}"',
    "validated": '"{expected}" used elsewhere in this document',
    "pseudo": '"{expected}" used elsewhere in this document',
    "generated": 'the rendering the judge suggests, "{expected}"',
})
NOTE_SOURCE_LANGUAGE = "the source language"  # when the file names none termqa can put in words


# --- reasons an occurrence is left unjudged (also the keys of summary.unjudged_reasons) -----------------

# counting (termqa.pipeline.prejudge)
R_MISSING = "no rendering found in the target (omitted, paraphrased or translated otherwise)"
R_DIVERGES_GLOSSARY = "rendering diverges from the glossary term"
R_DIVERGES_MAJORITY = "rendering diverges from the document's majority rendering"
R_HAPAX = "single occurrence with no glossary reference"
R_NO_REFERENCE = "no reference: the glossary has no target term and no rendering was found"
R_SPELLING_PSEUDO = "spelling differs from the document's majority rendering"
R_ACRONYM_KEPT = "abbreviation kept as in the source; the glossary gives only a full form"
R_MISALIGNED = "the target segment does not look like a translation of this source (misaligned?)"
R_COPIED_WORD = "kept as in the source; it is also a word of the target language"
R_SPELLING_VARIANT = ("written differently from the glossary term in a way usage allows (a hamza, a regional or extra "
                      "accent, a contracted article)")
R_IN_KEPT_NAME = "left in the source language inside a longer expression kept as it is (a name or title?)"
# how the alert of a run that could check nothing begins (termqa.pipeline.sanity writes it, termqa.results.gate
# and the report read it back from a result)
NOTHING_CHECKED = "nothing checked"
R_SHORT_FORM_KEPT = "kept as in the source, as the glossary's own target term writes it (its short form?)"
R_COPY_UNKNOWN = ("kept as in the source; the target language's word list knows too little of this text to tell "
                  "whether it is also a target-language word")
R_HEAD_DROPPED = "rendering drops the head noun of the glossary term (a reduction that may name something else)"
# a form of the glossary term the word lists cannot call the same word for certain: likely fine, to review
R_INFLECTED = "an inflected form of the glossary term (same stem; likely fine, check that the form fits)"
R_SPELLING_INFLECTED = ("an inflected form of the glossary term written with other letters (ö for o, ...): "
                        "check the spelling")
R_DERIVED = "a word derived from the glossary term (an adjective from the noun, ...; likely fine, check it)"
# the judge (termqa.judge.stages, termqa.judge.batch)
R_BUDGET = "not judged: the judge budget (--max-calls / --max-cost) was reached"
# A question that still failed after its retries: the run is incomplete (exit code 3) and a re-run
# asks it again. One fixed reason, so the summary counts these occurrences in one line.
R_UNAVAILABLE = "judge unavailable"
R_NO_RENDERING = "the judge found no rendering in the target segment"
R_NOT_IN_SEGMENT = "the judge's rendering is not in the target segment"
R_BATCH = "waiting for the judge batch"  # its question waits for a batch

# --- variation types (termqa.pipeline.variants) -------------------------------------------------------

# the coarse `variation` values of an occurrence, and the paper's type codes they stand for
TYPE_CODES = {
    "none": "NO-VAR", "graphical": "GRAPH", "morphosyntactic": "MORPH", "reduction": "RED",
    "expansion": "EXP", "lexical": "LEX", "combined": "COMBO",
}
# the source variation types CTV scores, and the target types that preserve each
CTV_PRESERVES = {
    "graphical": frozenset({"graphical"}),
    "reduction": frozenset({"reduction"}),
    "expansion": frozenset({"expansion"}),
    "lexical": frozenset({"lexical", "none"}),
}

# --- counting metrics ---------------------------------------------------------------------------------

METRIC_TEXT = {
    "em": ("EM term accuracy", "occurrences whose rendering matches the glossary or reference"),
    "tcr_pr": ("TCR-PR consistency", "occurrences rendered like the first occurrence of their term"),
    "tcr_t": ("TCR-T consistency", "successive occurrences of a term rendered identically"),
    "tcr_em": ("TCR-EM consistency", "per term (2+ occurrences): share matching the glossary, averaged"),
    "conformity_first": ("Conformity to first rendering", "agreement with a term's first rendering"),
    "conformity_majority": ("Conformity to majority rendering", "agreement with a term's most frequent rendering"),
    "ctv": ("CTV variation preservation", "where the source uses an acronym, a short form or another variant of "
                                          "a term, the target uses a variant of the same kind"),
}

# Abbreviations and terms of art a project manager meets in the report and the console, in plain words
# (the report shows them as tooltips and in a legend).
PLAIN_WORDS = MappingProxyType({
    "EM": "exact match: the share of term occurrences whose rendering matches the glossary or reference term",
    "TCR": "term consistency rate: how consistently a term is rendered through a document",
    "CTV": "cross-term variation: whether source variants (acronyms, short forms) keep their kind in the target",
    "chain": "chain of N: the term occurs N times in the document; the occurrences are checked together",
    "first mention": "the first occurrence of the term in the document, where a fuller form is often wanted",
    "coverage": "the share of term occurrences that got a verdict (the others were not judged or not checked)",
    "score": "TermJudge score: the mean penalty per occurrence (0 is best; an error costs 1 to 4)",
    "unjudged": "not judged: a divergence the rules could not settle; an LLM judge (or a reviewer) decides it",
    "DNT": "do not translate: an item the glossary says to keep as it is",
})

# The run settings the report lists, in words (the key is what the JSON and the config file call them).
SETTING_TEXT = MappingProxyType({
    "src_lang": "Source language (--src-lang)",
    "tgt_lang": "Target language (--tgt-lang)",
    "lemmatiser": "Lemmatiser (--lemmatiser)",
    "include_states": "Unit states checked although not translated yet (--include-states)",
    "variants": "Term variants looked for (--variants)",
    "exhaustive": "Every occurrence sent to the judge (--exhaustive)",
    "source_only_glossary": "Glossary without target terms: consistency only (--source-only-glossary)",
    "domain": "Domain named to the judge (--domain)",
    "config": "Settings file (--config)",
    "force_languages": "Languages checked as declared although they look swapped (--force-languages)",
})


def setting_text(key: str, value) -> tuple[str, str]:
    """(name, value) of a run setting in words: yes/no for flags, "—" for none."""
    name = SETTING_TEXT.get(key) or key.replace("_", " ").capitalize()
    if value is None:
        return name, "—"
    if isinstance(value, bool):
        return name, "yes" if value else "no"
    return name, str(value)

ERROR_NAMES = {code: name for name, code in ERROR_LABELS.items()}


def label_info(label: Optional[str]) -> Optional[dict]:
    """Name, description and family of an error or consistency label (None for no label)."""
    if not label:
        return None
    if label in CODE_DESCRIPTIONS:
        return {"code": label, "name": label_name(label),
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
