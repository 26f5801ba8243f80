"""Bilingual formats read through translate-toolkit (GPL, the optional extra `termqa[toolkit]`).

Two formats: gettext PO/POT (`format="po"`) and Qt Linguist TS 2.x (`format="qt-ts"`). Each file
is one document. translate-toolkit is imported only when such a file is read, so termqa itself
never needs it; this module only reads, it never writes anything back (annotation is XLIFF-only).

Text is plain: these formats have no inline codes, so placeholders (`%d`, `%n`, `{name}`) and Qt
accelerator ampersands (`&Save`) stay in the text as written.

Languages. An argument (`--src-lang`/`--tgt-lang`) overrides the file, as for every other reader.
  PO   target: the `Language:` header; when empty, translate-toolkit's fallbacks (`X-Poedit-Language`,
       `Language-Code`, a guess from `Language-Team`) with a warning. Source: `X-Source-Language`,
       which few tools write; gettext has no standard header for it.
  TS   `<TS sourcelanguage=...>` and `<TS language=...>`; `C`/`POSIX` name no language.
Without one, MissingLanguageError (`which` says which side).

Units and segments.
  PO   one unit per entry; the header entry (empty msgid) and obsolete `#~` entries are left out
       (obsolete ones counted in a warning). A plural entry gives one segment per `msgstr[n]`,
       `seg_id` "p0", "p1"..., whose source is msgid for p0 and msgid_plural for the rest; other
       entries give one segment with `seg_id` "". Fuzzy (`isfuzzy()`) -> state "fuzzy"; translated
       (`istranslated()`) -> "translated"; empty -> "needs-translation"; fuzzy units are not checked by
       default (`formats/unitstate.py`). Nothing is locked.
  TS   one unit per `<message>` of every `<context>`; `type="vanished"`/`"obsolete"` left out
       (counted in a warning); `type="unfinished"` with text -> state "unfinished" (translate-toolkit's
       `isfuzzy()`; the text, a draft, is kept as the target and `unitstate` leaves it unchecked by
       default); a message without text -> "needs-translation"; otherwise "translated". States come from
       translate-toolkit's unit API (`isobsolete()`, `isfuzzy()`, `istranslated()`), as for PO.
       `numerus="yes"` gives one segment per `<numerusform>` ("p0", "p1"...), all with the one source text. A message without
       `<translation>` has target None.

Unit ids. PO has no ids and positions shift whenever msgmerge adds an entry, so the unit id is
derived from gettext's own key for an entry, (msgctxt, msgid): "po:" + the first 12 hex digits of
the SHA-1 of `msgctxt + "\\x04" + msgid` (just `msgid` when there is no msgctxt, as gettext's .mo
lookup key). It stays the same across re-extractions and in every translation of one template,
which is what `compare` and the verdict cache need. TS uses the message's `id` attribute when it
has one, else "ts:" + the same kind of hash over context name, disambiguation comment and source.
Two entries with the same key break gettext's rules (msgfmt refuses them): reported in `problems`.
"""
from __future__ import annotations

import hashlib
import importlib
import re
from typing import Optional

from termqa.errors import InputError, MissingLanguageError
from termqa.formats.sniff import text_start
from termqa.lang.langtags import normalise_tag
from termqa.model import BilingualFile, Document, Segment

PO, TS = "po", "qt-ts"
_FIX = 'pip install "termqa[toolkit]"'
# A value that can be a language tag (`fr`, `pt_BR`; a glibc `@modifier` is dealt with before).
_TAG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
_NO_LANGUAGE = frozenset({"", "c", "posix"})
# glibc locale modifiers that name a script (`sr@latin`); other modifiers (`ca@valencia`) are dropped.
_SCRIPTS = {"latin": "Latn", "cyrillic": "Cyrl"}
_MAX_LISTED = 10


def _hash_id(prefix: str, *parts: str) -> str:
    key = "\x04".join(parts)
    return f"{prefix}:{hashlib.sha1(key.encode('utf-8')).hexdigest()[:12]}"


def _tag(value: Optional[str]) -> str:
    """A header value as a normalised language tag, or '' when it is not one."""
    v, _, modifier = (value or "").strip().partition("@")
    v = v.split(".", 1)[0]  # `de_DE.UTF-8`
    if v.lower() in _NO_LANGUAGE or not _TAG.match(v):
        return ""
    script = _SCRIPTS.get(modifier.lower())
    if script:
        lang, _, region = v.replace("_", "-").partition("-")
        v = f"{lang}-{script}" + (f"-{region}" if region else "")
    return normalise_tag(v)


