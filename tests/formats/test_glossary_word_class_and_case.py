"""A glossary's word class and match-case marks are read into each term (formats/csvgloss.py, tbx.py):
the `pos` column of TICO-19's terminologies, a `match_case` column."""
from __future__ import annotations

from collections import Counter

from termqa.formats import read_glossary

from tests.helpers import write_csv


def test_tico_pos_column(corpus):
    g = read_glossary(str(corpus / "eval/tico19-enfr/data/terminologies/g_en_fr-FR.csv"))
    assert not any("not understood" in w for w in g.warnings)  # the column is read, not ignored
    by = Counter(t.part_of_speech for c in g.concepts for t in c.terms_in("en"))
    assert by["noun"] > 0 and by["verb"] > 0
    verbs = {c.terms_in("en")[0].text for c in g.concepts if c.terms_in("en")[0].part_of_speech == "verb"}
    assert "quarantine" in verbs


def test_match_case_column(tmp_path):
    g = read_glossary(write_csv(tmp_path / "g.csv", ["concept_id", "en", "fr", "case_sensitive", "pos"],
                                [["a", "Settings", "Paramètres", "case-sensitive", "Noun"],
                                 ["b", "pump", "pompe", "", ""]]))
    a, b = g.concepts
    assert [(t.match_case, t.part_of_speech) for t in a.terms] == [(True, "noun")] * 2
    assert [(t.match_case, t.part_of_speech) for t in b.terms] == [(False, None)] * 2
