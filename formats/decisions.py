"""The reviewer decisions file: what people settled about termqa's flags, kept between runs.

One JSON file (`termqa-decisions.json` beside the project, or `--decisions FILE`), versioned,
human-readable and diff-friendly: one decision per object, keys sorted, decisions in a stable order,
so that two reviewers' files merge in version control like any text. A decision says

* what it matches: the concept (`concept`), the source form (`source_form`, termqa's key, and `source`,
  as written), the rendering as written (`rendering`; null for "no rendering"), and a scope: one
  segment (`segment`: a key made of the segment's source and target text, which survives reordering
  units and editing other segments, and goes stale when that segment's target is edited), one document
  (`document`: its original name), or the whole project;
* the decision: `accept` (this rendering is right here) or `reject` (it is an error, with `label`);
* who (`by`), when (`at`, ISO 8601 UTC) and why (`comment`).
"""
from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

from termqa.errors import InputError, UsageError
from termqa.fileio import atomic_write
from termqa.labels import ERROR_CODES, INCONSISTENT_LABELS

FORMAT_VERSION = 1
DEFAULT_NAME = "termqa-decisions.json"
ACCEPT, REJECT = "accept", "reject"
SCOPES = ("segment", "document", "project")


def _norm(text: Optional[str]) -> str:
    """Whitespace collapsed, Unicode composed: the form text is compared and hashed in."""
    return " ".join(unicodedata.normalize("NFC", text or "").split())


def segment_key(source: str, target: Optional[str]) -> str:
    """A segment's stable identity: its source and target text, not its position or unit id."""
    return hashlib.sha256(f"{_norm(source)}\x1f{_norm(target)}".encode()).hexdigest()[:16]


def document_name(doc: Mapping) -> str:
    """How a decision names a document: its `original` (the source file the CAT tool knows), else the
    bilingual file's base name (with `#k` for the k-th `<file>`)."""
    if doc.get("original"):
        return str(doc["original"])
    doc_id = str(doc.get("doc_id") or doc.get("path") or "")
    base, _, k = doc_id.partition("#")
    return Path(base).name + (f"#{k}" if k else "")


@dataclass(frozen=True)
class Decision:
    concept: str
    source_form: str
    rendering: Optional[str]
    decision: str  # accept | reject
    scope: str = "segment"  # segment | document | project
    segment: Optional[str] = None  # segment_key(...) for segment scope
    document: Optional[str] = None  # document_name(...) for segment and document scope
    label: Optional[str] = None  # the error label of a rejection
    source: Optional[str] = None  # the source term as written, for people
    by: str = ""
    at: str = ""
    comment: str = ""
    unit: Optional[str] = None  # the unit id when decided, for people (not matched on)

    @property
    def identity(self) -> tuple:
        """What the decision is about: two decisions with the same identity are the same question."""
        return (self.concept, self.source_form, _norm(self.rendering).casefold() if self.rendering else None,
                self.scope, self.segment if self.scope == "segment" else None,
                self.document if self.scope in ("segment", "document") else None)

    @property
    def id(self) -> str:
        return hashlib.sha256(json.dumps(self.identity, ensure_ascii=False).encode()).hexdigest()[:10]

    def check(self, where: str) -> None:
        if self.decision not in (ACCEPT, REJECT):
            raise InputError(where, f"decision {self.id}: 'decision' must be accept or reject, not {self.decision!r}")
        if self.scope not in SCOPES:
            raise InputError(where, f"decision {self.id}: 'scope' must be one of {', '.join(SCOPES)}")
        if self.scope == "segment" and not self.segment:
            raise InputError(where, f"decision {self.id}: a segment decision needs 'segment' (its key)")
        if self.scope == "document" and not self.document:
            raise InputError(where, f"decision {self.id}: a document decision needs 'document'")
        if self.decision == REJECT and self.label not in ERROR_CODES and self.label not in INCONSISTENT_LABELS:
            raise InputError(where, f"decision {self.id}: a rejection needs an error label "
                                    f"({', '.join(ERROR_CODES)}) or an inconsistency label, not {self.label!r}")

    def to_dict(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if v not in (None, "")}
        d["rendering"] = self.rendering  # null means "no rendering found": a decision about a missing term
        d["id"] = self.id
        return d


@dataclass(frozen=True)
class DecisionBook:
    decisions: tuple[Decision, ...] = ()
    path: Optional[str] = None
    sha256: Optional[str] = None  # of the file as read: part of the run signature

    def __len__(self) -> int:
        return len(self.decisions)


@dataclass(frozen=True)
class Merge:
    book: DecisionBook
    added: int = 0
    replaced: int = 0  # same identity, the newer decision kept
    conflicts: tuple[str, ...] = field(default=())  # same identity, opposite decisions: newer kept, said


_FIELDS = {f for f in Decision.__dataclass_fields__}


