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

Adding a setting: add a field to `Settings` with its type and default, `kind=` if the config file may
hold it (`_setting(...)`: paths, path, str, int, float, bool, list, table), `Option(...)` for its flags
and help text, and `Bounds(...)` for the numbers it may take; `termqa.cli.options.setting_option(name)`
makes the click option from the field, which reaches it through `Settings.build(**flags)`. Nothing else
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
    """Term variants found beyond the glossary's forms (docs/matching.md, "Term variants")."""

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


@dataclass(frozen=True)
class Bounds:
    """The values a number setting may take: at least `min`, or above `above`. Checked where the value
    is used (the CLI's option for --jobs; JudgeSettings.check for the judge's), in the words `words`."""

    min: Optional[float] = None
    above: Optional[float] = None

    def holds(self, value) -> bool:
        return ((self.min is None or value >= self.min) and (self.above is None or value > self.above))

    def words(self) -> str:
        if self.above == 0:
            return "positive"
        if self.min == 0:
            return "0 or more"
        return f"at least {self.min:g}"


@dataclass(frozen=True)
class Option:
    """How a setting is given on the command line (termqa.cli.options makes the click option from it):
    its flags (a `--x/--no-x` pair for a switch with both), the parameter's name when it differs from the
    field's, its help text, and its form: `value` (text), `int`, `float`, `file` (a path, not a folder),
    `choice` (of the field's enum), `switch` (a flag, None when not given); `multiple` (repeatable),
    `envvar` (the environment variable click reads when the flag is not given); `refused_by_cli`: the
    field's bounds are enforced by the option itself (shown in --help), not later where the value is used."""

    flags: tuple[str, ...]
    help: str
    form: str = "value"
    multiple: bool = False
    param: Optional[str] = None
    envvar: Optional[str] = None
    refused_by_cli: bool = False


