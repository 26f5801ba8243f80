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
from termqa.run import check  # the judge is called from the top floor
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


_GOOD = {"concept": "c1", "source_form": "strainer", "rendering": "strainer", "decision": "accept", "scope": "project"}


def _file(**changes):
    return {"termqa_decisions": 1, "decisions": [{**{k: v for k, v in _GOOD.items() if k not in changes},
                                                   **{k: v for k, v in changes.items() if v is not ...}}]}


@pytest.mark.parametrize("content, said", [
    ('{"termqa_decisions": 1, "decisions": [{"concept": "c1"}]}', "decision 1 (concept c1) lacks 'source_form'"),
    (_file(rendering=...), "lacks 'rendering'"),
    (_file(rendering=5), "'rendering' must be text or null, not a number"),
    (_file(concept={}), "'concept' must be text, not an object"),
    (_file(concept=" "), "'concept' is empty"),
    (_file(source_form=None), "'source_form' must be text, not null"),
    (_file(decision="reject", label=["A1"]), "'label' must be text or null, not a list"),
    (_file(decision="reject", label="Z9"), "a rejection needs an error label"),
    (_file(decision="reject"), "a rejection needs an error label"),
    (_file(decision="maybe"), "'decision' must be accept or reject, not 'maybe'"),
    (_file(decision={"a": 1}), "'decision' must be text, not an object"),
    (_file(scope=["project"]), "'scope' must be text, not a list"),
    (_file(scope="galaxy"), "'scope' must be one of segment, document, project, not 'galaxy'"),
    (_file(scope="segment"), "a segment decision needs 'segment'"),
    (_file(scope="segment", segment=7), "'segment' must be text or null, not a number"),
    (_file(scope="document"), "a document decision needs 'document'"),
    (_file(scope="document", document=["a"]), "'document' must be text or null, not a list"),
    (_file(at=5), "'at' must be text, not a number"),
    (_file(by=3), "'by' must be text, not a number"),
    (_file(comment=[1]), "'comment' must be text, not a list"),
    (_file(bogus=1), "decision 1 has unknown keys: bogus"),
    ({"termqa_decisions": 1, "decisions": [5]}, "decision 1 is a number, not an object"),
    ({"termqa_decisions": 1, "decisions": {}}, "is not a termqa decisions file"),
    ({"termqa_decisions": 2, "decisions": []}, "version 2 is not supported (upgrade termqa)"),
    ({"termqa_decisions": True, "decisions": []}, "version true is not supported"),
    ({"decisions": []}, "is not a termqa decisions file"),
    ([1, 2], "is not a termqa decisions file"),
    ('{"termqa_decisions": 1, "decisions": [', "not valid JSON at line 1, column 39"),
    ("not json at all", "not valid JSON at line 1, column 1"),
    ("", "not valid JSON"),
    (b"\xff\xfe{}", "it is not UTF-8 text"),
])
def test_a_broken_decisions_file_is_one_line_naming_the_fix_and_exit_2(tmp_path, content, said):
    """Every malformed decisions file: `check` and `decide list` say what is wrong in one line that names
    the fix (in brackets), exit 2, and show nothing of Python's insides."""
    x, g = _project(tmp_path)
    bad = tmp_path / "d.json"
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    before = bad.read_bytes()
    with pytest.raises(InputError):
        read_decisions(str(bad))
    for args in (["check", x, "-g", g, "--lemmatiser", "lookup", "--decisions", str(bad)],
                 ["decide", "list", "--decisions", str(bad)]):
        res = CliRunner().invoke(main, args)
        lines = res.stderr.strip().splitlines()
        assert res.exit_code == 2 and len(lines) == 1, (args, res.stderr)
        assert lines[0].startswith(f"termqa: error: {bad}: ") and said in lines[0], lines[0]
        assert lines[0].endswith(")") and " (" in lines[0], lines[0]  # the fix, in brackets
        for internal in ("Traceback", "internal error", "__init__", "TypeError", "positional argument", "char "):
            assert internal not in res.output, (internal, res.output)
    assert bad.read_bytes() == before


def _contradicting(tmp_path, first_at, second_at):
    """Two decisions of the file for the strainer segment: ana accepts, bo rejects."""
    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    k = _occ(data, "strainer", "strainer")
    acc = decisions_from_result(data, k, decision="accept", scope="segment", by="ana", at=first_at)
    rej = decisions_from_result(data, k, decision="reject", scope="segment", label="A1", by="bo", at=second_at)
    path = tmp_path / "termqa-decisions.json"
    path.write_text(json.dumps({"termqa_decisions": 1, "decisions": [d.to_dict() for d in acc + rej]}),
                    encoding="utf-8")  # as a hand edit or a text merge of two files leaves them
    return x, g, str(path)


