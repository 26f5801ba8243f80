"""Term variants (termqa.pipeline.variants): each rule in English and French, the cases that must not
match, the detection levels, the per-type breakdown and CTV, and the rules on the TICO-19 corpus."""
import pytest

from termqa.pipeline.metrics import Item, ctv, variation_shares
from tests.helpers import run

H = ["id", "en", "fr", "fr_status"]
HF = ["id", "fr", "en", "en_status"]


def _found(r, via=None):
    return [(o["source_text"], o["via"], o["variation"], o.get("variation_subtype"), o["target_text"], o["outcome"])
            for o in r["occurrences"] if via is None or o["via"] == via]


# --- static rules --------------------------------------------------------------------------------

def test_closed_compound_of_a_two_word_term(tmp_path):
    pairs = [("Health officials ask people to wear a facemask in shops.",
              "Les autorités sanitaires demandent de porter un masque facial dans les magasins.")]
    gloss = [["c1", "face mask", "masque facial", "preferred"]]
    assert _found(run(tmp_path, pairs, H, gloss, variants="none")) == []
    assert _found(run(tmp_path, pairs, H, gloss, variants="static")) == [
        ("facemask", "closed_compound", "graphical", "GRAPH4", "masque facial", "conforming")]


def test_split_compound_of_a_one_word_term(tmp_path):
    pairs = [("Countries with less aggressive lock-downs kept their schools open.",
              "Les pays aux confinements moins stricts ont gardé leurs écoles ouvertes.")]
    r = run(tmp_path, pairs, H, [["c1", "lockdown", "confinement", "preferred"]], variants="static")
    assert _found(r) == [("lock-downs", "split_compound", "graphical", "GRAPH3", "confinements", "conforming")]


def test_french_closed_compound(tmp_path):
    pairs = [("Le norovirus est la principale cause de gastroentérite contagieuse.",
              "Norovirus is the main cause of contagious gastroenteritis.")]
    r = run(tmp_path, pairs, HF, [["c1", "gastro-entérite", "gastro-enteritis", "preferred"]],
            variants="static", src="fr", tgt="en")
    assert [(o["source_text"], o["via"], o.get("variation_subtype")) for o in r["occurrences"]] == [
        ("gastroentérite", "closed_compound", "GRAPH4")]


def test_english_of_phrase_and_compound_are_one_term(tmp_path):
    pairs = [("Both parties sign the employment contract before the first day.",
              "Les deux parties signent le contrat de travail avant le premier jour.")]
    r = run(tmp_path, pairs, H, [["c1", "contract of employment", "contrat de travail", "preferred"]],
            variants="static")
    assert _found(r) == [("employment contract", "of_phrase", "morphosyntactic", "MORPH5", "contrat de travail",
                          "conforming")]


def test_french_article_inside_the_term(tmp_path):
    pairs = [("Les masques aident à limiter la propagation des virus.", "Masks help to limit the spread of viruses.")]
    r = run(tmp_path, pairs, HF, [["c1", "propagation de virus", "spread of viruses", "preferred"]],
            variants="static", src="fr", tgt="en")
    assert _found(r) == [("propagation des virus", "article", "morphosyntactic", "MORPH2", "spread of viruses",
                          "conforming")]


# --- dynamic rules -------------------------------------------------------------------------------

def test_one_inserted_modifier(tmp_path):
    pairs = [("The centrifugal feed pump stopped after ten minutes.",
              "La pompe centrifuge d'alimentation s'est arrêtée au bout de dix minutes.")]
    gloss = [["c1", "centrifugal pump", "pompe centrifuge", "preferred"]]
    assert _found(run(tmp_path, pairs, H, gloss, variants="static")) == []
    r = run(tmp_path, pairs, H, gloss, variants="dynamic")
    assert _found(r) == [("centrifugal feed pump", "insertion", "expansion", "EXP3", "pompe centrifuge",
                          "conforming")]


def test_french_inserted_modifier(tmp_path):
    pairs = [("Le lavage fréquent des mains peut abîmer la peau.", "Frequent hand washing can damage the skin.")]
    r = run(tmp_path, pairs, HF, [["c1", "lavage des mains", "hand washing", "preferred"]],
            variants="dynamic", src="fr", tgt="en")
    assert [(o["source_text"], o["via"], o["target_text"]) for o in r["occurrences"]] == [
        ("lavage fréquent des mains", "insertion", "hand washing")]


