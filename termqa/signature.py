"""The run signature: everything needed to reproduce a score, printed in every output.

In the spirit of sacrebleu's `Signature`: one typed object built from the run's settings, in which
each component contributes its own part (tool, glossaries, lemmatisers, judge and its temperature,
prompts, exhaustive mode, domain, penalties). `short()` is the line a paper or a CI log quotes,
`long()` spells every part out, `id` is a short handle for places with no room (XLIFF notes, CAT
comments), and `rescored()` derives the signature of the same verdicts under another penalty table.

Only settings that change a verdict or a score belong here; where a file came from (paths, the config
file) is recorded beside it in `settings` but never changes the id.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence

from termqa.config import Settings, VariantLevel
from termqa.labels import penalty_table_hash
from termqa.version import __version__


def glossary_hash(content_hashes: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(sorted(content_hashes)).encode()).hexdigest()


def text_hash(text: Optional[str]) -> Optional[str]:
    """A short hash of a free text setting (the domain): it changes what the judge is told."""
    return hashlib.sha256(text.encode()).hexdigest()[:8] if text else None


@dataclass(frozen=True)
class JudgePart:
    """The judge's contribution: which model, where, how hot, with which prompts."""

    model: str
    endpoint: str
    temperature: float = 0.0
    prompt_versions: Mapping[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"model": self.model, "endpoint": self.endpoint, "temperature": self.temperature,
                "prompt_versions": dict(self.prompt_versions)}


