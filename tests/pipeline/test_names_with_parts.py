"""A glossary term written inside a longer hyphen-joined name ("SARS" in "SARS-CoV-2", "Severe Acute
Respiratory Syndrome" in "Severe Acute Respiratory Syndrome-Coronavirus-2") is not an occurrence of its
concept: the name is translated whole. A hyphenated compound of plain words keeps its match."""
import pytest

from tests.conftest import CORPUS
from tests.helpers import run

H = ["id", "en", "fr"]
G = [["sars", "SARS", "SRAS"], ["sarscov", "SARS-CoV", "SARS-CoV"], ["cov", "coronavirus", "coronavirus"],
     ["syn", "Severe Acute Respiratory Syndrome", "syndrome respiratoire aigu sévère"],
     ["inf", "infected", "infecté"], ["covid", "COVID-19", "COVID-19"], ["cases", "case", "cas"]]


def _found(r):
    return [(o["unit_id"], o["source_text"]) for o in r["occurrences"]]


def test_a_part_of_a_name_is_not_an_occurrence(tmp_path):
    pairs = [("SARS-CoV-2 is not SARS-CoV in bats.", "Le SARS-CoV-2 n'est pas le SARS-CoV des chauves-souris."),
             ("Infection with Severe Acute Respiratory Syndrome-Coronavirus-2 rose.",
              "L'infection par le syndrome respiratoire aigu sévère-coronavirus-2 a augmenté."),
             ("MERS-CoV and SARS cases.", "Le MERS-CoV et des cas de SRAS.")]
    r = run(tmp_path, pairs, H, G)
    # the whole "SARS-CoV" (a designation) stays; "SARS" inside "SARS-CoV-2" and the spelt-out name's parts go
    assert _found(r) == [("u1", "SARS-CoV"), ("u3", "SARS"), ("u3", "cases")]
    assert {o["outcome"] for o in r["occurrences"]} == {"conforming"}


def test_plain_word_compounds_keep_their_terms(tmp_path):
    pairs = [("COVID-19-related deaths among SARS-CoV-2-infected people.",
              "Des décès liés à la COVID-19 chez des personnes infectées par le SARS-CoV-2."),
             ("Some non-SARS cases and anti-coronavirus drugs.",
              "Des cas non SRAS et des médicaments anti-coronavirus.")]
    r = run(tmp_path, pairs, H, G)
    assert _found(r) == [("u1", "COVID-19"), ("u1", "infected"), ("u2", "SARS"), ("u2", "cases"),
                         ("u2", "coronavirus")]


def test_spaced_hyphen_joins_no_name(tmp_path):
    # a dash between spaces is punctuation, not part of a word
    r = run(tmp_path, [("SARS - CoV2 was named later.", "SRAS - CoV2 a été nommé plus tard.")], H, G)
    assert _found(r) == [("u1", "SARS")]


@pytest.mark.skipif(CORPUS is None, reason="../shared/corpus is not present")
def test_bio_mqm_no_term_matched_inside_the_spelt_out_virus_name(tmp_path):
    """bio-MQM doc85 segment 2: the annotators marked "syndrome respiratoire aigu sévère-coronavirus-2" a
    wrong term; its parts must not read as two conforming terms (they did before)."""
    from termqa.evaluate.biomqm_checks import run_checks

    terms = CORPUS / "eval" / "tico19-enfr" / "data" / "terminologies"
    runs, _m = run_checks(str(CORPUS / "eval" / "bio-mqm"), [str(terms / "f_en-fr_XX.csv"),
                          str(terms / "g_en_fr-FR.csv")], str(tmp_path), pair="en2fr", systems=["mtcarousel"],
                          docs=["doc85"])
    occ = [(o["unit_id"], o["source_text"]) for o in runs[0].result["occurrences"] if o["unit_id"] == "2"]
    assert ("2", "SARS-CoV-2") in occ
    assert not {"Severe Acute Respiratory Syndrome", "Coronavirus"} & {t for _u, t in occ}
