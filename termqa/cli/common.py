"""What every command shares: exit codes, one-line errors instead of tracebacks, the progress bar."""
from __future__ import annotations

import functools
import os
import sys

import click

from termqa.errors import TermqaError
from termqa.judge.batch import R_BATCH
from termqa.judge.stages import R_UNAVAILABLE

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
        failed = f"; {acc['failed']} questions failed ({acc.get('fatal_error') or 'after retries'})" \
            if acc.get("failed") else ""
        return f"termqa: incomplete: {done}; {occ} occurrences are unjudged ({R_BATCH}){failed}"
    if not acc.get("failed"):
        return ""
    occ = result["summary"]["unjudged_reasons"].get(R_UNAVAILABLE, 0)
    why = f" ({acc['fatal_error']})" if acc.get("fatal_error") else ""
    return (f"termqa: incomplete: {acc['failed']} judge questions failed after retries{why}; "
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
    """The `termqa` group: a typed error in any command is one line and exit code 2, never a traceback."""

    def invoke(self, ctx):
        return run_guarded(super().invoke, ctx)


def progress_bar(quiet: bool):
    """A progress callback for the library (stage, done, total) on a terminal, else None."""
    if quiet or not sys.stderr.isatty():
        return None

    def show(stage, done, total):
        if total:
            width = 30
            filled = int(width * done / total)
            click.echo(f"\r{stage}: [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", err=True, nl=False)

    return show
