"""The `termqa` command: a thin layer over the library. Each flag is a keyword argument of a library call.

Exit codes: 0 done (and the --fail-on gate passed), 1 QA gate failed, 2 usage or input error.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from termqa import __version__
from termqa.cli.options import input_options, judge_options
from termqa.errors import TermqaError

EXIT_QA_FAILED = 1
EXIT_INPUT = 2


def _fail(message: str) -> None:
    click.echo(f"termqa: error: {message}", err=True)
    sys.exit(EXIT_INPUT)


class _Group(click.Group):
    """Turns every typed error into one line on stderr and exit code 2, never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except TermqaError as exc:
            _fail(str(exc))
        except OSError as exc:  # a file we were asked to write or read outside the readers
            name = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
            _fail(f"{name}{exc.strerror or exc}")
        except KeyboardInterrupt:
            click.echo("termqa: interrupted (finished judgements are kept in the cache)", err=True)
            sys.exit(130)
        except Exception as exc:  # a bug of ours: one line, the traceback only on request
            if os.environ.get("TERMQA_DEBUG"):
                raise
            _fail(f"internal error: {type(exc).__name__}: {exc} (please report it; TERMQA_DEBUG=1 shows "
                  "the traceback)")


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="termqa")
def main():
    """Terminology QA for translation projects: glossary conformity, consistency, and an LLM judge."""


