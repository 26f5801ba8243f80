"""How far a setting travels: `--variants` and `--judge-model` reach their use in at most 4 hops.

A hop is a function call that receives the value itself as an argument. Between the hops the value
rides inside a record (the run's Settings, the Detection record `count()` makes, the judge's
JudgeSettings), which the stages pass whole. The calls are watched with a profiler while the real CLI
runs in-process, so a stage that starts taking the level or the model again shows up here.

    --variants static:      check_command -> Settings.build -> Settings -> Detection
                            (the variant finder, the source index's entries and the target forms read
                            Detection.variants)
    --judge-model M:        check_command -> Settings.build -> Settings -> JudgeSettings
                            (the request's model is read from JudgeSettings by Backend._payload)
"""
from __future__ import annotations

import sys
import threading

from click.testing import CliRunner

from termqa.cli.check import check_command
from tests.conftest import SAMPLES

# the normalisers of a value (an enum parsing or printing itself) are no hop: they hand the value back
NOT_HOPS = {"termqa.config:_Choice.parse", "termqa.config:_Choice.__str__"}
# writing the result: the recorded settings and the signature name the value (they are outputs, not uses)
OUTPUT_MODULES = ("termqa.signature", "termqa.shownpath", "termqa.fileio", "termqa.results")


def _traced(args, value, env=None):
    """(functions of termqa that received `value` itself as an argument, in order; every function called)."""
    got, called = [], set()

    def watch(frame, event, _arg):
        if event != "call":
            return
        code = frame.f_code
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("termqa"):
            return
        name = f"{module}:{code.co_qualname}"
        called.add(name)
        n = code.co_argcount + code.co_kwonlyargcount
        values = [frame.f_locals.get(v) for v in code.co_varnames[:n]]
        for extra in code.co_varnames[n:n + bool(code.co_flags & 4) + bool(code.co_flags & 8)]:  # *args, **kwargs
            more = frame.f_locals.get(extra)
            values.extend(more.values() if isinstance(more, dict) else more or ())
        if any(isinstance(v, str) and v == value for v in values):
            got.append(name)

    sys.setprofile(watch)
    threading.setprofile(watch)  # the judge asks from worker threads
    try:
        result = CliRunner().invoke(check_command, args, env=env)
    finally:
        threading.setprofile(None)
        sys.setprofile(None)
    hops = [g for g in dict.fromkeys(got) if g not in NOT_HOPS and not g.startswith(OUTPUT_MODULES)]
    return result, hops, called


def test_variants_reach_the_variant_finder_in_four_hops(tmp_path):
    result, hops, called = _traced([str(SAMPLES / "pump-manual.xlf"), "-g", str(SAMPLES / "pump-terms.tbx"),
                                    "--variants", "static", "--lemmatiser", "lookup", "--no-index-cache", "-q",
                                    "--json", str(tmp_path / "r.json")], "static")
    assert result.exit_code in (0, 1), result.output
    path = ["termqa.cli.check:check_command", "termqa.config:Settings.build",
            "termqa.config:__create_fn__.<locals>.__init__",  # Settings(...)
            "termqa.pipeline.detection:__create_fn__.<locals>.__init__"]  # Detection(...), made by count()
    assert hops[:4] == path, hops
    # the uses were reached, reading the record: the finder, the source index's entries
    assert {"termqa.pipeline.sourcevariants:VariantFinder.__init__", "termqa.pipeline.detect:build_entries"} <= called
    # the target forms (termqa.pipeline.align) and their stored table read the record too: no 5th hop
    assert {"termqa.pipeline.align:StoredForms.__init__", "termqa.pipeline.align:target_forms"} <= called
    assert hops[4:] == [], hops


def test_the_judge_model_reaches_the_request_in_four_hops(tmp_path):
    from tests.llm_server import ScriptedLLM

    server = ScriptedLLM().start()
    try:
        result, hops, called = _traced([
            str(SAMPLES / "pump-manual.xlf"), "-g", str(SAMPLES / "pump-terms.tbx"), "--lemmatiser", "lookup", "-q",
            "--judge-model", "scripted-judge", "--judge-base-url", server.url, "--cache", str(tmp_path / "c.db"),
            "--concurrency", "1", "--json", str(tmp_path / "r.json")], "scripted-judge", env={"OPENAI_API_KEY": ""})
    finally:
        server.stop()
    assert result.exit_code in (0, 1, 3), result.output
    assert server.completions and all(r.body["model"] == "scripted-judge" for r in server.completions)
    path = ["termqa.cli.check:check_command", "termqa.config:Settings.build",
            "termqa.config:__create_fn__.<locals>.__init__",  # Settings(...)
            "termqa.judge.settings:__create_fn__.<locals>.__init__"]  # JudgeSettings(...), made by judge_settings()
    assert hops[:4] == path, hops
    assert "termqa.judge.llm:Backend._payload" in called  # the request's model, read from JudgeSettings
    # besides the request, the model keys the verdict cache and picks the price: from the record, a 5th hop
    assert set(hops[4:]) <= {"termqa.judge.cache:cache_key", "termqa.judge.costs:price_for"}, hops
