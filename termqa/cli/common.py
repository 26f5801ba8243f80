"""What every command shares: exit codes, one-line errors instead of tracebacks, progress lines,
"wrote FILE" lines, a quiet end when a pipe reader goes away, and the help epilog."""
from __future__ import annotations

import functools
import importlib
import os
import sys
import time
from pathlib import Path
from typing import Optional

import click

from termqa.config import ENV_API_KEY, ENVIRONMENT
from termqa.errors import InputError, TermqaError, UsageError
from termqa.formats.sniff import detect_text, looks_binary, text_start
from termqa.labels import R_BATCH, R_UNAVAILABLE
from termqa.inputs import scan
from termqa.outputs import ANNOTATED_MARK, XLIFF_SUFFIXES, OutputPlan, names_folder

EXIT_OK = 0
EXIT_QA_FAILED = 1
EXIT_INPUT = 2
EXIT_INCOMPLETE = 3  # judge questions still failed after their retries: re-run to finish (cache)
EXIT_INTERRUPTED = 130


def incomplete_message(result: dict) -> str:
    """What is left to do when judge questions failed after their retries or wait for a batch (exit
    code 3), else ''."""
    acc = result.get("accounting") or {}
    batch = acc.get("batch") or {}
    if batch and (batch["queued"] or batch["waiting"] or batch["deferred"]):
        occ = result["summary"]["unjudged_reasons"].get(R_BATCH, 0)
        if batch["mode"] == "file" and batch["queued"]:
            done = (f"wrote {batch['queued']} judge questions to {batch['file']}: run it (e.g. vLLM's "
                    f"run-batch -i {batch['file']} -o RESULTS.jsonl), then 'termqa judge ingest RESULTS.jsonl' "
                    "and re-run this command")
        elif batch["queued"]:
            done = (f"submitted {batch['queued']} judge questions in batch {', '.join(batch['submitted'])}: "
                    "re-run this command (or 'termqa judge collect') once it has completed")
        else:
            done = (f"{batch['waiting']} judge questions wait in a batch submitted earlier: re-run this command "
                    "(or 'termqa judge collect') once it has completed")
        failed = f"; {acc['failed']} questions failed ({acc.get('fatal_error') or acc.get('first_failure')})" \
            if acc.get("failed") else ""
        return f"termqa: incomplete: {done}; {occ} occurrences are unjudged ({R_BATCH}){failed}"
    if not acc.get("failed"):
        return ""
    occ = result["summary"]["unjudged_reasons"].get(R_UNAVAILABLE, 0)
    by = acc.get("failed_by_reason") or {}
    classes = f" ({', '.join(f'{k} {n}' for k, n in by.items())})" if by else ""
    first = acc.get("fatal_error") or acc.get("first_failure")
    why = f": {first}" if first else ""
    return (f"termqa: incomplete: {acc['failed']} judge questions failed{classes}{why}; "
            f"{occ} occurrences are unjudged ({R_UNAVAILABLE}). Re-run to finish: answers already "
            "received come from the cache, only the failed questions are asked again")


def fail(message: str) -> None:
    click.echo(f"termqa: error: {message}", err=True)
    sys.exit(EXIT_INPUT)