def read_decisions(path: str) -> DecisionBook:
    """Read a decisions file; a missing file is an error (callers decide whether one is required)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(path, "does not exist" if not p.exists() else "is not a file")
    data = p.read_bytes()
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(path, f"is not a termqa decisions file (JSON): {exc}") from None
    if not isinstance(obj, dict) or "termqa_decisions" not in obj or not isinstance(obj.get("decisions"), list):
        raise InputError(path, "is not a termqa decisions file (expected {\"termqa_decisions\": 1, \"decisions\": [...]})")
    if obj["termqa_decisions"] != FORMAT_VERSION:
        raise InputError(path, f"decisions file version {obj['termqa_decisions']!r} is not supported",
                         fix="upgrade termqa")
    out = []
    for n, item in enumerate(obj["decisions"], 1):
        if not isinstance(item, dict):
            raise InputError(path, f"decision {n} is not an object")
        unknown = set(item) - _FIELDS - {"id"}
        if unknown:
            raise InputError(path, f"decision {n} has unknown keys: {', '.join(sorted(unknown))}")
        try:
            d = Decision(**{k: v for k, v in item.items() if k != "id"})
        except TypeError as exc:
            raise InputError(path, f"decision {n}: {exc}") from None
        d.check(path)
        out.append(d)
    return DecisionBook(tuple(out), str(path), hashlib.sha256(data).hexdigest())


def find_decisions(explicit: Optional[str] = None, folder: Optional[Path] = None) -> Optional[DecisionBook]:
    """The decisions file of a run: the one given, else `termqa-decisions.json` in the current folder."""
    if explicit:
        return read_decisions(explicit)
    p = (folder or Path.cwd()) / DEFAULT_NAME
    return read_decisions(str(p)) if p.is_file() else None


def _order(d: Decision) -> tuple:
    return (d.concept, d.source_form, d.scope, d.document or "", d.segment or "", d.rendering or "", d.id)


def to_json(book: DecisionBook) -> str:
    body = {"termqa_decisions": FORMAT_VERSION, "decisions": [d.to_dict() for d in sorted(book.decisions, key=_order)]}
    return json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def write_decisions(book: DecisionBook, path: str) -> Path:
    return atomic_write(path, to_json(book))


def merge(*books: DecisionBook, into: Optional[str] = None) -> Merge:
    """All decisions of `books`; where two answer the same question, the newer (`at`) is kept and an
    opposite answer is reported as a conflict."""
    by_id: dict[tuple, Decision] = {}
    added = replaced = 0
    conflicts = []
    for book in books:
        for d in book.decisions:
            old = by_id.get(d.identity)
            if old is None:
                by_id[d.identity] = d
                added += 1
                continue
            if old == d:
                continue
            newer = d if (d.at or "") >= (old.at or "") else old
            if old.decision != d.decision or old.label != d.label:
                conflicts.append(f"{d.source or d.source_form} -> {d.rendering!r} ({d.scope}): "
                                 f"{old.decision} by {old.by or '?'} vs {d.decision} by {d.by or '?'}; "
                                 f"kept {newer.decision} ({newer.at or 'undated'})")
            by_id[d.identity] = newer
            replaced += 1
    return Merge(DecisionBook(tuple(by_id.values()), into), added, replaced, tuple(conflicts))


def now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def decisions_from_result(result: Mapping, occurrence_indexes: Iterable[int], *, decision: str, scope: str,
                          label: Optional[str] = None, by: str = "", comment: str = "",
                          at: Optional[str] = None) -> list[Decision]:
    """Decisions about occurrences of a saved `termqa check --json` result (by their position in its
    `occurrences`): what the report's buttons and `termqa decide` build."""
    if decision not in (ACCEPT, REJECT):
        raise UsageError(f"decision must be accept or reject, not {decision!r}")
    if scope not in SCOPES:
        raise UsageError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    occs = result.get("occurrences") or []
    docs = {d["doc_id"]: d for d in result.get("documents") or []}
    segs = {(s["doc_id"], s["index"]): s for s in result.get("segments") or []}
    stamp = at or now()
    out: dict[tuple, Decision] = {}
    for k in occurrence_indexes:
        if not 0 <= k < len(occs):
            raise UsageError(f"occurrence {k} is not in the result (it has {len(occs)})")
        o = occs[k]
        seg = segs.get((o["doc_id"], o["segment_index"])) or {}
        d = Decision(
            concept=o["concept_id"], source_form=o["source_form"], rendering=o.get("target_text"),
            decision=decision, scope=scope,
            segment=segment_key(seg.get("source", ""), seg.get("target")) if scope == "segment" else None,
            document=document_name(docs.get(o["doc_id"], {"doc_id": o["doc_id"]})) if scope != "project" else None,
            label=label if decision == REJECT else None, source=o.get("source_text"), by=by, at=stamp,
            comment=comment, unit=o.get("unit_id") if scope == "segment" else None,
        )
        d.check("the decision")
        out.setdefault(d.identity, d)
    return list(out.values())


def with_decisions(book: Optional[DecisionBook], new: Sequence[Decision], path: Optional[str] = None) -> Merge:
    """`book` (or an empty one) with `new` decisions merged in."""
    return merge(book or DecisionBook(path=path), DecisionBook(tuple(new)), into=path or (book.path if book else None))


def without(book: DecisionBook, ids: Iterable[str]) -> DecisionBook:
    drop = set(ids)
    return replace(book, decisions=tuple(d for d in book.decisions if d.id not in drop))
