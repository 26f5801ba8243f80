"""The settings of one run: one typed record (`Settings`), built and checked once.

Where a setting comes from, last wins: its default (defined here, once), the config file
(`termqa.toml`, or `[tool.termqa]` in `pyproject.toml`, found in the current folder or given with
`--config`), the environment (`OPENAI_MODEL`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`: read by the CLI,
once), the command-line flag. A setting has
one name from the flag to the JSON: the flag `--judge-timeout` is the config key `judge_timeout` (or
`judge-timeout`) and the field `Settings.judge_timeout`. Closed sets of values are enums
(`VariantLevel`, `LemmatiserMode`, `AnnotateLevel`): the CLI takes its choices from them, and a value
outside them is refused when the record is made, nowhere else. Relative paths in the config file are
relative to the file's folder. A `[penalties]` table overrides penalties, `[prices]` judge prices.

Adding a setting: add a field to `Settings` with its type and default, and `kind=` if the config file
may hold it (`_setting(...)`: paths, path, str, int, float, bool, list, table); a click option of the
same name in `termqa/cli/options.py` then reaches it through `Settings.build(**flags)`. Nothing else
lists settings: the config file's known keys are the fields that have a kind.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Optional

from termqa.errors import ConfigError, UsageError


class _Choice(str, Enum):
    """A closed set of string values; compares equal to its value and prints as it."""

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__
    __hash__ = str.__hash__  # a member and its value are the same dict key

    @classmethod
    def choices(cls) -> list[str]:
        return [m.value for m in cls]

    @classmethod
    def parse(cls, value: Any, what: str):
        """`value` as a member, or a UsageError listing the choices."""
        try:
            return cls(value)
        except ValueError:
            raise UsageError(f"unknown {what} {value!r}", fix=f"use one of: {', '.join(cls.choices())}") from None


class VariantLevel(_Choice):
    """Term variants found beyond the glossary's forms (README, "Term variants")."""

    NONE = "none"
    STATIC = "static"
    DYNAMIC = "dynamic"


class LemmatiserMode(_Choice):
    """auto: a trained spaCy pipeline on small projects when installed, else lookup tables."""

    AUTO = "auto"
    LOOKUP = "lookup"
    TRAINED = "trained"


class AnnotateLevel(_Choice):
    """Which occurrences become notes in annotated XLIFF."""

    ERRORS = "errors"
    FLAGGED = "flagged"
    ALL = "all"


# --- the defaults, each defined once -----------------------------------------------------------------
DEFAULT_VARIANTS = VariantLevel.DYNAMIC
DEFAULT_LEMMATISER = LemmatiserMode.AUTO
DEFAULT_ANNOTATE_LEVEL = AnnotateLevel.FLAGGED
DEFAULT_JUDGE_TIMEOUT = 60.0  # seconds per judge request
DEFAULT_CONCURRENCY = 8  # judge calls in flight at once
# `termqa compare`'s paired permutation test (termqa.evaluate.ranking)
DEFAULT_ALPHA = 0.05  # significance level
DEFAULT_RESAMPLES = 10_000  # random sign patterns past EXACT_MAX_DOCUMENTS documents
DEFAULT_SEED = 20240601
# `termqa meta-eval` and `termqa biomqm-export` on the bio-MQM dataset (termqa.formats.biomqm)
DEFAULT_PAIR = "en2fr"  # its language pair folder
DEFAULT_WEIGHTING = "severity-25-5-1"  # how its errors weigh (termqa.formats.biomqm.WEIGHTINGS)

# The environment variables settings come from, and the field each fills. They are read once, by the CLI
# (click's envvar= on --judge-model and --judge-base-url; the key has no option), and handed to
# Settings.build as a mapping: the library itself never reads the environment.
ENV_MODEL, ENV_BASE_URL, ENV_API_KEY = "OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"
ENVIRONMENT = MappingProxyType({"judge_model": ENV_MODEL, "judge_base_url": ENV_BASE_URL, "api_key": ENV_API_KEY})


def env_value(name: str, environ: Mapping[str, str]) -> Optional[str]:
    """A variable of `environ`, stripped; an empty one counts as unset (CI systems often export empty
    secrets)."""
    value = environ.get(name)
    return value.strip() if value and value.strip() else None


