"""`termqa inspect`: what termqa read from a file, as one JSON-able object.

Bilingual files: format, dialect, languages, documents, segment counts, word counts. Glossaries:
concepts, terms per language and status, DNT count, warnings. `problems` (violations of the format's
rules) make `inspect` refuse the file with exit code 2, after printing what it read.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from termqa import glossaryhygiene as hygiene
from termqa.errors import MissingLanguageError
from termqa.formats.csvgloss import assign_languages
from termqa.formats.unitstate import withhold
from termqa.model import STATUSES, BilingualFile, Glossary
from termqa.pipeline.read import read_file
from termqa.shownpath import shown_path, without_path
from termqa.wordcount import source_words, target_words



def describe_bilingual(f: BilingualFile) -> dict:
    segs = f.segments
    # what `check` leaves out by state (termqa.formats.unitstate): `translated` counts what it will check, so
    # inspect and the check's JSON say the same thing about one file
    checked, withheld = withhold(f.documents)
    return {
        "path": f.path,
        "kind": "bilingual",
        "format": f.format,
        "version": f.version,
        "dialect": f.dialect,
        "source_language": f.src_lang,
        "target_language": f.tgt_lang,
        "languages": list(f.languages),
        "documents": len(f.documents),
        "segments": {
            "total": len(segs),
            # segments with a target `check` will check: total = translated + not_translated + empty
            "translated": sum(1 for d in checked for s in d.segments if s.translated),
            "empty": sum(1 for s in segs if not s.translated),
            "locked": sum(1 for s in segs if s.locked),
            "skipped": sum(d.skipped for d in f.documents),
            # with a target, but in a state saying they are not translated yet: `check` leaves them out
            "not_translated": withheld.segments,
            "not_translated_units": withheld.units,  # the check's summary.units_not_translated
            "not_translated_states": dict(withheld.states),
        },
        "source_words": source_words(f.documents),  # the one definition: termqa.wordcount
        "target_words": target_words(f.documents),
        "per_document": [
            {"doc_id": d.doc_id, "original": d.original, "source_language": d.src_lang,
             "target_language": d.tgt_lang, "segments": len(d.segments), "skipped": d.skipped}
            for d in f.documents
        ],
        "warnings": list(f.warnings),
        "problems": list(f.problems),
    }


def describe_glossary(g: Glossary) -> dict:
    langs: dict = defaultdict(lambda: {"terms": 0, "by_status": Counter()})
    for c in g.concepts:
        for t in c.terms:
            entry = langs[t.lang or "(none)"]
            entry["terms"] += 1
            entry["by_status"][t.status] += 1
    return {
        "path": g.path,
        "kind": "glossary",
        "format": g.format,
        "dialect": g.dialect,
        "concepts": len(g.concepts),
        "languages": {
            lang: {"terms": v["terms"], "by_status": {s: v["by_status"].get(s, 0) for s in STATUSES
                                                       if v["by_status"].get(s, 0)}}
            for lang, v in sorted(langs.items())
        },
        "dnt": sum(1 for c in g.concepts if c.dnt),
        "sha256": g.content_hash,
        "warnings": list(g.warnings) + hygiene.warning(hygiene.function_word_entries(g.concepts)),
        "problems": list(g.problems),
    }


def inspect_file(path, *, src_lang=None, tgt_lang=None, glossary_lang=None) -> dict:
    """Read any supported file and describe it."""

    note, stand_in_target, stand_in_key = None, False, "target_language"
    try:
        obj = read_file(path, src_lang=src_lang, tgt_lang=tgt_lang, default_lang=glossary_lang)
    except MissingLanguageError as exc:
        # inspect describes the file as it is: read it with a stand-in language and say so
        if (exc.which == "target" and tgt_lang) or (exc.which == "source" and src_lang):
            raise
        # a missing target may be one of several the file offers (TMX); a missing source is unknown
        stand_in = exc.candidates[0] if exc.candidates and exc.which == "target" else "und"
        langs = {"src_lang": src_lang, "tgt_lang": tgt_lang}
        langs["tgt_lang" if exc.which == "target" else "src_lang"] = stand_in
        try:
            obj = read_file(path, **langs, default_lang=glossary_lang)
        except MissingLanguageError:  # both languages missing: say which one to pass first
            raise exc from None
        opt = "--tgt-lang" if exc.which == "target" else "--src-lang"
        note = (f"{exc.problem}; counted here with {stand_in}" if stand_in != "und"
                else f"the file names no {exc.which} language (check needs {opt})")
        stand_in_target = stand_in == "und"
        stand_in_key = "target_language" if exc.which == "target" else "source_language"
    if isinstance(obj, Glossary):
        if src_lang and tgt_lang:  # a glossary without language columns (two bare columns, OmegaT) takes them
            obj = assign_languages(obj, src_lang, tgt_lang)
        return describe_glossary(obj)
    info = describe_bilingual(obj)
    if note:
        info["warnings"].insert(0, note)
        if stand_in_target:
            info[stand_in_key] = None
    return info


def render_text(info: dict) -> str:
    """A short human-readable summary of `inspect_file`'s object."""
    lines = [f"{shown_path(info['path'])}: {info['format']}" + (f" ({info['dialect']})" if info.get("dialect") else "")]
    if info["kind"] == "bilingual":
        s = info["segments"]
        lines += [
            f"  languages: {info['source_language']} -> {info['target_language']}"
            + (f" (file has: {', '.join(info['languages'])})" if len(info["languages"]) > 2 else ""),
            f"  documents: {info['documents']}",
            f"  segments: {s['total']} ({s['translated']} translated and checked, {s['empty']} empty, "
            f"{s['locked']} locked; {s['skipped']} units not translatable, skipped)",
        ]
        if s.get("not_translated"):
            states = ", ".join(f"{k} {n}" for k, n in s["not_translated_states"].items())
            lines.append(f"  not translated yet: {s['not_translated']} segments with a target "
                         f"({s.get('not_translated_units', 0)} units; state {states}); "
                         "check leaves them out (--include-states)")
        lines += [
            f"  words: {info['source_words']:,} source, {info['target_words']:,} target",
        ]
    else:
        lines += [f"  concepts: {info['concepts']} ({info['dnt']} do-not-translate)"]
        for lang, v in info["languages"].items():
            st = ", ".join(f"{k} {n}" for k, n in v["by_status"].items())
            lines.append(f"  {lang}: {v['terms']} terms ({st})")
    for w in info["warnings"]:
        lines.append(f"  warning: {without_path(info['path'], w)}")
    for p in info["problems"]:
        lines.append(f"  problem: {without_path(info['path'], p)}")
    return "\n".join(lines)
