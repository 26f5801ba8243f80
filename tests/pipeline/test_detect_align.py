"""Detection (source side) and alignment (target side) on small hand-made documents.

Runs through `termqa.pipeline.check` with the lookup lemmatiser so results do not depend on which spaCy
pipelines are installed; assertions are on occurrences, spans and outcomes.
"""
from termqa.config import Settings
from tests.helpers import outcomes, run

H = ["id", "en", "fr", "fr_status"]


def test_inflected_and_case_variants_are_found(tmp_path):
    r = run(tmp_path, [("Check the Pressure Sensors.", "Vérifiez les capteurs de pression."),
                       ("A pressure sensor failed.", "Un capteur de pression est en panne.")],
            H, [["c1", "pressure sensor", "capteur de pression", "preferred"]])
    occ = r["occurrences"]
    assert [(o["source_text"], o["target_text"], o["outcome"]) for o in occ] == [
        ("Pressure Sensors", "capteurs de pression", "conforming"),
        ("pressure sensor", "capteur de pression", "conforming")]
    assert occ[0]["source_span"] == [10, 26] and occ[0]["target_span"] == [13, 33]
    assert occ[0]["chain_size"] == 2 and occ[0]["is_first_mention"] and not occ[1]["is_first_mention"]
    assert occ[0]["variation"] == "morphosyntactic"


def test_leftmost_longest_wins_over_shorter_term(tmp_path):
    r = run(tmp_path, [("Remove the pump housing from the pump.", "Déposez le corps de pompe de la pompe.")],
            H, [["c1", "pump", "pompe", "preferred"], ["c2", "pump housing", "corps de pompe", "preferred"]])
    got = [(o["concept_id"], o["source_text"], o["target_text"], o["target_span"]) for o in r["occurrences"]]
    # "pump" inside "pump housing" is not a second occurrence; its rendering "pompe" inside
    # "corps de pompe" is not reused for the standalone "pump" (one-to-one, issue #8)
    assert got == [("c2", "pump housing", "corps de pompe", [11, 25]), ("c1", "pump", "pompe", [32, 37])]


def test_one_rendering_answers_one_occurrence(tmp_path):
    # two source occurrences, one rendering: one conforming, one unaligned (never two conforming)
    r = run(tmp_path, [("Open the valve and close the valve.", "Ouvrez puis fermez la vanne.")],
            H, [["c1", "valve", "vanne", "preferred"]])
    assert outcomes(r) == [("valve", "vanne", "conforming", None), ("valve", None, "unjudged", None)]


def test_term_three_times_translated_twice(tmp_path):
    r = run(tmp_path, [("The filter, the filter and the filter.", "Le filtre et le filtre, et l'autre.")],
            H, [["c1", "filter", "filtre", "preferred"]])
    assert [o["outcome"] for o in r["occurrences"]] == ["conforming", "conforming", "unjudged"]
    assert [o["target_span"] for o in r["occurrences"]][:2] == [[3, 9], [16, 22]]


def test_internal_article_is_part_of_the_term(tmp_path):
    # issue #8: "ministère d'Intérieur" is not "ministère de l'Intérieur"
    r = run(tmp_path, [("The Ministry of the Interior spoke.", "Le ministère d'Intérieur a parlé."),
                       ("The Ministry of the Interior agreed.", "Le ministère de l'Intérieur a accepté.")],
            H, [["c1", "Ministry of the Interior", "ministère de l'Intérieur", "preferred"]])
    assert [o["outcome"] for o in r["occurrences"]] == ["unjudged", "conforming"]


def test_leading_article_in_glossary_or_text_is_ignored(tmp_path):
    r = run(tmp_path, [("Replace the seal.", "Remplacez le joint.")],
            H, [["c1", "the seal", "le joint", "preferred"]])
    assert outcomes(r) == [("seal", "joint", "conforming", None)]


