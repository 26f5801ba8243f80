"""`termqa check`: the click command over `termqa.run` (registered by termqa.cli.main): options in, the
run and its outputs in the library, console lines and the exit code out."""
from __future__ import annotations

import sys

import click

from termqa import run
from termqa.cli.common import (
    EXIT_INCOMPLETE, EXIT_INPUT, EXIT_QA_FAILED, Command, check_annotate_target, check_bilingual_inputs,
    end_progress, environment, epilog, incomplete_message, planned_inputs, progress_bar, silence_stdout, wrote,
)
from termqa.cli.console import summary
from termqa.cli.options import input_options, judge_options, setting_option
from termqa.config import Settings
from termqa.formats.decisions import DEFAULT_NAME as DECISIONS_FILE, find_decisions
from termqa.outputs import plan as plan_outputs
from termqa.results.gate import nothing_checked, parse as parse_gate
from termqa.results.languages import gate_message
from termqa.shownpath import result_names, scrub

EPILOG = epilog(
    "termqa check manual.xlf -g terms.tbx --report report.html",
    "termqa check project/ -g terms.tbx --xlsx issues.xlsx --csv all.csv",
    "termqa check manual.xlf -g terms.tbx --fail-on 'error,score>0.2'   # quote: > is a shell redirect",
    "termqa check manual.xlf -g terms.tbx --json - | jq .scores",
    codes="  0 checked (and the --fail-on gate passed): the first line says PASS, REVIEW (occurrences left\n"
          "    undecided) or ERRORS\n  1 a --fail-on condition holds (FAIL)\n"
          "  2 bad input or usage (one line on stderr), or NOT CHECKED: no glossary term occurs in the source,\n"
          "    or no segment holding one has a translation (the files asked for are written and say so)\n"
          "  3 incomplete: judge questions failed or wait in a batch (re-run to finish; answers are cached)\n"
          "  130 interrupted (finished judgements stay cached)",
)


@click.command("check", cls=Command, epilog=EPILOG)
@click.argument("files", nargs=-1, required=True)
@input_options
@setting_option("tgt_lang")
@click.option("--json", "json_out", type=click.Path(allow_dash=True),
              help="Write the full result as JSON ('-' for standard output; a folder: FOLDER/result.json).")
@click.option("--csv", "csv_out", type=click.Path(),
              help="Write one row per occurrence (CSV; a folder: FOLDER/occurrences.csv).")
@click.option("--xlsx", "xlsx_out", type=click.Path(),
              help="Write a spreadsheet: the issues (frozen header, filters, status/comment columns for the "
                   "translator) and a summary per concept (a folder: FOLDER/issues.xlsx).")
@click.option("--issues-only", is_flag=True, help="CSV: only errors, unjustified variants and occurrences not judged.")
@click.option("--report", type=click.Path(), help="Write the HTML report (a folder: FOLDER/report.html). A folder "
              "is an existing one or a path ending in '/' (made if its parent exists); every output path is checked "
              "before the run.")
@click.option("--annotate", type=click.Path(), help="Write annotated copies of the XLIFF files here "
              "(a file for one input, a folder for several; a folder inside the input folder is not read "
              "as input).")
@click.option("--in-place", is_flag=True, help="Annotate the input files themselves (atomically, after a .bak backup).")
@setting_option("its")
@setting_option("annotate_level")
@setting_option("fail_on")
@judge_options
@setting_option("decisions")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the gate result.")
def check_command(files, quiet, config_path, penalties_file, json_out, csv_out, xlsx_out, issues_only, report,
                  annotate, in_place, **flags):
    """Check terminology in XLIFF/TMX FILES (or folders) against glossaries."""

    env = environment(flags)  # the options click took from the environment leave `flags`
    s = Settings.build(config_path, environ=env, penalties_file=penalties_file, **flags)
    fail_on = list(s.fail_on)
    parse_gate(fail_on)  # a bad condition is refused before the run, not after it
    # every output path checked before anything is read; a folder named for a file gets its file name
    outputs = plan_outputs({"--json": json_out, "--csv": csv_out, "--xlsx": xlsx_out, "--report": report},
                           annotate=annotate)
    json_out, csv_out, xlsx_out, report = (outputs.get(o) for o in ("--json", "--csv", "--xlsx", "--report"))
    inputs = planned_inputs(files, outputs, quiet)  # without this run's outputs (an --annotate folder inside)
    check_bilingual_inputs(inputs)
    check_annotate_target(inputs, annotate, in_place)
    outputs.check_inputs(inputs, reads={"the glossary": s.glossary, "the decisions file": s.decisions or DECISIONS_FILE,
                                        "the penalties file": s.penalties_file, "the config file": s.config,
                                        "the judge cache": s.cache})
    outputs.make_folders()
    s.penalty_table()  # a bad penalties file is refused before the judge's settings are
    progress = progress_bar(quiet)
    result = run.check(inputs, list(s.glossary), s, decisions=find_decisions(s.decisions), progress=progress)
    end_progress(progress)
    whole = bool(csv_out or xlsx_out or report or annotate or in_place)
    made = run.result_data(result, fail_on, whole=whole)
    names = result_names(made[0])  # console lines name files as given, never where they sit (termqa.shownpath)
    for alert in result.alerts:  # inputs that do not fit: said first, whatever else is printed
        click.echo(f"termqa: warning: {scrub(alert, names)}", err=True)
    done = run.write_outputs(result, json=json_out, csv=csv_out, xlsx=xlsx_out, report=report, annotate=annotate,
                             in_place=in_place, issues_only=issues_only, settings=s, data=made,
                             wrote=lambda path, what: wrote(path, quiet, what), stdout_gone=silence_stdout)
    data, by_language = done.data, done.by_language
    stdout_is_json = json_out == "-"
    if not quiet and not stdout_is_json:
        click.echo(summary(data, judge_configured=bool(s.judge_model)))
    empty = nothing_checked(data)
    if empty:  # never a pass, gate or no gate: the files were written, and say the same
        click.echo(f"termqa: error: {scrub(empty, names)}", err=True)
        sys.exit(EXIT_INPUT)
    incomplete = incomplete_message(data)
    if incomplete:
        click.echo(incomplete, err=True)
    if fail_on:
        if any(by_language.values()):
            click.echo(f"termqa: QA failed: {gate_message(by_language)}", err=True)
            sys.exit(EXIT_INCOMPLETE if incomplete else EXIT_QA_FAILED)
        if not quiet and not incomplete:  # passed, in words that say what is left (never "clean" over REVIEW)
            click.echo(f"termqa: QA gate passed ({data['verdict']['line']})", err=True)
    if incomplete:
        sys.exit(EXIT_INCOMPLETE)
