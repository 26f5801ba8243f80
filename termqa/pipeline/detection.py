"""How far detection goes in one run, for one source language: the small record the stages below
`count()` take instead of a positional variant level.

`count()` makes one per source language from the run's settings (termqa.config.Settings.variants);
the source index, the detection passes and the target forms read it, and nothing below it re-reads
the settings or restates a default.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from termqa.config import Settings, VariantLevel
from termqa.lang.langtags import primary


@dataclass(frozen=True)
class Detection:
    """The variant level (none | static | dynamic, README "Term variants") and the source language's
    function words that steer the in-context variant rules (empty without variants)."""

    variants: VariantLevel
    stop: frozenset = frozenset()

    def __post_init__(self):
        object.__setattr__(self, "variants", VariantLevel.parse(self.variants, "variant level"))
        object.__setattr__(self, "stop", frozenset(self.stop))

    @classmethod
    def of(cls, settings: Settings, src_lang: str, stop_words: Callable[[str], frozenset]) -> "Detection":
        """The detection of a run with `settings` on documents whose source language is `src_lang`;
        `stop_words(primary language)` gives its function words (termqa.pipeline.align.stop_words)."""
        if settings.variants == VariantLevel.NONE:
            return cls(settings.variants)
        return cls(settings.variants, stop_words(primary(src_lang)))

    @property
    def any_variants(self) -> bool:
        return self.variants != VariantLevel.NONE
