"""XLIFF 2.0 / 2.1 / 2.2 reader: `<file>`s become documents, `<segment>`s become segments.

2.0 and 2.1 share the namespace `urn:oasis:names:tc:xliff:document:2.0` (the `version` attribute
tells them apart); 2.2 has its own, `urn:oasis:names:tc:xliff:document:2.2`. We read elements in
whatever namespace the root element uses, so both work with the same code.

Inline content is flattened by `formats.inline`: `pc`/`mrk` are containers whose content is text,
`ph`/`sc`/`ec`/`sm`/`em` are empty codes, `cp` is a character that IS text, and the native code a
code points to through `dataRef` (in the unit's `<originalData>`) is kept as the code's `data`,
never as text. `<ignorable>` is inter-segment whitespace/markup, not a segment.

Violations of the spec that we can read past are reported in `BilingualFile.problems`:
an `<ec>`/`<em>` with no earlier `<sc>`/`<sm>` in its unit, duplicate note ids in one `<notes>`,
duplicate unit/group ids in a file, duplicate segment ids in a unit, duplicate file ids.
"""
from __future__ import annotations

from collections import Counter
from typing import Optional

from termqa.errors import InputError, MissingLanguageError
from termqa.lang.langtags import lang_matches, normalise_tag
from termqa.model import BilingualFile, Document, InlineCode, Segment

from . import xmlsafe, xmlstream
from .sink import SinkFactory, TupleSink
from .inline import XLIFF2, flatten
from .xmlsafe import local, ns

NS20 = "urn:oasis:names:tc:xliff:document:2.0"
NS22 = "urn:oasis:names:tc:xliff:document:2.2"


def _version(root) -> str:
    """"2.0", "2.1" or "2.2": the version attribute when it is one we know, else the namespace's."""
    v = (root.get("version") or "").strip()
    if v in ("2.0", "2.1", "2.2"):
        return v
    return "2.2" if ns(root.tag) == NS22 else "2.0"


def _children(el, name: str, uri: str):
    """Element children of `el` named `name` in the XLIFF namespace `uri` (comments skipped)."""
    tag = f"{{{uri}}}{name}" if uri else name
    return [c for c in el if c.tag == tag]


def _first(el, name: str, uri: str):
    kids = _children(el, name, uri)
    return kids[0] if kids else None


def _data_text(el, uri: str) -> str:
    """Text of an `<originalData>/<data>`: its text plus the characters of its `<cp>` children."""
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and local(child.tag) == "cp" and ns(child.tag) == uri:
            try:
                parts.append(chr(int(child.get("hex", ""), 16)))
            except (ValueError, OverflowError):
                pass  # an invalid code point: nothing usable to keep
        parts.append(child.tail or "")
    return "".join(parts)


