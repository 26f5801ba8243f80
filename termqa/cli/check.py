"""`termqa check`: the click command over `termqa.check` (registered by termqa.cli.main)."""
from __future__ import annotations

import json
import sys

import click

from termqa import config
from termqa.cli.common import EXIT_QA_FAILED, progress_bar
from termqa.cli.console import summary
from termqa.cli.options import input_options, judge_options
from termqa.fileio import atomic_write
from termqa.formats.annotate import annotate_files, annotations_from_result
from termqa.pipeline.check import check as run_check
from termqa.reports.csvout import write_csv
from termqa.reports.html import write_html
from termqa.results.gate import failures


@click.command("check")
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
def check_command(files, quiet, config_path, penalties_file, json_out, csv_out, report, annotate, in_place, **flags):
    """Check terminology in XLIFF/TMX FILES (or folders) against glossaries."""

    cfg_path, s = config.resolve(config_path, **flags)
    penalties = config.penalties_from(s, penalties_file)
    judge = config.judge_settings(s)
    progress = progress_bar(quiet)
    result = run_check(
        list(files), s.get("glossary") or [], src_lang=s.get("src_lang"), tgt_lang=s.get("tgt_lang"),
        glossary_lang=s.get("glossary_lang"), lemmatiser=s.get("lemmatiser") or "auto",
        penalties=penalties, judge=judge, exhaustive=bool(s.get("exhaustive")), domain=s.get("domain"),
        source_only_glossary=bool(s.get("source_only_glossary")), progress=progress,
        jobs=s.get("jobs"), index_cache=s.get("index_cache") is not False,
    )
    if progress:
        click.echo("", err=True)
    for alert in result.alerts:  # inputs that do not fit: said first, whatever else is printed
        click.echo(f"termqa: warning: {alert}", err=True)
    if cfg_path:  # where the settings came from: recorded, not part of the signature's id
        result.signature = result.signature.with_settings(config=str(cfg_path))
    data = result.to_dict()
    if json_out == "-":  # for pipes (jq, other tools): the JSON is the only thing on stdout
        json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        quiet = True
    elif json_out:
        atomic_write(json_out, json_data=data)
    if csv_out:
        write_csv(data, csv_out)
    if report:
        write_html(data, report)
    if annotate or in_place:
        notes = annotations_from_result(data, level=s.get("annotate_level") or "flagged")
        annotate_files(result.files, notes, out=annotate, in_place=in_place, its=bool(s.get("its")))
    if not quiet:
        click.echo(summary(data, judge_configured=judge is not None))
    fail_on = s.get("fail_on") or []
    if fail_on:
        failed = failures(data, fail_on)
        if failed:
            click.echo(f"termqa: QA failed: {'; '.join(failed)}", err=True)
            sys.exit(EXIT_QA_FAILED)
        if not quiet:
            click.echo("termqa: QA gate passed", err=True)