def test_acronym_defined_in_the_document_becomes_a_source_form(tmp_path):
    r = run(tmp_path, [("Set the variable frequency drive (VFD) first.", "Réglez d'abord le variateur de fréquence (VF)."),
                       ("Then restart the VFD.", "Puis redémarrez le variateur de fréquence.")],
            H, [["c1", "variable frequency drive", "variateur de fréquence", "preferred"]])
    occ = r["occurrences"]
    assert [(o["source_text"], o["via"], o["variation"]) for o in occ] == [
        ("variable frequency drive", "glossary", "none"), ("VFD", "acronym", "graphical")]
    assert occ[1]["outcome"] == "conforming" and occ[1]["source_form"] == "VFD"


def test_deterministic_errors(tmp_path):
    r = run(tmp_path, [("Clean the strainer.", "Nettoyez le strainer."),
                       ("Check the impeller.", "Vérifiez l'hélice."),
                       ("The FlowGuard unit.", "Le module FlowGuard."),
                       ("The FlowGuard alarm.", "L'alarme GardeFlux."),
                       ("The Flowguard alarm.", "L'alarme Flowguard.")],
            ["id", "en", "fr", "fr_status", "dnt"],
            [["c1", "strainer", "crépine", "preferred", ""], ["c2", "impeller", "roue|hélice", "preferred|deprecated", ""],
             ["c3", "FlowGuard", "", "", "yes"]])
    got = {(o["source_text"], o["target_text"]): (o["outcome"], o["label"]) for o in r["occurrences"]}
    assert got[("strainer", "strainer")] == ("error", "A4")
    assert got[("impeller", "hélice")] == ("error", "A1")
    assert got[("FlowGuard", "FlowGuard")] == ("conforming", None)
    assert got[("FlowGuard", None)] == ("error", "A5")  # translated: not found in the target


def test_diacritic_only_difference_is_an_F_error_but_capitals_may_drop_accents(tmp_path):
    # issue #7
    r = run(tmp_path, [("Check the flow rate.", "Vérifiez le debit."),
                       ("FLOW RATE", "DEBIT"),
                       ("Flow rate", "Débit")],
            H, [["c1", "flow rate", "débit", "preferred"]])
    o = r["occurrences"]
    assert (o[0]["outcome"], o[0]["label"]) == ("error", "F") and "débit" in o[0]["reason"]
    assert [x["outcome"] for x in o[1:]] == ["conforming", "conforming"]


def test_diacritics_count_in_spanish_even_on_capitals(tmp_path):
    r = run(tmp_path, [("Drive the truck.", "Conduzca el camion."), ("The truck.", "El CAMION.")],
            ["id", "en", "es", "es_status"], [["c1", "truck", "camión|camionaje", "preferred|deprecated"]], tgt="es")
    assert [(o["outcome"], o["label"]) for o in r["occurrences"]] == [("error", "F"), ("error", "F")]


def test_unaligned_and_hapax_without_reference_are_unjudged_with_reasons(tmp_path):
    r = run(tmp_path, [("Fit the coupling guard.", "Montez le protecteur d'accouplement."),
                       ("Check the oil.", "Vérifiez le niveau.")],
            ["id", "en", "fr"], [["c1", "coupling guard", ""], ["c2", "oil", "huile"]])
    reasons = {o["source_text"]: (o["outcome"], o["penalty"], o["reason"]) for o in r["occurrences"]}
    assert reasons["coupling guard"][:2] == ("unjudged", None) and "single occurrence" in reasons["coupling guard"][2]
    assert reasons["oil"][:2] == ("unjudged", None) and "no rendering" in reasons["oil"][2]
    assert r["scores"]["scored"] == 0 and r["scores"]["system"] is None


def test_pseudo_reference_from_the_documents_own_majority(tmp_path):
    pairs = [("Check the wear ring.", "Contrôlez la bague d'usure."),
             ("Replace the wear ring.", "Remplacez la bague d'usure."),
             ("Measure the wear ring.", "Mesurez l'anneau d'usure."),
             ("Inspect the wear ring gap.", "Inspectez le jeu de la bague d'usure.")]
    r = run(tmp_path, pairs, ["id", "en", "fr"], [["c1", "wear ring", ""]], source_only_glossary=True)
    refs = r["references"]
    assert refs == [{"doc_id": refs[0]["doc_id"], "concept_id": "c1", "source_form": "wear ring",
                     "source_display": "wear ring", "text": "bague d'usure", "provenance": "pseudo"}]
    assert [o["outcome"] for o in r["occurrences"]] == ["conforming", "conforming", "unjudged", "conforming"]


