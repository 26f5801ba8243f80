"""Settings a team reuses, from `termqa.toml` or `[tool.termqa]` in `pyproject.toml`.

Looked up in the current folder (or given with `--config`). Keys are the long option names with `_`
for `-` (e.g. `glossary = ["terms.tbx"]`, `tgt_lang = "fr"`, `judge_model = "gpt-4o-mini"`,
`fail_on = ["error"]`); a `[penalties]` table overrides penalties. Command-line flags override the file.
Relative paths in the file are relative to the file's folder.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from termqa.errors import ConfigError

# key -> kind; anything else in the file is refused with the list of known keys.
KEYS = {
    "glossary": "paths", "src_lang": "str", "tgt_lang": "str", "glossary_lang": "str", "domain": "str",
    "lemmatiser": "str", "judge_model": "str", "judge_base_url": "str", "concurrency": "int",
    "max_calls": "int", "max_cost": "float", "cache": "path", "offline": "bool", "exhaustive": "bool",
    "fail_on": "list", "penalties": "table", "annotate_level": "str", "its": "bool", "prices": "table",
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
