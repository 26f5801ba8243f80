"""The bio-MQM dataset (Zouhar et al. 2024): MQM-annotated biomedical MT output, per system.

Layout of the data (`data/v2/target/main_phase/round_two/<pair>/<system>.json`, e.g. `en2fr`): one
JSON list per system (8 MT systems plus `reference` and `reference_r1`), one row per (segment,
annotator) with `DOC_ID`, `SEG_ID`, `Annotator_ID`, `MT_Engine`, `source`, `target`, locales
(`enus`, `frfr`) and `target_errors`: `{startIndex, endIndex, term, error_category,
error_subcategory, severity}`. A segment seen by two annotators has two rows with the same texts.

Facts we rely on, checked on the EN-FR data: `endIndex` is *inclusive* for most errors
(`target[start:end+1] == term`); a few spans are off by one or shifted, so each error span is
re-located on its `term` text (see `_locate`). Severities: Critical, Major, Minor, Neutral.

This module reads that data and writes it as XLIFF 1.2, one file per system, one `<file>` per
document (`original` = the dataset's doc id), trans-unit ids = segment ids, so `termqa check` runs
on it unchanged. The MQM annotations stay here for `termqa meta-eval` (termqa/meta_eval.py).
No glossary ships with the data: pass one to `check` (README, "meta-eval").
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from termqa.errors import InputError, UsageError

# The standard WMT weighting of MQM severities.
SEVERITY_WEIGHTS = {"critical": 25.0, "major": 5.0, "minor": 1.0, "neutral": 0.0}
DEFAULT_PAIR = "en2fr"
# Where the per-system files of one language pair sit under the dataset root.
_PAIR_PARENT = Path("data") / "v2" / "target" / "main_phase" / "round_two"
MANIFEST = "biomqm-manifest.json"


@dataclass(frozen=True)
class MQMError:
    start: int  # characters in the target, end-exclusive (re-located on `text`)
    end: int
    category: str
    subcategory: str
    severity: str  # lower-cased: critical, major, minor, neutral
    text: str

    @property
    def weight(self) -> float:
        return SEVERITY_WEIGHTS.get(self.severity, 0.0)


@dataclass(frozen=True)
class Annotation:
    """What one annotator marked in one segment (possibly nothing)."""

    annotator: str
    errors: tuple[MQMError, ...]


@dataclass(frozen=True)
class BioSegment:
    doc_id: str
    seg_id: str
    source: str
    target: str
    annotations: tuple[Annotation, ...]


@dataclass(frozen=True)
class BioSystem:
    name: str
    src_lang: str
    tgt_lang: str
    documents: tuple[tuple[str, tuple[BioSegment, ...]], ...]  # (doc id, segments in order)
    relocated_spans: int = 0  # error spans whose indices did not match their text and were moved

    def document(self, doc_id: str) -> tuple[BioSegment, ...]:
        return dict(self.documents)[doc_id]


def _natural(key: str):
    """doc2 < doc10; segment '9' < '10'."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key)]


def _locale(code: str) -> str:
    """'enus' -> 'en-US', 'frfr' -> 'fr-FR', 'fr' -> 'fr'."""
    c = (code or "").strip().replace("_", "-")
    if "-" in c:
        return c
    if len(c) == 4 and c.isalpha():
        return f"{c[:2].lower()}-{c[2:].upper()}"
    return c.lower()


def pair_dir(root: Union[str, Path], pair: str = DEFAULT_PAIR) -> Path:
    """The folder of one language pair: accepts the dataset root, any folder above the pair folder,
    or the pair folder itself."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(root, "is not a folder", fix="pass the bio-MQM dataset folder")
    if any(root.glob("*.json")) and (root.name == pair or not (root / pair).is_dir()):
        return root
    for cand in (root / _PAIR_PARENT / pair, root / pair):
        if cand.is_dir():
            return cand
    found = sorted(p for p in root.rglob(pair) if p.is_dir())
    if found:
        return found[0]
    raise InputError(root, f"has no bio-MQM '{pair}' folder", fix=f"expected {_PAIR_PARENT / pair} under it")


def system_names(root: Union[str, Path], pair: str = DEFAULT_PAIR) -> list[str]:
    return sorted(p.stem for p in pair_dir(root, pair).glob("*.json"))


def _locate(target: str, start: int, end_incl: int, text: str) -> tuple[int, int, bool]:
    """The error span [start, end) in `target`, and whether it had to be moved.

    Indices are trusted when they cut out `text` (inclusive end, else exclusive end); otherwise the
    occurrence of `text` nearest to `start` is used, and failing that the indices as given."""
    n = len(target)
    if text:
        if target[start:end_incl + 1] == text:
            return start, end_incl + 1, False
        if target[start:end_incl] == text:
            return start, end_incl, False
        hits = [m.start() for m in re.finditer(re.escape(text), target)]
        if hits:
            best = min(hits, key=lambda h: abs(h - start))
            return best, best + len(text), True
    s = max(0, min(start, n))
    return s, max(s, min(end_incl + 1, n)), True


def read_system(path: Union[str, Path]) -> BioSystem:
    """One system's JSON file."""
    path = Path(path)
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(path, f"is not a bio-MQM JSON file: {exc}") from None
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], dict) or "DOC_ID" not in rows[0]:
        raise InputError(path, "is not a bio-MQM system file (a JSON list of rows with DOC_ID, SEG_ID, target_errors)")
    name = str(rows[0].get("MT_Engine") or path.stem)
    segs: dict[tuple[str, str], dict] = {}
    moved = 0
    for r in rows:
        key = (str(r["DOC_ID"]), str(r["SEG_ID"]))
        seg = segs.setdefault(key, {"source": r["source"], "target": r["target"], "ann": []})
        if seg["target"] != r["target"] or seg["source"] != r["source"]:
            raise InputError(path, f"{key[0]} segment {key[1]} has different texts for two annotators")
        errors = []
        for e in r.get("target_errors") or ():
            s, t, was_moved = _locate(r["target"], int(e["startIndex"]), int(e["endIndex"]), e.get("term") or "")
            moved += was_moved
            errors.append(MQMError(s, t, e.get("error_category") or "", e.get("error_subcategory") or "",
                                   (e.get("severity") or "").strip().lower(), e.get("term") or ""))
        seg["ann"].append(Annotation(str(r.get("Annotator_ID") or ""), tuple(errors)))
    by_doc: dict[str, list] = {}
    for (doc, sid), s in segs.items():
        by_doc.setdefault(doc, []).append(BioSegment(doc, sid, s["source"], s["target"], tuple(s["ann"])))
    docs = tuple((d, tuple(sorted(by_doc[d], key=lambda s: _natural(s.seg_id)))) for d in sorted(by_doc, key=_natural))
    return BioSystem(name=name, src_lang=_locale(rows[0].get("source_locale", "")),
                     tgt_lang=_locale(rows[0].get("target_locale", "")), documents=docs, relocated_spans=moved)