@dataclass(frozen=True)
class Signature:
    """Everything that changes a verdict or a score in one run."""

    glossaries: tuple[tuple[str, str, str], ...]  # (path, format, sha256) per glossary file
    lemmatisers: Mapping[str, str]  # language -> lemmatiser name and version
    penalties: Mapping[str, float]
    judge: Optional[JudgePart] = None
    exhaustive: bool = False
    domain: Optional[str] = None
    decisions: Optional[str] = None  # sha256 of the reviewer decisions file applied, if any
    variants: VariantLevel = Settings.variants  # term-variant detection level (the run's default)
    settings: Mapping[str, Any] = field(default_factory=dict)  # recorded, not part of the id
    # parts a derived run adds after the standard ones, e.g. (("compare", "3"), ("refs", "shared"))
    extra: tuple[tuple[str, str], ...] = ()
    tool_version: str = __version__
    rescored_from: Optional[str] = None  # penalties hash of the run this one was re-scored from

    # --- derived values ---------------------------------------------------------------------------

    @property
    def glossary_hash(self) -> str:
        return glossary_hash([sha for _p, _f, sha in self.glossaries])

    @property
    def penalties_hash(self) -> str:
        return penalty_table_hash(self.penalties)

    @property
    def domain_hash(self) -> Optional[str]:
        return text_hash(self.domain)

    def _parts(self) -> list[tuple[str, str, str]]:
        """(short key, long key, value) in signature order."""
        lem = ";".join(f"{k}={v}" for k, v in sorted(self.lemmatisers.items()))
        parts = [("termqa", "version", self.tool_version), ("gloss", "glossary", self.glossary_hash[:12]),
                 ("lem", "lemmatiser", lem)]
        j = self.judge
        if j is None:
            parts += [("judge", "judge", "none"), ("prompts", "prompts", "none")]
        else:
            prompts = ",".join(v for _k, v in sorted(j.prompt_versions.items())) or "none"
            parts += [("judge", "judge", f"{j.model}@{j.endpoint}"), ("t", "temperature", _num(j.temperature)),
                      ("prompts", "prompts", prompts), ("ex", "exhaustive", "yes" if self.exhaustive else "no"),
                      ("dom", "domain", self.domain_hash or "none")]
        if self.decisions:
            parts.append(("dec", "decisions", self.decisions[:12]))
        if self.variants != VariantLevel.NONE:  # older signatures stay as they were
            parts.append(("var", "variants", str(self.variants)))
        parts.append(("pen", "penalties", self.penalties_hash))
        parts += [(k, k, v) for k, v in self.extra]
        return parts

    def short(self) -> str:
        return "|".join(f"{k}:{v}" for k, _long, v in self._parts())

    def long(self) -> str:
        return " | ".join(f"{long}={v}" for _k, long, v in self._parts())

    def __str__(self) -> str:
        return self.short()

    @property
    def id(self) -> str:
        return hashlib.sha256(self.short().encode()).hexdigest()[:12]

    # --- derived signatures -----------------------------------------------------------------------

    def rescored(self, penalties: Mapping[str, float]) -> "Signature":
        """The signature of the same verdicts scored under another penalty table."""
        return replace(self, penalties=MappingProxyType(dict(penalties)), rescored_from=self.penalties_hash)

    def with_extra(self, **parts: Any) -> "Signature":
        return replace(self, extra=self.extra + tuple((k, str(v)) for k, v in parts.items()))

    def with_settings(self, **settings: Any) -> "Signature":
        """Recorded settings added (e.g. the config file in use); the id does not change."""
        return replace(self, settings=MappingProxyType({**self.settings, **settings}))

    # --- JSON -------------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        out = {
            "string": self.short(),
            "long": self.long(),
            "id": self.id,
            "tool": f"termqa {self.tool_version}",
            "glossaries": [{"path": p, "format": f, "sha256": s} for p, f, s in self.glossaries],
            "glossary_hash": self.glossary_hash,
            "lemmatiser": dict(self.lemmatisers),
            "judge": self.judge.as_dict() if self.judge else None,
            "exhaustive": self.exhaustive,
            "domain": self.domain,
            "domain_hash": self.domain_hash,
            "decisions": self.decisions,
            "variants": str(self.variants),
            "penalties": dict(self.penalties),
            "penalties_hash": self.penalties_hash,
            "settings": dict(self.settings),
        }
        if self.extra:
            out["extra"] = dict(self.extra)
        if self.rescored_from:
            out["rescored_from"] = self.rescored_from
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Signature":
        """The signature of a saved result (`to_dict` of a run, possibly an older termqa's)."""
        j = data.get("judge")
        judge = None
        if j:
            judge = JudgePart(j.get("model") or "", j.get("endpoint") or "", float(j.get("temperature") or 0.0),
                              MappingProxyType(dict(j.get("prompt_versions") or {})))
        tool = str(data.get("tool") or f"termqa {__version__}").split()[-1]
        return cls(
            glossaries=tuple((g.get("path"), g.get("format"), g.get("sha256")) for g in data.get("glossaries") or ()),
            lemmatisers=MappingProxyType(dict(data.get("lemmatiser") or {})),
            penalties=MappingProxyType(dict(data.get("penalties") or {})),
            judge=judge, exhaustive=bool(data.get("exhaustive", (data.get("settings") or {}).get("exhaustive"))),
            domain=data.get("domain", (data.get("settings") or {}).get("domain")),
            decisions=data.get("decisions"),
            # a result from before variant levels was made with none
            variants=VariantLevel.parse(data.get("variants", (data.get("settings") or {}).get("variants"))
                                        or VariantLevel.NONE, "variant level"),
            settings=MappingProxyType(dict(data.get("settings") or {})),
            extra=tuple((k, str(v)) for k, v in (data.get("extra") or {}).items()),
            tool_version=tool, rescored_from=data.get("rescored_from"),
        )


def build(*, glossaries: Sequence, lemmatisers: Mapping[str, str], penalties: Mapping[str, float],
          judge: Optional[JudgePart], exhaustive: bool = False, domain: Optional[str] = None,
          decisions: Optional[str] = None, settings: Optional[Mapping[str, Any]] = None,
          variants: VariantLevel) -> Signature:
    """The signature of a run over `glossaries` (Glossary records)."""
    return Signature(
        glossaries=tuple((g.path, g.format, g.content_hash) for g in glossaries),
        lemmatisers=MappingProxyType(dict(lemmatisers)), penalties=MappingProxyType(dict(penalties)),
        judge=judge, exhaustive=exhaustive, domain=domain, decisions=decisions,
        variants=VariantLevel.parse(variants, "variant level"),
        settings=MappingProxyType(dict(settings or {})),
    )


def _num(x: float) -> str:
    return f"{x:g}"
