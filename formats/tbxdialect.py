"""What the TBX-Basic, TBX-Min and TBX-Core dialects allow in a TBX v3 (ISO 30042:2019) file, as
LTAC-Global's dialect definitions state it (the repositories TBX-Basic_dialect, TBX-Min_dialect and
TBX-Core_dialect: their DCA Schematron rules and integrated grammars). Written here as data; formats/tbx.py
applies it.

- Which data categories each meta element may name (`<termNote type="...">`): TBX-Min has four
  (customerSubset, subjectField, administrativeStatus, partOfSpeech) and externalCrossReference;
  TBX-Basic adds its own; TBX-Core has none at all (its grammar leaves every `type` list empty).
- The picklist of each closed data category.

Two differences with LTAC's own test files (TBX_test_files: "good" files that must validate) are
settled here, so that none of those valid files becomes invalid:
- `<termNote type="usageStatus">` (preferred / admitted / deprecated): the test files of TBX-Min and
  TBX-Basic use it where the dialects now have administrativeStatus. It is accepted with a warning, and
  its value must still be one of the status words (the negative TBX-Min test file's "not an allowed
  value" is a problem).
- transactionType "creation": the test files' word for what TBX-Basic now calls "origination";
  accepted with a warning.
- partOfSpeech "properNoun": in the TBX-Basic picklist of 2008, and carried into v3 files by LTAC's own
  TBX-converter (its "Good-Basic2" test output); accepted with a warning.
TBX 2008 files (`martif type="TBX-Basic"`) are not held to these v3 lists (formats/tbx.py keeps the
2008 picklists for them, where partOfSpeech still has properNoun).
"""
from __future__ import annotations

from typing import Optional

DIALECTS = ("tbx-basic", "tbx-min", "tbx-core")

_MIN_TYPES = {
    "admin": frozenset({"customerSubset"}),
    "descrip": frozenset({"subjectField"}),
    "termNote": frozenset({"administrativeStatus", "partOfSpeech"}),
    "xref": frozenset({"externalCrossReference"}),
}
_BASIC_TYPES = {
    "admin": frozenset({"customerSubset", "projectSubset", "source"}),
    "descrip": frozenset({"subjectField", "context", "definition"}),
    "ref": frozenset({"crossReference"}),
    "termNote": frozenset({"administrativeStatus", "partOfSpeech", "geographicalUsage", "grammaticalGender",
                           "termLocation", "termType"}),
    "transac": frozenset({"transactionType"}),
    "transacNote": frozenset({"responsibility"}),
    "xref": frozenset({"externalCrossReference", "xGraphic"}),
}
# meta element -> the data categories (type values) a dialect allows on it; an element missing from a
# dialect's table may not carry any data category there
ALLOWED_TYPES = {"tbx-min": _MIN_TYPES, "tbx-basic": _BASIC_TYPES, "tbx-core": {}}

# Data categories LTAC's valid test files use beyond the dialect definitions: accepted with a warning.
EARLIER_TYPES = {"termNote": frozenset({"usageStatus"})}

PICKLISTS = {
    "administrativeStatus": ("preferredTerm-admn-sts", "admittedTerm-admn-sts", "deprecatedTerm-admn-sts",
                             "supersededTerm-admn-sts"),
    "partOfSpeech": ("noun", "verb", "adjective", "adverb", "other"),
    "termType": ("fullForm", "acronym", "abbreviation", "shortForm", "variant", "phrase"),
    "grammaticalGender": ("masculine", "feminine", "neuter", "other"),
    "termLocation": ("checkBox", "comboBox", "comboBoxElement", "dialogBox", "groupBox", "informativeMessage",
                     "interactiveMessage", "menuItem", "progressBar", "pushButton", "radioButton", "slider",
                     "spinBox", "tab", "tableText", "textBox", "toolTip", "user-definedType"),
    "transactionType": ("origination", "modification"),
    # the earlier status category (see above): the administrativeStatus values without their suffix
    "usageStatus": ("preferred", "admitted", "deprecated", "superseded"),
}
# Values LTAC's valid test files use outside the current picklist: accepted with a warning.
EARLIER_VALUES = {"transactionType": frozenset({"creation"}), "partOfSpeech": frozenset({"properNoun"})}


def dialect_key(dialect_type: str) -> Optional[str]:
    """'tbx-basic' / 'tbx-min' / 'tbx-core' for a `type` attribute naming one of them, else None."""
    key = (dialect_type or "").strip().lower()
    return key if key in DIALECTS else None


def type_check(dialect: str, element: str, category: str) -> tuple[Optional[str], Optional[str]]:
    """(problem, warning) for `<element type="category">` in a file of `dialect`; (None, None) when allowed."""
    table = ALLOWED_TYPES[dialect]
    if element not in table and not any(element in t for t in ALLOWED_TYPES.values()):
        return None, None  # an element the dialects never type-restrict (adminNote, descripNote...)
    allowed = table.get(element, frozenset())
    if category in allowed:
        return None, None
    name = _NAMES[dialect]
    if dialect != "tbx-core" and category in EARLIER_TYPES.get(element, ()):
        return None, (f"<{element} type={category!r}> is not a {name} data category in LTAC's dialect definition "
                      "(administrativeStatus is); accepted, as LTAC's own test files use it")
    if not allowed:
        if dialect == "tbx-core":
            return f"<{element} type={category!r}>: TBX-Core has no data categories", None
        return f"<{element}> may not carry a data category in {name} (it has none for it)", None
    return (f"<{element} type={category!r}>: not a {name} data category (allowed: {', '.join(sorted(allowed))})",
            None)


def value_check(category: str, value: str, dialect_name: str) -> tuple[Optional[str], Optional[str]]:
    """(problem, warning) for a value of a closed data category; (None, None) when it is in the picklist or
    the category is open."""
    allowed = PICKLISTS.get(category)
    if not allowed or value in allowed:
        return None, None
    if value in EARLIER_VALUES.get(category, ()):
        return None, (f"{category} value {value!r} is not in the {dialect_name} picklist ({', '.join(allowed)}); "
                      "accepted, as LTAC's own test files use it")
    return f"{category} value {value!r} is not in the {dialect_name} picklist ({', '.join(allowed)})", None


_NAMES = {"tbx-basic": "TBX-Basic", "tbx-min": "TBX-Min", "tbx-core": "TBX-Core"}
