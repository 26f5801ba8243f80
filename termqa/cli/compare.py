"""`termqa compare`: the click command over `termqa.run.compare` (registered by termqa.cli.main).

Typed errors become one line on stderr and exit code 2 here as well, so the command behaves the same
whether it runs inside the `termqa` group or on its own.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from termqa import run as top
from termqa.cli.common import (
    EXIT_INCOMPLETE, Command, end_progress, environment, epilog, guarded, incomplete_message, progress_bar, wrote,
)
from termqa.cli.options import input_options, judge_options, setting_option
from termqa.config import Settings
from termqa.evaluate.compare_output import render_text
from termqa.fileio import atomic_write
from termqa.outputs import plan as plan_outputs
from termqa.reports.compare_html import write_compare_html


@click.command("compare", cls=Command, epilog=epilog(
    "termqa compare sysA.xlf sysB.xlf sysC.xlf -g terms.tbx --report compare.html",
    "termqa compare multi.tmx --tgt-lang fr --tgt-lang de -g terms.tbx --json compare.json",
    codes="  0 compared\n  2 bad input or usage (one line on stderr)\n"
          "  3 incomplete: judge questions failed or wait in a batch (re-run to finish; answers are cached)\n"
          "  130 interrupted (finished judgements stay cached)"))
@click.argument("files", nargs=-1, required=True)
@input_options
@click.option("--name", "names", multiple=True, help="System name, one per system in input order (default: "
              "the file stem, or the language for a multilingual TMX).")
@click.option("--tgt-lang", "tgt_lang", multiple=True, help="Target language; repeat it to compare several "
              "target languages of one TMX (default: all of them).")
@setting_option("alpha")
@setting_option("resamples")
@setting_option("seed")
@click.option("--json", "json_out", type=click.Path(),
              help="Write the comparison as JSON (a folder: FOLDER/result.json).")
@click.option("--report", type=click.Path(), help="Write the HTML comparison report (a folder: FOLDER/report.html).")
@click.option("--results-dir", type=click.Path(file_okay=False),
              help="Also write each system's full check result (<name>.json) into this folder.")
@judge_options
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@guarded
def compare_command(files, names, quiet, config_path, penalties_file, json_out, report, results_dir,
                    alpha, resamples, seed, **flags):
    """Compare several translations (systems) of the same source against shared references.

    FILES are one file or folder per system, or one TMX with several target languages.
    """
    _run(files, names, quiet, config_path, penalties_file, json_out, report, results_dir,
         alpha, resamples, seed, flags)


def _run(files, names, quiet, config_path, penalties_file, json_out, report, results_dir, alpha, resamples,
         seed, flags):

    tgt = flags.pop("tgt_lang")
    env = environment(flags)  # the options click took from the environment leave `flags`
    s = Settings.build(config_path, environ=env, penalties_file=penalties_file, alpha=alpha, resamples=resamples,
                       seed=seed, **flags)
    # output paths checked before the run (termqa.outputs): a folder gets the file's default name
    outputs = plan_outputs({"--json": json_out, "--report": report})
    outputs.check_inputs(list(files), reads={"the glossary": s.glossary, "the penalties file": s.penalties_file,
                                             "the config file": s.config, "the judge cache": s.cache})
    outputs.make_folders()
    json_out, report = outputs.get("--json"), outputs.get("--report")
    s.penalty_table()  # a bad penalties file is refused before the judge's settings are
    progress = progress_bar(quiet)
    result = top.compare(list(files), list(s.glossary), s, names=list(names), tgt_langs=list(tgt or ()),
                         progress=progress)
    end_progress(progress)
    for alert in result.alerts:  # inputs that do not fit: said first, whatever else is printed
        click.echo(f"termqa: warning: {alert}", err=True)
    data = result.to_dict()
    if json_out:
        wrote(atomic_write(json_out, json_data=data), quiet)
    if report:
        wrote(write_compare_html(data, report), quiet)
    if results_dir:
        out = Path(results_dir)
        out.mkdir(parents=True, exist_ok=True)
        for run, res in zip(result.runs, result.results):
            safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in run.spec.name) or "system"
            atomic_write(out / f"{safe}.json", json_data=res.to_dict())
        wrote(out, quiet, f"{len(result.runs)} results")
    if not quiet:
        click.echo(render_text(data))
    # judge questions that failed after their retries: say so and exit 3, as `termqa check` does
    reasons: Counter = Counter()
    for system in data["systems"]:
        reasons.update(system["unjudged_reasons"])
    incomplete = incomplete_message({"accounting": data.get("accounting"),
                                     "summary": {"unjudged_reasons": dict(reasons)}})
    if incomplete:
        click.echo(incomplete, err=True)
        sys.exit(EXIT_INCOMPLETE)

