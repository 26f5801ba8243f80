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


def test_a_verb_joined_to_a_verb_is_a_verb(tmp_path):
    # "develop" can only be a verb: "update" after "and" is its fellow verb, not the glossary noun (issue 35)
    g = [["up", "update", "mise à jour", "noun"]]
    pairs = [("We develop and update resources for schools.", "Nous créons et mettons à jour des ressources."),
             ("The update and the fix ship today.", "La mise à jour et le correctif sortent aujourd'hui."),
             ("Coughing and updating are listed.", "La toux et la mise à jour sont listées.")]
    r = run(tmp_path, pairs, H, g)
    assert [o["unit_id"] for o in r["occurrences"]] == ["u2", "u3"]


def test_french_source_verb_uses_are_not_occurrences(tmp_path):
    # a French noun term matches its noun uses only: after a subject clitic, "ne" or "se" the word is a verb
    g = [["ctl", "contrôle", "check"], ["msk", "masque", "mask"], ["tst", "tester", "to test"]]
    pairs = [("Il contrôle la pompe chaque jour.", "He checks the pump every day."),
             ("Le contrôle de la pompe est fait.", "The pump check is done."),
             ("Ils ne le contrôlent pas.", "They do not check it."),
             ("Pour elle, contrôle et masque suffisent.", "For her, a check and a mask are enough."),
             ("On teste le masque.", "One tests the mask."),
             ("Il faut tester la pompe.", "The pump must be tested.")]
    r = run(tmp_path, pairs, ["concept_id", "fr", "en"], g, src="fr", tgt="en")
    # a verb term keeps its verb uses ("teste" of "tester")
    assert _found(r) == [("u2", "contrôle", "ctl"), ("u4", "contrôle", "ctl"), ("u4", "masque", "msk"),
                         ("u5", "teste", "tst"), ("u5", "masque", "msk"), ("u6", "tester", "tst")]


def test_tico19_develop_and_update(tmp_path):
    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    from tests.pipeline.test_decide_more_tico import _tico_pairs

    pairs = _tico_pairs("all.en-fr.tmx", "develop and update")
    r = run(tmp_path, pairs, H, [["up", "update", "mise à jour", ""]])
    assert not [o for o in r["occurrences"] if o["concept_id"] == "up"]


def test_an_entry_the_glossary_renders_by_an_infinitive_keeps_its_verb_uses(tmp_path):
    # no word class given, but the target term is an infinitive ("toucher", TICO-19's entry for "touch"):
    # the concept is the verb, and "don't touch your face" is its occurrence
    pairs = [("Don't touch your face.", "Ne touchez pas votre visage."),
             ("The files exported last week.", "Les fichiers exportés la semaine dernière.")]
    g = [["t", "touch", "toucher", ""], ["e", "export", "exporter", ""]]
    r = run(tmp_path, pairs, H, g)
    assert [(o["source_text"], o["target_text"], o["outcome"]) for o in r["occurrences"]] == [
        ("touch", "touchez", "conforming"), ("exported", "exportés", "conforming")]


def test_a_noun_target_keeps_the_verb_use_filter(tmp_path):
    # "Aide" and "exportation" are nouns: "helps" and "exported" stay no occurrences (also above)
    pairs = [("This helps Mozilla a lot.", "Cela aide beaucoup Mozilla."),
             ("The files exported last week.", "Les fichiers exportés la semaine dernière.")]
    g = [["h", "Help", "Aide", ""], ["e", "export", "exportation", ""], ["v", "update", "actualiser ou mettre", ""]]
    assert run(tmp_path, pairs, H, g)["occurrences"] == []


def test_verb_targets_needs_every_target_an_infinitive():
    from termqa.lang.verbuse import verb_targets

    assert verb_targets([("toucher", "fr"), ("tocar", "es")])
    assert verb_targets([("tousser", "fr-FR")])
    assert not verb_targets([("toucher", "fr"), ("toque", "es")])  # "toque": a noun, or a subjunctive
    assert not verb_targets([("aide", "fr")])
    assert not verb_targets([("exportation", "fr")])
    assert not verb_targets([("mettre en quarantaine", "fr")])
    assert not verb_targets([("触摸", "zh"), ("يلمس", "ar")])  # the lexicon cannot tell: the filter stays


def test_a_verb_entry_after_an_article_is_a_noun_use(tmp_path):
    # TICO-19: "to touch the touch screen": the second "touch" is a noun, no occurrence of the verb "toucher"
    pairs = [("And use a tissue to touch the touch screen.", "Utilisez un mouchoir pour toucher l'écran.")]
    r = run(tmp_path, pairs, H, [["t", "touch", "toucher", ""]])
    assert [(o["source_text"], o["target_text"], o["outcome"]) for o in r["occurrences"]] == [
        ("touch", "toucher", "conforming")]
    # with a noun entry beside the verb, the noun use is the noun's
    g = [["t", "touch", "toucher", ""], ["n", "touch", "contact", "noun"]]
    r = run(tmp_path, pairs, H, g)
    assert sorted((o["concept_id"], o["source_span"][0]) for o in r["occurrences"]) == [("n", 30), ("t", 20)]


def test_a_participle_after_an_article_stays_the_verbs(tmp_path):
    # TICO-19: "randomizes the hospitalized subject" is the glossary verb's participle
    pairs = [("It assigns the hospitalized subject to a group.", "Il assigne le sujet hospitalisé à un groupe.")]
    r = run(tmp_path, pairs, H, [["h", "hospitalized", "hospitalisé", "verb"]])
    assert [(o["source_text"], o["outcome"]) for o in r["occurrences"]] == [("hospitalized", "conforming")]
