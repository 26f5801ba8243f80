"""TMX 1.1-1.4 reader: one document per file, one segment per `<tu>`, for one language pair.

A TMX can hold any number of languages per translation unit; termqa checks one pair, so the reader
decides a source and a target language and takes those two `<tuv>`s from every `<tu>`.

Language rules (tags compared case-insensitively through termqa.lang.langtags):
- source: `src_lang` if given; else `header@srclang`; when that is `*all*` (any language may be the
  source) or missing, the language of the first `<tuv>` that is most common across the units
  (ties: the one seen first). A wanted tag is matched against the languages seen in the file:
  exact first, then a bare language against its only region (`fr` takes `fr-CA` when it is the
  only French), then another region of the same language (with a warning).
- target: `tgt_lang` if given, matched the same way; else the only language other than the source;
  if there are several, InputError listing them ("pass --tgt-lang").
- a `<tuv>` names its language with `xml:lang` (TMX 1.4) or `lang` (TMX 1.1-1.3).
- a `<tu>` without the source language is left out (counted in a warning); one without the
  target language gives a segment whose target is None. `tu@srclang` is not used: the pair is
  decided once for the whole file.

Inline: `bpt`/`ept`/`ph`/`it`/`ut` hold native code, kept as InlineCode.data, never text (their
`<sub>` text included); `hi` is a container whose content is text.
"""
from __future__ import annotations

from collections import Counter

from termqa.errors import InputError, MissingLanguageError
from termqa.lang.langtags import match_quality, normalise_tag
from termqa.model import BilingualFile, Document, Segment

from . import xmlsafe, xmlstream
from .sink import SinkFactory, TupleSink
from .inline import TMX, flatten
from .xmlsafe import XML_LANG, ns

# `tgt_lang` asking for every target language of a multilingual memory, each pair a document of its own
# ("path#tgt"), read in one pass over the units (termqa.pipeline.pairs)
EVERY_TARGET = "*every*"


def _elements(el, name: str, uri: str):
    tag = f"{{{uri}}}{name}" if uri else name
    return [c for c in el if c.tag == tag]


def _tuv_lang(tuv) -> str:
    return normalise_tag(tuv.get(XML_LANG) or tuv.get("lang") or "")


def _listing(langs) -> str:
    return ", ".join(langs) if langs else "none"


def _resolve(path: str, want: str, candidates: list[str], what: str, option: str,
             warnings: list[str]) -> str:
    """The language among `candidates` that `want` names, or InputError saying what to pass."""
    want = normalise_tag(want)
    scored = [(match_quality(want, c), c) for c in candidates]
    best = max((q for q, _ in scored), default=0)
    if best == 0:
        raise InputError(
            path,
            f"has no {what} text in {want!r}; languages in the file: {_listing(candidates)}",
            fix=f"pass {option} with one of them",
        )
    hits = [c for q, c in scored if q == best]
    if len(hits) > 1:
        raise InputError(
            path,
            f"{what} language {want!r} is ambiguous: the file has {_listing(hits)}",
            fix=f"pass {option} with one of them",
        )
    if best == 1:
        warnings.append(f"no {what} text in {want!r}; using {hits[0]!r}, another region of the same language")
    return hits[0]


def _pick(tuvs: list[tuple[str, object]], lang: str, exclude=None):
    """The tuv in `lang`; failing that, the only one whose tag is `lang`'s bare language or region."""
    for tag, tuv in tuvs:
        if tag == lang and tuv is not exclude:
            return tuv
    close = [tuv for tag, tuv in tuvs if tuv is not exclude and match_quality(lang, tag) == 2]
    return close[0] if len(close) == 1 else None