def _is_xml(data: bytes) -> bool:

    return text_start(data).startswith("<")


def _import_storage(path: str, what: str, module: str):
    try:
        return importlib.import_module(f"translate.storage.{module}")
    except ImportError:
        raise InputError(path, f"is a {what} file; reading it needs translate-toolkit, which is not installed",
                         fix=_FIX) from None


def _languages(path: str, src: str, tgt: str, src_lang, tgt_lang, *, src_where: str, tgt_where: str):
    s = normalise_tag(src_lang) if src_lang else src
    t = normalise_tag(tgt_lang) if tgt_lang else tgt
    if not s:
        raise MissingLanguageError(path, f"names no source language ({src_where}); pass --src-lang",
                                   fix="e.g. --src-lang en", which="source", candidates=(t,) if t else ())
    if not t:
        raise MissingLanguageError(path, f"names no target language ({tgt_where}); pass --tgt-lang",
                                   fix="e.g. --tgt-lang fr", which="target")
    return s, t


def _close_duplicates(path: str, dups: dict[str, int], what: str, problems: list[str]) -> None:
    if dups:
        listed = ", ".join(repr(k) for k in list(dups)[:_MAX_LISTED])
        more = f" and {len(dups) - _MAX_LISTED} more" if len(dups) > _MAX_LISTED else ""
        problems.append(f"{path}: {what} used by more than one entry: {listed}{more}")


# --- gettext PO ---------------------------------------------------------------------------------


def _read_po(path: str, data: bytes, src_lang, tgt_lang) -> BilingualFile:
    pypo = _import_storage(path, "gettext PO", "pypo")
    try:
        store = pypo.pofile.parsestring(data)
    except Exception as exc:  # translate-toolkit raises ValueError, UnicodeError, its own errors
        raise InputError(path, f"cannot be read as a gettext PO file: {exc}") from None
    warnings: list[str] = []
    problems: list[str] = []
    header = store.parseheader() if store.header() is not None else {}

    tgt = _tag(header.get("Language"))
    if not tgt and not tgt_lang and header:
        guessed = _tag(store.gettargetlanguage())
        if guessed:
            tgt = guessed
            warnings.append(f"{path}: the Language header is empty; target language {guessed} "
                            "taken from the other PO headers")
    src = _tag(header.get("X-Source-Language"))
    s, t = _languages(path, src, tgt, src_lang, tgt_lang,
                      src_where="PO files rarely say it: no X-Source-Language header",
                      tgt_where="no Language header")

    nplurals = None
    m = re.search(r"nplurals\s*=\s*(\d+)", header.get("Plural-Forms", ""))
    if m:
        nplurals = int(m.group(1))

    segs: list[Segment] = []
    seen: set[str] = set()
    dups: dict[str, int] = {}
    obsolete = bad_plurals = 0
    for u in store.units:
        if u.isheader():
            continue
        if u.isobsolete():
            obsolete += 1
            continue
        has_ctx = bool(u.msgctxt)  # `msgctxt ""` is a context too, distinct from none
        ctx = u.getcontext() or ""
        if u.hasplural():
            sources = [str(x) for x in u.source.strings]
            targets = [str(x) for x in u.target.strings] if u.target is not None else []
        else:
            sources = [str(u.source)]
            targets = None
        msgid = sources[0]
        uid = _hash_id("po", ctx, msgid) if has_ctx else _hash_id("po", msgid)
        if uid in seen:
            key = f"{ctx}|{msgid}" if has_ctx else msgid
            dups[key] = dups.get(key, 0) + 1
        seen.add(uid)
        if u.isfuzzy():
            state = "fuzzy"
        elif u.istranslated():
            state = "translated"
        else:
            state = "needs-translation"
        if targets is None:
            segs.append(Segment(path, uid, "", msgid, str(u.target or ""), s, t, len(segs), state=state))
            continue
        if nplurals and any(x.strip() for x in targets) and len(targets) != nplurals:
            bad_plurals += 1
        for k, target in enumerate(targets or [""]):
            source = sources[0] if k == 0 or len(sources) < 2 else sources[1]
            segs.append(Segment(path, uid, f"p{k}", source, target, s, t, len(segs), state=state))

    _close_duplicates(path, dups, "msgctxt/msgid", problems)
    if obsolete:
        warnings.append(f"{path}: {obsolete} obsolete (#~) entr{'y' if obsolete == 1 else 'ies'} left out")
    if bad_plurals:
        warnings.append(f"{path}: {bad_plurals} plural entr{'y has' if bad_plurals == 1 else 'ies have'} "
                        f"a number of msgstr[n] other than the header's nplurals={nplurals}")
    doc = Document(doc_id=path, path=path, format=PO, src_lang=s, tgt_lang=t, segments=tuple(segs))
    return BilingualFile(path=path, format=PO, documents=(doc,), src_lang=s, tgt_lang=t,
                         languages=tuple(dict.fromkeys((s, t))), warnings=tuple(warnings),
                         problems=tuple(problems))