class _Reader:
    """State for one file: the namespace, the running problem list, the languages decided."""

    def __init__(self, path: str, root, src_lang: str, tgt_lang: str):
        self.path = path
        self.root = root
        self.uri = ns(root.tag)
        self.src_lang = src_lang
        self.tgt_lang = tgt_lang
        self.problems: list[str] = []

    # --- structure -------------------------------------------------------------------------

    def document(self, file_el, doc_id: str, fmt: str) -> Document:
        segments: list[Segment] = []
        skipped = [0]
        self._check_notes(file_el, f"file {file_el.get('id')!r}")
        seen_ids: Counter = Counter()
        self._walk(file_el, doc_id, self._translate(file_el, True), segments, skipped, seen_ids)
        return self.close_document(file_el, doc_id, fmt, tuple(segments), skipped, seen_ids)

    def close_document(self, file_el, doc_id: str, fmt: str, segments, skipped, seen_ids) -> Document:
        """The document of `file_el` once its units are read; ids used twice are problems."""
        for uid, n in seen_ids.items():
            if n > 1:
                self.problems.append(
                    f"file {file_el.get('id')!r}: id {uid!r} is used by {n} units/groups "
                    "(ids must be unique among the units and groups of a file)"
                )
        return Document(
            doc_id=doc_id,
            path=self.path,
            format=fmt,
            src_lang=self.src_lang,
            tgt_lang=self.tgt_lang,
            segments=segments,
            original=file_el.get("original"),
            skipped=skipped[0],
        )

    @staticmethod
    def _translate(el, inherited: bool) -> bool:
        # `translate` is inherited down file -> group -> unit; only an explicit value changes it.
        v = el.get("translate")
        if v == "no":
            return False
        if v == "yes":
            return True
        return inherited

    def _walk(self, parent, doc_id, translate, segments, skipped, seen_ids) -> None:
        for child in parent:
            if not isinstance(child.tag, str) or ns(child.tag) != self.uri:
                continue  # comments, extension elements (glossaries, metadata, TBX...)
            name = local(child.tag)
            if name == "group":
                if child.get("id") is not None:
                    seen_ids[child.get("id")] += 1
                self._check_notes(child, f"group {child.get('id')!r}")
                self._walk(child, doc_id, self._translate(child, translate), segments, skipped, seen_ids)
            elif name == "unit":
                self.unit(child, doc_id, translate, segments, skipped, seen_ids)

    def unit(self, unit, doc_id, translate, segments, skipped, seen_ids) -> None:
        """One `<unit>` (whole) of a walked file or group: its problems, then its segments."""
        uid = unit.get("id") or ""
        if uid:
            seen_ids[uid] += 1
        else:  # required by the schema; without it segment keys can collide
            self.problems.append(f"a <unit> in file {doc_id!r} has no id")
        self._check_notes(unit, f"unit {uid!r}")
        self._check_pairs(unit, uid)
        if not self._translate(unit, translate):
            skipped[0] += 1
            return
        self._unit(unit, uid, doc_id, segments)

    def _unit(self, unit, uid: str, doc_id: str, segments: list[Segment]) -> None:
        data_el = _first(unit, "originalData", self.uri)
        original = {}
        if data_el is not None:
            for d in _children(data_el, "data", self.uri):
                original[d.get("id")] = _data_text(d, self.uri)

        def data_for(el) -> str:
            return original.get(el.get("dataRef"), "")

        seg_ids: Counter = Counter()
        n = 0
        for seg in _children(unit, "segment", self.uri):
            n += 1
            # XLIFF 2 makes segment@id optional; when it is missing we name the segment by its
            # 1-based position among the unit's segments (ignorables not counted), so keys stay
            # stable across runs of the same file.
            seg_id = seg.get("id") or f"s{n}"
            if seg.get("id"):
                seg_ids[seg.get("id")] += 1
            src_el = _first(seg, "source", self.uri)
            tgt_el = _first(seg, "target", self.uri)
            source, source_codes = self._flatten(src_el, data_for) if src_el is not None else ("", ())
            if tgt_el is not None:
                target, target_codes = self._flatten(tgt_el, data_for)
            else:
                target, target_codes = None, ()
            segments.append(
                Segment(
                    doc_id=doc_id,
                    unit_id=uid,
                    seg_id=seg_id,
                    source=source,
                    target=target,
                    src_lang=self.src_lang,
                    tgt_lang=self.tgt_lang,
                    index=len(segments),
                    source_codes=source_codes,
                    target_codes=target_codes,
                    # As written; absent means the spec's default, "initial".
                    state=seg.get("state"),
                )
            )
        for ign in _children(unit, "ignorable", self.uri):
            if ign.get("id"):
                seg_ids[ign.get("id")] += 1
        for sid, k in seg_ids.items():
            if k > 1:
                self.problems.append(f"unit {uid!r}: segment/ignorable id {sid!r} is used {k} times")

    def _flatten(self, el, data_for) -> tuple[str, tuple[InlineCode, ...]]:
        text, codes = flatten(el, XLIFF2, namespace=self.uri, data_for=data_for)
        return text, self._pc_data(el, codes, data_for)

    def _pc_data(self, el, codes, data_for) -> tuple[InlineCode, ...]:
        """Give `pc` codes the native data of their `dataRefStart`/`dataRefEnd`.

        `inline.flatten` only looks data up for empty codes; a `pc` is a container there. Its open
        codes come out in document order and its close codes close the innermost open `pc`, so
        a stack pairs each code with its element.
        """
        if not codes or not any(c.kind == "pc" for c in codes):
            return codes
        pcs = iter(e for e in el.iter(f"{{{self.uri}}}pc" if self.uri else "pc") if e is not el)
        stack = []
        out = []
        for c in codes:
            if c.kind == "pc" and c.role == "open":
                e = next(pcs, None)
                stack.append(e)
                ref = e.get("dataRefStart") if e is not None else None
            elif c.kind == "pc" and c.role == "close":
                e = stack.pop() if stack else None
                ref = e.get("dataRefEnd") if e is not None else None
            else:
                out.append(c)
                continue
            data = data_for(_Ref(ref)) if ref else ""
            out.append(InlineCode(c.offset, c.kind, c.role, c.id, data) if data else c)
        return tuple(out)

    # --- problems --------------------------------------------------------------------------

    def _check_notes(self, el, where: str) -> None:
        notes = _first(el, "notes", self.uri)
        if notes is not None:
            self.problems.extend(self.note_problems(notes, where))

    def note_problems(self, notes, where: str) -> list[str]:
        """Note ids used twice in one `<notes>` element."""
        ids = Counter(n.get("id") for n in _children(notes, "note", self.uri) if n.get("id") is not None)
        return [f"{where}: note id {nid!r} is used {k} times in one <notes>" for nid, k in ids.items() if k > 1]

    def _check_pairs(self, unit, uid: str) -> None:
        """An `<ec startRef>` (or `<em startRef>`) needs an earlier `<sc>` (`<sm>`) in the unit.

        Sources are checked in document order across segments and ignorables. Targets are checked
        too unless a target has an `order` attribute (then its display order differs from the
        document order and "earlier" is not decidable without re-ordering).
        """
        parts = [p for p in unit if isinstance(p.tag, str) and ns(p.tag) == self.uri
                 and local(p.tag) in ("segment", "ignorable")]
        sides = ["source"]
        if not any(t.get("order") for p in parts for t in _children(p, "target", self.uri)):
            sides.append("target")
        for side in sides:
            opened = {"sc": set(), "sm": set()}
            for p in parts:
                el = _first(p, side, self.uri)
                if el is None:
                    continue
                for code in el.iter():
                    if not isinstance(code.tag, str) or ns(code.tag) != self.uri:
                        continue
                    name = local(code.tag)
                    if name in ("sc", "sm") and code.get("id") is not None:
                        opened[name].add(code.get("id"))
                    elif name in ("ec", "em") and code.get("isolated") != "yes":
                        ref = code.get("startRef")
                        start = "sc" if name == "ec" else "sm"
                        if ref is None:
                            if name == "ec":  # a non-isolated ec must say which sc it closes
                                self.problems.append(
                                    f"unit {uid!r}: <ec> in the {side} has neither startRef nor isolated='yes'"
                                )
                        elif ref not in opened[start]:
                            self.problems.append(
                                f"unit {uid!r}: <{name} startRef={ref!r}> in the {side} has no earlier "
                                f"<{start} id={ref!r}> in the unit"
                            )