def run_guarded(func, *args, **kwargs):
    """Call `func`, turning every typed error into one line on stderr and exit code 2."""
    try:
        return func(*args, **kwargs)
    except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
        raise
    except BrokenPipeError:  # `termqa ... | head`: the reader has gone, which is not our error
        silence_stdout()
        sys.exit(EXIT_OK)
    except TermqaError as exc:
        fail(str(exc))
    except OSError as exc:  # a file we were asked to write or read outside the readers
        name = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        fail(f"{name}{exc.strerror or exc}")
    except KeyboardInterrupt:
        click.echo("termqa: interrupted (finished judgements are kept in the cache)", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:  # a bug of ours: one line, the traceback only on request
        if os.environ.get("TERMQA_DEBUG"):
            raise
        fail(f"internal error: {type(exc).__name__}: {exc} (please report it; TERMQA_DEBUG=1 shows the traceback)")


def guarded(func):
    """A command that behaves the same inside the `termqa` group and on its own."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return run_guarded(func, *args, **kwargs)

    return wrapper


class Group(click.Group):
    """The `termqa` group: a typed error in any command is one line and exit code 2, never a traceback.

    `lazy` names commands by where they live, {name: (module, attribute)}: such a module is imported only
    when its command is looked up (run, or listed by --help), so a check does not pay for loading every
    other command's library (comparison statistics, judge batches, meta-evaluation).
    """

    def __init__(self, *args, lazy: Optional[dict] = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx):
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx, name):
        if name not in self.commands and name in self.lazy:
            module, attribute = self.lazy[name]
            command = getattr(importlib.import_module(module), attribute)
            if command.name != name:  # a renamed command would show under one name and run under another
                raise RuntimeError(f"lazy command {name!r} is named {command.name!r} in {module}")
            self.add_command(command)
        return super().get_command(ctx, name)

    def invoke(self, ctx):
        from termqa.run import no_collection_at_exit  # the top floor, which every command runs through

        no_collection_at_exit()
        return run_guarded(super().invoke, ctx)


class Command(click.Command):
    """A command that points an option name people try by habit at the one it has: click's own guess is
    by spelling (it offers --help for --html)."""

    SUGGEST = {"--html": "--report"}

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            name = exc.option_name.split("=", 1)[0]
            want = self.SUGGEST.get(name)
            if want and any(want in p.opts for p in self.params):
                raise click.NoSuchOption(exc.option_name, message=f"No such option {name!r}. Did you mean "
                                                                  f"{want!r}?", ctx=ctx) from None
            raise


def silence_stdout() -> None:
    """Point stdout at /dev/null after a broken pipe, so the interpreter's final flush does not
    print "Broken pipe" (nor raise again)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def wrote(path, quiet: bool, what: str = "") -> None:
    """Say on stderr which file was written (stdout may carry JSON)."""
    if not quiet:  # the path the user asked for, as given: it names no input's folder
        click.echo(f"termqa: wrote {path}" + (f" ({what})" if what else ""), err=True)


def check_bilingual_inputs(paths) -> None:
    """Refuse, before any work, a named file that is plain text or a table rather than a bilingual
    file, saying what it looks like and what was expected (the reader would call it a CSV glossary)."""
    for p in paths:
        path = Path(p)
        if not path.is_file():
            continue
        try:
            with open(path, "rb") as fh:
                head = fh.read(4096)
        except OSError:
            continue
        start = text_start(head)
        if not start or start.startswith("<") or looks_binary(start) or detect_text(start) != "csv":
            continue
        first = start.split("\n", 1)[0]
        table = any(sep in first for sep in (",", ";", "\t"))
        what = "a table (CSV/TSV), perhaps a glossary" if table else "plain text"
        raise InputError(p, f"is {what}, not a bilingual file: termqa checks XLIFF 1.2/2.x and TMX "
                            "(and PO/Qt TS with translate-toolkit)",
                         fix=("pass a glossary with --glossary" if table else
                              "export the translation from the CAT tool as XLIFF"))


def check_annotate_target(inputs, annotate, in_place: bool) -> None:
    """Refuse before the run (not after a long judged one) what the write-back would refuse at the
    end: both --annotate and --in-place, or one output file for several XLIFF inputs."""
    if annotate and in_place:
        raise UsageError("--annotate and --in-place exclude each other", fix="choose one")
    if not annotate:
        return
    xliffs = [p for p in inputs if Path(p).suffix.lower() in XLIFF_SUFFIXES]
    out = Path(annotate)
    if len(xliffs) > 1 and ((out.exists() and not out.is_dir())
                            or (not names_folder(annotate) and out.suffix.lower() in XLIFF_SUFFIXES)):
        raise UsageError(f"{annotate}: several files are annotated, so --annotate must name a folder",
                         fix="name a folder (it is created if missing)")


def planned_inputs(files, outputs: OutputPlan, quiet: bool) -> list[str]:
    """The files a run reads: `files` expanded without the run's own outputs (termqa.inputs.scan); the
    annotated copies an earlier run left in a folder are named on stderr, not read."""
    found = scan(list(files), outputs.excluded())
    if found.skipped and not quiet:
        some = ", ".join(found.skipped[:3]) + (f" and {len(found.skipped) - 3} more" if len(found.skipped) > 3 else "")
        click.echo(f"termqa: not read: {len(found.skipped)} annotated cop{'y' if len(found.skipped) == 1 else 'ies'} "
                   f"an earlier run wrote ({some}; listed in {ANNOTATED_MARK}): name a file to check it", err=True)
    return found.files


def progress_bar(quiet: bool):
    """A progress callback for the library (stage, done, total): a bar on a terminal; elsewhere
    (CI logs, pipes) a plain line when a stage starts, every 10 % and when it ends, and each line the
    judge's ticker sends while it waits for answers (every 10 s, termqa.judge.progress: answered,
    failed by reason, in flight), so a long run shows it is alive without flooding the log."""
    if quiet:
        return None
    if not sys.stderr.isatty():
        last: dict = {}
        started = time.monotonic()

        def lines(stage, done, total):
            if not total:
                return
            step = int(10 * done / total)
            now = time.monotonic()
            # the same line again only after 10 s: the judge's ticker repeats it while nothing moves
            if last.get(stage, (None, 0.0))[0] == step and now - last[stage][1] < 9.5:
                return
            last[stage] = (step, now)
            click.echo(f"termqa: {stage} {done}/{total} ({time.monotonic() - started:.0f} s)", err=True)

        return lines

    def show(stage, done, total):
        if total:
            width = 30
            filled = int(width * done / total)
            click.echo(f"\r{stage}: [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", err=True, nl=False)

    show.tty = True  # type: ignore[attr-defined]
    return show


def end_progress(progress) -> None:
    """End the terminal bar's line (the plain progress lines need nothing)."""
    if progress is not None and getattr(progress, "tty", False):
        click.echo("", err=True)


def environment(flags: dict) -> dict:
    """The environment's settings, read once here: the options whose value click took from their
    `envvar=` (--judge-model: OPENAI_MODEL, --judge-base-url: OPENAI_BASE_URL) are moved out of `flags`,
    and OPENAI_API_KEY (no option: a key never goes on a command line) is added. Settings.build puts them
    below the config file, which flags override."""
    ctx = click.get_current_context()
    env = {}
    for name, var in ENVIRONMENT.items():
        if name in flags and ctx.get_parameter_source(name) is click.core.ParameterSource.ENVIRONMENT:
            env[var] = flags.pop(name)
    key = os.environ.get(ENV_API_KEY)
    if key is not None:
        env[ENV_API_KEY] = key
    return env


def epilog(*examples: str, codes: str = "") -> str:
    """The end of a command's --help: examples (kept on their own lines) and its exit codes."""
    text = "\b\nExamples:\n" + "\n".join(f"  {e}" for e in examples)
    text += "\n\n\b\nExit codes:\n" + (codes or "  0 done\n  2 bad input or usage (one line on stderr)\n"
                                                "  130 interrupted")
    return text