def test_english_coordination_gives_both_terms(tmp_path):
    pairs = [("Close the inlet and outlet valves before opening the casing.",
              "Fermez les vannes d'entrée et de sortie avant d'ouvrir le carter.")]
    gloss = [["c1", "inlet valve", "vanne d'entrée", "preferred"],
             ["c2", "outlet valve", "vanne de sortie", "preferred"]]
    r = run(tmp_path, pairs, H, gloss)
    got = [(o["concept_id"], o["source_text"], o["source_span"], o["via"], o["variation"]) for o in r["occurrences"]]
    # the elided conjunct is a reduction of its term; the written-out one stays what it is
    assert got == [("c1", "inlet", [10, 15], "coordination", "reduction"),
                   ("c2", "outlet valves", [20, 33], "glossary", "morphosyntactic")]
    assert all(o["target_text"] for o in r["occurrences"])


def test_french_coordination_gives_both_terms(tmp_path):
    pairs = [("Fermez les vannes d'entrée et de sortie avant d'ouvrir le carter.",
              "Close the inlet and outlet valves before opening the casing.")]
    gloss = [["c1", "vanne d'entrée", "inlet valve", "preferred"],
             ["c2", "vanne de sortie", "outlet valve", "preferred"]]
    r = run(tmp_path, pairs, HF, gloss, src="fr", tgt="en")
    got = [(o["concept_id"], o["source_text"], o["via"]) for o in r["occurrences"]]
    assert got == [("c1", "vannes d'entrée", "glossary"), ("c2", "de sortie", "coordination")]
    assert all(o["target_text"] for o in r["occurrences"])


def test_coordination_of_unrelated_words_is_not_a_term(tmp_path):
    pairs = [("Check the pressure and outlet valves every week.",
              "Contrôlez la pression et les vannes de sortie chaque semaine.")]
    r = run(tmp_path, pairs, H, [["c2", "outlet valve", "vanne de sortie", "preferred"],
                                 ["c3", "pressure gauge", "manomètre", "preferred"]])
    assert [(o["concept_id"], o["source_text"]) for o in r["occurrences"]] == [("c2", "outlet valves")]


def test_reduction_after_a_full_mention(tmp_path):
    pairs = [("Start the centrifugal pump.", "Démarrez la pompe centrifuge."),
             ("Then the pump runs for ten minutes.", "Ensuite, la pompe tourne pendant dix minutes.")]
    r = run(tmp_path, pairs, H, [["c1", "centrifugal pump", "pompe centrifuge", "preferred"]])
    assert _found(r) == [
        ("centrifugal pump", "glossary", "none", None, "pompe centrifuge", "conforming"),
        ("pump", "reduction", "reduction", "RED1", "pompe", "conforming")]
    assert r["occurrences"][1]["target_variant"] == "reduction"
    assert r["metrics"]["variation"] == {"NO-VAR": {"occurrences": 1, "share": 0.5},
                                         "RED": {"occurrences": 1, "share": 0.5}}
    # the reduction kept in the target preserves the variation: CTV 1 of 1
    assert r["metrics"]["overall"]["ctv"] == {"value": 1.0, "hits": 1, "scored": 1, "total": 2}


def test_french_reduction_after_a_full_mention(tmp_path):
    pairs = [("Démarrez la pompe centrifuge.", "Start the centrifugal pump."),
             ("Ensuite, la pompe doit tourner dix minutes.", "Then the pump must run for ten minutes.")]
    r = run(tmp_path, pairs, HF, [["c1", "pompe centrifuge", "centrifugal pump", "preferred"]], src="fr", tgt="en")
    assert [(o["source_text"], o["via"], o["target_text"]) for o in r["occurrences"]] == [
        ("pompe centrifuge", "glossary", "centrifugal pump"), ("pompe", "reduction", "pump")]


