"""`termqa judge collect` / `termqa judge ingest`: the answers of judge batches into the cache."""
from __future__ import annotations

import click

from termqa.cli.common import environment, epilog
from termqa.config import ENV_BASE_URL, Settings
from termqa.judge.batch import BATCH_DISCOUNT, collect, ingest_file
from termqa.judge.cache import VerdictCache
from termqa.judge.costs import DEFAULT_PRICES, estimate_cost, price_for


@click.group("judge", epilog=epilog(
    "termqa check project/ -g terms.tbx --judge-model gpt-4.1-mini --judge-batch   # submits round 1",
    "termqa judge collect                                                        # later: stores the answers",
    "termqa check project/ -g terms.tbx --judge-model gpt-4.1-mini --judge-batch   # next round, or the result",
    "termqa judge ingest vllm-output.jsonl --cache cache.db",
))
def judge_group():
    """Judge batches: collect the answers of submitted batches, or ingest a batch output file."""


def _cost(report, prices) -> str:
    total, known = 0.0, True
    for model, (tin, tout, cached) in report.models.items():
        price = price_for(model, prices)
        if price is None:
            known = False
            continue
        total += estimate_cost(tin, cached, tout, price) * BATCH_DISCOUNT
    return f"${total:.4f}" + ("" if known else " (some models have no known price)")


def _report_line(rep, prices) -> str:
    return (f"{rep.answered} answers stored, {rep.unusable} unusable (asked again next round), {rep.already} already "
            f"in the cache; {rep.tokens_in} tokens in ({rep.tokens_in_cached} cached), {rep.tokens_out} out, "
            f"estimated {_cost(rep, prices)} "
            f"at the batch price")


@judge_group.command("collect", epilog=epilog("termqa judge collect", "termqa judge collect --cache cache.db --judge-base-url https://api.openai.com/v1"))
@click.option("--cache", type=click.Path(dir_okay=False), help="Verdict cache file (SQLite).")
@click.option("--judge-base-url", envvar=ENV_BASE_URL,
              help="The endpoint the batches were submitted to (or OPENAI_BASE_URL).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Config file.")
def collect_command(cache, judge_base_url, config_path):
    """Poll the batches submitted with --judge-batch and store the answers of those that ended."""

    flags = {"cache": cache, "judge_base_url": judge_base_url}
    env = environment(flags)
    s = Settings.build(config_path, environ=env, **flags)
    with VerdictCache(s.cache) as vc:
        open_batches = vc.open_batches()
        if not open_batches:
            click.echo("no judge batch is waiting")
            return
        base_url = s.judge_base_url or open_batches[0]["base_url"]
        from termqa.judge.llm import open_client  # the one module that imports openai

        with open_client(base_url, s.api_key, "the batches", max_retries=3) as client:
            statuses = collect(vc, client)
    for st in statuses:
        line = f"batch {st.batch_id} ({st.requests} questions, {st.model}): {st.status}"
        if st.report is not None:
            line += "; " + _report_line(st.report, DEFAULT_PRICES)
        click.echo(line)
    if any(st.report is None for st in statuses):
        click.echo("some batches are still running: collect again later")
    else:
        click.echo("re-run the same 'termqa check' to go on (it may submit the next stage as a new batch)")


@judge_group.command("ingest", epilog=epilog("termqa judge ingest vllm-output.jsonl --cache cache.db"))
@click.argument("results", type=click.Path(dir_okay=False, exists=True))
@click.option("--cache", type=click.Path(dir_okay=False), help="Verdict cache file (SQLite).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Config file.")
def ingest_command(results, cache, config_path):
    """Store the answers of a Batch API output file (e.g. vLLM run-batch's) written for --judge-batch-file."""

    s = Settings.build(config_path, cache=cache)
    with VerdictCache(s.cache) as vc:
        rep = ingest_file(vc, results)
    click.echo(f"{results}: " + _report_line(rep, DEFAULT_PRICES)
               + (f"; {rep.unknown} lines this cache never wrote to a batch" if rep.unknown else ""))