def read(source) -> BilingualFile:
    """Read a TMX file whose root element (`source.root`) is already parsed (see formats.xmlsafe)."""
    path, root, src_lang, tgt_lang = source.path, source.root, source.src_lang, source.tgt_lang
    uri = ns(root.tag)
    header = next(iter(_elements(root, "header", uri)), None)
    body = next(iter(_elements(root, "body", uri)), None)
    if body is None:
        raise InputError(path, "has no <body>: not a usable TMX document")
    info = {"srclang": header.get("srclang") if header is not None else None, "version": root.get("version"),
            "body": True}
    return _read_units(path, uri, info, lambda: iter(_elements(body, "tu", uri)), src_lang=src_lang,
                       tgt_lang=tgt_lang)


def read_stream(path: str, *, src_lang=None, tgt_lang=None, sink: SinkFactory = TupleSink) -> BilingualFile:
    """Read a TMX file without holding its XML tree: two passes of lxml's iterparse over the file.

    The first pass gathers the languages (and the header's srclang), the second builds the segments;
    each `<tu>` is dropped as soon as it is read, and the segments go to `sink()` as they are made (the
    pipeline's keeps them compressed), so memory holds no XML. Gives a record
    equal to `read`'s on the parsed tree (tested). The parser settings are formats.xmlsafe's:
    no entities, no DTD, no network.
    """
    xmlsafe.refuse_entities(xmlsafe.prolog_of(path), path)
    info: dict = {}
    passes = iter((info, {}))  # the first pass fills `info` (root, header, body); the second needs none
    uri = ns(xmlstream.root_of(path).tag)
    return _read_units(path, uri, info, lambda: _stream_tus(path, uri, next(passes)), src_lang=src_lang,
                       tgt_lang=tgt_lang, sink=sink)


def _stream_tus(path: str, uri: str, info: dict):
    """The `<tu>` elements of a TMX file one at a time, each dropped once the caller moves on.

    `info` receives the root's version, the header's srclang and whether a body was seen.
    """
    depth = 0
    tu_tag, body_tag, header_tag = _tag("tu", uri), _tag("body", uri), _tag("header", uri)
    for event, el in xmlstream.events(path):
        if event == "start":
            depth += 1
            if depth == 1:
                info["version"] = el.get("version")
            elif depth == 2 and el.tag == body_tag and "body" not in info:
                info["body"] = el
            continue
        depth -= 1
        if depth == 1 and el.tag == header_tag and "srclang" not in info:
            info["srclang"] = el.get("srclang")
        elif depth == 2 and el.tag == tu_tag and el.getparent() is not None and el.getparent().tag == body_tag:
            if info.get("body") is not el.getparent():
                continue  # a second <body>: the tree reader reads the first only
            yield el
            xmlstream.drop(el)


def _tag(name: str, uri: str) -> str:
    return f"{{{uri}}}{name}" if uri else name


