"""The top floor: one run of `termqa check` or `termqa compare`, from the settings record to the files.

`check` and `compare` take the run's settings whole (`termqa.config.Settings`), make the judge's
settings from it when a judge model is configured (or take a `JudgeSettings` made by the caller), call
the stages (termqa.pipeline.check's counting stages, then the judge, then `finish`; termqa.evaluate.compare)
and record where the settings came from. The judge is called from here, so no pipeline stage imports it.
`write_outputs` routes a check's result to the writers asked for, each imported only when its file is:
a run writing JSON alone loads none of them. The CLI (termqa.cli) only parses options, prints and
turns the result into an exit code; the service would call the same functions.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Optional, Sequence, Union

from termqa.config import Settings
from termqa.fileio import atomic_write, dump_json
from termqa.formats.decisions import DecisionBook
from termqa.model import BilingualFile, Glossary
from termqa.pipeline import check as stages
from termqa.pipeline.check import CheckResult, Progress, Run
from termqa.results.languages import gate as language_gate
from termqa.results.serialise import streamed_result
from termqa.store.gcpause import no_collection_at_exit, paused_gc
from termqa.results.verdict import with_verdicts

if TYPE_CHECKING:  # a counting run never loads the judge, nor compare's statistics
    from termqa.evaluate.compare import CompareResult
    from termqa.judge.settings import JudgeSettings


def judge_of(settings: Settings) -> Optional[JudgeSettings]:
    """The judge's settings of a run (termqa.judge.settings.judge_settings), or None in counting mode: the
    judge (and what it imports) loads only when a judge model is configured."""
    if not settings.judge_model:
        return None
    from termqa.judge.settings import judge_settings

    return judge_settings(settings)


def check(
    inputs: Sequence[Union[str, BilingualFile]],
    glossaries: Sequence[Union[str, Glossary]] = (),
    settings: Settings = Settings(),
    *,
    judge: Optional[JudgeSettings] = None,
    decisions: Union[None, str, DecisionBook] = None,
    progress: Optional[Progress] = None,
) -> CheckResult:
    """Run the terminology check on bilingual files (or folders) against one or more glossaries.

    `inputs` and `glossaries` are paths, or records already read (`BilingualFile`, `Glossary`). `settings`
    holds every option, named as its flag (termqa.config.Settings: languages, lemmatiser mode, variant
    level, penalties, unit states, match case, worker processes `jobs`, the `index_cache`, the judge's
    model, `domain` and `exhaustive`...). The judge asks what counting cannot settle when `judge` (a
    `termqa.judge.settings.JudgeSettings`) is given or `settings.judge_model` is set; otherwise the run is
    counting mode and such occurrences stay `unjudged`. `decisions`: a reviewer decisions file (path or
    DecisionBook), applied before the judge.
    """
    judge = judge if judge is not None else judge_of(settings)  # refused before anything is read
    run = stages.counted(inputs, glossaries, settings, decisions=decisions, progress=progress)
    if judge is not None:
        run = judge_run(run, judge, progress=progress)
    result = stages.finish(run)
    if settings.config:  # where the settings came from: recorded, not part of the signature's id
        result.signature = result.signature.with_settings(config=settings.config)
    return result


def judge_run(run: Run, settings: JudgeSettings, *, progress: Optional[Progress] = None) -> Run:
    """The LLM judge on what counting left open (termqa.judge.stages); the run's settings say whether
    every occurrence is asked (`exhaustive`) and the domain named to the judge."""
    from termqa.judge.stages import run_judge

    exhaustive, domain = run.settings.exhaustive, run.settings.domain
    verdicts, references, accounting, info = run_judge(
        list(run.verdicts), dict(run.references), run.documents, run.concepts_by_id, settings,
        table=run.table, exhaustive=exhaustive, domain=domain, progress=progress, lem=run.lem,
    )
    return replace(run, verdicts=tuple(verdicts), references=references, accounting=accounting, judge=info,
                   exhaustive=exhaustive, domain=domain)


def compare(
    inputs: Sequence[str],
    glossaries: Sequence[str],
    settings: Settings = Settings(),
    *,
    names: Sequence[str] = (),
    tgt_langs: Sequence[str] = (),
    judge: Optional[JudgeSettings] = None,
    progress: Optional[Progress] = None,
) -> CompareResult:
    """Compare several systems' translations of the same source against shared references
    (termqa.evaluate.compare): `settings` and `judge` as in `check`; `names` names the systems, `tgt_langs`
    picks and orders the target languages of one TMX."""
    from termqa.evaluate.compare import compare as compare_systems

    judge = judge if judge is not None else judge_of(settings)
    result = compare_systems(inputs, glossaries, settings, names=names, tgt_langs=tgt_langs, judge=judge,
                             progress=progress)
    if settings.config:  # where the settings came from: recorded, not part of the signature's id
        result.config_path = settings.config
    return result


# --- the index cache and the process (for `termqa cache` and the command line) ---------------------

index_cache_folder = stages.index_cache_folder
clear_index_cache = stages.clear_index_cache
# `no_collection_at_exit` (imported above, termqa.store.gcpause): a command-line process exits without a
# last collection; a library caller keeps its collector as it was


# --- the outputs -------------------------------------------------------------------------------------

def result_data(result: CheckResult, fail_on: Sequence[str] = (), *, whole: bool = True) -> tuple[dict, dict]:
    """The JSON object every output writes, under the gate `fail_on`, and the gate per target language
    ({language: failed conditions}; {} without a gate). `whole=False`: the long lists are made one row at
    a time while the JSON is written (a big translation memory's result is never held whole as dicts);
    the report writers read every occurrence more than once and need it whole."""
    fail_on = list(fail_on)
    if whole:
        data = result.to_dict()
    else:
        with paused_gc():  # the summaries are records built in bulk (termqa.store.gcpause)
            data = streamed_result(result)
    by_language = language_gate(data, fail_on) if fail_on else {}
    for lang, failed in by_language.items():  # each language's own gate, in every output (termqa.results.languages)
        if lang in data.get("languages", {}):
            data["languages"][lang]["gate"] = {"passed": not failed, "failed": failed}
    with_verdicts(data, fail_on)  # the words every output says (termqa.results.verdict), under this gate
    return data, by_language


@dataclass
class Written:
    """What `write_outputs` wrote: the result object and its gate per language (as `result_data`)."""

    data: dict
    by_language: dict = field(default_factory=dict)


Wrote = Callable[[object, str], None]  # (path written, what it holds: "" or e.g. "3 notes")


def write_outputs(
    result: CheckResult,
    *,
    json: Optional[str] = None,
    csv: Optional[str] = None,
    xlsx: Optional[str] = None,
    report: Optional[str] = None,
    annotate: Optional[str] = None,
    in_place: bool = False,
    issues_only: bool = False,
    settings: Settings = Settings(),
    data: Optional[tuple[dict, dict]] = None,
    wrote: Optional[Wrote] = None,
    stdout_gone: Optional[Callable[[], None]] = None,
) -> Written:
    """Write the outputs asked for: `json` ('-' for standard output), `csv` (`issues_only`: only what needs
    a look), `xlsx`, the HTML `report` (with the gate `settings.fail_on` on its first screen), annotated
    XLIFF copies into `annotate` (or over the inputs, `in_place`) with notes at `settings.annotate_level`
    (`settings.its`: ITS 2.0 markup too). Paths are final (termqa.outputs.plan has checked them).
    `data`: `result_data(...)` made already. `wrote(path, what)` is told of each file once it is
    written; `stdout_gone` is called when the reader of standard output has gone (`| head`), and the
    files are still written."""
    fail_on = list(settings.fail_on)
    whole = bool(csv or xlsx or report or annotate or in_place)
    obj, by_language = data if data is not None else result_data(result, fail_on, whole=whole)
    told = wrote or (lambda _path, _what: None)
    if json == "-":  # for pipes (jq, other tools): the JSON is the only thing on stdout
        try:
            dump_json(obj, sys.stdout)
            sys.stdout.write("\n")
            sys.stdout.flush()
        except BrokenPipeError:  # `| head`: the reader has what it wanted; go on with the files
            if stdout_gone is None:
                raise
            stdout_gone()
    elif json:
        told(atomic_write(json, json_data=obj), "")
    # each writer is imported only when its file is asked for: a run writing JSON alone loads none of them
    if csv:
        from termqa.reports.csvout import write_csv

        told(write_csv(obj, csv, issues_only=issues_only), "")
    if xlsx:
        from termqa.reports.xlsx import write_xlsx

        told(write_xlsx(obj, xlsx), "")
    if report:
        from termqa.reports.html import write_html

        told(write_html(obj, report, fail_on=fail_on), "")
    if annotate or in_place:
        from termqa.formats.annotate import annotate_files, annotations_from_result

        notes = annotations_from_result(obj, level=settings.annotate_level.value)
        for rep in annotate_files(result.files, notes, out=annotate, in_place=in_place, its=settings.its) or []:
            if rep.out:
                told(rep.out, f"{rep.written} note{'s' if rep.written != 1 else ''}")
    return Written(obj, by_language)


__all__ = ["check", "compare", "judge_of", "result_data", "write_outputs", "Written"]