def test_glossary_with_no_source_terms_is_a_language_error(tmp_path):
    import pytest

    from termqa.errors import LanguageError

    with pytest.raises(LanguageError, match="no terms in the source language 'de'"):
        run(tmp_path, [("Hallo", "Bonjour")], H, [["c1", "pump", "pompe", "preferred"]], src="de")


def test_a_rendering_found_elsewhere_is_classified_by_the_same_rules():
    """The judge's (and other systems') renderings go through the matching counting uses."""
    from termqa.pipeline.align import classify_rendering, target_forms
    from termqa.pipeline.detection import Detection
    from termqa.pipeline.detect import keys_of
    from termqa.lang.lemma import get_lemmatiser
    from termqa.model import Concept, Term
    from termqa.lang.normalise import term_tokens

    fr, en = get_lemmatiser("fr", mode="lookup"), get_lemmatiser("en", mode="lookup")
    c = Concept("c1", (Term("strainer", "en", "preferred"), Term("crépine", "fr", "preferred"),
                       Term("filtre à tamis", "fr", "deprecated")))
    forms = target_forms(c, "fr", fr, Detection("none"))
    src = keys_of(en.tokenize("strainer"))[1]

    def kind(text):
        k, form = classify_rendering(term_tokens(fr.tokenize(text)), forms, src, True)
        return k, form.text if form else None

    assert kind("la crépine") == ("glossary", "crépine")
    assert kind("crépines") == ("glossary", "crépine")
    assert kind("filtres à tamis") == ("forbidden", "filtre à tamis")
    assert kind("strainer") == ("untranslated", None)
    # a copy that is also a French word is not a certain A4 (the lexicon knows "influenza")
    flu = Concept("c2", (Term("influenza", "en", "preferred"), Term("grippe", "fr", "preferred")))
    assert classify_rendering(term_tokens(fr.tokenize("influenza")), target_forms(flu, "fr", fr, Detection("none")),
                              keys_of(en.tokenize("influenza"))[1], True) == ("copied_word", None)
    assert kind("filtre") == ("established", None)


def test_each_target_language_without_glossary_terms_is_named(tmp_path):
    import pytest

    from termqa.errors import LanguageError
    from termqa.pipeline.check import check
    from tests.helpers import write_csv, write_xliff

    fr = write_xliff(tmp_path / "fr.xlf", [("Check the pump.", "Vérifiez la pompe.")], tgt="fr")
    de = write_xliff(tmp_path / "de.xlf", [("Check the pump.", "Prüfen Sie die Pumpe.")], tgt="de")
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "pump", "pompe"]])
    # an en-fr glossary on a German target cannot check conformity: refused, naming the language and the way out
    with pytest.raises(LanguageError, match="no terms in the target language 'de'.*--source-only-glossary"):
        check([fr, de], [g], Settings(lemmatiser="lookup"))
    r = check([fr, de], [g], Settings(lemmatiser="lookup", source_only_glossary=True)).to_dict()
    alert = ("the glossary has no terms in the target language 'de': consistency only, references come from "
             "the documents themselves (--source-only-glossary)")
    assert r["alerts"] == [alert] and r["warnings"][0] == alert


def test_an_alignment_comes_back_from_a_worker_equal():
    """Counting workers send alignments back pickled (Alignment.__reduce__): equal, form included."""
    import pickle

    from termqa.pipeline.align import Alignment, TargetForm

    form = TargetForm(("pompe", "centrifuge"), "pompe centrifuge", "glossary", "preferred", lang="fr")
    items = [Alignment(1, 3, 4, 20, "pompes centrifuges", "glossary", form), Alignment(0, 1, 0, 5, "pompe", "judge")]
    back = pickle.loads(pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == items and back[0].form == form and back[1].form is None
    assert items[0].__reduce_ex__(pickle.HIGHEST_PROTOCOL)[0] is Alignment._unpickle  # a call setting its fields
    assert hash(back[0]) == hash(items[0])