def test_no_reduction_when_two_concepts_share_the_head(tmp_path):
    pairs = [("Start the centrifugal pump and the feed pump.",
              "Démarrez la pompe centrifuge et la pompe d'alimentation."),
             ("Then the pump runs for ten minutes.", "Ensuite, la pompe tourne pendant dix minutes.")]
    r = run(tmp_path, pairs, H, [["c1", "centrifugal pump", "pompe centrifuge", "preferred"],
                                 ["c2", "feed pump", "pompe d'alimentation", "preferred"]])
    assert [o["via"] for o in r["occurrences"]] == ["glossary", "glossary"]


def test_no_reduction_for_a_modified_or_indefinite_head(tmp_path):
    pairs = [("Start the centrifugal pump.", "Démarrez la pompe centrifuge."),
             ("Clean the pump housing and keep a pump in stock.",
              "Nettoyez le corps de pompe et gardez une pompe en stock.")]
    r = run(tmp_path, pairs, H, [["c1", "centrifugal pump", "pompe centrifuge", "preferred"]])
    assert [o["source_text"] for o in r["occurrences"]] == ["centrifugal pump"]


def test_no_reduction_before_the_full_mention_or_at_level_static(tmp_path):
    pairs = [("The pump must be vented.", "La pompe doit être purgée."),
             ("Start the centrifugal pump.", "Démarrez la pompe centrifuge.")]
    gloss = [["c1", "centrifugal pump", "pompe centrifuge", "preferred"]]
    assert [o["source_text"] for o in run(tmp_path, pairs, H, gloss)["occurrences"]] == ["centrifugal pump"]
    pairs[0], pairs[1] = pairs[1], ("Then the pump runs.", "Ensuite la pompe tourne.")
    assert [o["source_text"] for o in run(tmp_path, pairs, H, gloss, variants="static")["occurrences"]] == [
        "centrifugal pump"]


# --- levels, signature, metrics ------------------------------------------------------------------

def test_level_is_in_the_signature_and_checked(tmp_path):
    from termqa.errors import UsageError

    pairs = [("Start the centrifugal pump.", "Démarrez la pompe centrifuge.")]
    gloss = [["c1", "centrifugal pump", "pompe centrifuge", "preferred"]]
    ids = {lv: run(tmp_path, pairs, H, gloss, variants=lv)["signature"] for lv in ("none", "static", "dynamic")}
    assert len({s["id"] for s in ids.values()}) == 3
    assert "var:" not in ids["none"]["string"] and "var:static" in ids["static"]["string"]
    assert ids["dynamic"]["variants"] == "dynamic"
    with pytest.raises(UsageError):
        run(tmp_path, pairs, H, gloss, variants="all")


def _item(var, tvar, head=False, gm=None, doc="d", concept="c"):
    return Item(doc, concept, var, ("x",), gm, is_head=head, variation=var, target_variation=tvar)


def test_ctv_scores_only_where_the_preferred_term_is_right():
    items = [_item("none", "none", head=True, gm=True), _item("graphical", "graphical"),
             _item("reduction", "lexical"), _item("lexical", "none"), _item("expansion", "expansion"),
             _item("morphosyntactic", "none"), _item("combined", "none"),
             _item("reduction", "reduction", concept="other")]  # its preferred term never conforms
    r = ctv(items)
    assert (r.hits, r.scored, r.total) == (3, 4, 8)
    assert variation_shares(items)["RED"] == {"occurrences": 2, "share": 0.25}


# --- the corpus ----------------------------------------------------------------------------------

@pytest.mark.corpus
def test_variants_on_tico19():
    from tests.conftest import CORPUS
    from termqa.pipeline.check import check

    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    base = CORPUS / "eval" / "tico19-enfr" / "data"
    r = check([str(base / "TM" / "all.en-fr.tmx")],
              [str(base / "terminologies" / "f_en-fr_XX.csv"), str(base / "terminologies" / "g_en_fr-FR.csv")],
              lemmatiser="lookup", variants="dynamic").to_dict()
    found = {(o["via"], o["source_text"]) for o in r["occurrences"]}
    assert ("insertion", "intermediate reservoir hosts") in found
    assert ("split_compound", "lock-downs") in found
    assert ("coordination", "communicable") in found  # "other communicable and respiratory diseases"
    assert ("closed_compound", "facemask") in found
    assert sum(o["via"] == "glossary" for o in r["occurrences"]) == 4649  # the glossary's own: all still there