@pytest.mark.parametrize("ana_at, bo_at, applied", [
    ("2026-11-01T10:00:00Z", "2026-11-02T10:00:00Z", ("error", "A1")),
    ("2026-11-03T10:00:00Z", "2026-11-02T10:00:00Z", ("justified", None)),
])
def test_two_decisions_contradicting_each_other_warn_naming_both_and_the_newer_applies(tmp_path, ana_at, bo_at,
                                                                                        applied):
    x, g, path = _contradicting(tmp_path, ana_at, bo_at)
    book = read_decisions(path)
    assert len(book) == 2 and len(book.conflicts) == 1
    again = check([x], [g], Settings(lemmatiser="lookup"), decisions=path).to_dict()
    o = again["occurrences"][_occ(again, "strainer", "strainer")[0]]
    assert (o["outcome"], o["label"], o["judge"]) == (*applied, "reviewer")
    said = [w for w in again["warnings"] if "contradict" in w]
    assert len(said) == 1 and "\n" not in said[0], again["warnings"]
    assert "accept by ana (2026-11-0" in said[0] and "reject A1 by bo (2026-11-02)" in said[0]
    assert "strainer -> 'strainer'" in said[0] and "the newer is applied" in said[0]
    r = CliRunner().invoke(main, ["check", x, "-g", g, "--lemmatiser", "lookup", "--decisions", path])
    assert r.exit_code in (0, 1) and sum("decisions contradict each other" in line
                                         for line in r.output.splitlines()) == 1, r.output
    r = CliRunner().invoke(main, ["decide", "list", "--decisions", path])
    assert r.exit_code == 0 and r.stderr.count("termqa: warning: decisions contradict each other") == 1, r.stderr
    assert len(r.stdout.splitlines()) == 2  # both listed, so the file can be mended


def test_decisions_that_agree_or_differ_only_in_scope_do_not_warn(tmp_path):
    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    k = _occ(data, "strainer", "strainer")
    same = decisions_from_result(data, k, decision="accept", scope="segment", by="ana", at="2026-11-01T10:00:00Z")
    again = decisions_from_result(data, k, decision="accept", scope="segment", by="bo", at="2026-11-02T10:00:00Z")
    wide = decisions_from_result(data, k, decision="reject", scope="project", label="A4", by="bo")
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"termqa_decisions": 1, "decisions": [d.to_dict() for d in same + again + wide]}),
                    encoding="utf-8")
    assert read_decisions(str(path)).conflicts == ()
    lenient = tmp_path / "nulls.json"  # a hand-written null for who, when and why reads as not said
    lenient.write_text(json.dumps({"termqa_decisions": 1, "decisions": [
        {**_GOOD, "by": None, "at": None, "comment": None, "label": None, "id": "anything"}]}), encoding="utf-8")
    assert read_decisions(str(lenient)).decisions[0].by == ""
    res = check([x], [g], Settings(lemmatiser="lookup"), decisions=str(path)).to_dict()
    assert not [w for w in res["warnings"] if "contradict" in w]
    o = res["occurrences"][_occ(res, "strainer", "strainer")[0]]
    assert o["outcome"] == "justified"  # the segment's own decision is the exception to the project's


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
    from termqa.results.backlog import backlog

    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    assert not backlog(data)["candidates"]
    path = _decide(tmp_path, data, _occ(data, "impeller", "impeller"), decision="accept", scope="project", by="ana")
    again = check([x], [g], Settings(lemmatiser="lookup"), decisions=path).to_dict()
    cands = backlog(again)["candidates"]
    assert [(c["concept_id"], c["rendering"], c["basis"]) for c in cands] == [("c2", "impeller", ["reviewer"])]


def test_a_translators_answer_contradicting_the_decisions_file_warns(tmp_path):
    """The decisions file rejects the strainer segment; the translator's answer in the XLIFF accepts it."""
    x, g = _project(tmp_path)
    data = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    k = _occ(data, "strainer", "strainer")
    path = _decide(tmp_path, data, k, decision="reject", scope="segment", label="A4", by="ana")
    text = open(x, encoding="utf-8").read()
    unit = data["occurrences"][k[0]]["unit_id"]
    anchor = f'<trans-unit id="{unit}">'
    head, tail = text.split(anchor)
    body, rest = tail.split("</trans-unit>", 1)
    text = (head + anchor + body + '<note from="termqa">termqa error: "strainer" is left in English</note>'
            '<note from="maria">Accept: the client keeps it</note></trans-unit>' + rest)
    open(x, "w", encoding="utf-8").write(text)
    again = check([x], [g], Settings(lemmatiser="lookup"), decisions=path).to_dict()
    said = [w for w in again["warnings"] if "contradicts a decision" in w]
    assert len(said) == 1 and "reject by ana" in said[0] and "accept by maria" in said[0], again["warnings"]
