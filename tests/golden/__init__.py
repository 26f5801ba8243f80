"""Stored digests of `termqa check` results, to prove that a refactoring changes no verdict.

`digest(result_dict, root)` drops the run signature (it names the code version), replaces the input
folder by `<in>` and hashes each top-level section separately, so a failure names what changed.
Regenerate on purpose only, when a change of behaviour is intended:
`python -m tests.golden` (writes tests/golden/*.json).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
SAMPLES = HERE.parent.parent / "samples"


def digest(data: dict, roots) -> dict:
    text = {}
    for key, value in sorted(data.items()):
        if key == "signature":
            continue
        s = json.dumps(value, sort_keys=True, ensure_ascii=False)
        for root in roots:
            s = s.replace(str(root), "<in>")
        text[key] = hashlib.sha256(s.encode()).hexdigest()
    return text


def _check():
    import termqa

    c = termqa.check
    return c if callable(c) else c.check  # before the layout change termqa.check was also a module


def _run(inputs, glossaries, **settings):
    """check() with these settings: one Settings record since check takes it whole, keywords before."""
    import inspect

    check = _check()
    if "settings" in inspect.signature(check).parameters:
        from termqa.config import Settings

        return check(inputs, glossaries, Settings(**settings))
    return check(inputs, glossaries, **settings)


def _level(variants):
    # the default level, unless one is named (`none` keeps the glossary-only behaviour under test)
    return {} if variants is None else {"variants": variants}


def samples_run(variants=None):
    return _run([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")], lemmatiser="lookup",
                **_level(variants)).to_dict(), [SAMPLES]


def tico_run(corpus: Path, variants=None):
    base = corpus / "eval" / "tico19-enfr" / "data"
    data = _run([str(base / "TM" / "all.en-fr.tmx")],
                [str(base / "terminologies" / "f_en-fr_XX.csv"), str(base / "terminologies" / "g_en_fr-FR.csv")],
                lemmatiser="lookup", **_level(variants)).to_dict()
    return data, [base]


def main() -> None:
    from tests.conftest import CORPUS

    runs = {"samples": samples_run, "samples-none": lambda: samples_run("none")}
    if CORPUS is not None:
        runs["tico19"] = lambda: tico_run(CORPUS)
        runs["tico19-none"] = lambda: tico_run(CORPUS, "none")
    for name, run in runs.items():
        data, roots = run()
        (HERE / f"{name}.json").write_text(json.dumps(digest(data, roots), indent=1, sort_keys=True) + "\n")
        print("wrote", HERE / f"{name}.json")
