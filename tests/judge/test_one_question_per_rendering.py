"""A capital that only opens the sentence is no other rendering: the judge is asked once about both
("Tuyauterie d'aspiration" opening a segment and "tuyauterie d'aspiration" inside one), and both get its
answer, so one problem never carries two verdicts."""
from __future__ import annotations

from termqa.config import Settings
from termqa import check
from termqa.problems import opening_case_free
from tests.helpers import write_csv, write_xliff
from tests.judge.test_judge import Script, judge

PAIRS = [
    ("u1", "Replace the suction line.", "Remplacez la conduite d'aspiration."),
    ("u2", "Suction line: flush it.", "Tuyauterie d'aspiration : rincez-la."),
    ("u3", "Insulate the suction line.", "Isolez la tuyauterie d'aspiration."),
    ("u4", "Drain the suction line.", "Videz la tuyauterie d'aspiration."),
]


def test_the_opening_capital_is_the_sentences():
    t = "Tuyauterie d'aspiration : rincez-la."
    assert opening_case_free("Tuyauterie d'aspiration", t, 0, "fr") == "tuyauterie d'aspiration"
    t2 = "Isolez la Tuyauterie."
    assert opening_case_free("Tuyauterie", t2, t2.index("Tuyauterie"), "fr") == "Tuyauterie"  # mid-sentence
    assert opening_case_free("Pumpe", "Pumpe prüfen.", 0, "de") == "Pumpe"  # German nouns keep theirs
    assert opening_case_free("CoV", "CoV du chat.", 0, "fr") == "CoV"  # an abbreviation's capitals are its own
    t3 = "Rincez. Tuyauterie propre."
    assert opening_case_free("Tuyauterie", t3, t3.index("Tuyauterie"), "fr") == "tuyauterie"


def test_one_question_and_one_verdict_for_both_writings(server, tmp_path):  # noqa: F811
    server.default = Script(errors={"uyauterie": "paraphrase_instead_of_term"})
    x = write_xliff(tmp_path / "doc.xlf", PAIRS)
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "suction line", "conduite d'aspiration"]])
    r = check([x], [g], Settings(lemmatiser="lookup"), judge=judge(server, tmp_path)).to_dict()
    found = {o["unit_id"]: (o["target_text"], o["outcome"], o["label"]) for o in r["occurrences"]}
    assert found["u2"][0] == "Tuyauterie d'aspiration" and found["u3"][0] == "tuyauterie d'aspiration"
    assert found["u2"][1:] == found["u3"][1:] == found["u4"][1:] == ("error", "A2")
    assert r["accounting"]["questions"]["error"] == 1
