"""Which units hold a translation: the one place where the states translation files give their units
are read as "translated" or "not translated yet".

Readers keep each unit's state as the file writes it (`Segment.state`); `reading` here says what that
state means for checking, and `withhold` (called by `pipeline.check.prepare`) takes the target away from
every unit not translated yet, counting them by state. A unit not translated yet is never checked,
scored, or mined for renderings: a new unit whose target is a copy of its source would otherwise be
flagged as "left in English" and would teach the check that the English word is the established
rendering.

Three readings of a state:
- TRANSLATED: the target is a translation (checked as before). Every state not listed below, every
  value a file invents (`x-...`, Translate Toolkit's "needs-work"...), and a unit without any state.
- NOT_TRANSLATED: the file says the unit still has to be translated: not checked, whatever its target
  holds, unless its XLIFF 1.2 `state-qualifier` says where a pre-translation came from (see below).
- NEW: the unit is new or untouched, and tools write such units either empty, with a copy of the
  source, or with a pre-translation (TM, MT) or a translator's text the state was never moved on from
  (the Angular guide's own example is `<target state="new">Bonjour</target>`). Not checked when its
  target is empty or a copy of its source; checked when it holds other text (counted apart, so a user
  sees the state was not trusted).

The mapping, format by format (keys compared case-insensitively):
  XLIFF 1.2 `target/@state`  needs-translation -> NOT_TRANSLATED; new -> NEW; translated, needs-review-*,
                             needs-adaptation, needs-l10n, final, signed-off -> TRANSLATED.
  XLIFF 1.2 `state-qualifier` exact-match, fuzzy-match, id-match, leveraged-*, mt-suggestion,
                             tm-suggestion: the target is a pre-translation from that source, so a
                             NOT_TRANSLATED state reads as NEW (checked unless a copy). rejected-*
                             qualifiers say a translation was rejected: it is still one (TRANSLATED).
  XLIFF 2.x `segment/@state` initial -> NEW (the spec's first state; pre-translations live there);
                             translated, reviewed, final -> TRANSLATED. Absent: TRANSLATED (today's
                             behaviour: the spec's default would be "initial", but files without states
                             hold translations as often as not). `subState` is tool-defined and not read.
  SDLXLIFF `sdl:seg/@conf`   no conf (Trados' "Not Translated"; the reader's state None) -> NEW,
                             counted as "not-translated";
                             Draft, Translated, ApprovedTranslation, ApprovedSignOff, RejectedTranslation,
                             RejectedSignOff -> TRANSLATED (a rejected translation is still one).
  memoQ `@mq:status`         NotStarted -> NEW; everything else (Editing, PartiallyEdited, Pretranslated,
                             ManuallyConfirmed, Confirmed, Proofread, Reviewer1Confirmed,
                             Reviewer2Confirmed, Rejected, MachineTranslated, ...) -> TRANSLATED.
  Phrase MXLIFF `@m:confirmed` 0/false -> NEW (unconfirmed segments are empty, source copies or
                             MT/TM pre-translations); 1 and above -> TRANSLATED.
  gettext PO                 fuzzy -> NOT_TRANSLATED (gettext's own rule: msgfmt leaves fuzzy entries out
                             of the compiled catalogue, and their text is often a stale match for another
                             msgid); translated, needs-translation (an empty entry) -> TRANSLATED.
  Qt TS `translation/@type`  unfinished (with text) -> NOT_TRANSLATED (lrelease leaves them out too);
                             translated, needs-translation (no text) -> TRANSLATED.
  PO and TS states are read through translate-toolkit's unit API (`formats/toolkit.py`).

`include` (the `--include-states` option) names states, as files write them, whose units are checked
anyway (`fuzzy,unfinished` for PO and TS drafts); "all" checks every unit as before this module existed.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Iterable, Optional, Sequence

from termqa.model import BilingualFile, Document, Segment

TRANSLATED = "translated"
NOT_TRANSLATED = "not-translated"
NEW = "new"

# What an SDLXLIFF segment without `conf` (Trados: "Not Translated") is counted under; the reader keeps
# its state as written (None).
SDL_NOT_TRANSLATED = "not-translated"

_XLIFF12 = {"needs-translation": NOT_TRANSLATED, "new": NEW}
_XLIFF2 = {"initial": NEW}
_SDL = {SDL_NOT_TRANSLATED: NEW}
_MEMOQ = {"notstarted": NEW}
_MXLIFF = {"unconfirmed": NEW}
_PO = {"fuzzy": NOT_TRANSLATED}
_TS = {"unfinished": NOT_TRANSLATED}
# formats whose units carry states `withhold` reads (the other formats, TMX, have none)
_WITH_STATES = ("xliff", "po", "qt-ts")
# a qualifier naming where a pre-translation in the target came from
_PRETRANSLATED_QUALIFIERS = frozenset({"exact-match", "fuzzy-match", "id-match", "mt-suggestion", "tm-suggestion"})

# Readers store an XLIFF 1.2 state-qualifier after the state, separated by this (e.g. "new;leveraged-tm").
QUALIFIER_SEP = ";"


def with_qualifier(state: Optional[str], qualifier: Optional[str]) -> Optional[str]:
    """The state a reader records for an XLIFF 1.2 target with a `state-qualifier`."""
    if not qualifier:
        return state
    return f"{state or ''}{QUALIFIER_SEP}{qualifier}"


def split_state(state: Optional[str]) -> tuple[str, str]:
    """(state, qualifier) as the file wrote them ("" for either when absent)."""
    if not state:
        return "", ""
    s, _sep, q = state.partition(QUALIFIER_SEP)
    return s.strip(), q.strip()


def reading(fmt: str, dialect: Optional[str], state: Optional[str]) -> str:
    """TRANSLATED, NOT_TRANSLATED or NEW for a unit of a file of format `fmt` (and dialect) in `state`."""
    s, q = split_state(state)
    if not s and dialect == "sdlxliff":
        s = SDL_NOT_TRANSLATED  # every SDLXLIFF segment has its sdl:seg: no conf is Trados' "Not Translated"
    if not s:
        return TRANSLATED
    key = s.lower()
    fmt = fmt or ""
    if dialect == "sdlxliff":
        table = _SDL
    elif dialect == "mqxliff":
        table, key = _MEMOQ, key.replace(" ", "")
    elif dialect == "mxliff":
        table = {**_MXLIFF, **_XLIFF12}  # a target/@state, when present, is kept instead of m:confirmed
    elif fmt.startswith("xliff-2"):
        table = _XLIFF2
    elif fmt.startswith("xliff"):
        table = _XLIFF12
    elif fmt == "po":
        table = _PO
    elif fmt in ("qt-ts", "ts"):
        table = _TS
    else:
        return TRANSLATED
    found = table.get(key, TRANSLATED)
    if q:
        ql = q.lower()
        if ql.startswith("rejected-"):
            return TRANSLATED
        if found == NOT_TRANSLATED and (ql.startswith("leveraged-") or ql in _PRETRANSLATED_QUALIFIERS):
            return NEW
    return found


def is_source_copy(source: str, target: Optional[str]) -> bool:
    """The target is empty or the source's text again (spacing aside): nothing translated yet."""
    t = (target or "").split()
    return not t or t == source.split()


