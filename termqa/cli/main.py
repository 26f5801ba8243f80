"""The `termqa` command: a thin layer over the library. Each flag is a keyword argument of a library call.

Exit codes: 0 done (and the --fail-on gate passed), 1 QA gate failed, 2 usage or input error,
3 incomplete (judge questions failed after their retries: re-run to finish).
"""
from __future__ import annotations

import json
import sys

import click

from termqa import config, run
from termqa.cli.check import check_command
from termqa.cli.common import EXIT_INPUT, Group, epilog, wrote
from termqa.cli.console import rescore_table
from termqa.fileio import atomic_write
from termqa.inspect import inspect_file, render_text
from termqa.shownpath import without_path
from termqa.shownpath import shown_path
from termqa.results.serialise import load_result
from termqa.version import __version__


# Commands imported only when used (or listed by --help): a check, the command people wait for, loads
# none of their libraries. check, inspect, rescore and cache are defined or registered below.
LAZY_COMMANDS = {
    "compare": ("termqa.cli.compare", "compare_command"),
    "decide": ("termqa.cli.decide", "decide_group"),
    "judge": ("termqa.cli.judge", "judge_group"),
    "meta-eval": ("termqa.cli.evaluate", "meta_eval_cmd"),
    "biomqm-export": ("termqa.cli.evaluate", "biomqm_export_cmd"),
    "backlog": ("termqa.cli.evaluate", "backlog_cmd"),
}


@click.group(cls=Group, lazy=LAZY_COMMANDS, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="\b\nExit codes (each command's --help lists its own):\n  0 done (and the --fail-on gate passed)\n"
                    "  1 a --fail-on condition holds (check)\n  2 bad input or usage, or nothing could be checked\n"
                    "  3 incomplete: judge questions failed or wait in a batch (check, compare; re-run to finish)\n"
                    "  130 interrupted")
@click.version_option(__version__, "--version", prog_name="termqa")
def main():
    """Terminology QA for translation projects: glossary conformity, consistency, and an LLM judge.

    \b
    Start with:
      termqa check manual.xlf -g terms.tbx --report report.html
    and see `termqa COMMAND --help` for each command's options, examples and exit codes.
    """


# --- inspect -----------------------------------------------------------------------------------------

@main.command(epilog=epilog("termqa inspect manual.xlf terms.tbx", "termqa inspect --json project.tmx | jq .languages",
                            codes="  0 every file was read\n"
                                  "  2 a file is invalid or unreadable (one line each on stderr)\n  130 interrupted"))
@click.argument("files", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (a list for several files).")
@click.option("--src-lang", help="Source language, overriding the file.")
@click.option("--tgt-lang", help="Target language, overriding the file (picks the pair in a TMX).")
@click.option("--glossary-lang", help="Language of glossary labels that have none (SKOS).")
def inspect(files, as_json, src_lang, tgt_lang, glossary_lang):
    """Show what termqa reads from bilingual files and glossaries."""

    infos, problems = [], []
    for f in files:
        info = inspect_file(f, src_lang=src_lang, tgt_lang=tgt_lang, glossary_lang=glossary_lang)
        infos.append(info)
        if info["problems"]:
            first = without_path(info["path"], info["problems"][0])
            problems.append(f"{shown_path(f)}: invalid {info['format']}: {first}"
                            + (f" (and {len(info['problems']) - 1} more)" if len(info["problems"]) > 1 else ""))
    if as_json:
        click.echo(json.dumps(infos[0] if len(infos) == 1 else infos, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(render_text(i) for i in infos))
    if problems:
        for p in problems:
            click.echo(f"termqa: error: {p}", err=True)
        sys.exit(EXIT_INPUT)


# --- rescore -----------------------------------------------------------------------------------------

@main.command(epilog=epilog("termqa check manual.xlf -g terms.tbx --json result.json",
                            "termqa rescore result.json --penalties strict.toml --json strict.json"))
@click.argument("verdicts", type=click.Path(dir_okay=False))
@click.option("--penalties", "penalties_file", type=click.Path(dir_okay=False), required=True,
              help="JSON or TOML penalty table (missing keys keep their defaults).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the re-scored result here.")
def rescore(verdicts, penalties_file, json_out):
    """Recompute every score from a saved --json result under other penalties, with no LLM call."""

    from termqa.evaluate.rescore import rescore_result

    data = load_result(verdicts)
    out = rescore_result(data, config.load_penalties(penalties_file))
    if json_out:
        wrote(atomic_write(json_out, json_data=out), False)

    click.echo(rescore_table(data, out))


# --- cache ---------------------------------------------------------------------------------------------

@main.group("cache", epilog=epilog("termqa cache path", "termqa cache clear"))
def cache_group():
    """The index cache: parsed glossaries, source indexes, lemma tables and text analyses kept between runs."""


@cache_group.command("path", epilog=epilog("termqa cache path"))
def cache_path():
    """Print the index cache folder ($TERMQA_CACHE_DIR, else the user cache folder)."""
    folder = run.index_cache_folder()
    click.echo(str(folder) if folder is not None else "(no cache folder on this system)")


@cache_group.command("clear", epilog=epilog("termqa cache clear"))
def cache_clear():
    """Delete every file of the index cache (the next run rebuilds what it needs)."""
    n, folder = run.clear_index_cache()
    click.echo(f"removed {n} file{'s' if n != 1 else ''} from {folder}")


main.add_command(check_command)

if __name__ == "__main__":  # pragma: no cover
    main()
