"""Content failures are not outages (#36): unusable answers are asked again at most twice, never become
verdicts, never reach the cache, and a model that cannot do the task stops the run early with the reason.
Through the real openai client against the scripted server (tests/llm_server.py); wall times are
measured by hand (see the commit and bench/), the tests assert on calls and retries."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa.errors import JudgeError, UnusableAnswer
from termqa.judge.llm import Backend, Request
from termqa.run import check  # the judge is called from the top floor
from tests.judge.test_judge import GLOSS, PAIRS, Script
from tests.helpers import fast_judge, write_csv, write_xliff

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = {"name": "verdict", "strict": True, "schema": {
    "type": "object", "properties": {"justification": {"type": "string"},
                                     "label": {"type": "string", "enum": ["no_error", "invented_calque"]}},
    "required": ["justification", "label"], "additionalProperties": False}}
PROSE = "Sure! I think the translation is fine, nothing to report here."


def settings(server, tmp_path, **kw):
    return fast_judge(server, tmp_path, environ={}, **{"unusable_pause": 0.01, **kw})


def req(text: str) -> Request:
    return Request("error_judge", "error_judge@1+test", (("system", "You judge."), ("user", text)), SCHEMA)


@pytest.mark.parametrize("fault,reason", [("not_json", "not JSON"), ("empty", "empty"), ("refusal", "refusal"),
                                          ("bad_label", "label outside the registry")])
def test_an_unusable_answer_is_asked_again_at_most_twice_then_fails_with_its_reason(server, tmp_path, fault, reason):
    server.fail_next(fault, fault, fault)
    with Backend(settings(server, tmp_path, concurrency=1)) as b:
        with pytest.raises(UnusableAnswer) as info:
            b.complete(req("q"))
        acc = b.account.as_dict()
        assert len(b.cache) == 0  # nothing cached from it
    assert info.value.reason_class == reason and "after 3 unusable answers" in str(info.value)
    assert len(server.completions) == 3 and acc["retries"] == 2 and acc["failed"] == 1
    assert acc["unusable_by_reason"] == {reason: 3} and acc["failed_by_reason"] == {reason: 1}


def test_a_bad_label_then_a_good_one_gives_the_good_one(server, tmp_path):
    server.fail_next("bad_label")
    with Backend(settings(server, tmp_path)) as b:
        assert b.complete(req("q")).data["label"] == "no_error"
        assert b.account.as_dict()["schema_breaking_answers"] == 1


def test_a_bad_answer_an_older_termqa_cached_is_asked_again(server, tmp_path):
    s = settings(server, tmp_path)
    with Backend(s) as b:
        r = req("q")
        b.cache.put(b.key_for(r), model=s.model, prompt_id=r.prompt_id, prompt_version=r.prompt_version,
                    messages=r.message_dicts(), answer={"justification": "x", "label": "BANANA"}, raw="{}")
        assert b.complete(r).data["label"] == "no_error"
        assert b.account.cached_unusable == 1 and len(server.completions) == 1


def test_most_answers_unusable_stops_judging_early_with_the_reason(server, tmp_path):
    server.default = PROSE
    with Backend(settings(server, tmp_path, concurrency=4)) as b:
        out = b.complete_many([req(f"q{i}") for i in range(60)])
        acc = b.account.as_dict()
    assert all(isinstance(o, JudgeError) for o in out)
    # stopped after 15 unusable answers of 20, plus what was on the wire: not 60 x 3 calls
    assert len(server.completions) <= 15 + 4
    assert acc["fatal_error"].startswith("judging stopped early: 15 of the last 15 answers were unusable (not JSON 15)")
    assert "Sure! I think" in acc["fatal_error"] and acc["failed"] == 60


def test_a_third_of_answers_unusable_gives_the_same_verdicts_as_a_healthy_run(server, tmp_path):
    script = Script(align={"coupling guard": "protège-accouplement", "wear ring": "bague d'usure"},
                    errors={"tuyauterie": "invented_calque"})

    def flaky(body):  # the first answer to about a third of the questions is unusable, by their text
        key = json.dumps(body["messages"], sort_keys=True)
        h = int(hashlib.sha256(key.encode()).hexdigest(), 16) % 3
        seen[key] = seen.get(key, 0) + 1
        if h == 0 and seen[key] == 1:
            return PROSE
        if h == 1 and seen[key] == 1 and "label" in json.dumps(script(body)):
            return {"justification": "?", "label": "BANANA"}
        return script(body)

    def verdicts(folder, reply):
        server.default = reply
        folder.mkdir()
        x = write_xliff(folder / "doc.xlf", PAIRS)
        g = write_csv(folder / "g.csv", ["id", "en", "fr"], GLOSS)
        r = check([x], [g], Settings(lemmatiser="lookup"), judge=settings(server, folder)).to_dict()
        return r, [(o["unit_id"], o["concept_id"], o["target_text"], o["outcome"], o["label"]) for o in r["occurrences"]]

    seen: dict = {}
    healthy, want = verdicts(tmp_path / "healthy", script)
    flaked, got = verdicts(tmp_path / "flaky", flaky)
    assert got == want and flaked["accounting"]["failed"] == 0
    assert flaked["accounting"]["unusable_answers"] >= 2 and flaked["accounting"]["fatal_error"] is None


def test_a_generic_400_tries_the_next_response_format_once_and_shows_the_servers_words(server, tmp_path):
    server.fail_next("400")
    with Backend(settings(server, tmp_path)) as b:
        assert b.complete(req("q1")).json_mode == "json_object"
        assert b.account.json_mode_fallback
    assert [r.response_format for r in server.completions] == ["json_schema", "json_object"]
    server.log.clear()
    server.fail_next("400", "400")
    with Backend(settings(server, tmp_path)) as b:
        with pytest.raises(JudgeError) as info:
            b.complete(req("q2"))
        acc = b.account.as_dict()
    assert "(400): Invalid request" in str(info.value) and acc["retries"] == 0
    assert len(server.completions) == 2 and acc["failed_by_reason"] == {"refused": 1}


def test_a_500_naming_nothing_costs_one_outage_budget_not_one_per_question(server, tmp_path):
    server.random_faults(1.0, kinds=("500",))
    with Backend(settings(server, tmp_path, concurrency=2, max_retries=3)) as b:
        out = b.complete_many([req(f"q{i}") for i in range(20)])
        acc = b.account.as_dict()
    assert all(isinstance(o, JudgeError) for o in out)
    # the first question to spend its 4 attempts stops new questions; the other one in flight ends too
    assert len(server.completions) <= 2 * 4
    assert "judge server unavailable" in acc["fatal_error"] and "server error (500): internal error" in acc["fatal_error"]
    assert acc["failed_by_reason"] == {"outage": 20}


def test_the_cli_on_the_samples_with_a_model_that_cannot_answer_exits_3_with_the_reason(server, tmp_path):
    from click.testing import CliRunner

    from termqa.cli.main import main

    server.default = PROSE
    args = ["check", str(ROOT / "samples" / "pump-manual.xlf"), "-g", str(ROOT / "samples" / "pump-terms.tbx"),
            "--judge-model", "scripted-judge", "--judge-base-url", server.url, "--cache", str(tmp_path / "c.db"),
            "--json", str(tmp_path / "r.json"), "--lemmatiser", "lookup", "--concurrency", "4"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 3, res.output
    assert "judging stopped early" in res.stderr and "Sure! I think" in res.stderr
    acc = json.loads((tmp_path / "r.json").read_text())["accounting"]
    assert acc["calls"] <= 15 + 4 and acc["retries"] <= 15  # a few questions, each asked at most 3 times
    assert len(server.completions) <= 15 + 4


def test_each_judge_stage_reports_progress_while_it_waits(server, tmp_path):
    """The issue's "a stage of 60 s prints at least 5 lines", scaled down: the alignment stage takes 3-6 s
    here (1.2 s per answer, one at a time, one answer unusable and asked again) and the ticker's interval
    is 0.3 s (JudgeSettings.progress_every; 10 s by default): that stage alone prints at least 5 lines,
    each with answered, failed and in flight (with margin for a loaded machine, where a tick comes late)."""
    server.latency = 1.2
    server.default = Script(align={"coupling guard": "protège-accouplement", "wear ring": "bague d'usure"})
    server.fail_next("not_json")
    x = write_xliff(tmp_path / "doc.xlf", PAIRS)
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], GLOSS)
    lines = []
    r = check([x], [g], Settings(lemmatiser="lookup"),
              judge=settings(server, tmp_path, concurrency=1, progress_every=0.3),
              progress=lambda stage, done, total: lines.append((stage, done, total))).to_dict()
    align = [s for s, _, _ in lines if s.startswith("judge align:")]
    assert r["accounting"]["calls"] >= 5 and len(align) >= 5
    assert all("answered" in t and "failed" in t and "in flight" in t for t in align)
    assert any("1 in flight" in t for t in align) and any("1 retries" in t for t in align)


def test_the_cli_progress_lines_repeat_a_line_only_after_10_s(monkeypatch, capsys):
    """On a non-terminal: every tenth of a stage, and a repeated line (the judge ticker while nothing moves)
    only once 10 s have passed, so a stalled judge still shows it is alive, without flooding the log."""
    import termqa.cli.common as common

    clock = [100.0]
    monkeypatch.setattr(common.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: False, raising=False)
    lines = common.progress_bar(quiet=False)
    stalled = "judge error: 0 answered, 0 from the cache, 0 failed, 8 in flight, 8 retries"
    lines(stalled, 0, 9)
    clock[0] += 5
    lines(stalled, 0, 9)  # the same, 5 s later: not again
    clock[0] += 5
    lines(stalled, 0, 9)  # 10 s later: again
    for done in range(1, 11):
        lines("aligning", done, 10)
    err = capsys.readouterr().err.splitlines()
    assert sum(stalled in e for e in err) == 2
    assert sum("aligning" in e for e in err) == 10  # every 10 %


@pytest.mark.parametrize("answer, reason", [
    ({"label": "no_error"}, "missing field"),  # no justification, which the schema requires
    ({"justification": "x"}, "missing field"),  # no label
])
def test_an_answer_missing_a_required_field_is_unusable_never_a_verdict_nor_cached(server, tmp_path, answer, reason):
    server.default = answer
    with Backend(settings(server, tmp_path, concurrency=1)) as b:
        with pytest.raises(UnusableAnswer) as info:
            b.complete(req("q"))
        acc = b.account.as_dict()
        assert len(b.cache) == 0
    assert info.value.reason_class == reason and len(server.completions) == 3
    assert acc["schema_breaking_answers"] == 3 and acc["failed_by_reason"] == {reason: 1}


ALIGN_SCHEMA = {"name": "align", "strict": True, "schema": {
    "type": "object", "required": ["renderings"], "additionalProperties": False,
    "properties": {"renderings": {"type": "array", "items": {
        "type": "object", "required": ["translation", "found"],
        "properties": {"translation": {"type": "string"}, "found": {"type": "boolean"}}}}}}}


def test_a_quoted_span_not_in_the_target_is_unusable_and_a_true_one_is_read(server, tmp_path):
    target = "Remplacez la bague d'usure."
    ask = Request("align", "align@1+test", (("system", "You align."), ("user", target)), ALIGN_SCHEMA,
                  quotes=("renderings", "translation", "found", target))
    server.default = {"renderings": [{"translation": "anneau d'usure", "found": True}]}  # not in the target
    with Backend(settings(server, tmp_path, concurrency=1)) as b:
        with pytest.raises(UnusableAnswer) as info:
            b.complete(ask)
        assert len(b.cache) == 0 and b.account.as_dict()["schema_breaking_answers"] == 3
    assert info.value.reason_class == "span not in the target" and "anneau d'usure" in str(info.value)
    server.log.clear()
    server.default = {"renderings": [{"translation": "bague d’usure", "found": True}]}  # retyped apostrophe
    with Backend(settings(server, tmp_path, concurrency=1)) as b:
        assert b.complete(ask).data["renderings"][0]["translation"] == "bague d’usure"
        assert len(b.cache) == 1 and b.account.as_dict()["unusable_answers"] == 0


def test_the_console_and_the_report_count_schema_breaking_answers(server, tmp_path):
    """Labels outside the registry for one question: the console's judge lines and the report's judge table
    say how many answers broke the schema, as the JSON does."""
    from click.testing import CliRunner

    from termqa.cli.main import main

    server.default = Script(align={"coupling guard": "protège-accouplement", "wear ring": "bague d'usure"},
                            errors={"tuyauterie": "BANANA"})
    x = write_xliff(tmp_path / "doc.xlf", PAIRS)
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], GLOSS)
    res = CliRunner().invoke(main, [
        "check", x, "-g", g, "--judge-model", "scripted-judge", "--judge-base-url", server.url,
        "--cache", str(tmp_path / "c.db"), "--lemmatiser", "lookup", "--json", str(tmp_path / "r.json"),
        "--report", str(tmp_path / "r.html")], env={"OPENAI_API_KEY": "x"})
    acc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["accounting"]
    n = acc["schema_breaking_answers"]
    assert n >= 3 and res.exit_code == 3, res.output  # the question failed: re-run to finish
    assert f"{n} of them schema-breaking: asked again, none became a verdict or was cached" in res.output
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    row = html[html.index("Schema-breaking answers"):][:400]
    assert f">{n}<" in row, row


def _user_docs() -> list[str]:
    """README and the docs it links to, whitespace flattened (a sentence may wrap anywhere)."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
    return [" ".join(p.read_text(encoding="utf-8").split()) for p in paths if p.is_file()]


