"""Reading a judge's answer text: the JSON object it holds, and whether it answers all that was asked.

Shared by the synchronous backend (termqa.judge.llm) and the batch engine (termqa.judge.batch), so an
answer is accepted on the same terms whichever way it arrived.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping, Optional, Sequence

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")

# What an array answer must cover: (array key, id key, the ids asked about), e.g.
# ("verdicts", "occurrence", ("o1", "o2")).
Expect = tuple[str, str, tuple[str, ...]]


def parse_json_answer(text: str, schema: Optional[Mapping[str, Any]] = None) -> Optional[dict]:
    """The JSON object in `text`, or None when there is none or it lacks a required key.

    Servers in json_object mode (and small local models) sometimes wrap the object in a code fence
    or add a sentence around it; the first balanced-looking object is taken in that case.
    """
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
    if data is None:
        return None
    required = ((schema or {}).get("schema") or {}).get("required") or ()
    if any(k not in data for k in required):
        return None
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