# --- Qt Linguist TS -----------------------------------------------------------------------------


def _read_ts(path: str, data: bytes, src_lang, tgt_lang) -> BilingualFile:
    ts2 = _import_storage(path, "Qt TS", "ts2")
    try:
        store = ts2.tsfile.parsestring(data)
    except Exception as exc:  # e.g. ValueError for a TS 1.x file
        raise InputError(path, f"cannot be read as a Qt TS file: {exc}") from None
    root = store.document.getroot()
    s, t = _languages(path, _tag(root.get("sourcelanguage")), _tag(root.get("language")), src_lang, tgt_lang,
                      src_where="no sourcelanguage attribute on <TS>",
                      tgt_where="no language attribute on <TS>")
    q = store.namespaced
    segs: list[Segment] = []
    seen: set[str] = set()
    dups: dict[str, int] = {}
    gone = 0
    for u in store.units:
        el = u.xmlelement
        tr = el.find(q("translation"))
        if u.isobsolete():  # type="vanished" or "obsolete"
            gone += 1
            continue
        source = str(u.source or "")
        context = u.getcontextname() or ""
        comment = el.findtext(q("comment")) or ""
        uid = el.get("id") or _hash_id("ts", context, comment, source)
        if uid in seen:
            dups[uid] = dups.get(uid, 0) + 1
        seen.add(uid)
        if tr is None:
            segs.append(Segment(path, uid, "", source, None, s, t, len(segs), state="needs-translation"))
            continue
        if u.hasplural():
            forms = [(f"p{k}", f.text or "") for k, f in enumerate(tr.findall(q("numerusform")))] or [("p0", "")]
        else:
            forms = [("", tr.text or "")]
        state = _ts_state(u, forms)
        for seg_id, target in forms:
            segs.append(Segment(path, uid, seg_id, source, target, s, t, len(segs), state=state))

    problems: list[str] = []
    warnings: list[str] = []
    _close_duplicates(path, dups, "message id", problems)
    if gone:
        warnings.append(f"{path}: {gone} vanished/obsolete message{'' if gone == 1 else 's'} left out")
    doc = Document(doc_id=path, path=path, format=TS, src_lang=s, tgt_lang=t, segments=tuple(segs))
    return BilingualFile(path=path, format=TS, documents=(doc,), version=root.get("version"), src_lang=s,
                         tgt_lang=t, languages=tuple(dict.fromkeys((s, t))), warnings=tuple(warnings),
                         problems=tuple(problems))


def _ts_state(unit, forms) -> str:
    """The state of a TS message as translate-toolkit reads it: "unfinished" for an unfinished message with
    text (its `isfuzzy()`), "translated" for a finished one with text, else "needs-translation" (no text at
    all, whatever its type says). What each means for checking is `formats/unitstate.py`'s table."""
    if unit.isfuzzy():
        return "unfinished"
    if unit.istranslated() and any(x.strip() for _, x in forms):
        return "translated"
    return "needs-translation"


def read(source) -> BilingualFile:
    """Read a PO/POT or Qt TS file (told apart by content: TS is XML) into one document."""
    path, data, src_lang, tgt_lang = str(source.path), source.data, source.src_lang, source.tgt_lang
    if _is_xml(data):
        return _read_ts(path, data, src_lang, tgt_lang)
    return _read_po(path, data, src_lang, tgt_lang)
