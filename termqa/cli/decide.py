"""`termqa decide`: record reviewer decisions from the command line (for scripts), merge decision
files, list them. The next `termqa check` applies them before the judge."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from termqa.cli.common import epilog, guarded
from termqa.errors import UsageError
from termqa.formats.decisions import (
    ACCEPT, DEFAULT_NAME, REJECT, SCOPES, DecisionBook, decisions_from_result, merge, read_decisions, with_decisions,
    write_decisions,
)
from termqa.results.serialise import load_result

EPILOG = epilog(
    'termqa decide add result.json --source "wear ring" --rendering "bague d\'usure" --accept --scope project',
    'termqa decide add result.json --occurrence 12 --reject A3 --by maria --comment "calque"',
    "termqa decide merge mine.json theirs.json --out termqa-decisions.json",
)


@click.group("decide", epilog=EPILOG)
def decide_group():
    """Reviewer decisions: accept or reject a flag once, and the next run remembers."""


def _load(path: str) -> Optional[DecisionBook]:
    return read_decisions(path) if Path(path).is_file() else None


def _select(data: dict, occurrences, concept, source, rendering, unit, document) -> list[int]:
    occs = data.get("occurrences") or []
    if not (occurrences or concept or source or rendering is not None or unit or document):
        raise UsageError("say which occurrences are decided",
                         fix="pass --occurrence N, or filters such as --source, --rendering, --concept, --unit")
    picked = []
    for k, o in enumerate(occs):
        if occurrences and k not in occurrences:
            continue
        if concept and o["concept_id"] != concept:
            continue
        if source and (o.get("source_text") or "").casefold() != source.casefold() and o["source_form"] != source:
            continue
        if rendering is not None and (o.get("target_text") or "").casefold() != rendering.casefold():
            continue
        if unit and o.get("unit_id") != unit:
            continue
        if document and document not in (o["doc_id"], Path(o["doc_id"].split("#")[0]).name):
            continue
        picked.append(k)
    return picked


@decide_group.command("add", epilog=EPILOG)
@click.argument("result", type=click.Path(dir_okay=False, exists=True))
@click.option("--accept", "accept", is_flag=True, help="The rendering is right here.")
@click.option("--reject", "label", help="The rendering is an error: its label (A1-A7, C-H, or an inconsistency label).")
@click.option("--scope", type=click.Choice(SCOPES), default="segment", show_default=True,
              help="Where the decision holds: this segment, this document, or the whole project.")
@click.option("--occurrence", "occurrences", type=int, multiple=True,
              help="Position of the occurrence in the result's `occurrences` (repeatable).")
@click.option("--concept", help="Only occurrences of this concept id.")
@click.option("--source", help="Only occurrences of this source term (as written, or its form).")
@click.option("--rendering", help="Only occurrences rendered like this.")
@click.option("--unit", help="Only occurrences in this unit id.")
@click.option("--document", help="Only occurrences in this document (doc id or file name).")
@click.option("--by", default="", help="Who decides.")
@click.option("--comment", default="", help="Why.")
@click.option("--decisions", "decisions_path", type=click.Path(dir_okay=False), default=DEFAULT_NAME,
              show_default=True, help="The decisions file to update (created if missing).")
@guarded
def add_command(result, accept, label, scope, occurrences, concept, source, rendering, unit, document, by, comment,
                decisions_path):
    """Decide the occurrences of a saved `termqa check --json` RESULT that the filters select."""
    if accept == bool(label):
        raise UsageError("say --accept or --reject LABEL (one of them)")
    data = load_result(result)
    picked = _select(data, set(occurrences), concept, source, rendering, unit, document)
    if not picked:
        raise UsageError("no occurrence of the result matches those filters")
    new = decisions_from_result(data, picked, decision=ACCEPT if accept else REJECT, scope=scope, label=label,
                                by=by, comment=comment)
    m = with_decisions(_load(decisions_path), new, decisions_path)
    write_decisions(m.book, decisions_path)
    click.echo(f"{decisions_path}: {len(new)} decision(s) for {len(picked)} occurrence(s) "
               f"({m.replaced} replaced), {len(m.book)} in the file", err=True)
    for c in m.conflicts:
        click.echo(f"termqa: warning: changed decision: {c}", err=True)


@decide_group.command("merge", epilog=epilog("termqa decide merge ana.json bo.json --out termqa-decisions.json"))
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The merged decisions file.")
@guarded
def merge_command(files, out):
    """Merge decision FILES: every decision kept; where two answer the same question, the newer wins."""
    m = merge(*(read_decisions(f) for f in files), into=out)
    write_decisions(m.book, out)
    click.echo(f"{out}: {len(m.book)} decision(s) from {len(files)} file(s)", err=True)
    for c in m.conflicts:
        click.echo(f"termqa: warning: conflicting decisions, newer kept: {c}", err=True)


@decide_group.command("list", epilog=epilog("termqa decide list", "termqa decide list --decisions review/termqa-decisions.json"))
@click.option("--decisions", "decisions_path", type=click.Path(dir_okay=False, exists=True), default=DEFAULT_NAME,
              show_default=True)
@guarded
def list_command(decisions_path):
    """Show the decisions of a file, one line each."""
    book = read_decisions(decisions_path)
    for c in book.conflicts:
        click.echo(f"termqa: warning: {c}", err=True)
    for d in book.decisions:
        where = {"segment": f"segment in {d.document} (unit {d.unit})", "document": f"document {d.document}",
                 "project": "whole project"}[d.scope]
        verdict = "accept" if d.decision == ACCEPT else f"reject {d.label}"
        click.echo(f"{d.id}  {d.source or d.source_form} -> {d.rendering!r}: {verdict}, {where}"
                   f"{', by ' + d.by if d.by else ''}{', ' + d.at[:10] if d.at else ''}"
                   f"{': ' + d.comment if d.comment else ''}")
