"""A noun term matches only its noun uses: an English verb use of the same word is not an occurrence
(issue 35: "are also hearing from" is not the glossary noun "hearings", "This helps Mozilla" not the UI
label "Help", "exported" not "export")."""
import pytest

from tests.conftest import CORPUS
from tests.helpers import run

H = ["concept_id", "en", "fr", "pos"]
G = [["hear", "hearings", "audiences", "noun"], ["help", "Help", "Aide", ""], ["exp", "export", "exportation", ""],
     ["qn", "quarantine", "quarantaine", "noun"], ["qv", "quarantine", "mettre en quarantaine", "verb"]]


def _found(r):
    return [(o["unit_id"], o["source_text"], o["concept_id"]) for o in r["occurrences"]]


def test_verb_uses_are_not_occurrences(tmp_path):
    pairs = [("We are also hearing from the witnesses.", "Nous entendons aussi les témoins."),
             ("The hearings resume tomorrow.", "Les audiences reprennent demain."),
             ("This helps Mozilla a lot.", "Cela aide beaucoup Mozilla."),
             ("Open Help to read more.", "Ouvrez Aide pour en savoir plus."),
             ("The files exported last week.", "Les fichiers exportés la semaine dernière."),
             ("The export failed.", "L'exportation a échoué.")]
    r = run(tmp_path, pairs, H, G)
    assert _found(r) == [("u2", "hearings", "hear"), ("u4", "Help", "help"), ("u6", "export", "exp")]
    assert {o["outcome"] for o in r["occurrences"]} == {"conforming"}


def test_a_verb_use_goes_to_the_glossary_verb_entry(tmp_path):
    # the glossary lists "quarantine" twice, a noun and a verb (as TICO-19's does)
    pairs = [("They were quarantined for two weeks.", "Ils ont été mis en quarantaine deux semaines."),
             ("The quarantine ends today.", "La quarantaine prend fin aujourd'hui.")]
    r = run(tmp_path, pairs, H, G)
    assert _found(r) == [("u1", "quarantined", "qv"), ("u2", "quarantine", "qn")]


def test_other_source_languages_keep_every_match(tmp_path):
    pairs = [("Les exportations augmentent.", "The exports rise.")]
    r = run(tmp_path, pairs, ["concept_id", "fr", "en"], [["e", "exportation", "export"]], src="fr", tgt="en")
    assert [o["source_text"] for o in r["occurrences"]] == ["exportations"]
