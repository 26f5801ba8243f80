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

    def check(self, where: str, name: Optional[str] = None) -> None:
        """Refuse a decision that cannot be applied; `name` says which one (default: its id)."""
        this = f"decision {name or self.id}"
        how = "`termqa decide add` writes decisions as they should be"
        if self.decision not in (ACCEPT, REJECT):
            raise InputError(where, f"{this}: 'decision' must be accept or reject, not {self.decision!r}",
                             fix="write \"accept\" or \"reject\"")
        if self.scope not in SCOPES:
            raise InputError(where, f"{this}: 'scope' must be one of {', '.join(SCOPES)}, not {self.scope!r}",
                             fix=how)
        if self.scope == "segment" and not self.segment:
            raise InputError(where, f"{this}: a segment decision needs 'segment' (its key)", fix=how)
        if self.scope == "document" and not self.document:
            raise InputError(where, f"{this}: a document decision needs 'document'",
                             fix="name the document, or make it a project decision")
        if self.decision == REJECT and self.label not in ERROR_CODES and self.label not in INCONSISTENT_LABELS:
            raise InputError(where, f"{this}: a rejection needs an error label "
                                    f"({', '.join(ERROR_CODES)}) or an inconsistency label, not {self.label!r}",
                             fix="give 'label' one of those")

    def describe(self) -> str:
        """The decision in a few words, for messages: what it answers and who answered it when."""
        verdict = ACCEPT if self.decision == ACCEPT else f"{REJECT} {self.label}"
        who = f" by {self.by}" if self.by else ""
        when = f" ({self.at[:10]})" if self.at else ""
        return f"{verdict}{who}{when}"

    @property
    def question(self) -> str:
        """What the decision is about, for messages."""
        where = {"segment": f"a segment of {self.document}", "document": f"document {self.document}",
                 "project": "the whole project"}.get(self.scope, self.scope)
        return f"{self.source or self.source_form} -> {self.rendering!r} in {where}"

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

    # two decisions of the file that answer one question differently (same identity, other decision or
    # label): each says both; the newer is the one applied (termqa.pipeline.review)
    conflicts: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.decisions)


@dataclass(frozen=True)
class Merge:
    book: DecisionBook
    added: int = 0
    replaced: int = 0  # same identity, the newer decision kept
    conflicts: tuple[str, ...] = field(default=())  # same identity, opposite decisions: newer kept, said


_FIELDS = {f for f in Decision.__dataclass_fields__}
_REQUIRED = ("concept", "source_form", "rendering", "decision")  # `rendering` may be null, never left out
_MAY_BE_NULL = {"rendering", "segment", "document", "label", "source", "unit"}
_EMPTY_IF_NULL = {"by", "at", "comment"}  # a hand-written null reads as "not said"
_FIX = "mend it by hand, or write it again with `termqa decide add`"


def _kind(value) -> str:
    """A JSON value's kind in the words of the JSON format, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {int: "a number", float: "a number", list: "a list", dict: "an object"}.get(type(value), "text")


def _decision_of(item, n: int, path: str) -> Decision:
    """Decision `n` of the file (counting from 1), checked field by field: every error names the
    decision, the field and what it should hold."""
    if not isinstance(item, dict):
        raise InputError(path, f"decision {n} is {_kind(item)}, not an object {{\"concept\": ...}}", fix=_FIX)
    unknown = set(item) - _FIELDS - {"id"}
    if unknown:
        raise InputError(path, f"decision {n} has unknown keys: {', '.join(sorted(unknown))}",
                         fix=f"the keys are {', '.join(sorted(_FIELDS))}")
    concept = item.get("concept")
    name = f"{n} (concept {concept})" if isinstance(concept, str) and concept else str(n)
    missing = [k for k in _REQUIRED if k not in item]
    if missing:
        raise InputError(path, f"decision {name} lacks {', '.join(repr(k) for k in missing)}",
                         fix="every decision needs concept, source_form, rendering (null for no rendering) "
                             "and decision; " + _FIX)
    item = {k: ("" if v is None and k in _EMPTY_IF_NULL else v) for k, v in item.items()}
    for key, value in item.items():
        if key == "id" or isinstance(value, str) or (value is None and key in _MAY_BE_NULL):
            continue
        should = "text or null" if key in _MAY_BE_NULL else "text"
        raise InputError(path, f"decision {name}: {key!r} must be {should}, not {_kind(value)}", fix=_FIX)
    for key in ("concept", "source_form"):
        if not item[key].strip():
            raise InputError(path, f"decision {name}: {key!r} is empty", fix=_FIX)
    d = Decision(**{k: v for k, v in item.items() if k != "id"})
    d.check(path, name)
    return d


def contradictions(decisions: Sequence[Decision]) -> tuple[str, ...]:
    """Decisions that answer one question (one identity) differently, one line per pair naming both
    and the one applied (the newer; the later in the file when neither is dated)."""
    first: dict[tuple, Decision] = {}
    out = []
    for d in decisions:
        old = first.get(d.identity)
        if old is None:
            first[d.identity] = d
            continue
        if (old.decision, old.label) != (d.decision, d.label):
            kept = newest((old, d))
            out.append(f"decisions contradict each other for {d.question}: {old.describe()} and {d.describe()}; "
                       f"the newer is applied ({kept.describe()})")
        first[d.identity] = newest((old, d))
    return tuple(out)


def newest(decisions: Sequence[Decision]) -> Decision:
    """The decision that stands of several answering one question: the newest `at`; of equals (or
    undated ones), the last given."""
    best = decisions[0]
    for d in decisions[1:]:
        if (d.at or "") >= (best.at or ""):
            best = d
    return best


def read_decisions(path: str) -> DecisionBook:
    """Read a decisions file; a missing file is an error (callers decide whether one is required).
    Every error is one `InputError` naming the decision and the fix."""
    p = Path(path)
    if not p.is_file():
        raise InputError(path, "does not exist" if not p.exists() else "is not a file",
                         fix="name the decisions file, or leave out --decisions")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot be read ({exc.strerror or exc})", fix="check its permissions") from None
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(path, "is not a termqa decisions file: it is not UTF-8 text", fix=_FIX) from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"is not a termqa decisions file: not valid JSON at line {exc.lineno}, column "
                               f"{exc.colno} ({exc.msg})", fix=_FIX) from None
    if not isinstance(obj, dict) or "termqa_decisions" not in obj or not isinstance(obj.get("decisions"), list):
        raise InputError(path, "is not a termqa decisions file "
                               "(expected {\"termqa_decisions\": 1, \"decisions\": [...]})", fix=_FIX)
    version = obj["termqa_decisions"]
    if isinstance(version, bool) or version != FORMAT_VERSION:
        raise InputError(path, f"decisions file version {json.dumps(version)} is not supported",
                         fix="upgrade termqa" if isinstance(version, int) and not isinstance(version, bool)
                         and version > FORMAT_VERSION else f"this termqa reads version {FORMAT_VERSION}")
    out = tuple(_decision_of(item, n, str(path)) for n, item in enumerate(obj["decisions"], 1))
    return DecisionBook(out, str(path), hashlib.sha256(data).hexdigest(), contradictions(out))


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
            newer = newest((old, d))
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
