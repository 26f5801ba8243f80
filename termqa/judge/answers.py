"""Reading a judge's answer text: the JSON object it holds, and whether it answers all that was asked.

Shared by the synchronous backend (termqa.judge.llm) and the batch engine (termqa.judge.batch), so an
answer is accepted on the same terms whichever way it arrived.

An answer that breaks the question's schema (a label outside the prompt's registry, a missing
required field, an item missing, a quoted span that is not in the target) is *unusable*: the
backend asks again, never reads it as a default verdict, and never caches it. `problem()` says why,
with a short reason class (`UNUSABLE_CLASSES`) that the console and the JSON count by.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping, Optional, Sequence

from termqa.labels import ERROR_LABELS, code_for

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")

# Why an answer was unusable: the reason classes progress lines, messages and the JSON count by.
NOT_JSON = "not JSON"
EMPTY = "empty"
REFUSAL = "refusal"
BAD_LABEL = "label outside the registry"
MISSING_FIELD = "missing field"
MISSING_ITEM = "item missing"
SPAN_NOT_IN_TARGET = "span not in the target"
UNUSABLE_CLASSES = (NOT_JSON, EMPTY, REFUSAL, BAD_LABEL, MISSING_FIELD, MISSING_ITEM, SPAN_NOT_IN_TARGET)
# The classes that break the schema (the answer is JSON, but not the JSON asked for).
SCHEMA_BREAKING = (BAD_LABEL, MISSING_FIELD, MISSING_ITEM, SPAN_NOT_IN_TARGET)

# Quoted spans an answer must take from a text: (array key, text key, "found" key, the text), e.g.
# ("renderings", "translation", "found", target segment) for the alignment question.
Quotes = tuple[str, str, str, str]

QUOTE_MARKS = "\"'`“”«»„‘’"

# What an array answer must cover: (array key, id key, the ids asked about), e.g.
# ("verdicts", "occurrence", ("o1", "o2")).
Expect = tuple[str, str, tuple[str, ...]]


def parse_json_answer(text: str, schema: Optional[Mapping[str, Any]] = None) -> Optional[dict]:
    """The JSON object in `text`, or None when there is none or it lacks a required key.

    Servers in json_object mode (and small local models) sometimes wrap the object in a code fence
    or add a sentence around it; the first balanced-looking object is taken in that case.
    """
    data = parse_json_object(text)
    if data is None:
        return None
    required = ((schema or {}).get("schema") or {}).get("required") or ()
    if any(k not in data for k in required):
        return None
    return data


def parse_json_object(text: str) -> Optional[dict]:
    """The JSON object in `text` (the whole text, a fenced block, or the first "{" to the last "}"),
    or None when there is none."""
    text = (text or "").strip()
    candidates = [text, _FENCE.sub("", text).strip()]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    data = None
    for c in candidates:
        try:
            data = json.loads(c)
        except ValueError:
            continue
        if isinstance(data, dict):
            break
        data = None
    return data


def items_by_id(data: Any, key: str, id_key: str) -> dict[str, dict]:
    """The items of the array `data[key]`, by their `id_key` (the first item per id)."""
    out: dict[str, dict] = {}
    items = data.get(key) if isinstance(data, dict) else None
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict):
            value = item.get(id_key)
            out.setdefault("" if value is None else str(value).strip(), item)
    return out


def answers_every(data: Any, expect: Optional[Sequence]) -> bool:
    """Does an array answer have an item for every id asked about? (True when nothing is expected.)"""
    if not expect:
        return True
    key, id_key, ids = expect
    got = items_by_id(data, key, id_key)
    return all(i in got for i in ids)


def norm_label(value: Any) -> str:
    """`"Invented calque"`, `invented-calque`, ` invented_calque ` -> `invented_calque`."""
    text = "" if value is None else str(value).strip()
    return re.sub(r"[\s\-]+", "_", text.strip("\"'`.").lower())


def _in_enum(value: Any, enum: Sequence) -> bool:
    """Is `value` one of `enum`, spelled loosely (case, spaces, hyphens)? A bare error code ("A1")
    stands for its label where the enum is the error registry."""
    if not isinstance(value, str):
        return False
    label = norm_label(value)
    if label in {norm_label(e) for e in enum}:
        return True
    return any(e in ERROR_LABELS for e in enum) and code_for(label) is not None


def _schema_problem(value: Any, spec: Mapping[str, Any], where: str) -> Optional[tuple[str, str]]:
    kind = spec.get("type")
    if kind == "object":
        if not isinstance(value, dict):
            return MISSING_FIELD, f"{where} is not an object"
        for k in spec.get("required") or ():
            if k not in value:
                return MISSING_FIELD, f"{where} has no '{k}'"
        for k, sub in (spec.get("properties") or {}).items():
            if k in value:
                found = _schema_problem(value[k], sub, k)
                if found:
                    return found
    elif kind == "array":
        if not isinstance(value, list):
            return MISSING_FIELD, f"'{where}' is not a list"
        for item in value:
            found = _schema_problem(item, spec.get("items") or {}, where)
            if found:
                return found
    enum = spec.get("enum")
    if enum is not None and not _in_enum(value, enum):
        return BAD_LABEL, f"'{where}' is {str(value)[:40]!r}, not one of the prompt's values"
    return None


def locate(text: str, segment: str) -> Optional[tuple[int, int]]:
    """Offsets of `text` in `segment`: exact first, then ignoring case, runs of spaces and the
    apostrophe/quote style (models often retype ’ as ')."""
    if not text or not segment:
        return None
    i = segment.find(text)
    if i >= 0:
        return (i, i + len(text))
    parts = []
    for ch in text:
        if ch.isspace():
            if not parts or parts[-1] != r"\s+":
                parts.append(r"\s+")
        elif ch in "'’ʼ`":
            parts.append("['’ʼ`]")
        elif ch == "-" or ch == "‑":
            parts.append("[-‑]")
        else:
            parts.append(re.escape(ch))
    m = re.search("".join(parts), segment, flags=re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def _quote_problem(data: Any, quotes: Sequence) -> Optional[tuple[str, str]]:
    key, text_key, found_key, within = quotes
    items = data.get(key) if isinstance(data, dict) else None
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        text = ("" if item.get(text_key) is None else str(item.get(text_key))).strip().strip(QUOTE_MARKS).strip()
        found = item.get(found_key)
        if isinstance(found, str):
            found = found.strip().lower() in ("true", "yes", "1")
        if text and found is not False and locate(text, within) is None:
            return SPAN_NOT_IN_TARGET, f"{text[:40]!r} is not in the target"
    return None


def problem(data: Any, schema: Optional[Mapping[str, Any]], expect: Optional[Sequence] = None,
            quotes: Optional[Sequence] = None) -> Optional[tuple[str, str]]:
    """Why a parsed answer cannot be used, as (reason class, detail), or None when it can.

    `data` None is an answer with no JSON object in it. The schema is checked the way the readers
    (termqa.judge.questions) read it: required fields, enum values spelled loosely, arrays of objects."""
    if data is None:
        return NOT_JSON, "no JSON object"
    if schema is not None:
        found = _schema_problem(data, schema.get("schema") or schema, "answer")
        if found:
            return found
    if not answers_every(data, expect):
        return MISSING_ITEM, "an item asked about has no answer"
    if quotes:
        return _quote_problem(data, quotes)
    return None
