"""One deterministic verdict path: the judge stage and compare decide exactly as counting does."""
from __future__ import annotations

from pathlib import Path

from termqa.config import Settings
from termqa.judge.stages import DocView, Stage, redecide
from termqa.pipeline.check import count, prepare

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_redeciding_every_occurrence_gives_the_counting_verdicts():
    run = count(prepare([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup")))
    stage = Stage([DocView(d) for d in run.documents], run.concepts_by_id, None, run.lem, None, False)
    again = redecide(stage, list(run.verdicts), dict(run.references), run.table,
                     force=frozenset(range(len(run.verdicts))))
    before = [(v.outcome, v.label, v.penalty, v.judge) for v in run.verdicts]
    after = [(v.outcome, v.label, v.penalty, v.judge) for v in again]
    assert len(before) > 50
    # counting aligned these spans in their segment; deciding them again from the text alone must agree
    assert after == before
