"""The bio-MQM systems checked in one go: exported as XLIFF, each run through `termqa check` (counting
mode), for `termqa meta-eval --human <bio-mqm folder> -g GLOSSARY` without results given."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional, Sequence

from termqa import formats
from termqa.config import Settings
from termqa.evaluate.meta_eval import Run
from termqa.fileio import atomic_write
from termqa.formats import biomqm
from termqa.pipeline.check import check


def run_checks(biomqm_dir: str, glossaries: Sequence[str], work_dir: str, settings: Settings = Settings(), *,
               pair: str, systems: Optional[Sequence[str]] = None, docs=None,
               progress: Optional[Callable[[str, int, int], None]] = None) -> tuple[list[Run], dict]:
    """Export the bio-MQM systems as XLIFF into work_dir and run `check` on each (counting mode, with
    `settings`).

    Each result is saved as work_dir/results/<system>.json (with each document's dataset id as
    `original`) and returned as a meta_eval.Run."""

    work = Path(work_dir)
    manifest = biomqm.export(biomqm_dir, work / "xliff", pair, systems, docs)
    (work / "results").mkdir(parents=True, exist_ok=True)
    runs = []
    gloss = [formats.read_glossary(g) for g in glossaries]  # read once, shared by every system's check
    for n, (name, info) in enumerate(manifest["systems"].items()):
        if progress:
            progress(name, n, len(manifest["systems"]))
        res = check([str(work / "xliff" / info["xliff"])], gloss, settings)
        data = res.to_dict()
        keys = {}
        for d, doc in zip(data["documents"], res.documents):
            d.setdefault("original", doc.original)
            keys[d["doc_id"]] = doc.original or d["doc_id"]
        atomic_write(work / "results" / f"{name}.json", json_data=data)
        runs.append(Run(name, data, keys))
    return runs, manifest
