"""The bio-MQM dataset (Zouhar et al. 2024): MQM-annotated biomedical MT output, per system.

Layout of the data (`data/v2/target/main_phase/round_two/<pair>/<system>.json`, e.g. `en2fr`): one
JSON list per system (8 MT systems plus `reference` and `reference_r1`), one row per (segment,
annotator) with `DOC_ID`, `SEG_ID`, `Annotator_ID`, `MT_Engine`, `source`, `target`, locales
(`enus`, `frfr`) and `target_errors`: `{startIndex, endIndex, term, error_category,
error_subcategory, severity}`. A segment seen by two annotators has two rows with the same texts.

Facts we rely on, checked on the EN-FR data (10 systems, 5,690 error spans): `endIndex` is
*inclusive* for most errors (`target[start:end+1] == term`; an exclusive end is accepted too). The
rest do not cut out their own `term`: some are shifted within their segment, most sit at the very
same offsets in the *previous* segment of the document (the annotation was saved one row late). So
each error is placed by `_place`: at its offsets in its own segment; else at its offsets in the
previous or next segment of the same document (the error moves there, to the same annotator's
annotation); else at the occurrence of its text nearest to its offsets in its own segment; else in
a neighbouring segment; else it is dropped, since scoring it on unrelated text would be wrong.
`SpanRepairs` counts what happened. Segment order: natural order of the ids, except that an id
`N00` beyond the document's length continues segment N (doc46 has segments 1-6 and 400, whose
source carries on from 4 and leads into 5).

Severities are spelt Critical, Major, Minor, Neutral; categories/subcategories e.g. Accuracy/
Mistranslation, Terminology/Wrong_term, Linguistic_conventions/Punctuation, Style/Non_fluent,
Unintelligible, Other. How errors weigh is a `Weighting` (see WEIGHTINGS).

This module reads that data and writes it as XLIFF 1.2, one file per system, one `<file>` per
document (`original` = the dataset's doc id), trans-unit ids = segment ids, so `termqa check` runs
on it unchanged. The MQM annotations stay here for `termqa meta-eval` (termqa/meta_eval.py).
No glossary ships with the data: pass one to `check` (docs/cli.md, "meta-eval").
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence, Union

from termqa.errors import InputError, UsageError
from termqa.fileio import atomic_write

# Weights by severity alone (the default weighting, `severity-25-5-1`).
SEVERITY_WEIGHTS = {"critical": 25.0, "major": 5.0, "minor": 1.0, "neutral": 0.0}
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
        """The weight under the default weighting (severity-25-5-1)."""
        return SEVERITY_WEIGHTS.get(self.severity, 0.0)


@dataclass(frozen=True)
class Weighting:
    """How much an MQM error weighs: by its severity, with an optional weight for Minor punctuation
    errors (category Linguistic_conventions, subcategory Punctuation, as bio-MQM spells them)."""

    name: str
    severities: Mapping[str, float]  # lower-cased severity -> weight; others weigh 0
    minor_punctuation: Optional[float] = None
    description: str = ""

    def weight(self, error: MQMError) -> float:
        if (self.minor_punctuation is not None and error.severity == "minor"
                and error.category.lower() == "linguistic_conventions" and error.subcategory.lower() == "punctuation"):
            return self.minor_punctuation
        return self.severities.get(error.severity, 0.0)

    def as_dict(self) -> dict:
        return {"name": self.name, "severities": dict(self.severities),
                "minor_punctuation": self.minor_punctuation, "description": self.description}


WEIGHTINGS = {
    "severity-25-5-1": Weighting(
        "severity-25-5-1", SEVERITY_WEIGHTS, None,
        "by severity alone: Critical 25, Major 5, Minor 1, Neutral 0"),
    "wmt": Weighting(
        "wmt", {"critical": 5.0, "major": 5.0, "minor": 1.0, "neutral": 0.0}, 0.1,
        "the WMT MQM weighting (Freitag et al. 2021): Major 5, Minor 1, Minor Linguistic_conventions/"
        "Punctuation (MQM's Fluency/Punctuation) 0.1, Neutral 0; WMT has no Critical severity, so bio-MQM's "
        "Critical counts as Major; WMT's Non-translation (25) has no bio-MQM category, so no error weighs 25"),
}


def weighting(name: str) -> Weighting:
    """The weighting of that name (WEIGHTINGS), or a UsageError listing them."""
    try:
        return WEIGHTINGS[name]
    except KeyError:
        raise UsageError(f"unknown MQM weighting {name!r}", fix=f"choose from {', '.join(WEIGHTINGS)}") from None


@dataclass(frozen=True)
class SpanRepairs:
    """What became of the error spans of some annotations, each error counted once."""

    as_given: int = 0  # its offsets cut out its text (inclusive or exclusive end)
    relocated: int = 0  # its text found elsewhere in its own segment: placed at the nearest occurrence
    moved: int = 0  # its text found in the previous or next segment of the document: the error moved there
    dropped: int = 0  # its text found in none of them (or no annotation by its annotator there): left out
    unchecked: int = 0  # no text to check against: offsets kept, clipped to the target

    @property
    def total(self) -> int:
        return self.as_given + self.relocated + self.moved + self.dropped + self.unchecked

    def __add__(self, other: "SpanRepairs") -> "SpanRepairs":
        return SpanRepairs(self.as_given + other.as_given, self.relocated + other.relocated, self.moved + other.moved,
                           self.dropped + other.dropped, self.unchecked + other.unchecked)

    def as_dict(self) -> dict:
        return {"total": self.total, "as_given": self.as_given, "relocated_in_segment": self.relocated,
                "moved_to_neighbour": self.moved, "dropped": self.dropped, "unchecked": self.unchecked}

    @classmethod
    def from_dict(cls, d: Mapping) -> "SpanRepairs":
        return cls(d["as_given"], d["relocated_in_segment"], d["moved_to_neighbour"], d["dropped"], d.get("unchecked", 0))

    def describe(self) -> str:
        return (f"{self.total} error spans: {self.as_given} as given, {self.relocated} re-located in their "
                f"segment, {self.moved} moved to a neighbouring segment, {self.dropped} dropped"
                + (f", {self.unchecked} without text (kept as given)" if self.unchecked else ""))


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
    repairs: Mapping[str, SpanRepairs] = field(default_factory=dict)  # doc id -> what became of its error spans

    def document(self, doc_id: str) -> tuple[BioSegment, ...]:
        return dict(self.documents)[doc_id]

    @property
    def spans(self) -> SpanRepairs:
        """What became of the error spans of the documents held."""
        total = SpanRepairs()
        for d, _ in self.documents:
            total += self.repairs.get(d, SpanRepairs())
        return total


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


def pair_dir(root: Union[str, Path], pair: str) -> Path:
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


def system_names(root: Union[str, Path], pair: str) -> list[str]:
    return sorted(p.stem for p in pair_dir(root, pair).glob("*.json"))


def _segment_key(seg_id: str, ids: frozenset):
    """Document order of a segment id among the document's `ids` (see the module docstring)."""
    if seg_id.isdigit() and seg_id.endswith("00") and int(seg_id) > len(ids) and seg_id[:-2] in ids:
        return _natural(seg_id[:-2]) + [1]
    return _natural(seg_id) + [0]


