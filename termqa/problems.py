"""One problem, one id: the occurrences of a result that are the same problem, however often it repeats.

Two occurrences are one problem when they share the target language, the concept, the source form
(termqa's lemma key), the rendering found and the rule that settled them. The rendering is compared
case-folded and with its spaces collapsed ("Initiatives parlementaires" at the start of a sentence is
"initiatives parlementaires"), except for a spelling problem (label F, rule `spelling`), where case or
accents may be the very thing that is wrong and two writings stay two problems.

The id is a short hash of that key, so it is the same in every output of a run (the report's "Fix
first", the CSV and spreadsheet `problem` column, the notes written into the XLIFF) and the same from
one run to the next while the problem stays. Reads only the result dict (`termqa check --json`).
"""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from typing import Optional

from termqa.labels import Rule
from termqa.lang.langtags import primary

SPELLING_LABELS = ("F",)
SPELLING_RULES = (Rule.SPELLING,)


def rendering_key(o: dict) -> Optional[str]:
    """The rendering as a problem compares it: case-folded, spaces collapsed; as written for spelling."""
    found = o.get("target_text")
    if found is None:
        return None
    if o.get("label") in SPELLING_LABELS or o.get("rule") in SPELLING_RULES:
        return found
    return " ".join(found.casefold().split())


# languages whose nouns are written with a capital anywhere: a capital there is the word's, not the sentence's
_NOUN_CAPITALS = frozenset({"de", "lb"})
_SENTENCE_END = ".!?:;…\"«»“”'(["


def opening_case_free(text: str, target: str, start: Optional[int], lang: str = "") -> str:
    """A rendering with its first letter lowered when it opens the sentence ("Initiatives parlementaires"
    at the start of a segment is "initiatives parlementaires"): that capital is the sentence's, so the two
    are one rendering to judge. Kept as written where nouns take capitals (German) or mid-sentence."""
    first = text.split()[0] if text.split() else ""
    if start is None or not first[:1].isupper() or any(c.isupper() for c in first[1:]) \
            or primary(lang) in _NOUN_CAPITALS:
        return text  # no capital to lower, an abbreviation's own (CoV), or a language whose nouns take one
    before = target[:start].rstrip()
    if before and before[-1] not in _SENTENCE_END:
        return text
    return text[:1].lower() + text[1:]


def problem_key(o: dict, lang: Optional[str] = None) -> tuple:
    """What makes occurrences one problem: (target language, concept, source form, rendering, rule).

    `lang` is the target language of the occurrence's document; it matters only in a result of several
    target languages (pass None otherwise)."""
    return (lang or "", str(o.get("concept_id")), o.get("source_form") or "", rendering_key(o), o.get("rule") or "")


def problem_id(o: dict, lang: Optional[str] = None) -> str:
    """A short stable id of the occurrence's problem ("P-3fa20c1d")."""
    raw = json.dumps(problem_key(o, lang), ensure_ascii=False, separators=(",", ":"))
    return "P-" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:8]


def document_languages(result: dict) -> dict:
    """doc_id -> target language when the result has several target languages, else {} (one language:
    the language adds nothing to the key)."""
    if not result.get("languages"):
        return {}
    return {d.get("doc_id"): d.get("tgt_lang") for d in result.get("documents") or ()}


def occurrence_problems(result: dict) -> list[str]:
    """The problem id of each occurrence of the result, in the order of `result["occurrences"]`."""
    langs = document_languages(result)
    return [problem_id(o, langs.get(o.get("doc_id"))) for o in result.get("occurrences") or ()]


def problems(result: dict) -> dict:
    """problem id -> the list of its occurrences (the dicts, in result order)."""
    out: dict = defaultdict(list)
    for pid, o in zip(occurrence_problems(result), result.get("occurrences") or ()):
        out[pid].append(o)
    return dict(out)


def verdict(o: dict) -> tuple:
    """What must be equal across the occurrences of one problem: the outcome and the label."""
    return (o.get("outcome"), o.get("label"))


def split_verdicts(result: dict) -> dict:
    """problem id -> its distinct verdicts, for the problems whose occurrences disagree (should be empty)."""
    out = {}
    for pid, occs in problems(result).items():
        seen = sorted({verdict(o) for o in occs}, key=repr)
        if len(seen) > 1:
            out[pid] = seen
    return out