def select_docs(all_docs: Sequence[str], docs: Union[None, int, Iterable[str]]) -> list[str]:
    """All documents, the first N (natural order), or the named ones (unknown names refused)."""
    if docs is None:
        return list(all_docs)
    if isinstance(docs, int):
        return list(all_docs)[:docs]
    wanted = list(docs)
    missing = [d for d in wanted if d not in all_docs]
    if missing:
        raise UsageError(f"unknown bio-MQM documents: {', '.join(missing)}",
                         fix=f"documents are named like {', '.join(list(all_docs)[:3])}")
    return [d for d in all_docs if d in set(wanted)]


def load(root: Union[str, Path], pair: str = DEFAULT_PAIR, systems: Optional[Iterable[str]] = None,
         docs: Union[None, int, Iterable[str]] = None) -> dict[str, BioSystem]:
    """Systems of one language pair (all, or the named ones), restricted to `docs`."""
    folder = pair_dir(root, pair)
    have = sorted(p.stem for p in folder.glob("*.json"))
    names = list(systems) if systems else have
    unknown = [s for s in names if s not in have]
    if unknown:
        raise UsageError(f"unknown bio-MQM systems: {', '.join(unknown)}", fix=f"choose from {', '.join(have)}")
    out = {}
    keep = None
    for n in names:
        s = read_system(folder / f"{n}.json")
        if keep is None:
            keep = select_docs([d for d, _ in s.documents], docs)
        kept = set(keep)
        out[n] = BioSystem(s.name, s.src_lang, s.tgt_lang, tuple((d, g) for d, g in s.documents if d in kept),
                           s.relocated_spans)
    return out


def xliff_bytes(system: BioSystem) -> bytes:
    """XLIFF 1.2: one <file original=doc id> per document, one trans-unit per segment."""
    from lxml import etree

    x = "urn:oasis:names:tc:xliff:document:1.2"
    root = etree.Element(f"{{{x}}}xliff", nsmap={None: x}, version="1.2")
    for doc, segs in system.documents:
        f = etree.SubElement(root, f"{{{x}}}file", original=doc, datatype="plaintext",
                             attrib={"source-language": system.src_lang, "target-language": system.tgt_lang})
        body = etree.SubElement(f, f"{{{x}}}body")
        for s in segs:
            tu = etree.SubElement(body, f"{{{x}}}trans-unit", id=s.seg_id)
            # keep the texts byte for byte: MQM offsets index into them
            tu.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
            etree.SubElement(tu, f"{{{x}}}source").text = s.source
            etree.SubElement(tu, f"{{{x}}}target", state="translated").text = s.target
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def export(root: Union[str, Path], out_dir: Union[str, Path], pair: str = DEFAULT_PAIR,
           systems: Optional[Iterable[str]] = None, docs: Union[None, int, Iterable[str]] = None) -> dict:
    """Write `<out_dir>/<system>.xlf` for each system and a manifest; returns the manifest.

    The manifest (`biomqm-manifest.json`) records the dataset folder, the pair, and per system its
    XLIFF file and documents in `<file>` order, so results can be mapped back to the annotations."""
    data = load(root, pair, systems, docs)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"biomqm": str(pair_dir(root, pair).resolve()), "pair": pair, "systems": {}}
    for name, s in data.items():
        p = out / f"{name}.xlf"
        p.write_bytes(xliff_bytes(s))
        manifest["systems"][name] = {
            "xliff": p.name, "documents": [d for d, _ in s.documents],
            "segments": sum(len(g) for _, g in s.documents), "src_lang": s.src_lang, "tgt_lang": s.tgt_lang,
            "relocated_error_spans": s.relocated_spans,
        }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


__all__ = ["SEVERITY_WEIGHTS", "MQMError", "Annotation", "BioSegment", "BioSystem", "load", "read_system",
           "export", "xliff_bytes", "pair_dir", "system_names", "select_docs", "MANIFEST"]