def _at_offsets(target: str, start: int, end_incl: int, text: str) -> Optional[tuple[int, int]]:
    """[start, end) when the offsets cut out `text` (inclusive end, else exclusive end)."""
    if start < 0:
        return None
    if target[start:end_incl + 1] == text:
        return start, end_incl + 1
    if target[start:end_incl] == text:
        return start, end_incl
    return None


def _nearest(target: str, start: int, text: str) -> Optional[tuple[int, int]]:
    """The occurrence of `text` in `target` nearest to `start`."""
    hits = [m.start() for m in re.finditer(re.escape(text), target)]
    if not hits:
        return None
    best = min(hits, key=lambda h: abs(h - start))
    return best, best + len(text)


def _place(targets: Sequence[str], i: int, start: int, end_incl: int, text: str) -> Optional[tuple[int, int, int, str]]:
    """Where an error annotated on segment i of a document (targets in document order) belongs:
    (segment index, start, end, how) with how in as_given/relocated/moved/unchecked, or None (drop it).

    Offsets that cut out the text are the strongest evidence, in the segment itself, then in its
    neighbours (an error saved one row late sits at its exact offsets in the previous segment);
    only then is the text searched for, in the segment, then in its neighbours."""
    target = targets[i]
    if not text:
        s = max(0, min(start, len(target)))
        return i, s, max(s, min(end_incl + 1, len(target))), "unchecked"
    neighbours = [j for j in (i - 1, i + 1) if 0 <= j < len(targets)]
    hit = _at_offsets(target, start, end_incl, text)
    if hit:
        return i, hit[0], hit[1], "as_given"
    for j in neighbours:
        hit = _at_offsets(targets[j], start, end_incl, text)
        if hit:
            return j, hit[0], hit[1], "moved"
    hit = _nearest(target, start, text)
    if hit:
        return i, hit[0], hit[1], "relocated"
    for j in neighbours:
        hit = _nearest(targets[j], start, text)
        if hit:
            return j, hit[0], hit[1], "moved"
    return None


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
    for r in rows:
        key = (str(r["DOC_ID"]), str(r["SEG_ID"]))
        seg = segs.setdefault(key, {"source": r["source"], "target": r["target"], "ann": []})
        if seg["target"] != r["target"] or seg["source"] != r["source"]:
            raise InputError(path, f"{key[0]} segment {key[1]} has different texts for two annotators")
        seg["ann"].append((str(r.get("Annotator_ID") or ""), r.get("target_errors") or (), []))
    by_doc: dict[str, list[str]] = {}
    for doc, sid in segs:
        by_doc.setdefault(doc, []).append(sid)
    docs, repairs = [], {}
    for doc in sorted(by_doc, key=_natural):
        ids = frozenset(by_doc[doc])
        order = sorted(by_doc[doc], key=lambda x: _segment_key(x, ids))
        group = [segs[(doc, sid)] for sid in order]
        targets = [g["target"] for g in group]
        counts = dict.fromkeys(("as_given", "relocated", "moved", "dropped", "unchecked"), 0)
        for i, g in enumerate(group):
            for annotator, raw_errors, _kept in g["ann"]:
                for e in raw_errors:
                    text = e.get("term") or ""
                    placed = _place(targets, i, int(e["startIndex"]), int(e["endIndex"]), text)
                    if placed is None:
                        counts["dropped"] += 1
                        continue
                    j, start, end, how = placed
                    # a moved error joins its annotator's annotation of that segment
                    home = next((a for a in group[j]["ann"] if a[0] == annotator), None)
                    if home is None:
                        counts["dropped"] += 1
                        continue
                    counts[how] += 1
                    home[2].append(MQMError(start, end, e.get("error_category") or "", e.get("error_subcategory") or "",
                                            (e.get("severity") or "").strip().lower(), text))
        repairs[doc] = SpanRepairs(**counts)
        docs.append((doc, tuple(BioSegment(doc, sid, g["source"], g["target"],
                                           tuple(Annotation(a, tuple(kept)) for a, _raw, kept in g["ann"]))
                                for sid, g in zip(order, group))))
    return BioSystem(name=name, src_lang=_locale(rows[0].get("source_locale", "")),
                     tgt_lang=_locale(rows[0].get("target_locale", "")), documents=tuple(docs), repairs=repairs)


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


def load(root: Union[str, Path], pair: str, systems: Optional[Iterable[str]] = None,
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
                           {d: r for d, r in s.repairs.items() if d in kept})
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


def export(root: Union[str, Path], out_dir: Union[str, Path], pair: str,
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
        atomic_write(p, xliff_bytes(s))
        manifest["systems"][name] = {
            "xliff": p.name, "documents": [d for d, _ in s.documents],
            "segments": sum(len(g) for _, g in s.documents), "src_lang": s.src_lang, "tgt_lang": s.tgt_lang,
            "error_spans": s.spans.as_dict(),
        }
    atomic_write(out / MANIFEST, json.dumps(manifest, indent=1))
    return manifest


__all__ = ["SEVERITY_WEIGHTS", "WEIGHTINGS", "Weighting", "weighting", "SpanRepairs", "MQMError", "Annotation", "BioSegment", "BioSystem", "load", "read_system",
           "export", "xliff_bytes", "pair_dir", "system_names", "select_docs", "MANIFEST"]