def test_the_readme_says_a_schema_breaking_answer_never_becomes_a_verdict():
    """The promise made to users (README, or the docs it was split into) is the behaviour tested above."""
    assert any("schema-breaking answer never becomes a verdict" in t and "never cached" in t for t in _user_docs())


def test_the_docs_say_how_to_run_the_judge_locally_and_what_the_server_must_do():
    """A local judge, documented: Ollama, llama.cpp and vLLM started, JSON mode or a schema, the context length."""
    assert any(all(w in t for w in ("ollama serve", "llama_cpp.server", "vllm serve", "json_schema", "json_object",
                                    "Context length")) for t in _user_docs())


def test_a_60_s_judge_stage_prints_at_least_5_progress_lines_by_default():
    """The default ticker interval makes the issue's figure hold: a 60 s stage gets a line every 10 s (6),
    at least 5 on a loaded machine; the scaled test above shows the ticker keeps that interval."""
    from termqa.judge.settings import JudgeSettings

    every = JudgeSettings.__dataclass_fields__["progress_every"].default
    assert every <= 10.0 and 60 // every >= 5


def test_progress_lines_name_the_reason_class_of_failed_questions(server, tmp_path):
    """Questions that fail show up in the progress lines with their reason class, while the stage runs."""
    server.latency = 0.05
    server.default = Script(align={"coupling guard": "protège-accouplement", "wear ring": "bague d'usure"},
                            errors={"tuyauterie": "BANANA"})
    x = write_xliff(tmp_path / "doc.xlf", PAIRS)
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], GLOSS)
    lines = []
    check([x], [g], Settings(lemmatiser="lookup"), judge=settings(server, tmp_path, concurrency=1, progress_every=0.02),
          progress=lambda stage, done, total: lines.append(stage))
    failing = [t for t in lines if t.startswith("judge") and " 0 failed" not in t and "failed" in t]
    assert failing and all("failed (label outside the registry " in t for t in failing), lines