def _atomic_write(path, text=None, *, data=None) -> None:
    """Write `text` (or `data` as JSON, streamed) to a temp file beside `path`, then rename it."""
    p = Path(path)
    if p.parent and not p.parent.exists():
        raise TermqaError(f"{path}: folder {p.parent} does not exist")
    tmp = p.with_name(f".{p.name}.termqa-tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            if data is not None:
                json.dump(data, fh, ensure_ascii=False, indent=1)
            else:
                fh.write(text)
        os.replace(tmp, p)
    finally:
        if tmp.exists():
            tmp.unlink()


# --- inspect -----------------------------------------------------------------------------------------

@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (a list for several files).")
@click.option("--src-lang", help="Source language, overriding the file.")
@click.option("--tgt-lang", help="Target language, overriding the file (picks the pair in a TMX).")
@click.option("--glossary-lang", help="Language of glossary labels that have none (SKOS).")
def inspect(files, as_json, src_lang, tgt_lang, glossary_lang):
    """Show what termqa reads from bilingual files and glossaries."""
    from termqa.inspect import inspect_file, render_text

    infos, problems = [], []
    for f in files:
        info = inspect_file(f, src_lang=src_lang, tgt_lang=tgt_lang, glossary_lang=glossary_lang)
        infos.append(info)
        if info["problems"]:
            problems.append(f"{f}: invalid {info['format']}: {info['problems'][0]}"
                            + (f" (and {len(info['problems']) - 1} more)" if len(info["problems"]) > 1 else ""))
    if as_json:
        click.echo(json.dumps(infos[0] if len(infos) == 1 else infos, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(render_text(i) for i in infos))
    if problems:
        for p in problems:
            click.echo(f"termqa: error: {p}", err=True)
        sys.exit(EXIT_INPUT)


# --- check -------------------------------------------------------------------------------------------

def _settings(config_path, **flags):
    """Flags over the config file over defaults. A flag not given on the command line is None."""
    from termqa import config

    path, table = config.find(config_path)
    merged = dict(table)
    for k, v in flags.items():
        if v is None or v == ():
            merged.setdefault(k, None)
        else:
            merged[k] = list(v) if isinstance(v, tuple) else v
    return path, merged


@main.command()
@click.argument("files", nargs=-1, required=True)
@input_options
@click.option("--tgt-lang", help="Target language, overriding the files (picks the pair in a TMX).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the full result as JSON ('-' for standard output).")
@click.option("--csv", "csv_out", type=click.Path(dir_okay=False), help="Write one row per occurrence.")
@click.option("--report", type=click.Path(dir_okay=False), help="Write the HTML report.")
@click.option("--annotate", type=click.Path(), help="Write annotated copies of the XLIFF files here "
              "(a file for one input, a folder for several).")
@click.option("--in-place", is_flag=True, help="Annotate the input files themselves (atomically, after a .bak backup).")
@click.option("--its", is_flag=True, default=None, help="Also write ITS 2.0 Localization Quality Issue markup.")
@click.option("--annotate-level", type=click.Choice(["errors", "flagged", "all"]), default=None,
              help="Which occurrences become notes (default: flagged = errors, unjustified, unjudged).")
@click.option("--fail-on", multiple=True, help="Exit 1 when this holds: error, unjustified, unjudged, A4, "
              "error>3, score>0.2, coverage<0.9 (repeatable or comma-separated).")
@judge_options
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the gate result.")
def check(files, quiet, config_path, penalties_file, json_out, csv_out, report, annotate, in_place, **flags):
    """Check terminology in XLIFF/TMX FILES (or folders) against glossaries."""
    from termqa.pipeline.check import check as run_check

    cfg_path, s = _settings(config_path, **flags)
    penalties = dict(s.get("penalties") or {})
    if penalties_file:
        penalties.update(_load_penalties(penalties_file))
    judge = _judge_settings(s)
    progress = None if quiet or not sys.stderr.isatty() else _progress_bar()
    result = run_check(
        list(files), s.get("glossary") or [], src_lang=s.get("src_lang"), tgt_lang=s.get("tgt_lang"),
        glossary_lang=s.get("glossary_lang"), lemmatiser=s.get("lemmatiser") or "auto",
        penalties=penalties, judge=judge, exhaustive=bool(s.get("exhaustive")), domain=s.get("domain"),
        progress=progress,
    )
    if progress:
        click.echo("", err=True)
    data = result.to_dict()
    if cfg_path:
        data["signature"]["settings"]["config"] = str(cfg_path)
    if json_out == "-":  # for pipes (jq, other tools): the JSON is the only thing on stdout
        json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        quiet = True
    elif json_out:
        _atomic_write(json_out, data=data)
    if csv_out:
        from termqa.reports.csvout import write_csv

        write_csv(data, csv_out)
    if report:
        from termqa.reports.html import write_html

        write_html(data, report)
    if annotate or in_place:
        _annotate(data, result, annotate, in_place, s)
    if not quiet:
        from termqa.cli.console import summary

        click.echo(summary(data, judge_configured=judge is not None))
    fail_on = s.get("fail_on") or []
    if fail_on:
        from termqa.results.gate import failures

        failed = failures(data, fail_on)
        if failed:
            click.echo(f"termqa: QA failed: {'; '.join(failed)}", err=True)
            sys.exit(EXIT_QA_FAILED)
        if not quiet:
            click.echo("termqa: QA gate passed", err=True)


def _annotate(data, result, annotate, in_place, s):
    from termqa.formats.annotate import annotate as write_notes
    from termqa.formats.annotate import annotations_from_result

    if annotate and in_place:
        raise TermqaError("--annotate and --in-place exclude each other", fix="choose one")
    notes = annotations_from_result(data, level=s.get("annotate_level") or "flagged")
    xliffs = [f for f in result.files if f.format.startswith("xliff")]
    if not xliffs:
        raise TermqaError("nothing to annotate: notes are written into XLIFF files only")
    out_dir = None
    if annotate and len(xliffs) > 1:
        out_dir = Path(annotate)
        out_dir.mkdir(parents=True, exist_ok=True)
    for f in xliffs:
        doc_ids = {d.doc_id for d in f.documents}
        mine = [a for a in notes if a.doc_id in doc_ids]
        if in_place:
            write_notes(f.path, mine, in_place=True, its=bool(s.get("its")))
        else:
            out = out_dir / Path(f.path).name if out_dir else Path(annotate)
            if out.is_dir():
                out = out / Path(f.path).name
            if os.path.realpath(out) == os.path.realpath(f.path):
                raise TermqaError(f"{out}: refusing to overwrite the input", fix="use --in-place to annotate it")
            write_notes(f.path, mine, out=str(out), its=bool(s.get("its")))


def _load_penalties(path) -> dict:
    text = Path(path).read_text(encoding="utf-8")
    try:
        if path.endswith(".toml"):
            try:
                import tomllib
            except ModuleNotFoundError:
                import tomli as tomllib
            data = tomllib.loads(text)
            data = data.get("penalties", data)
        else:
            data = json.loads(text)
    except ValueError as exc:
        raise TermqaError(f"{path}: cannot read penalties: {exc}") from None
    if not isinstance(data, dict):
        raise TermqaError(f"{path}: penalties must be an object of label -> number")
    return data


def _judge_settings(s):
    """JudgeSettings when a judge model is configured (flag, config or OPENAI_MODEL), else None."""
    model = s.get("judge_model") or (os.environ.get("OPENAI_MODEL") or None)
    if not model:
        return None
    from termqa.judge.llm import settings_from_env

    from termqa.judge.llm import parse_price

    kw = {"model": model}
    for k, name in (("judge_base_url", "base_url"), ("concurrency", "concurrency"), ("max_calls", "max_calls"),
                    ("max_cost", "max_cost"), ("cache", "cache_path"), ("offline", "offline")):
        if s.get(k) is not None:
            kw[name] = s[k]
    prices = {}
    for m, pair in (s.get("prices") or {}).items():  # config: [prices] model = [input, output]
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TermqaError(f"config: price of {m} must be [input, output] in USD per million tokens")
        prices[m] = (float(pair[0]), float(pair[1]))
    for text in s.get("price") or []:
        m, pair = parse_price(text)
        prices[m] = pair
    if prices:
        kw["prices"] = prices
    return settings_from_env(**kw)


def _progress_bar():
    def show(stage, done, total):
        if total:
            width = 30
            filled = int(width * done / total)
            click.echo(f"\r{stage}: [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", err=True, nl=False)

    return show


# --- rescore -----------------------------------------------------------------------------------------

@main.command()
@click.argument("verdicts", type=click.Path(dir_okay=False))
@click.option("--penalties", "penalties_file", type=click.Path(dir_okay=False), required=True,
              help="JSON or TOML penalty table (missing keys keep their defaults).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the re-scored result here.")
def rescore(verdicts, penalties_file, json_out):
    """Recompute every score from a saved --json result under other penalties, with no LLM call."""
    from termqa.evaluate.rescore import rescore_result

    try:
        data = json.loads(Path(verdicts).read_text(encoding="utf-8"))
    except ValueError as exc:
        raise TermqaError(f"{verdicts}: is not a termqa JSON result: {exc}") from None
    out = rescore_result(data, _load_penalties(penalties_file))
    if json_out:
        _atomic_write(json_out, data=out)
    from termqa.cli.console import scores_block

    click.echo(scores_block(out))


def _register() -> None:
    """Commands that live in their own modules (compare, meta-eval, backlog...)."""
    from termqa.cli.evaluate import COMMANDS as meta_commands

    for command in meta_commands:
        main.add_command(command)
    from termqa.cli.compare import compare_command

    main.add_command(compare_command)


_register()

if __name__ == "__main__":  # pragma: no cover
    main()
