"""XLIFF 1.0/1.1/1.2 reader, with the SDLXLIFF, memoQ (MQXLIFF) and Phrase (MXLIFF) dialects.

Elements are matched in the root element's namespace (1.2, 1.1, 1.0 or none; any prefix), so
`<xliff>`, `<xlf:xliff>` and namespace-less 1.0 files read alike. Each `<file>` is one `Document`.
A unit with `<seg-source>` holding `<mrk mtype="seg">` gives one segment per mrk, paired with the
target's mrk of the same `mid`; any other unit gives one segment. `alt-trans` is never read.

Dialect status lives outside the standard attributes:
  SDLXLIFF  `sdl:seg-defs/sdl:seg[@id=mid]`: `conf` -> state, `locked="true"` -> locked
  MQXLIFF   `trans-unit/@mq:status` -> state, `@mq:locked` ("locked"/"true") -> locked
  MXLIFF    `trans-unit/@m:confirmed` (0/1/2 or false/true) -> state "confirmed" when > 0,
            `@m:locked` -> locked; `target/@state`, when present, is kept instead.
A target's `state-qualifier` is kept after its state: "new;leveraged-tm" (formats/unitstate.py reads them).
"""
from __future__ import annotations

from typing import Optional

from termqa.errors import InputError, MissingLanguageError
from termqa.lang.langtags import normalise_tag
from termqa.model import BilingualFile, Document, Segment

from . import inline, xmlsafe, xmlstream
from .sink import SinkFactory, TupleSink
from .unitstate import with_qualifier
from .xmlsafe import XML_LANG, ns

FORMAT = "xliff-1.2"

SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
MQ_NS = "MQXliff"
MXLIFF_NS = "http://www.memsource.com/mxlf/2.0"
_DIALECTS = ((SDL_NS, "sdlxliff"), (MQ_NS, "mqxliff"), (MXLIFF_NS, "mxliff"))

# XLIFF 1.2 target/@state values; anything else not starting with "x-" is tolerated but warned.
_STATES = frozenset(
    {
        "final", "needs-adaptation", "needs-l10n", "needs-review-adaptation", "needs-review-l10n",
        "needs-review-translation", "needs-translation", "new", "signed-off", "translated",
    }
)
_TRUE = frozenset({"true", "yes", "1", "locked"})
# Past this many, repeated findings of one kind are summarised rather than listed one by one.
_MAX_LISTED = 20


def _dialect_of(root) -> Optional[str]:
    uris = set(root.nsmap.values())
    for child in root:  # namespaces are sometimes declared on <file> only
        if isinstance(child.tag, str):
            uris.update(child.nsmap.values())
    return _dialect_of_uris(uris)


def _dialect_of_uris(uris) -> Optional[str]:
    """The dialect whose namespace is among `uris` (those declared on the root and its children)."""
    for uri, name in _DIALECTS:
        if uri in uris:
            return name
    return None