def test_a_failed_question_frees_its_slot_and_the_pause_between_asks_is_short(server, tmp_path):
    """One slot (concurrency 1): the first question's three unusable answers fail it, and the next
    question is asked and answered in the slot it freed. The pause before asking again is short by
    default (at most 2 s whatever the setting: a content failure is not an outage)."""
    from termqa.judge.settings import JudgeSettings

    assert JudgeSettings.__dataclass_fields__["unusable_pause"].default <= 2.0
    assert JudgeSettings.__dataclass_fields__["unusable_retries"].default == 2
    server.fail_next("not_json", "not_json", "not_json")
    with Backend(settings(server, tmp_path, concurrency=1)) as b:
        first, second = b.complete_many([req("q1"), req("q2")])
        acc = b.account.as_dict()
    assert isinstance(first, UnusableAnswer) and first.reason_class == "not JSON"
    assert second.data["label"] == "no_error" and len(server.completions) == 4
    assert (acc["failed"], acc["retries"]) == (1, 2)


def test_an_early_stop_keeps_what_was_judged_before_it(server, tmp_path):
    """The model answers the first five questions, then only prose: judging stops with the reason, and the
    five answers stay (returned and cached), so a re-run asks only the rest."""
    good = Script()

    def reply(body):
        text = prompt_text(body)
        return good(body) if text in {f"q{i}" for i in range(5)} else PROSE

    server.default = reply
    questions = [req(f"q{i}") for i in range(30)]
    with Backend(settings(server, tmp_path, concurrency=1)) as b:
        out = b.complete_many(questions)
        acc = b.account.as_dict()
        cached = len(b.cache)
    assert [o.data["label"] for o in out[:5]] == ["no_error"] * 5 and cached == 5
    assert all(isinstance(o, JudgeError) for o in out[5:])
    assert acc["fatal_error"].startswith("judging stopped early") and len(server.completions) <= 5 + 15 + 1
    server.default = good
    with Backend(settings(server, tmp_path, concurrency=1)) as b:
        assert all(not isinstance(o, JudgeError) for o in b.complete_many(questions))
        assert b.account.cached == 5 and b.account.calls == 25


def prompt_text(body) -> str:
    return [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
