"""The systems of `termqa compare`: which systems the inputs hold, reading each, and refusing inputs that
do not translate the same source (or hold several target languages in one system).

Separate from termqa.evaluate.compare because these checks run before any counting and name the input
that does not fit; they need the format readers, not the pipeline.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Sequence

from termqa.errors import InputError, MissingLanguageError, UsageError
from termqa.inputs import expand
from termqa.lang.langtags import primary
from termqa.pipeline.read import read_bilingual_file


@dataclass(frozen=True)
class SystemSpec:
    name: str
    inputs: tuple[str, ...]
    tgt_lang: Optional[str] = None


def plan_systems(inputs: Sequence[str], *, names: Sequence[str] = (), tgt_langs: Sequence[str] = (),
                 src_lang: Optional[str] = None) -> list[SystemSpec]:
    """Which systems the inputs hold: one per input, or one per target language of a single input."""

    inputs = list(inputs)
    tgt_langs = [t for t in tgt_langs if t]
    if not inputs:
        raise UsageError("no input files given", fix="name two or more XLIFF/TMX files, or one multilingual TMX")
    if len(inputs) == 1:
        langs = list(tgt_langs)
        if not langs:
            files = expand(inputs)
            try:
                for f in files:
                    read_bilingual_file(f, src_lang=src_lang)
            except MissingLanguageError as exc:
                if exc.which != "target" or len(exc.candidates) < 2:
                    raise
                langs = list(exc.candidates)
        if len(langs) < 2:
            raise UsageError(f"{inputs[0]} holds one translation; compare needs at least two systems",
                             fix="name two or more files, or one TMX with several target languages "
                                 "(--tgt-lang repeated picks them)")
        specs = [SystemSpec(lang, (inputs[0],), lang) for lang in langs]
    else:
        if len(tgt_langs) > 1:
            raise UsageError("several --tgt-lang with several inputs is ambiguous",
                             fix="give one --tgt-lang for all inputs, or compare the languages of one TMX")
        tgt = tgt_langs[0] if tgt_langs else None
        specs = [SystemSpec(_stem(p), (p,), tgt) for p in inputs]
        if len({s.name for s in specs}) < len(specs):
            # same file name in different folders: the path as given tells them apart
            specs = [replace(s, name=s.inputs[0]) for s in specs]
    if names:
        if len(names) != len(specs):
            raise UsageError(f"{len(names)} --name for {len(specs)} systems",
                             fix="give one --name per system, in input order")
        if len(set(names)) != len(names):
            raise UsageError("system names must be different", fix="give each --name once")
        specs = [replace(s, name=n) for s, n in zip(specs, names)]
    if len({s.name for s in specs}) < len(specs):
        raise UsageError("two systems would have the same name", fix="name them with --name")
    return specs


def _stem(path: str) -> str:
    p = Path(path)
    return p.name if p.is_dir() else p.stem


def read_system(spec: SystemSpec, src_lang: Optional[str]):
    """The files of one system, read once, in input order (folders expanded, sorted)."""

    return [read_bilingual_file(f, src_lang=src_lang, tgt_lang=spec.tgt_lang) for f in expand(spec.inputs)]


def documents_of(files) -> list:
    """The documents of a system's files, in order."""
    return [d for f in files for d in f.documents]


def _norm_text(s: str) -> str:
    return " ".join(s.split())


def one_pair_per_system(systems: Sequence[tuple[SystemSpec, list]]) -> None:
    """Refuse a system whose documents have several target languages: compare takes one language pair
    per system (`termqa check` gives per-language results of a multilingual delivery)."""
    for spec, docs in systems:
        langs = sorted({primary(d.tgt_lang or "") for d in docs})
        if len(langs) > 1:
            raise UsageError(f"system {spec.name} has documents in {len(langs)} target languages ({', '.join(langs)}); "
                             "compare takes one language pair per system",
                             fix="compare the files of one target language at a time (termqa check reports a "
                                 "multilingual delivery per language)")


def check_same_source(systems: Sequence[tuple[SystemSpec, list]]) -> None:
    """Refuse inputs that do not translate the same source, naming the first difference.

    Documents are matched by position; segments by position, and must have the same source text
    (whitespace aside). Unit and segment ids may differ (MT outputs are often renumbered): the text is
    what the systems translated.
    """
    (ref_spec, ref_docs), rest = systems[0], systems[1:]
    for spec, docs in rest:
        where = ", ".join(spec.inputs)
        if len(docs) != len(ref_docs):
            raise InputError(where, f"has {len(docs)} document(s) where {ref_spec.name} has {len(ref_docs)}; "
                             "compare needs translations of the same source",
                             fix="give files that translate the same documents, in the same order")
        for k, (d, r) in enumerate(zip(docs, ref_docs)):
            if primary(d.src_lang) != primary(r.src_lang):
                raise InputError(where, f"document {k + 1} is in {d.src_lang} where {ref_spec.name} is in "
                                 f"{r.src_lang}", fix="compare translations of the same source")
            for i, (s, t) in enumerate(itertools.zip_longest(d.segments, r.segments)):
                if s is None or t is None:
                    present = s or t
                    owner = spec.name if s is not None else ref_spec.name
                    raise InputError(where, f"document {d.doc_id}: segment {i + 1} (unit {present.unit_id}) exists "
                                     f"only in {owner} ({len(d.segments)} segments against "
                                     f"{len(r.segments)} in {ref_spec.name})",
                                     fix="compare translations of the same source segments")
                if _norm_text(s.source) != _norm_text(t.source):
                    raise InputError(where, f"document {d.doc_id}: segment {i + 1} (unit {s.unit_id}"
                                     f"{' seg ' + s.seg_id if s.seg_id else ''}) has source "
                                     f"{_clip(s.source)!r} where {ref_spec.name} has {_clip(t.source)!r}",
                                     fix="compare translations of the same source segments")


def _clip(s: str, n: int = 60) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"