class _Ref:
    """A stand-in element for `data_for`, which reads `dataRef` from what it is given."""

    def __init__(self, ref: str):
        self._ref = ref

    def get(self, name, default=None):
        return self._ref if name == "dataRef" else default


def _language(path: str, given: Optional[str], written: Optional[str], what: str, option: str,
              warnings: list[str]) -> str:
    if given:
        if written and not lang_matches(given, written):
            warnings.append(
                f"the file says {what} language {written!r}; using {option} {given!r} as asked"
            )
        return normalise_tag(given)
    if written and written.strip():
        return normalise_tag(written)
    raise MissingLanguageError(path, f"has no {what} language; pass {option}", which=what)


def read(source) -> BilingualFile:
    """Read an XLIFF 2.x file whose root element (`source.root`) is already parsed (see formats.xmlsafe)."""
    path, root, src_lang, tgt_lang = source.path, source.root, source.src_lang, source.tgt_lang
    version = _version(root)
    fmt = f"xliff-{version}"
    warnings: list[str] = []
    src = _language(path, src_lang, root.get("srcLang"), "source", "--src-lang", warnings)
    tgt = _language(path, tgt_lang, root.get("trgLang"), "target", "--tgt-lang", warnings)
    reader = _Reader(path, root, src, tgt)
    files = _children(root, "file", reader.uri)
    if not files:
        raise InputError(path, "has no <file> element: not a usable XLIFF 2 document")
    reader.problems.extend(_file_id_problems(f.get("id") for f in files))
    docs = []
    for k, f in enumerate(files, start=1):
        doc_id = path if len(files) == 1 else f"{path}#{k}"
        docs.append(reader.document(f, doc_id, fmt))
    return _bilingual(path, fmt, docs, root, src, tgt, warnings, reader.problems)


def _file_id_problems(ids) -> list[str]:
    counts = Counter(fid for fid in ids if fid is not None)
    return [f"file id {fid!r} is used by {k} <file> elements" for fid, k in counts.items() if k > 1]


def _bilingual(path, fmt, docs, root, src, tgt, warnings, problems) -> BilingualFile:
    return BilingualFile(
        path=path,
        format=fmt,
        documents=tuple(docs),
        version=root.get("version"),
        src_lang=src,
        tgt_lang=tgt,
        languages=(src, tgt),
        warnings=tuple(warnings),
        problems=tuple(problems),
    )


# --- streaming (big files) -----------------------------------------------------------------------

class _Restart(Exception):
    """A second `<file>`: document ids are "path#k", which the single pass assumed they were not."""


class _Open:
    """An open element of the streaming walk: what it is to the tree reader's walk (`role`), the
    translate flag its units inherit, and for a file or group where its `<notes>` problems go."""

    __slots__ = ("role", "translate", "mark", "where", "notes_seen")

    def __init__(self, role: int, translate: bool = True, mark: int = 0, where: str = ""):
        self.role, self.translate, self.mark, self.where = role, translate, mark, where
        self.notes_seen = False


_ROOT, _CONTAINER, _UNIT, _NOTES, _INSIDE = range(5)