def _setting(default: Any = None, kind: Optional[str] = None, option: Optional[Option] = None,
             bounds: Optional[Bounds] = None):
    """A field of `Settings`; `kind` says how the config file may give it (None: only as a flag), `option`
    how the command line does, `bounds` which numbers it may be."""
    meta: dict = {"kind": kind} if kind else {}
    if option is not None:
        meta["option"] = option
    if bounds is not None:
        meta["bounds"] = bounds
    if kind == "table":
        return field(default_factory=lambda: MappingProxyType({}), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Settings:
    """Every option of a check or compare run, typed; made by `Settings.build` (CLI) or directly."""

    glossary: tuple[str, ...] = _setting((), "paths", Option(
        ("-g", "--glossary"), "Glossary (TBX, SKOS, CSV/TSV, OmegaT, Excel .xlsx; a sheet as terms.xlsx#Sheet2); "
        "repeatable.", multiple=True))
    src_lang: Optional[str] = _setting(None, "str", Option(("--src-lang",), "Source language, overriding the files."))
    tgt_lang: Optional[str] = _setting(None, "str", Option(
        ("--tgt-lang",), "Target language, overriding the files (picks one pair of a multilingual TMX; without it, "
        "every pair is checked)."))
    glossary_lang: Optional[str] = _setting(None, "str", Option(
        ("--glossary-lang",), "Language of glossary labels that have none."))
    domain: Optional[str] = _setting(None, "str", Option(
        ("--domain",), "Domain named to the judge, e.g. 'medical devices'."))
    lemmatiser: LemmatiserMode = _setting(DEFAULT_LEMMATISER, "str", Option(
        ("--lemmatiser",), "auto: a trained spaCy pipeline on projects up to 50k words when installed, else lookup "
        "tables.", "choice"))
    variants: VariantLevel = _setting(DEFAULT_VARIANTS, "str", Option(
        ("--variants",), "Term variants to find beyond the glossary's forms: none; static (compound spellings, "
        "'X of Y' / 'Y X', French article forms, noun/adjective derivation of a modifier, a guarded modifier "
        "reduction); dynamic (also inserted modifiers, coordinations, the bare head after a full mention). "
        f"Default: {DEFAULT_VARIANTS}.", "choice"))
    source_only_glossary: bool = _setting(False, "bool", Option(
        ("--source-only-glossary",), "The glossary has no target-language terms on purpose: check consistency "
        "only (without this flag such a glossary is refused).", "switch"))
    exhaustive: bool = _setting(False, "bool", Option(
        ("--exhaustive",), "Send every occurrence through both judges.", "switch"))
    jobs: Optional[int] = _setting(None, "int", Option(
        ("--jobs",), "Worker processes for counting (default: the available cores, on projects over 150k source "
        "words; results are the same for any value).", "int", refused_by_cli=True), Bounds(min=1))
    index_cache: bool = _setting(True, "bool", Option(
        ("--index-cache/--no-index-cache",), "Keep parsed glossaries, source indexes, lemma tables and text "
        "analyses in the user cache folder (default; $TERMQA_CACHE_DIR relocates it).", "switch"))
    decisions: Optional[str] = _setting(None, "path", Option(
        ("--decisions",), "Reviewer decisions file (default: ./termqa-decisions.json when it exists).", "file"))
    penalties: Mapping[str, float] = _setting(None, "table")
    penalties_file: Optional[str] = _setting(None, option=Option(
        ("--penalties",), "JSON or TOML file overriding penalties, e.g. {\"A4\": 2, \"unjustified\": 1}.", "file"))
    fail_on: tuple[str, ...] = _setting((), "list", Option(
        ("--fail-on",), "Exit 1 when this holds: error, unjustified, unjudged, A4, error>3, score>0.2, "
        "coverage<0.9 (repeatable or comma-separated; quote it: 'score>0.2').", multiple=True))
    annotate_level: AnnotateLevel = _setting(DEFAULT_ANNOTATE_LEVEL, "str", Option(
        ("--annotate-level",), f"Which occurrences become notes (default: {DEFAULT_ANNOTATE_LEVEL} = errors, "
        "unjustified, unjudged).", "choice"))
    its: bool = _setting(False, "bool", Option(
        ("--its",), "Also write ITS 2.0 Localization Quality Issue markup.", "switch"))
    # the judge (termqa.judge.settings.JudgeSettings)
    judge_model: Optional[str] = _setting(None, "str", Option(
        ("--judge-model",), "LLM model for the judge (or OPENAI_MODEL). Without it: counting mode.",
        envvar=ENV_MODEL))
    judge_base_url: Optional[str] = _setting(None, "str", Option(
        ("--judge-base-url",), "OpenAI-compatible endpoint (or OPENAI_BASE_URL).", envvar=ENV_BASE_URL))
    api_key: Optional[str] = field(default=None, repr=False)  # OPENAI_API_KEY: never in a file nor a flag
    concurrency: int = _setting(DEFAULT_CONCURRENCY, "int", Option(
        ("--concurrency",), f"Judge calls in flight at once (default {DEFAULT_CONCURRENCY}).", "int"), Bounds(min=1))
    judge_timeout: float = _setting(DEFAULT_JUDGE_TIMEOUT, "float", Option(
        ("--judge-timeout",), "Seconds to wait for one judge answer before trying again "
        f"(default {DEFAULT_JUDGE_TIMEOUT:g}).", "float"), Bounds(above=0))
    max_calls: Optional[int] = _setting(None, "int", Option(
        ("--max-calls",), "Stop judging after this many LLM calls (keeps what was judged).", "int"), Bounds(min=0))
    max_cost: Optional[float] = _setting(None, "float", Option(
        ("--max-cost",), "Stop judging past this estimated cost in USD.", "float"), Bounds(min=0))
    prices: Mapping[str, Any] = _setting(None, "table")  # [prices] model = [input, output(, cached input)]
    price: tuple[str, ...] = _setting((), option=Option(
        ("--price",), "Judge price as MODEL=INPUT,OUTPUT[,CACHED_INPUT] in USD per million tokens (repeatable), "
        "e.g. my-model=0.4,1.6,0.1 (CACHED_INPUT: prompt tokens the provider served from its prompt cache); used "
        "for the cost estimate and --max-cost.", multiple=True))
    cache: Optional[str] = _setting(None, "path", Option(("--cache",), "Verdict cache file (SQLite).", "file"))
    judge_batch: bool = _setting(False, "bool", Option(
        ("--judge-batch",), "Send the judge questions as an OpenAI Batch API job instead of asking now; re-run (or "
        "'termqa judge collect') to ingest the answers and go on. Exit code 3 until done.", "switch"))
    judge_batch_file: Optional[str] = _setting(None, "path", Option(
        ("--judge-batch-file",), "Only write the judge questions as a Batch API JSONL file (e.g. for vLLM's "
        "run-batch); 'termqa judge ingest RESULTS.jsonl' stores the answers.", "file"))
    offline: bool = _setting(False, "bool", Option(
        ("--offline",), "Never call the LLM: a cache miss is an error.", "switch"))
    # the config file these came from, if any
    config: Optional[str] = _setting(None, option=Option(
        ("--config",), "Config file (default: ./termqa.toml or [tool.termqa] in ./pyproject.toml).", "file",
        param="config_path"))
    # unit states checked although they say "not translated yet" (termqa.formats.unitstate), lowercased
    include_states: tuple[str, ...] = _setting((), "list", Option(
        ("--include-states",), "Also check units whose state says they are not translated yet (e.g. new, "
        "needs-translation, initial, NotStarted, unconfirmed, fuzzy (PO), unfinished (Qt TS); comma-separated or "
        "repeatable; 'all' for every unit). By default they are left out and counted.", multiple=True))
    # check as declared when the languages look swapped
    force_languages: bool = _setting(False, "bool", Option(
        ("--force-languages",), "Check as declared even when the source and target languages look swapped "
        "(without this flag such a run is refused, exit code 2).", "switch"))
    # every source term is found only written in its own case (else per entry: Term.match_case)
    match_case: bool = _setting(False, "bool", Option(
        ("--match-case",), "Find every glossary source term only written in its own case (\"Settings\" is not "
        "\"settings\"); per entry: a match_case column, a TBX termNote type=\"caseSensitive\".", "switch"))
    # `termqa compare`'s permutation test: flags only
    alpha: float = _setting(DEFAULT_ALPHA, option=Option(
        ("--alpha",), f"Significance level of the pairwise tests (default {DEFAULT_ALPHA:g}).", "float"))
    resamples: int = _setting(DEFAULT_RESAMPLES, option=Option(
        ("--resamples",), f"Random sign patterns when there are more than 12 documents (default {DEFAULT_RESAMPLES}; "
        "up to 12 documents the test is exact).", "int"))
    seed: int = _setting(DEFAULT_SEED, option=Option(("--seed",), "Seed of the permutation test.", "int"))

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
