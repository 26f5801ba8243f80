"""Options several commands share, defined once."""
from __future__ import annotations

import click

from termqa.config import (
    DEFAULT_CONCURRENCY, DEFAULT_JUDGE_TIMEOUT, DEFAULT_VARIANTS, ENV_BASE_URL, ENV_MODEL, LemmatiserMode, VariantLevel,
)

_INPUT_OPTIONS = (
    click.option("-g", "--glossary", "glossary", multiple=True,
                 help="Glossary (TBX, SKOS, CSV/TSV, OmegaT, Excel .xlsx; a sheet as terms.xlsx#Sheet2); repeatable."),
    click.option("--src-lang", help="Source language, overriding the files."),
    click.option("--glossary-lang", help="Language of glossary labels that have none."),
    click.option("--lemmatiser", type=click.Choice(LemmatiserMode.choices()), default=None,
                 help="auto: a trained spaCy pipeline on projects up to 50k words when installed, else "
                      "lookup tables."),
    click.option("--domain", help="Domain named to the judge, e.g. 'medical devices'."),
    click.option("--variants", type=click.Choice(VariantLevel.choices()), default=None,
                 help="Term variants to find beyond the glossary's forms: none; static (compound spellings, "
                      "'X of Y' / 'Y X', French article forms, noun/adjective derivation of a modifier, a "
                      "guarded modifier reduction); dynamic (also inserted modifiers, coordinations, the bare "
                      f"head after a full mention). Default: {DEFAULT_VARIANTS}."),
    click.option("--source-only-glossary", is_flag=True, default=None,
                 help="The glossary has no target-language terms on purpose: check consistency only "
                      "(without this flag such a glossary is refused)."),
    click.option("--force-languages", is_flag=True, default=None,
                 help="Check as declared even when the source and target languages look swapped "
                      "(without this flag such a run is refused, exit code 2)."),
    click.option("--match-case", is_flag=True, default=None,
                 help="Find every glossary source term only written in its own case (\"Settings\" is not "
                      "\"settings\"); per entry: a match_case column, a TBX termNote type=\"caseSensitive\"."),
    click.option("--include-states", "include_states", multiple=True,
                 help="Also check units whose state says they are not translated yet (e.g. new, "
                      "needs-translation, initial, NotStarted, unconfirmed, fuzzy (PO), unfinished (Qt TS); "
                      "comma-separated or repeatable; "
                      "'all' for every unit). By default they are left out and counted."),
    click.option("--penalties", "penalties_file", type=click.Path(dir_okay=False),
                 help="JSON or TOML file overriding penalties, e.g. {\"A4\": 2, \"unjustified\": 1}."),
    click.option("--jobs", type=click.IntRange(min=1), default=None,
                 help="Worker processes for counting (default: the available cores, on projects over "
                      "150k source words; results are the same for any value)."),
    click.option("--index-cache/--no-index-cache", "index_cache", default=None,
                 help="Keep parsed glossaries, source indexes, lemma tables and text analyses in the user cache folder "
                      "(default; $TERMQA_CACHE_DIR relocates it)."),
)


def input_options(f):
    """Glossaries, languages, lemmatiser, domain and penalties: what every checking command takes."""
    return _apply(_INPUT_OPTIONS, f)


_JUDGE_OPTIONS = (
    click.option("--judge-model", envvar=ENV_MODEL,
                 help="LLM model for the judge (or OPENAI_MODEL). Without it: counting mode."),
    click.option("--judge-base-url", envvar=ENV_BASE_URL, help="OpenAI-compatible endpoint (or OPENAI_BASE_URL)."),
    click.option("--concurrency", type=int, help=f"Judge calls in flight at once (default {DEFAULT_CONCURRENCY})."),
    click.option("--judge-timeout", type=float,
                 help=f"Seconds to wait for one judge answer before trying again (default {DEFAULT_JUDGE_TIMEOUT:g})."),
    click.option("--max-calls", type=int, help="Stop judging after this many LLM calls (keeps what was judged)."),
    click.option("--max-cost", type=float, help="Stop judging past this estimated cost in USD."),
    click.option("--price", "price", multiple=True,
                 help="Judge price as MODEL=INPUT,OUTPUT[,CACHED_INPUT] in USD per million tokens (repeatable), "
                      "e.g. my-model=0.4,1.6,0.1 (CACHED_INPUT: prompt tokens the provider served from its "
                      "prompt cache); used for the cost estimate and --max-cost."),
    click.option("--cache", type=click.Path(dir_okay=False), help="Verdict cache file (SQLite)."),
    click.option("--judge-batch", is_flag=True, default=None,
                 help="Send the judge questions as an OpenAI Batch API job instead of asking now; re-run (or "
                      "'termqa judge collect') to ingest the answers and go on. Exit code 3 until done."),
    click.option("--judge-batch-file", type=click.Path(dir_okay=False),
                 help="Only write the judge questions as a Batch API JSONL file (e.g. for vLLM's run-batch); "
                      "'termqa judge ingest RESULTS.jsonl' stores the answers."),
    click.option("--offline", is_flag=True, default=None, help="Never call the LLM: a cache miss is an error."),
    click.option("--exhaustive", is_flag=True, default=None, help="Send every occurrence through both judges."),
    click.option("--config", "config_path", type=click.Path(dir_okay=False),
                 help="Config file (default: ./termqa.toml or [tool.termqa] in ./pyproject.toml)."),
)


def judge_options(f):
    """The judge and config options every judging command shares (check, compare)."""
    return _apply(_JUDGE_OPTIONS, f)


def _apply(options, f):
    """Decorate `f` with `options`, listed in the order --help shows them."""
    for option in reversed(options):
        f = option(f)
    return f