def read_stream(path: str, *, src_lang=None, tgt_lang=None, sink: SinkFactory = TupleSink) -> BilingualFile:
    """Read an XLIFF 2.x file without holding its XML tree: the record `read` gives on the parsed tree.

    One iterparse pass: languages at the root's start, each `<file>`'s and `<group>`'s translate flag
    and id at its start, each `<unit>` handed at its end to the tree reader's own code
    (`_Reader.unit`) and then dropped; each document's segments go to a `sink()`
    (formats.sink). Problems keep the tree reader's order: those of a file's or group's
    `<notes>` go where the file or group began (the schema puts notes first; a file may not), those of
    file ids used twice first of all. The pass assumes one `<file>` (document ids depend on how many
    there are); at a second one it stops, counts them in an outline (no tree built) and reads again.
    """
    path = str(path)
    xmlsafe.refuse_entities(xmlsafe.prolog_of(path), path)
    try:
        return _stream(path, src_lang, tgt_lang, None, sink)
    except _Restart:
        pass
    out = xmlstream.outline(path)
    return _stream(path, src_lang, tgt_lang, sum(1 for c in out.children if c.tag == _tag(out.tag, "file")), sink)


def _tag(root_tag: str, name: str) -> str:
    uri = ns(root_tag)
    return f"{{{uri}}}{name}" if uri else name


def _stream(path: str, src_lang, tgt_lang, n_files, sink: SinkFactory) -> BilingualFile:
    stream = xmlstream.events(path, ("xliff", "file", "group", "unit", "notes"))
    root = xmlstream.root_start(stream, path)
    version = _version(root)
    fmt = f"xliff-{version}"
    warnings: list[str] = []
    try:
        src = _language(path, src_lang, root.get("srcLang"), "source", "--src-lang", warnings)
        tgt = _language(path, tgt_lang, root.get("trgLang"), "target", "--tgt-lang", warnings)
    except MissingLanguageError:
        xmlstream.drain(stream)  # a file that is not well-formed says so first, as the tree reader does
        raise
    reader = _Reader(path, root, src, tgt)
    problems, drop = reader.problems, xmlstream.drop
    t_file, t_group, t_unit, t_notes = (_tag(root.tag, n) for n in ("file", "group", "unit", "notes"))
    docs: list[Document] = []
    file_ids: list = []
    doc_id, segments, skipped, seen_ids = path, sink(), [0], Counter()  # set at each <file>
    stack = [(root, _Open(_ROOT))]
    inside = _Open(_INSIDE)
    for event, el in stream:
        if event == "start":
            parent, top = stack[-1]
            role = top.role
            if el.getparent() is not parent:
                stack.append((el, inside))  # under an element the walk does not enter
            elif role == _CONTAINER:  # a <file> or a walked <group>
                tag = el.tag
                if tag == t_unit:
                    stack.append((el, _Open(_UNIT, top.translate)))
                elif tag == t_group:
                    if el.get("id") is not None:
                        seen_ids[el.get("id")] += 1
                    stack.append((el, _Open(_CONTAINER, reader._translate(el, top.translate), len(problems),
                                            f"group {el.get('id')!r}")))
                elif tag == t_notes and not top.notes_seen:  # the first <notes> only, as _first finds
                    top.notes_seen = True
                    stack.append((el, _Open(_NOTES, mark=top.mark, where=top.where)))
                else:
                    stack.append((el, inside))  # a later <notes>, or a name in another namespace
            elif role == _ROOT and el.tag == t_file:
                k = len(docs) + 1
                if n_files is None and k > 1:
                    raise _Restart
                doc_id = path if (n_files or 1) == 1 else f"{path}#{k}"
                file_ids.append(el.get("id"))
                segments, skipped, seen_ids = sink(), [0], Counter()
                stack.append((el, _Open(_CONTAINER, reader._translate(el, True), len(problems),
                                        f"file {el.get('id')!r}")))
            else:
                stack.append((el, inside))
            continue
        _el, state = stack.pop()
        role = state.role
        if role == _UNIT:
            reader.unit(el, doc_id, state.translate, segments, skipped, seen_ids)
        elif role == _NOTES:
            # the tree reader checks a file's or group's notes before its units: put them there
            problems[state.mark:state.mark] = reader.note_problems(el, state.where)
        elif role == _CONTAINER:
            if len(stack) == 1:  # a <file>
                docs.append(reader.close_document(el, doc_id, fmt, segments.done(), skipped, seen_ids))
        else:
            continue  # inside a unit or an ignored element: freed with it; the root is kept
        drop(el)
    if not docs:
        raise InputError(path, "has no <file> element: not a usable XLIFF 2 document")
    return _bilingual(path, fmt, docs, root, src, tgt, warnings, _file_id_problems(file_ids) + problems)
