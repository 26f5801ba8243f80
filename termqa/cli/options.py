"""The click options of the run's settings, made from the fields of `termqa.config.Settings`: each field
carries its flags, help text and bounds (`Option`, `Bounds` in its metadata), so a setting is declared once
and every command that takes it gets the same option."""
from __future__ import annotations

from dataclasses import fields

import click

from termqa.config import Settings

_FIELDS = {f.name: f for f in fields(Settings)}


def setting_option(name: str):
    """The click option of the setting `name` (a field of Settings with an `Option`)."""
    f = _FIELDS[name]
    o = f.metadata["option"]
    kwargs: dict = {"help": o.help}
    if o.form == "switch":
        kwargs.update(default=None) if "/" in o.flags[0] else kwargs.update(is_flag=True, default=None)
    elif o.form == "choice":
        kwargs.update(type=click.Choice(type(f.default).choices()), default=None)
    elif o.form == "file":
        kwargs["type"] = click.Path(dir_okay=False)
    elif o.form in ("int", "float"):
        kwargs["type"] = int if o.form == "int" else float
        bounds = f.metadata.get("bounds")
        if o.refused_by_cli and bounds is not None:
            kwargs.update(type=click.IntRange(min=bounds.min), default=None)
    if o.multiple:
        kwargs["multiple"] = True
    if o.envvar:
        kwargs["envvar"] = o.envvar
    param = o.param or name
    # the parameter is named explicitly where click would name it otherwise (-g, --penalties, --config...)
    implied = o.flags[-1].split("/")[0].lstrip("-").replace("-", "_")
    decls = o.flags + ((param,) if param != implied or o.multiple or "/" in o.flags[0] else ())
    return click.option(*decls, **kwargs)


_INPUTS = ("glossary", "src_lang", "glossary_lang", "lemmatiser", "domain", "variants", "source_only_glossary",
           "force_languages", "match_case", "include_states", "penalties_file", "jobs", "index_cache")
_JUDGE = ("judge_model", "judge_base_url", "concurrency", "judge_timeout", "max_calls", "max_cost", "price", "cache",
          "judge_batch", "judge_batch_file", "offline", "exhaustive", "config")


def settings_options(*names: str):
    """Decorate a command with the options of these settings, listed in this order by --help."""
    def apply(f):
        for name in reversed(names):
            f = setting_option(name)(f)
        return f

    return apply


def input_options(f):
    """Glossaries, languages, lemmatiser, domain and penalties: what every checking command takes."""
    return settings_options(*_INPUTS)(f)


def judge_options(f):
    """The judge and config options every judging command shares (check, compare)."""
    return settings_options(*_JUDGE)(f)
