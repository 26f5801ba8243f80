"""The run signature: everything needed to reproduce a score, printed in every output.

Each component contributes its own part (tool, glossary, lemmatiser, judge, prompts, penalties), and
`string` joins them into one line a paper or a CI log can quote.
"""
from __future__ import annotations

import hashlib
from typing import Mapping, Optional, Sequence

from termqa.labels import penalty_table_hash
from termqa.version import __version__


def glossary_hash(content_hashes: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(sorted(content_hashes)).encode()).hexdigest()


def build(*, glossaries: Sequence, lemmatisers: Mapping[str, str], penalties: Mapping[str, float],
          judge: Optional[dict], settings: Mapping) -> dict:
    gh = glossary_hash([g.content_hash for g in glossaries])
    ph = penalty_table_hash(penalties)
    lem = ";".join(f"{k}={v}" for k, v in sorted(lemmatisers.items()))
    if judge:
        judge_part = f"judge:{judge.get('model')}@{judge.get('endpoint')}"
        prompts = ",".join(f"{v}" for _k, v in sorted((judge.get("prompt_versions") or {}).items())) or "none"
    else:
        judge_part, prompts = "judge:none", "none"
    string = "|".join([
        f"termqa:{__version__}", f"gloss:{gh[:12]}", f"lem:{lem}", judge_part, f"prompts:{prompts}",
        f"pen:{ph}",
    ])
    return {
        "string": string,
        # a short handle for places with no room for the whole string (XLIFF notes, CAT comments)
        "id": hashlib.sha256(string.encode()).hexdigest()[:12],
        "tool": f"termqa {__version__}",
        "glossaries": [{"path": g.path, "format": g.format, "sha256": g.content_hash} for g in glossaries],
        "glossary_hash": gh,
        "lemmatiser": dict(lemmatisers),
        "judge": judge,
        "penalties": dict(penalties),
        "penalties_hash": ph,
        "settings": dict(settings),
    }
