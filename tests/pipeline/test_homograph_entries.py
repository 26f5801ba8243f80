"""A source term several concepts write the same (issue #35, TICO-19 Chinese): its two termbases give
"transmission" as 传染 and as 传播. Detection gives the text to the first concept; where the translation
holds the glossary term of another concept written the same, and none of the first's, the occurrence is that
concept's and conforms. Where no such term is there, nothing changes: a different word stays undecided."""
from __future__ import annotations

import pytest

from tests.conftest import CORPUS
from tests.helpers import run, write_xliff

H = ["concept_id", "en", "zh"]
TWO = [["f276", "transmission", "传染"], ["g18", "transmission", "传播"]]


def _got(r):
    return [(o["concept_id"], o["target_text"], o["outcome"]) for o in r["occurrences"]]


def test_the_concept_whose_term_the_translation_holds(tmp_path):
    r = run(tmp_path, [("Airlines are taking steps to reduce transmission.", "航空公司正采取措施减少传播。")],
            H, TWO, tgt="zh")
    assert _got(r) == [("g18", "传播", "conforming")]


def test_the_first_concept_keeps_its_own_term(tmp_path):
    r = run(tmp_path, [("This limits transmission between people.", "这限制了人与人之间的传染。")],
            H, TWO, tgt="zh")
    assert _got(r) == [("f276", "传染", "conforming")]


def test_no_term_of_either_concept_stays_undecided(tmp_path):
    # 人传人 (human to human) is neither 传染 nor 传播: the first concept keeps it, undecided
    r = run(tmp_path, [("It suggested that human-to-human transmission was possible.", "提示可能存在人传人现象。")],
            H, TWO, tgt="zh")
    assert [(c, o) for c, _t, o in _got(r)] == [("f276", "unjudged")]


def test_a_term_of_another_source_word_is_not_taken(tmp_path):
    # "spread" is another source term: its 传播 is no rendering of "transmission"
    r = run(tmp_path, [("Transmission is unclear.", "病毒的传染途径尚不清楚。")],
            H, [["f276", "transmission", "传染"], ["s", "spread", "传播"]], tgt="zh")
    assert _got(r) == [("f276", "传染", "conforming")]


def test_tico19_two_termbases(tmp_path):
    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    from tests.pipeline.test_decide_more_tico import _tico_pairs
    from termqa.config import Settings
    from termqa.pipeline.check import check

    pairs = _tico_pairs("all.en-zh.tmx", "taking steps to reduce transmission",
                        "has a higher ability to spread than MERS-CoV", "the stage of community spread")
    terms = CORPUS / "eval" / "tico19-multi" / "data" / "terminologies"
    x = write_xliff(tmp_path / "doc.xlf", pairs, "en", "zh")
    r = check([x], [terms / "f_en-zh_CN.csv", terms / "g_en_zh-CN.csv"], Settings(lemmatiser="lookup")).to_dict()
    got = {(o["source_text"], o["target_text"], o["outcome"]) for o in r["occurrences"]
           if o["source_text"] in ("transmission", "spread", "SARS-CoV-2", "community spread")}
    # the second termbase's 传播, 扩散, 社区传播 and its SARS-CoV-2 kept as written (the first termbase gives
    # "非典型肺炎冠状病毒 2 型（SARS-CoV-2）")
    assert got == {("transmission", "传播", "conforming"), ("spread", "扩散", "conforming"),
                   ("SARS-CoV-2", "SARS-CoV-2", "conforming"), ("community spread", "社区传播", "conforming")}
