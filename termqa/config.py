"""Settings a team reuses, from `termqa.toml` or `[tool.termqa]` in `pyproject.toml`.

Looked up in the current folder (or given with `--config`). Keys are the long option names with `_`
for `-` (e.g. `glossary = ["terms.tbx"]`, `tgt_lang = "fr"`, `judge_model = "gpt-4o-mini"`,
`fail_on = ["error"]`); a `[penalties]` table overrides penalties. Command-line flags override the file.
Relative paths in the file are relative to the file's folder.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from termqa.errors import ConfigError
from termqa.pipeline.variants import DEFAULT_LEVEL as DEFAULT_VARIANTS

if TYPE_CHECKING:  # the judge (and what it imports) loads only when a judge model is configured
    from termqa.judge.llm import JudgeSettings

# key -> kind; anything else in the file is refused with the list of known keys.
KEYS = {
    "glossary": "paths", "src_lang": "str", "tgt_lang": "str", "glossary_lang": "str", "domain": "str",
    "lemmatiser": "str", "judge_model": "str", "judge_base_url": "str", "concurrency": "int",
    "max_calls": "int", "max_cost": "float", "judge_timeout": "float", "judge_batch": "bool",
    "judge_batch_file": "path", "cache": "path", "offline": "bool", "exhaustive": "bool",
    "fail_on": "list", "penalties": "table", "annotate_level": "str", "its": "bool", "prices": "table",
    "source_only_glossary": "bool", "decisions": "path", "variants": "str", "jobs": "int", "index_cache": "bool",
    "force_languages": "bool",
    "include_states": "list",
}


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


# --- resolution: flags over the config file over defaults ---------------------------------------------

def resolve(config_path: Optional[str] = None, **flags) -> tuple[Optional[Path], dict]:
    """The settings of one run: each flag given (not None, not empty) overrides the config file.

    Returns the config file used (or None) and the merged settings; every key of `flags` is present.
    """
    path, table = find(config_path)
    merged = dict(table)
    for k, v in flags.items():
        if v is None or v == ():
            merged.setdefault(k, None)
        else:
            merged[k] = list(v) if isinstance(v, tuple) else v
    return path, merged


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


def penalties_from(settings: dict, penalties_file: Optional[str] = None) -> dict:
    """The config file's `[penalties]`, overridden by a penalties file."""
    table = dict(settings.get("penalties") or {})
    if penalties_file:
        table.update(load_penalties(penalties_file))
    return table


def judge_settings(settings: dict, environ: Optional[dict] = None) -> Optional[JudgeSettings]:
    """JudgeSettings when a judge model is configured (flag, config or OPENAI_MODEL), else None."""
    env = os.environ if environ is None else environ
    model = settings.get("judge_model") or (env.get("OPENAI_MODEL") or None)
    if not model:
        return None
    from termqa.judge.llm import check_price, parse_price, settings_from_env

    kw: dict = {"model": model}
    for k, name in (("judge_base_url", "base_url"), ("concurrency", "concurrency"), ("max_calls", "max_calls"),
                    ("max_cost", "max_cost"), ("cache", "cache_path"), ("offline", "offline"),
                    ("judge_timeout", "timeout")):
        if settings.get(k) is not None:
            kw[name] = settings[k]
    if settings.get("judge_batch_file"):
        kw["batch"], kw["batch_file"] = "file", str(settings["judge_batch_file"])
    elif settings.get("judge_batch"):
        kw["batch"] = "submit"
    prices = {}
    # config: [prices] model = [input, output] or [input, output, cached_input]
    for m, pair in (settings.get("prices") or {}).items():
        try:
            prices[m] = check_price(pair if isinstance(pair, (list, tuple)) else "")
        except (TypeError, ValueError):
            raise ConfigError(f"config: price of {m} must be [input, output] or [input, output, cached_input] "
                              "in USD per million tokens") from None
    for text in settings.get("price") or []:
        m, pair = parse_price(text)
        prices[m] = pair
    if prices:
        kw["prices"] = prices
    return settings_from_env(environ, **kw)


def check_options(settings: dict) -> dict:
    """The keyword arguments `termqa.check` and `termqa.compare` share, from resolved settings (the
    defaults of the library where a setting is not given)."""
    return {
        "src_lang": settings.get("src_lang"), "glossary_lang": settings.get("glossary_lang"),
        "lemmatiser": settings.get("lemmatiser") or "auto", "exhaustive": bool(settings.get("exhaustive")),
        "domain": settings.get("domain"), "source_only_glossary": bool(settings.get("source_only_glossary")),
        "variants": settings.get("variants") or DEFAULT_VARIANTS, "jobs": settings.get("jobs"),
        "index_cache": settings.get("index_cache") is not False,
        "force_languages": bool(settings.get("force_languages")),
        "include_states": tuple(settings.get("include_states") or ()),
    }
