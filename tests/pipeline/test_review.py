"""Reviewer decisions persist: decided once, remembered on the next run, never asked to the judge again."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.cli import main
from termqa.errors import InputError
from termqa.formats.decisions import (
    DecisionBook, decisions_from_result, merge, read_decisions, segment_key, write_decisions,
)
from termqa.judge.llm import settings_from_env
from termqa.pipeline.check import check
from tests.helpers import write_csv, write_xliff
from tests.llm_server import ScriptedLLM

PAIRS = [
    ("u1", "Clean the strainer before start-up.", "Nettoyez le strainer avant la mise en service."),
    ("u2", "Replace the impeller.", "Remplacez l'impeller."),
    ("u3", "Check the strainer.", "Contrôlez la crépine."),
    ("u4", "Open the drain valve.", "Ouvrez la vanne de vidange."),
]
GLOSSARY = [["c1", "strainer", "crépine"], ["c2", "impeller", "roue"], ["c3", "drain valve", "vanne de vidange"]]


def _project(tmp_path, pairs=PAIRS, name="doc.xlf"):
    return write_xliff(tmp_path / name, pairs), write_csv(tmp_path / "g.csv", ["id", "en", "fr"], GLOSSARY)


def _occ(data, source, target):
    found = [k for k, o in enumerate(data["occurrences"]) if o["source_text"] == source and o["target_text"] == target]
    assert found, (source, target)
    return found


def _decide(tmp_path, data, k, **kw):
    book = DecisionBook(tuple(decisions_from_result(data, k, **kw)))
    path = str(tmp_path / "termqa-decisions.json")
    write_decisions(book, path)
    return path


def test_accepted_segment_survives_reordering_and_edits_elsewhere(tmp_path):
    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    k = _occ(data, "strainer", "strainer")
    assert data["occurrences"][k[0]]["label"] == "A4"
    path = _decide(tmp_path, data, k, decision="accept", scope="segment", by="ana", comment="client keeps it")
    # units reordered, another segment edited, a unit added
    moved = [PAIRS[3], ("u2", "Replace the impeller.", "Remplacez la roue."), PAIRS[0], PAIRS[2],
             ("u5", "Clean the strainer.", "Nettoyez la crépine.")]
    x2 = write_xliff(tmp_path / "doc.xlf", moved)
    again = check([x2], [g], Settings(lemmatiser="lookup"), decisions=path).to_dict()
    o = again["occurrences"][_occ(again, "strainer", "strainer")[0]]
    assert (o["outcome"], o["label"], o["judge"], o["rule"]) == ("justified", None, "reviewer", "reviewer")
    assert "ana" in o["reason"] and "client keeps it" in o["reason"]
    assert again["decisions"]["occurrences_decided"] == 1 and again["decisions"]["stale"] == []
    assert again["signature"]["decisions"] == read_decisions(path).sha256
    assert "|dec:" in again["signature"]["string"]


def test_editing_the_decided_segment_makes_the_decision_stale(tmp_path):
    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    path = _decide(tmp_path, data, _occ(data, "strainer", "strainer"), decision="accept", scope="segment")
    edited = [("u1", "Clean the strainer before start-up.", "Nettoyez bien le strainer avant la mise en service."),
              *PAIRS[1:]]
    again = check([write_xliff(tmp_path / "doc.xlf", edited)], [g],
                  Settings(lemmatiser="lookup"), decisions=path).to_dict()
    o = again["occurrences"][_occ(again, "strainer", "strainer")[0]]
    assert o["label"] == "A4" and o["judge"] == "rule"
    assert len(again["decisions"]["stale"]) == 1
    assert any("match nothing any more" in w for w in again["warnings"])


def test_project_scope_acceptance_is_conforming_everywhere_and_rejection_takes_the_label(tmp_path):
    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    acc = _decide(tmp_path, data, _occ(data, "impeller", "impeller"), decision="accept", scope="project")
    again = check([x], [g], Settings(lemmatiser="lookup"), decisions=acc).to_dict()
    assert again["occurrences"][_occ(again, "impeller", "impeller")[0]]["outcome"] == "conforming"
    rej = _decide(tmp_path, data, _occ(data, "drain valve", "vanne de vidange"), decision="reject", scope="document",
                  label="A7", comment="here it is the bleed valve")
    again = check([x], [g], Settings(lemmatiser="lookup"), decisions=rej).to_dict()
    o = again["occurrences"][_occ(again, "drain valve", "vanne de vidange")[0]]
    assert (o["outcome"], o["label"], o["penalty"]) == ("error", "A7", 3.0)


def test_decisions_skip_the_judge(tmp_path):
    x, g = _project(tmp_path)

    def answer(body):
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
        if "align" in name:
            return {"translation": "", "found": False}
        return {"justification": "Scripted.", "label": "no_error"}

    counts = []
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    # exhaustive mode asks about conforming occurrences too: decide two of them
    path = _decide(tmp_path, data, _occ(data, "drain valve", "vanne de vidange") + _occ(data, "strainer", "crépine"),
                   decision="accept", scope="segment")
    for decisions in (None, path):
        server = ScriptedLLM().start()
        server.default = answer
        try:
            judge = settings_from_env(model="scripted", judge_base_url=server.url, cache=str(tmp_path / f"c{len(counts)}.db"),
                                      backoff_base=0.01, backoff_max=0.05, judge_timeout=5.0)
            r = check([x], [g],
                      Settings(lemmatiser="lookup", exhaustive=True), judge=judge, decisions=decisions).to_dict()
            bodies = [json.dumps(q.body, ensure_ascii=False) for q in server.completions]
        finally:
            server.stop()
        counts.append(len(bodies))
        if decisions:
            # decided occurrences keep the reviewer's verdict, even in exhaustive mode
            assert {o["judge"] for o in r["occurrences"]
                    if o["target_text"] in ("vanne de vidange", "crépine")} == {"reviewer"}
    # in exhaustive mode every undecided occurrence is asked at least once: two decided, two questions fewer
    assert counts[0] - counts[1] >= 2


def test_merge_keeps_both_sides_and_the_newer_answer(tmp_path):
    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    a = decisions_from_result(data, _occ(data, "impeller", "impeller"), decision="reject", scope="project", label="A1",
                              by="ana", at="2026-11-01T10:00:00Z")
    b = decisions_from_result(data, _occ(data, "strainer", "strainer"), decision="accept", scope="segment", by="bo",
                              at="2026-11-02T10:00:00Z")
    c = decisions_from_result(data, _occ(data, "impeller", "impeller"), decision="accept", scope="project", by="bo",
                              at="2026-11-03T10:00:00Z")
    m = merge(DecisionBook(tuple(a)), DecisionBook(tuple(b + c)))
    assert len(m.book) == 2 and len(m.conflicts) == 1
    kept = {d.source: d.decision for d in m.book.decisions}
    assert kept == {"impeller": "accept", "strainer": "accept"}


def test_segment_key_ignores_whitespace_but_not_words():
    assert segment_key("Check  the pump.", "Vérifiez la pompe.") == segment_key("Check the pump.", "Vérifiez la  pompe.")
    assert segment_key("Check the pump.", "Vérifiez la pompe.") != segment_key("Check the pump.", "Vérifiez le pompe.")


def test_a_broken_decisions_file_is_one_line_and_exit_2(tmp_path):
    x, g = _project(tmp_path)
    bad = tmp_path / "d.json"
    bad.write_text('{"termqa_decisions": 1, "decisions": [{"concept": "c1"}]}', encoding="utf-8")
    with pytest.raises(InputError):
        read_decisions(str(bad))
    res = CliRunner().invoke(main, ["check", x, "-g", g, "--lemmatiser", "lookup", "--decisions", str(bad)])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.output


def test_decide_command_writes_a_file_check_applies(tmp_path, monkeypatch):
    x, g = _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["check", x, "-g", g, "--lemmatiser", "lookup", "--json", "r.json", "-q"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["decide", "add", "r.json", "--source", "impeller", "--rendering", "impeller",
                                  "--reject", "A3", "--scope", "project", "--by", "ana"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["decide", "list"])
    assert "impeller -> 'impeller': reject A3, whole project, by ana" in r.output
    # termqa-decisions.json in the current folder is picked up without a flag
    r = CliRunner().invoke(main, ["check", x, "-g", g, "--lemmatiser", "lookup", "--json", "r2.json", "-q"])
    data = json.loads((tmp_path / "r2.json").read_text(encoding="utf-8"))
    o = data["occurrences"][_occ(data, "impeller", "impeller")[0]]
    assert (o["label"], o["judge"]) == ("A3", "reviewer")
    r = CliRunner().invoke(main, ["decide", "add", "r.json", "--source", "nothing-like-this", "--accept"])
    assert r.exit_code == 2 and "no occurrence" in r.stderr


def test_backlog_takes_project_acceptances_as_strong_evidence(tmp_path):
    from termqa.evaluate.backlog import backlog

    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    assert not backlog(data)["candidates"]
    path = _decide(tmp_path, data, _occ(data, "impeller", "impeller"), decision="accept", scope="project", by="ana")
    again = check([x], [g], Settings(lemmatiser="lookup"), decisions=path).to_dict()
    cands = backlog(again)["candidates"]
    assert [(c["concept_id"], c["rendering"], c["basis"]) for c in cands] == [("c2", "impeller", ["reviewer"])]