@dataclass(frozen=True)
class Withheld:
    """What `withhold` left out of checking, and what it checked although the state said "new"."""

    units: int = 0  # units (a unit of several segments counts once)
    segments: int = 0
    states: dict = field(default_factory=dict)  # state as written -> segments left out
    new_with_text: int = 0  # segments in a NEW state holding a translation: checked

    def message(self) -> Optional[str]:
        """The line a user reads, or None when nothing was left out."""
        parts = []
        if self.units:
            states = ", ".join(f"{s} {n}" for s, n in sorted(self.states.items(), key=lambda kv: (-kv[1], kv[0])))
            parts.append(f"{self.units} unit(s) not translated yet ({self.segments} segment(s); state {states}): "
                         "not checked, no rendering learned from them (--include-states to check them)")
        if self.new_with_text:
            parts.append(f"{self.new_with_text} segment(s) in a new/initial state hold a translation: checked")
        return "; ".join(parts) or None


def included(include: Iterable[str]) -> frozenset:
    """The states named by `include` (strings, each possibly comma-separated), lowercased."""
    if isinstance(include, str):
        include = (include,)
    return frozenset(p.strip().lower() for s in include for p in str(s).split(",") if p.strip())


def withhold(documents: Sequence[Document], include: Iterable[str] = ()) -> tuple[list[Document], Withheld]:
    """The documents with the target of every unit not translated yet taken away (None: the pipeline then
    treats it as any untranslated segment: occurrences in it are counted as not checked, and nothing is
    mined from it), and what was left out. States in `include` (or "all") are checked as translations."""
    inc = included(include)
    if "all" in inc:
        return list(documents), Withheld()
    out: list[Document] = []
    units: set = set()
    states: Counter = Counter()
    segments = new_with_text = 0
    readings: dict = {}  # (format, dialect, state) -> reading: a file has a handful of distinct states
    for doc in documents:
        if not (doc.format or "").startswith(_WITH_STATES):
            out.append(doc)
            continue
        gone = set()  # positions of the segments left out
        for pos, (uid, state, source, target) in enumerate(_fields(doc.segments)):
            if (state is None and doc.dialect != "sdlxliff") or not (target and target.strip()):
                continue  # (an empty target is untranslated already)
            key = (doc.format, doc.dialect, state)
            known = readings.get(key)
            if known is None:
                name = split_state(state)[0] or SDL_NOT_TRANSLATED
                kind = reading(doc.format, doc.dialect, state)
                known = readings[key] = (TRANSLATED if name.lower() in inc else kind, name)
            kind, name = known
            if kind == TRANSLATED:
                continue
            if kind == NEW and not is_source_copy(source, target):
                new_with_text += 1
                continue
            gone.add(pos)
            units.add((doc.doc_id, uid))
            states[name] += 1
        if not gone:
            out.append(doc)
            continue
        segments += len(gone)
        segs = (_without_target(s) if pos in gone else s for pos, s in enumerate(doc.segments))
        remade = getattr(doc.segments, "remade", None)  # segments held otherwise than as records (packed)
        out.append(replace(doc, segments=remade(segs) if remade is not None else tuple(segs)))
    return out, Withheld(units=len(units), segments=segments, states=dict(states), new_with_text=new_with_text)


def regrouped(files: Sequence[BilingualFile], documents: Sequence[Document]) -> list[BilingualFile]:
    """The files holding `documents` (what `withhold` returned for all their documents, in order) instead
    of their own: what the run checks, file by file (e.g. for the language of the targets it reads)."""
    it = iter(documents)
    return [replace(f, documents=tuple(next(it) for _d in f.documents)) for f in files]


def _fields(segments) -> Iterable[tuple]:
    """(unit id, state, source, target) of each segment; packed segments give them without records (their
    `fields`)."""
    fields = getattr(segments, "fields", None)
    if fields is not None:
        return fields("unit_id", "state", "source", "target")
    return ((s.unit_id, s.state, s.source, s.target) for s in segments)


_NO_TARGET = {"target": None, "target_codes": ()}
_SEGMENT_FIELDS = tuple(Segment.__dataclass_fields__)  # in the order Segment(*fields) takes them


def _without_target(seg: Segment) -> Segment:
    """The segment with no target (what `dataclasses.replace` makes, several times faster)."""
    return Segment(*[_NO_TARGET[f] if f in _NO_TARGET else getattr(seg, f) for f in _SEGMENT_FIELDS])