class _Findings:
    """Problems and warnings, capped per kind so a broken 1M-word file does not flood the report."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.warnings: list[str] = []
        self._counts: dict[tuple[str, str], int] = {}

    def add(self, level: str, kind: str, message: str) -> None:
        n = self._counts.get((level, kind), 0) + 1
        self._counts[(level, kind)] = n
        if n <= _MAX_LISTED:
            (self.problems if level == "problem" else self.warnings).append(message)

    def close(self) -> None:
        for (level, kind), n in self._counts.items():
            if n > _MAX_LISTED:
                out = self.problems if level == "problem" else self.warnings
                out.append(f"... and {n - _MAX_LISTED} more of the kind: {kind}")


class _Reader:
    def __init__(self, path: str, root, src_lang, tgt_lang):
        self.path = path
        self.root = root
        self.xns = ns(root.tag)
        self.src_override = normalise_tag(src_lang) if src_lang else ""
        self.tgt_override = normalise_tag(tgt_lang) if tgt_lang else ""
        self.dialect = _dialect_of(root)
        self.version = root.get("version")
        self.found = _Findings()
        self.bad_states: dict[str, int] = {}
        q = self.q
        self.T_FILE, self.T_BODY, self.T_GROUP, self.T_TU = q("file"), q("body"), q("group"), q("trans-unit")
        self.T_SOURCE, self.T_SEGSRC, self.T_TARGET, self.T_MRK = q("source"), q("seg-source"), q("target"), q("mrk")
        self.SDL_SEGDEFS, self.SDL_SEG = f"{{{SDL_NS}}}seg-defs", f"{{{SDL_NS}}}seg"
        self.MQ_STATUS, self.MQ_LOCKED = f"{{{MQ_NS}}}status", f"{{{MQ_NS}}}locked"
        self.M_CONFIRMED, self.M_LOCKED = f"{{{MXLIFF_NS}}}confirmed", f"{{{MXLIFF_NS}}}locked"

    def q(self, name: str) -> str:
        return f"{{{self.xns}}}{name}" if self.xns else name

    def flatten(self, el):
        return inline.flatten(el, inline.XLIFF12, namespace=self.xns)

    # --- languages ---------------------------------------------------------------------------

    def _first_lang(self, scope, tag) -> str:
        for el in scope.iter(tag):
            lang = el.get(XML_LANG)
            if lang:
                return lang
        return ""

    def languages(self, files, first_lang=None) -> list[tuple[str, str]]:
        """(source, target) per file: argument, else file attribute, else xml:lang, else other files'.

        `files` are `<file>` elements, or stand-ins with their attributes (`get`) whose first
        xml:lang under a tag `first_lang(file, tag)` gives (the streaming reader's outline).
        """
        first_lang = first_lang or self._first_lang
        pairs = []
        for f in files:
            s = self.src_override or normalise_tag(f.get("source-language"))
            t = self.tgt_override or normalise_tag(f.get("target-language"))
            if not f.get("source-language"):
                self.found.add(
                    "warning", "no source-language", f"{self._where(f)}: <file> has no source-language attribute"
                )
            if not s:
                s = normalise_tag(first_lang(f, self.T_SOURCE))
            if not t:
                t = normalise_tag(first_lang(f, self.T_TARGET))
            pairs.append((s, t))
        any_s = next((s for s, _ in pairs if s), "")
        any_t = next((t for _, t in pairs if t), "")
        if not any_s:
            raise MissingLanguageError(self.path, "has no source language; pass --src-lang", fix="e.g. --src-lang en",
                                       which="source")
        if not any_t:
            raise MissingLanguageError(self.path, "has no target language; pass --tgt-lang", fix="e.g. --tgt-lang fr")
        return [(s or any_s, t or any_t) for s, t in pairs]

    def _where(self, f) -> str:
        return f"{self.path} <file original={f.get('original')!r}>"

    # --- walking -----------------------------------------------------------------------------

    def read(self) -> BilingualFile:
        files = [c for c in self.root if c.tag == self.T_FILE]
        if not files:
            raise InputError(self.path, "is an XLIFF 1.x file without any <file> element")
        langs = self.languages(files)
        docs = []
        for k, (f, (s, t)) in enumerate(zip(files, langs), start=1):
            doc_id = self.path if len(files) == 1 else f"{self.path}#{k}"
            docs.append(self.read_file(f, doc_id, s, t))
        return self.finish(docs, langs)

    def finish(self, docs: list, langs: list[tuple[str, str]]) -> BilingualFile:
        """The file's record once every document is read: warnings that need all of them, then the rest."""
        if self.bad_states:
            listed = ", ".join(f"{v} ({n}x)" for v, n in sorted(self.bad_states.items()))
            self.found.add("warning", "state", f"{self.path}: target state values not defined by XLIFF 1.2: {listed}")
        self.found.close()
        seen: list[str] = []
        for s, t in langs:
            for x in (s, t):
                if x not in seen:
                    seen.append(x)
        return BilingualFile(
            path=self.path,
            format=FORMAT,
            documents=tuple(docs),
            dialect=self.dialect,
            version=self.version,
            src_lang=langs[0][0],
            tgt_lang=langs[0][1],
            languages=tuple(seen),
            warnings=tuple(self.found.warnings),
            problems=tuple(self.found.problems),
        )

    def read_file(self, f, doc_id: str, src: str, tgt: str) -> Document:
        segs: list[Segment] = []
        self.open_file(doc_id, src, tgt)
        for body in f:
            if body.tag == self.T_BODY:
                self._walk(body, False, segs)
        return self.document(f, tuple(segs))

    def open_file(self, doc_id: str, src: str, tgt: str) -> None:
        """Start a document: unit ids and skipped units are counted per `<file>`."""
        self._ids: set[str] = set()
        self._skipped = 0
        self._doc = (doc_id, src, tgt)

    def document(self, f, segments) -> Document:
        doc_id, src, tgt = self._doc
        return Document(
            doc_id=doc_id,
            path=self.path,
            format=FORMAT,
            src_lang=src,
            tgt_lang=tgt,
            segments=segments,
            dialect=self.dialect,
            original=f.get("original"),
            skipped=self._skipped,
        )

    def _walk(self, container, no_translate: bool, segs: list) -> None:
        # This loop runs once per unit of a 1M-word project, so the common unit (a fresh id, no
        # translate attribute, a <source> and optional <target>, no seg-source, no SDL seg-defs,
        # no memoQ/Phrase status attributes) is read right here. Any
        # other unit goes to _unit(), which covers every case; nothing is recorded before the
        # hand-over, so the two paths give identical results.
        t_tu, t_group, unit = self.T_TU, self.T_GROUP, self._unit
        t_source, t_target, t_segsrc, t_segdefs = self.T_SOURCE, self.T_TARGET, self.T_SEGSRC, self.SDL_SEGDEFS
        fast = not no_translate and self.dialect not in ("mqxliff", "mxliff")
        ids, bad_states = self._ids, self.bad_states
        doc_id, src_lang, tgt_lang = self._doc
        flatten, table, xns, has_seg_mrk = inline.flatten, inline.XLIFF12, self.xns, self._has_seg_mrk
        for el in container:
            tag = el.tag
            if tag == t_tu:
                if fast:
                    uid = el.get("id")
                    if uid is not None and uid not in ids and el.get("translate") is None:
                        source = target = None
                        for c in el:
                            t = c.tag
                            if t == t_source:
                                if source is None:
                                    source = c
                            elif t == t_target:
                                if target is None:
                                    target = c
                            elif t == t_segsrc or t == t_segdefs:
                                source = None
                                break
                        # A target holding <mrk mtype="seg"> without seg-source is a problem _unit reports.
                        if source is not None and (target is None or not len(target) or not has_seg_mrk(target)):
                            if len(source):
                                s_text, s_codes = flatten(source, table, namespace=xns)
                            else:
                                s_text, s_codes = source.text or "", ()
                            if target is None:
                                t_text, t_codes, state = None, (), None
                            else:
                                if len(target):
                                    t_text, t_codes = flatten(target, table, namespace=xns)
                                else:
                                    t_text, t_codes = target.text or "", ()
                                state = target.get("state")
                                if state is not None and state not in _STATES and not state.startswith("x-"):
                                    bad_states[state] = bad_states.get(state, 0) + 1
                                state = with_qualifier(state, target.get("state-qualifier"))
                            ids.add(uid)
                            segs.append(
                                Segment(doc_id, uid, "", s_text, t_text, src_lang, tgt_lang, len(segs),
                                        s_codes, t_codes, state, False)
                            )
                            continue
                unit(el, no_translate, segs)
            elif tag == t_group:
                # A group's translate="no" applies to the units inside unless they say otherwise.
                flag = el.get("translate")
                self._walk(el, no_translate if flag is None else flag == "no", segs)

    def _unit(self, tu, no_translate: bool, segs: list) -> None:
        doc_id, src_lang, tgt_lang = self._doc
        uid = tu.get("id")
        if uid is None:
            self.found.add("problem", "unit without id", f"{doc_id}: a <trans-unit> has no id attribute")
            uid = ""
        elif uid in self._ids:
            # The 1.2 schema makes trans-unit ids a key within <file>; 1.0 tools (Passolo) repeat them.
            level = "problem" if (self.version or "").startswith("1.2") else "warning"
            self.found.add(level, "duplicate unit id", f"{doc_id}: trans-unit id {uid!r} is used more than once")
        self._ids.add(uid)
        flag = tu.get("translate")
        if (no_translate if flag is None else flag == "no"):
            self._skipped += 1
            return
        source = segsrc = target = segdefs = None
        t_source, t_target = self.T_SOURCE, self.T_TARGET
        for c in tu:
            t = c.tag
            if t == t_source:
                if source is None:
                    source = c
            elif t == t_target:
                if target is None:
                    target = c
            elif t == self.T_SEGSRC:
                segsrc = c
            elif t == self.SDL_SEGDEFS:
                segdefs = c
        if source is None:
            self.found.add("problem", "unit without source", f"{doc_id}: trans-unit {uid!r} has no <source>")
            return

        state = target.get("state") if target is not None else None
        if state is not None and state not in _STATES and not state.startswith("x-"):
            self.bad_states[state] = self.bad_states.get(state, 0) + 1
        if target is not None:
            state = with_qualifier(state, target.get("state-qualifier"))
        locked = False
        if self.dialect == "mqxliff":
            state = tu.get(self.MQ_STATUS) or state
            locked = (tu.get(self.MQ_LOCKED) or "").lower() in _TRUE
        elif self.dialect == "mxliff":
            conf = tu.get(self.M_CONFIRMED)
            if state is None and conf is not None:
                state = "confirmed" if conf.lower() in ("true", "1", "2", "3") else "unconfirmed"
            locked = (tu.get(self.M_LOCKED) or "").lower() in _TRUE
        sdl = self._sdl_segs(segdefs) if segdefs is not None else None
        if sdl is not None and target is not None and len(target):
            revised = {m.get("mtype") for m in target.iter(self.T_MRK)} & inline.REVISION_MARKS
            if revised:  # Trados track changes (formats/inline.py reads them as if accepted)
                self.found.add(
                    "warning", "tracked changes",
                    f"{doc_id}: trans-unit {uid!r}: the target holds tracked changes not accepted yet "
                    f"({', '.join(sorted(revised))}): deleted text is left out of the target, inserted text "
                    "is read as target text")

        seg_mrks = self._seg_mrks(segsrc) if segsrc is not None else []
        if seg_mrks:
            tmap = self._target_mrks(target, uid) if target is not None else {}
            if target is not None and not tmap and len(seg_mrks) > 1:
                self.found.add(
                    "warning", "unsegmented target",
                    f"{doc_id}: trans-unit {uid!r}: seg-source has {len(seg_mrks)} segments but the target is not "
                    "segmented; read as one segment",
                )
                seg_mrks = []
            else:
                mids = set()
                for m in seg_mrks:
                    mid = m.get("mid", "")
                    if mid in mids:
                        self.found.add(
                            "problem", "duplicate mid",
                            f"{doc_id}: trans-unit {uid!r}: seg-source mid {mid!r} is used more than once",
                        )
                    mids.add(mid)
                for mid in tmap:
                    if mid not in mids:
                        self.found.add(
                            "problem", "target mid without source",
                            f"{doc_id}: trans-unit {uid!r}: target <mrk mtype=\"seg\" mid={mid!r}> "
                            "has no seg-source counterpart",
                        )
                for m in seg_mrks:
                    mid = m.get("mid", "")
                    s_text, s_codes = self.flatten(m)
                    if target is None:
                        t_text, t_codes = None, ()
                    elif not tmap and len(seg_mrks) == 1:
                        t_text, t_codes = self.flatten(target)  # one segment, target written without mrk
                    elif mid in tmap:
                        t_text, t_codes = self.flatten(tmap[mid])
                    else:
                        t_text, t_codes = None, ()
                    seg_state, seg_locked = state, locked
                    if sdl is not None and mid in sdl:
                        conf, lk = sdl[mid]
                        seg_state, seg_locked = conf or state, lk
                    segs.append(
                        Segment(doc_id, uid, mid, s_text, t_text, src_lang, tgt_lang, len(segs),
                                s_codes, t_codes, seg_state, seg_locked)
                    )
                return

        # Most units are plain text: read it directly instead of going through flatten().
        if len(source):
            s_text, s_codes = self.flatten(source)
        else:
            s_text, s_codes = source.text or "", ()
        if target is None:
            t_text, t_codes = None, ()
        elif not len(target):
            t_text, t_codes = target.text or "", ()
        else:
            if segsrc is None and self._has_seg_mrk(target):
                self.found.add(
                    "problem", "segmented target without seg-source",
                    f"{doc_id}: trans-unit {uid!r}: target has <mrk mtype=\"seg\"> but the unit has no <seg-source>",
                )
            t_text, t_codes = self.flatten(target)
        if sdl is not None and len(sdl) == 1:
            conf, lk = next(iter(sdl.values()))
            state, locked = conf or state, lk
        segs.append(
            Segment(doc_id, uid, "", s_text, t_text, src_lang, tgt_lang, len(segs), s_codes, t_codes, state, locked)
        )

    # --- helpers -----------------------------------------------------------------------------

    def _seg_mrks(self, segsrc) -> list:
        # Seg mrks may sit inside <g> that spans them (SDL does this); iter finds them at any depth.
        return [m for m in segsrc.iter(self.T_MRK) if m.get("mtype") == "seg"]

    def _has_seg_mrk(self, el) -> bool:
        return any(m.get("mtype") == "seg" for m in el.iter(self.T_MRK))

    def _target_mrks(self, target, uid) -> dict:
        out = {}
        for m in target.iter(self.T_MRK):
            if m.get("mtype") == "seg":
                mid = m.get("mid", "")
                if mid in out:
                    self.found.add(
                        "problem", "duplicate target mid",
                        f"{self._doc[0]}: trans-unit {uid!r}: target mid {mid!r} is used more than once",
                    )
                else:
                    out[mid] = m
        return out

    def _sdl_segs(self, segdefs) -> dict:
        out = {}
        for s in segdefs:
            if s.tag == self.SDL_SEG:
                out[s.get("id", "")] = (s.get("conf"), (s.get("locked") or "").lower() == "true")
        return out


def read(source) -> BilingualFile:
    """Read an XLIFF 1.x file whose root element (`source.root`) the hardened parser already produced."""
    return _Reader(source.path, source.root, source.src_lang, source.tgt_lang).read()


# --- streaming (big files) -----------------------------------------------------------------------

class _Restart(Exception):
    """The single pass met what it needed to know before its first unit: read the outline first."""


# What an open element is to the streaming walk. Only elements the tree reader walks get a role;
# everything inside a unit or an element it ignores is left alone until that element ends.
_ROOT, _FILE, _BODY, _UNIT, _INSIDE = range(5)


def read_stream(path: str, *, src_lang=None, tgt_lang=None, sink: SinkFactory = TupleSink) -> BilingualFile:
    """Read an XLIFF 1.x file without holding its XML tree: the record `read` gives on the parsed tree.

    One iterparse pass: languages and attributes of each `<file>` at its start, `translate` inherited
    through `<group>` starts, each `<trans-unit>` handed at its end to the tree reader's own code
    (`_Reader._walk` on that one unit, `_unit`) and then dropped; each document's segments go to a
    `sink()` (formats.sink). That pass assumes what a big file nearly always is: one
    `<file>` (document ids depend on how many there are), languages written on it (else they come
    from other files or from xml:lang further on, with warnings listed before any unit's), no dialect
    namespace declared after the first `<file>` starts. When an assumption fails it stops, reads an
    outline of the root's children (xmlstream.outline: no tree built) and reads again knowing them.
    """
    path = str(path)
    xmlsafe.refuse_entities(xmlsafe.prolog_of(path), path)
    try:
        return _stream(path, src_lang, tgt_lang, None, sink)
    except _Restart:
        pass
    return _stream(path, src_lang, tgt_lang, xmlstream.outline(path, lang_names=("source", "target")), sink)


def _stream(path: str, src_lang, tgt_lang, out, sink: SinkFactory) -> BilingualFile:
    stream = xmlstream.events(path, ("xliff", "file", "body", "group", "trans-unit"))
    root = xmlstream.root_start(stream, path)
    r = _Reader(path, root, src_lang, tgt_lang)
    if out is None:
        # the root's own namespaces (at its start event some children may already be parsed, so
        # _dialect_of(root) would depend on how far the parser has read)
        uris = set(root.nsmap.values())
        r.dialect = _dialect_of_uris(uris)
        langs: list[tuple[str, str]] = []
        n_files = 1
    else:
        r.dialect = _dialect_of_uris(set(out.uris).union(*(c.uris for c in out.children)))
        files = [c for c in out.children if c.tag == r.T_FILE]
        if not files:
            raise InputError(path, "is an XLIFF 1.x file without any <file> element")
        langs = r.languages(files, lambda f, tag: f.first_lang.get(tag, ""))
        n_files = len(files)
    t_file, t_body, t_group, t_tu = r.T_FILE, r.T_BODY, r.T_GROUP, r.T_TU
    drop, walk = xmlstream.drop, r._walk
    docs: list[Document] = []
    segs = None
    # (element, role, no_translate) of each open element the stream reports
    stack: list[tuple[object, int, bool]] = [(root, _ROOT, False)]
    for event, el in stream:
        if event == "start":
            top, role, no_translate = stack[-1]
            if el.getparent() is not top:
                stack.append((el, _INSIDE, False))  # under an element the walk does not enter
            elif role == _BODY:  # <body> or a walked <group>
                tag = el.tag
                if tag == t_tu:
                    stack.append((el, _UNIT, no_translate))
                elif tag == t_group:
                    # A group's translate="no" applies to the units inside unless they say otherwise.
                    flag = el.get("translate")
                    stack.append((el, _BODY, no_translate if flag is None else flag == "no"))
                else:
                    stack.append((el, _INSIDE, False))
            elif role == _FILE:
                stack.append((el, _BODY if el.tag == t_body else _INSIDE, False))
            elif role == _ROOT and el.tag == t_file:
                k = len(docs) + 1
                if out is None:
                    if k > 1:
                        raise _Restart  # several files: document ids are "path#k"
                    _late_dialect(r, uris, el.itersiblings(preceding=True), el)
                    src = r.src_override or normalise_tag(el.get("source-language"))
                    tgt = r.tgt_override or normalise_tag(el.get("target-language"))
                    if not el.get("source-language") or not src or not tgt:
                        raise _Restart  # a warning to give first, or languages found further on
                    langs.append((src, tgt))
                src, tgt = langs[k - 1]
                r.open_file(path if n_files == 1 else f"{path}#{k}", src, tgt)
                segs = sink()
                stack.append((el, _FILE, False))
            else:
                stack.append((el, _INSIDE, False))
            continue
        _el, role, no_translate = stack.pop()
        if role == _UNIT:
            walk((el,), no_translate, segs)
        elif role == _FILE:
            docs.append(r.document(el, segs.done()))
        elif role == _ROOT:
            if out is None:
                _late_dialect(r, uris, iter(el), None if docs else el)
            continue  # the root is kept
        else:
            continue  # inside a unit or an ignored element: freed with it
        drop(el)
    if not docs:
        raise InputError(path, "is an XLIFF 1.x file without any <file> element")
    return r.finish(docs, langs)


def _late_dialect(r: _Reader, uris: set, children, first_file) -> None:
    """Add the namespaces declared on root children (namespaces are sometimes declared on <file>
    only) to `uris`; the dialect they make may change only before the first file is read."""
    for c in children:
        if isinstance(c.tag, str):
            uris.update(c.nsmap.values())
    if first_file is not None:
        uris.update(first_file.nsmap.values())
    dialect = _dialect_of_uris(uris)
    if dialect != r.dialect:
        if first_file is None:
            raise _Restart  # a dialect known too late for the units already read
        r.dialect = dialect