def _setting(default: Any = None, kind: Optional[str] = None):
    """A field of `Settings`; `kind` says how the config file may give it (None: only as a flag)."""
    meta = {"kind": kind} if kind else {}
    if kind == "table":
        return field(default_factory=lambda: MappingProxyType({}), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Settings:
    """Every option of a check or compare run, typed; made by `Settings.build` (CLI) or directly."""

    glossary: tuple[str, ...] = _setting((), "paths")
    src_lang: Optional[str] = _setting(None, "str")
    tgt_lang: Optional[str] = _setting(None, "str")
    glossary_lang: Optional[str] = _setting(None, "str")
    domain: Optional[str] = _setting(None, "str")
    lemmatiser: LemmatiserMode = _setting(DEFAULT_LEMMATISER, "str")
    variants: VariantLevel = _setting(DEFAULT_VARIANTS, "str")
    source_only_glossary: bool = _setting(False, "bool")
    exhaustive: bool = _setting(False, "bool")
    jobs: Optional[int] = _setting(None, "int")
    index_cache: bool = _setting(True, "bool")
    decisions: Optional[str] = _setting(None, "path")
    penalties: Mapping[str, float] = _setting(None, "table")
    penalties_file: Optional[str] = _setting(None)
    fail_on: tuple[str, ...] = _setting((), "list")
    annotate_level: AnnotateLevel = _setting(DEFAULT_ANNOTATE_LEVEL, "str")
    its: bool = _setting(False, "bool")
    # the judge (termqa.judge.settings.JudgeSettings)
    judge_model: Optional[str] = _setting(None, "str")
    judge_base_url: Optional[str] = _setting(None, "str")
    api_key: Optional[str] = field(default=None, repr=False)  # OPENAI_API_KEY: never in a file nor a flag
    concurrency: int = _setting(DEFAULT_CONCURRENCY, "int")
    judge_timeout: float = _setting(DEFAULT_JUDGE_TIMEOUT, "float")
    max_calls: Optional[int] = _setting(None, "int")
    max_cost: Optional[float] = _setting(None, "float")
    prices: Mapping[str, Any] = _setting(None, "table")  # [prices] model = [input, output(, cached input)]
    price: tuple[str, ...] = _setting(())  # --price MODEL=IN,OUT[,CACHED_IN]
    cache: Optional[str] = _setting(None, "path")
    judge_batch: bool = _setting(False, "bool")
    judge_batch_file: Optional[str] = _setting(None, "path")
    offline: bool = _setting(False, "bool")
    config: Optional[str] = _setting(None)  # the config file these came from, if any
    # unit states checked although they say "not translated yet" (termqa.formats.unitstate), lowercased
    include_states: tuple[str, ...] = _setting((), "list")
    force_languages: bool = _setting(False, "bool")  # check as declared when the languages look swapped
    # every source term is found only written in its own case (else per entry: Term.match_case)
    match_case: bool = _setting(False, "bool")
    # `termqa compare`'s permutation test: flags only
    alpha: float = _setting(DEFAULT_ALPHA)
    resamples: int = _setting(DEFAULT_RESAMPLES)
    seed: int = _setting(DEFAULT_SEED)

    def __post_init__(self):
        # normalised and checked here, whoever makes the record: the one place a bad value is refused
        set_ = object.__setattr__
        set_(self, "lemmatiser", LemmatiserMode.parse(self.lemmatiser, "lemmatiser mode"))
        set_(self, "variants", VariantLevel.parse(self.variants, "variant level"))
        set_(self, "annotate_level", AnnotateLevel.parse(self.annotate_level, "annotate level"))
        for name in ("glossary", "fail_on", "price"):
            value = getattr(self, name)
            set_(self, name, (value,) if isinstance(value, str) else tuple(value or ()))
        for name in ("penalties", "prices"):
            set_(self, name, MappingProxyType(dict(getattr(self, name) or {})))
        states = (self.include_states,) if isinstance(self.include_states, str) else self.include_states or ()
        set_(self, "include_states", tuple(sorted({p.strip().lower() for s in states for p in str(s).split(",")
                                                    if p.strip()})))

    @classmethod
    def build(cls, config_path: Optional[str] = None, *, environ: Optional[Mapping[str, str]] = None,
              cwd: Optional[Path] = None, **flags: Any) -> "Settings":
        """The settings of one run: each flag given (not None, not empty) overrides the config file,
        which overrides the environment (`environ`: the variables of ENVIRONMENT the CLI read; None,
        none), which overrides the defaults."""
        known = {f.name for f in fields(cls)}
        unknown = set(flags) - known
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        path, table = find(config_path, cwd)
        merged: dict = {}
        for name, var in ENVIRONMENT.items():
            value = env_value(var, environ or {})
            if value:
                merged[name] = value
        merged.update(table)
        merged.update({k: v for k, v in flags.items() if v is not None and v != ()})
        if path is not None:
            merged["config"] = str(path)
        return cls(**merged)

    # --- what the stages take ------------------------------------------------------------------------

    def penalty_table(self) -> dict:
        """The config file's `[penalties]`, overridden by the penalties file (--penalties)."""
        table = dict(self.penalties)
        if self.penalties_file:
            table.update(load_penalties(self.penalties_file))
        return table

    def recorded(self) -> dict:
        """The settings a result records beside its signature (they never change its id)."""
        out: dict = {"src_lang": self.src_lang, "tgt_lang": self.tgt_lang, "lemmatiser": self.lemmatiser.value}
        if self.source_only_glossary:
            out["source_only_glossary"] = True
        out["variants"] = self.variants.value
        if self.include_states:
            out["include_states"] = list(self.include_states)
        if self.match_case:
            out["match_case"] = True
        return out


# key -> kind: the settings a config file may hold; anything else in the file is refused with the list.
KEYS = MappingProxyType({f.name: f.metadata["kind"] for f in fields(Settings) if "kind" in f.metadata})


def _load_toml(path: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: is not valid TOML: {exc}") from None


def find(explicit: Optional[str] = None, cwd: Optional[Path] = None) -> tuple[Optional[Path], dict]:
    """The config file in use and its termqa table ({} when there is none)."""
    if explicit:
        p = Path(explicit)
        if not p.is_file():
            raise ConfigError(f"{explicit}: config file does not exist")
        data = _load_toml(p)
        table = data.get("tool", {}).get("termqa", data) if p.name == "pyproject.toml" else data
        return p, _check(p, table)
    cwd = cwd or Path.cwd()
    own = cwd / "termqa.toml"
    if own.is_file():
        return own, _check(own, _load_toml(own))
    py = cwd / "pyproject.toml"
    if py.is_file():
        table = _load_toml(py).get("tool", {}).get("termqa")
        if table is not None:
            return py, _check(py, table)
    return None, {}


def _check(path: Path, table: dict) -> dict:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: the termqa settings must be a table")
    out = {}
    for key, value in table.items():
        k = key.replace("-", "_")
        kind = KEYS.get(k)
        if kind is None:
            raise ConfigError(f"{path}: unknown setting '{key}'", fix=f"known settings: {', '.join(sorted(KEYS))}")
        out[k] = _coerce(path, k, kind, value)
    return out


def _coerce(path: Path, key: str, kind: str, value):
    base = path.parent

    def bad(what):
        return ConfigError(f"{path}: setting '{key}' must be {what}, not {value!r}")

    if kind == "paths":
        vals = [value] if isinstance(value, str) else value
        if not isinstance(vals, list) or not all(isinstance(v, str) for v in vals):
            raise bad("a path or a list of paths")
        return [str(base / v) for v in vals]
    if kind == "path":
        if not isinstance(value, str):
            raise bad("a path")
        return str(base / value)
    if kind == "str":
        if not isinstance(value, str):
            raise bad("a string")
        return value
    if kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad("a whole number")
        return value
    if kind == "float":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise bad("a number")
        return float(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if kind == "list":
        vals = [value] if isinstance(value, str) else value
        if not isinstance(vals, list):
            raise bad("a list of strings")
        return [str(v) for v in vals]
    if kind == "table":
        if not isinstance(value, dict):
            raise bad("a table")
        return value
    raise AssertionError(kind)  # pragma: no cover - KEYS is closed


# --- files -------------------------------------------------------------------------------------------

def load_penalties(path: str) -> dict:
    """A penalty table from a JSON or TOML file (a TOML file may hold it under `[penalties]`)."""
    if str(path).endswith(".toml"):
        data = _load_toml(Path(path))
        data = data.get("penalties", data)
    else:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None
        except ValueError as exc:
            raise ConfigError(f"{path}: cannot read penalties: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: penalties must be an object of label -> number")
    return data
