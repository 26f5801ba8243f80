"""The rendering that is there is found (issue 35): an occurrence without its glossary rendering shows the
closest candidate its target holds and "differs" (never "no rendering found", never decided), and a name
that contains a term claims its own words."""
from termqa.labels import R_DERIVED, R_DIVERGES_GLOSSARY, R_MISSING
from tests.helpers import run

H = ["concept_id", "en", "fr"]
G = [["fn", "First Nation", "Première Nation de"], ["cc", "climate change", "changement climatique"],
     ["bud", "budget", "budget"], ["gv", "gun violence", "violence armée"], ["pump", "pump", "pompe"]]


def _by_text(r):
    return {o["source_text"]: (o["target_text"], o["outcome"], o["reason"]) for o in r["occurrences"]}


def test_closest_candidate_differs(tmp_path):
    r = run(tmp_path, [("The Snuneymuxw First Nation met.", "La Première Nation Snuneymuxw s'est réunie."),
                       ("A balanced budget.", "Un équilibre budgétaire.")], H, G)
    got = _by_text(r)
    assert got["First Nation"] == ("Première Nation", "unjudged", R_DIVERGES_GLOSSARY)
    # the adjective made from the glossary's noun: a derived form to review, likely fine (R_DERIVED)
    assert got["budget"] == ("budgétaire", "unjudged", R_DERIVED)
    o = next(o for o in r["occurrences"] if o["source_text"] == "First Nation")
    seg = next(s for s in r["segments"] if s["index"] == o["segment_index"])
    assert seg["target"][o["target_span"][0]:o["target_span"][1]] == "Première Nation"


def test_nothing_close_stays_missing(tmp_path):
    r = run(tmp_path, [("Check the pump.", "Vérifiez l'appareil.")], H, G)
    assert _by_text(r)["pump"] == (None, "unjudged", R_MISSING)


def test_a_name_claims_its_own_words(tmp_path):
    pairs = [("The Intergovernmental Panel on Climate Change warns of catastrophic climate change.",
              "Le Groupe d'experts intergouvernemental sur l'évolution du climat met en garde contre des "
              "changements climatiques catastrophiques.")]
    got = _by_text(run(tmp_path, pairs, H, G))
    assert got["climate change"] == ("changements climatiques", "conforming", got["climate change"][2])
    assert got["Climate Change"][0] != "changements climatiques"
    assert got["Climate Change"][1] == "unjudged"


def test_shown_candidates_in_spaceless_scripts(tmp_path):
    # "settings" -> 設定 where the glossary says 環境設定 (focus-ios ja): a piece of the term, shown
    r = run(tmp_path, [("Open the settings.", "設定を開きます。")], ["concept_id", "en", "ja"],
            [["set", "settings", "環境設定"]], tgt="ja")
    assert _by_text(r)["settings"] == ("設定", "unjudged", R_DIVERGES_GLOSSARY)


def test_a_mined_rendering_takes_in_the_glossary_word_next_to_it(tmp_path):
    # "violence", a glossary term of its own, was left out of the mined "liée aux armes à feu" (issue 35)
    g = [["gv", "gun violence", "violence armée"], ["v", "violence", "violence"], ["arm", "firearm", "arme à feu"]]
    pairs = [("Gun violence is rising in the city.", "La violence liée aux armes à feu augmente en ville."),
             ("We must stop gun violence now.", "Nous devons arrêter la violence liée aux armes à feu maintenant."),
             ("Victims of gun violence met.", "Les victimes de la violence liée aux armes à feu se sont réunies.")]
    r = run(tmp_path, pairs, H, g)
    assert [(o["target_text"], o["outcome"], o["reason"]) for o in r["occurrences"]] == [
        ("violence liée aux armes à feu", "unjudged", R_DIVERGES_GLOSSARY)] * 3


def test_a_candidate_is_a_whole_written_word(tmp_path):
    # TICO-19: "self-quarantine" -> "auto-quarantaine" where the glossary says "quarantaine spontanée"
    r = run(tmp_path, [("The app recommends self-quarantine.", "L'application recommande l'auto-quarantaine.")],
            H, [["sq", "self-quarantine", "quarantaine spontanée"]])
    assert _by_text(r)["self-quarantine"] == ("auto-quarantaine", "unjudged", R_DIVERGES_GLOSSARY)


def test_a_capitalised_copy_is_part_of_a_name(tmp_path):
    # TICO-19 (zh, ar, ru): "Assays" of the company "Origami Assays" kept as written is not "assays" untranslated
    pairs = [("Designs released by Origami Assays test 1122 samples in 93 assays.",
              "Les conceptions publiées par Origami Assays testent 1122 échantillons en 93 dosages.")]
    r = run(tmp_path, pairs, H, [["as", "assay", "essai"]])
    assert not [o for o in r["occurrences"] if o["outcome"] == "error"]
