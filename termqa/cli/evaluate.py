"""CLI commands `meta-eval`, `biomqm-export` and `backlog` (registered on `termqa` in cli.py).

Thin layers over termqa.evaluate.meta_eval, termqa.formats.biomqm and termqa.results.backlog: each flag is a keyword
argument of a library call. Typed errors propagate to the group, which prints them (exit 2).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import click

from termqa import formats
from termqa.cli.common import epilog
from termqa.config import DEFAULT_LEMMATISER, DEFAULT_PAIR, DEFAULT_WEIGHTING, LemmatiserMode, Settings
from termqa.errors import UsageError
from termqa.evaluate import meta_eval as me
from termqa.results.backlog import backlog, render_text, write
from termqa.evaluate.biomqm_checks import run_checks
from termqa.fileio import atomic_write
from termqa.formats import biomqm
from termqa.inputs import merge_glossaries
from termqa.outputs import plan as plan_outputs
from termqa.results.serialise import load_result


def _split(value):
    return [x.strip() for x in value.split(",") if x.strip()] if value else None


def _docs(value):
    """'5' -> the first 5 documents; 'doc2,doc7' -> those; None -> all."""
    if not value:
        return None
    return int(value) if value.strip().isdigit() else _split(value)


def _is_biomqm(path) -> bool:
    """A folder is taken for the bio-MQM data (a wrong one is refused by the loader); a file is a table."""
    return Path(path).is_dir()


@click.command("meta-eval", epilog=epilog(
    "termqa meta-eval results/ --human human-scores.tsv",
    "termqa meta-eval --human bio-mqm/ -g terms.tbx --systems sysA,sysB --json meta.json"))
@click.argument("results", nargs=-1)
@click.option("--human", "human", required=True, type=click.Path(exists=True),
              help="bio-MQM folder (MQM span annotations) or a TSV/CSV/JSON of human scores per "
                   "system, doc, segment.")
@click.option("-g", "--glossary", "glossary", multiple=True,
              help="With a bio-MQM folder and no RESULTS: run termqa check on every system with this glossary.")
@click.option("--pair", default=DEFAULT_PAIR, show_default=True, help="bio-MQM language pair folder.")
@click.option("--systems", help="Comma-separated bio-MQM systems (default: all).")
@click.option("--docs", help="First N documents, or comma-separated document ids (default: all).")
@click.option("--work-dir", type=click.Path(file_okay=False),
              help="Where the XLIFF files and per-system results go (default: a temporary folder).")
@click.option("--lemmatiser", type=click.Choice(LemmatiserMode.choices()), default=DEFAULT_LEMMATISER.value, show_default=True)
@click.option("--categories", default="all", show_default=True,
              help="MQM errors that count: all, terminology, or comma-separated categories.")
@click.option("--mqm-weights", "mqm_weights", type=click.Choice(list(biomqm.WEIGHTINGS)),
              default=DEFAULT_WEIGHTING, show_default=True,
              help="How bio-MQM errors weigh. severity-25-5-1: Critical 25, Major 5, Minor 1, Neutral 0. "
                   "wmt: the WMT MQM weighting, Major 5, Minor 1, Minor Linguistic_conventions/Punctuation 0.1 "
                   "(Critical counted as Major; bio-MQM has no Non-translation category).")
@click.option("--metrics", "metric_names", help="Comma-separated metrics (default: all of them).")
@click.option("--permutations", type=int, default=1000, show_default=True,
              help="Sign vectors of the paired permutation tests behind SPA.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--compare", "compare_k", type=int, default=0, show_default=True,
              help="Permutations for significance of the best metric against each other one (0: off).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the report as JSON.")
def meta_eval_cmd(results, human, glossary, pair, systems, docs, work_dir, lemmatiser, categories, mqm_weights,
                  metric_names, permutations, seed, compare_k, json_out):
    """Meta-evaluate termqa's scores (and the counting metrics) against human scores.

    RESULTS are `termqa check --json` files (or folders of them), one per system, named after the
    system. Without RESULTS, --human must be the bio-MQM folder and --glossary given: the systems
    are exported as XLIFF and checked first.
    """

    if json_out:  # checked before the work: never written over a file this command reads
        plan_outputs({"--json": json_out}).check_inputs(
            [], reads={"a result": list(results), "the human scores": human, "the glossary": glossary})
    metrics = _split(metric_names) or list(me.ALL_METRICS)
    bio = None
    table = None
    if _is_biomqm(human):
        if results:
            runs = me.load_runs(results)
            bio = biomqm.load(human, pair, [r.system for r in runs])
        else:
            if not glossary:
                raise UsageError("no results and no glossary",
                                 fix="pass result JSONs, or --glossary to run termqa check on the bio-MQM systems")
            if work_dir:
                runs, _m = run_checks(human, glossary, work_dir, pair=pair, systems=_split(systems),
                                      docs=_docs(docs), settings=Settings(lemmatiser=lemmatiser))
            else:
                with tempfile.TemporaryDirectory(prefix="termqa-meta-") as tmp:
                    runs, _m = run_checks(human, glossary, tmp, pair=pair, systems=_split(systems),
                                          docs=_docs(docs), settings=Settings(lemmatiser=lemmatiser))
            bio = biomqm.load(human, pair, [r.system for r in runs], _docs(docs))
    else:
        if not results:
            raise UsageError("a human score table needs the systems' results", fix="pass result JSON files")
        runs = me.load_runs(results)
        table = me.read_human_table(human)
    report = me.meta_evaluate(runs, biomqm=bio, human_table=table, categories=categories, metrics=metrics,
                              k=permutations, seed=seed, compare_k=compare_k, human_source=str(human),
                              mqm_weights=mqm_weights)
    if json_out:
        atomic_write(json_out, json_data=report)
    click.echo(me.render_text(report))


@click.command("biomqm-export", epilog=epilog("termqa biomqm-export bio-mqm/ xliff/ --pair en2fr --docs 5"))
@click.argument("biomqm_dir", type=click.Path(exists=True, file_okay=False))
@click.argument("out_dir", type=click.Path(file_okay=False))
@click.option("--pair", default=DEFAULT_PAIR, show_default=True)
@click.option("--systems", help="Comma-separated systems (default: all).")
@click.option("--docs", help="First N documents, or comma-separated document ids (default: all).")
def biomqm_export_cmd(biomqm_dir, out_dir, pair, systems, docs):
    """Write the bio-MQM systems as XLIFF 1.2 (one file per system, one <file> per document)."""

    m = biomqm.export(biomqm_dir, out_dir, pair, _split(systems), _docs(docs))
    for name, info in m["systems"].items():
        spans = biomqm.SpanRepairs.from_dict(info["error_spans"])
        click.echo(f"{Path(out_dir) / info['xliff']}: {len(info['documents'])} documents, {info['segments']} segments; "
                   f"{spans.describe()}")
    click.echo(f"{Path(out_dir) / biomqm.MANIFEST}")


@click.command("backlog", epilog=epilog(
    "termqa backlog result.json", "termqa backlog result.json -g terms.tbx --out candidates.tbx"))
@click.argument("verdicts", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out", type=click.Path(dir_okay=False),
              help="Candidates as TBX (.tbx) or, with the other lists, CSV/TSV (.csv, .tsv).")
@click.option("-g", "--glossary", "glossary", multiple=True,
              help="The glossary of the run, to list the concepts never found; repeatable.")
@click.option("--glossary-lang", help="Language of glossary labels that have none (SKOS).")
@click.option("--min-count", type=int, default=2, show_default=True,
              help="Uses a candidate needs (renderings justified as document usage need one).")
@click.option("--examples", type=int, default=3, show_default=True, help="Example segments per entry.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the whole backlog as JSON.")
def backlog_cmd(verdicts, out, glossary, glossary_lang, min_count, examples, json_out):
    """Candidate terms, glossary terms never found, forbidden terms used: from a --json result."""

    # both outputs checked before anything is read: neither goes over the result, the glossary or the other
    outputs = plan_outputs({"--out": out, "--json": json_out})
    outputs.check_inputs([], reads={"the result": verdicts, "the glossary": glossary})
    out, json_out = outputs.get("--out"), outputs.get("--json")
    data = load_result(verdicts)
    concepts = None
    if glossary:
        gl = [formats.read_glossary(g, default_lang=glossary_lang) for g in glossary]
        concepts = merge_glossaries(gl)
        used = {g.get("sha256") for g in (data.get("signature") or {}).get("glossaries", [])}
        if used and any(g.content_hash not in used for g in gl):
            click.echo("termqa: warning: the glossary differs from the one the run used", err=True)
    report = backlog(data, concepts, min_count=min_count, examples=examples)
    if out:
        fmt = write(report, out)
        click.echo(f"wrote {out} ({fmt})", err=True)
    if json_out:
        atomic_write(json_out, json_data=report)
    click.echo(render_text(report))


COMMANDS = (meta_eval_cmd, biomqm_export_cmd, backlog_cmd)

__all__ = ["meta_eval_cmd", "biomqm_export_cmd", "backlog_cmd", "COMMANDS"]