def _read_units(path: str, uri: str, info: dict, tus, *, src_lang=None, tgt_lang=None,
                sink: SinkFactory = TupleSink) -> BilingualFile:
    """The file's record from its `<tu>` elements: `tus()` gives them afresh for each of the two passes.

    `info`: the header's srclang, the root's version and whether the file has a body (filled by the
    first pass when streaming). `sink`: makes what holds each document's segments as they are read
    (formats.sink; compressed when the pipeline reads a big memory, never millions of records at once).
    """
    warnings: list[str] = []
    problems: list[str] = []

    # First pass: every language seen, and the first language of every unit.
    seen: dict[str, str] = {}  # lowercase tag -> normalised tag, in first-seen order
    first_langs: Counter = Counter()
    tuid_counts: Counter = Counter()
    for n, tu in enumerate(tus(), start=1):
        uid = tu.get("tuid") or f"{n}"
        tuid_counts[uid] += 1
        first = None
        for tuv in _elements(tu, "tuv", uri):
            lang = _tuv_lang(tuv)
            if not lang:
                problems.append(f"tu {uid!r}: a <tuv> has no xml:lang; it was left out")
                continue
            seen.setdefault(lang.lower(), lang)
            if first is None:
                first = lang
        if first is not None:
            first_langs[first] += 1
    languages = list(seen.values())
    if info.get("body") is None:
        raise InputError(path, "has no <body>: not a usable TMX document")
    header_src = info.get("srclang") or ""

    if src_lang:
        src = _resolve(path, src_lang, languages, "source", "--src-lang", warnings) if languages else normalise_tag(src_lang)
    elif header_src.strip() and header_src.strip() != "*all*":
        src = _resolve(path, header_src, languages, "source", "--src-lang", warnings) if languages else normalise_tag(header_src)
    elif first_langs:
        # `*all*`: any language may be the source. Take the most common first-tuv language;
        # Counter.most_common keeps first-seen order among equal counts.
        src = first_langs.most_common(1)[0][0]
    else:
        raise InputError(path, "has no source language (header srclang is missing or *all*)", fix="pass --src-lang")

    others = [lang for lang in languages if lang != src]
    if tgt_lang == EVERY_TARGET and len(others) >= 2:
        targets = others  # every pair, a document each (termqa.pipeline.pairs)
    elif tgt_lang and tgt_lang != EVERY_TARGET:
        targets = [_resolve(path, tgt_lang, others, "target", "--tgt-lang", warnings) if others
                   else normalise_tag(tgt_lang)]
    elif len(others) == 1 or (tgt_lang and others):
        targets = others[:1]
    else:
        raise MissingLanguageError(
            path,
            f"has {len(others)} languages besides the source {src!r} ({_listing(others)}); "
            "termqa checks one pair",
            fix="pass --tgt-lang",
            candidates=tuple(others),
        )

    # Second pass: the segments of the chosen pair (or of every pair, each its own document).
    several = len(targets) > 1
    by_target = {t: sink() for t in targets}
    without_source = 0
    for n, tu in enumerate(tus(), start=1):
        uid = tu.get("tuid") or f"{n}"
        tuvs = [(lang, tuv) for tuv in _elements(tu, "tuv", uri) if (lang := _tuv_lang(tuv))]
        s_tuv = _pick(tuvs, src)
        if s_tuv is None:
            without_source += 1
            continue
        source, source_codes = _seg_text(s_tuv, uri)
        for tgt, segments in by_target.items():
            t_tuv = _pick(tuvs, tgt, exclude=s_tuv)
            if t_tuv is not None:
                target, target_codes = _seg_text(t_tuv, uri)
            else:
                target, target_codes = None, ()
            segments.append(
                Segment(
                    doc_id=f"{path}#{tgt}" if several else path,
                    unit_id=uid,
                    seg_id="",
                    source=source,
                    target=target,
                    src_lang=src,
                    tgt_lang=tgt,
                    index=len(segments),
                    source_codes=source_codes,
                    target_codes=target_codes,
                )
            )
    if without_source:
        warnings.append(f"{without_source} translation unit(s) have no {src} text and were left out")
    dup = sorted(uid for uid, k in tuid_counts.items() if k > 1)
    if dup:
        # TMX does not require unique tuids, but segment keys then collide: say so.
        warnings.append(f"tuid used by more than one <tu>: {_listing(dup[:10])}")

    docs = tuple(Document(doc_id=f"{path}#{tgt}" if several else path, path=path, format="tmx", src_lang=src,
                          tgt_lang=tgt, segments=segments.done()) for tgt, segments in by_target.items())
    return BilingualFile(
        path=path,
        format="tmx",
        documents=docs,
        version=info.get("version"),
        src_lang=src,
        tgt_lang=None if several else targets[0],
        languages=tuple(languages),
        warnings=tuple(warnings),
        problems=tuple(problems),
    )


def _seg_text(tuv, uri: str):
    seg = next(iter(_elements(tuv, "seg", uri)), None)
    if seg is None:
        return "", ()  # a tuv without <seg> is invalid; read it as empty rather than fail
    return flatten(seg, TMX, namespace=uri)
