"""Term variants (termqa.pipeline.variants): each rule in English and French, the cases that must not
match, the detection levels, the per-type breakdown and CTV, and the rules on the TICO-19 corpus."""
import pytest

from termqa.config import Settings
from termqa.pipeline.detection import Detection
from termqa.metrics import Item, ctv, variation_shares
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


# --- derivation (MORPH4): a modifier in its noun or adjective form ------------------------------
# sentences from the TICO-19 translation memory (../shared/corpus/eval/tico19-enfr)

def test_english_derived_adjective_of_a_modifier(tmp_path):
    pairs = [("The humoral immunity including complements such as C3a and C5a and antibodies is also essential "
              "in combating the viral infection.",
              "L’immunité humorale, avec des compléments tels que le C3a et le C5a ainsi que des anticorps, est "
              "également essentielle pour combattre l’infection virale.")]
    gloss = [["c1", "virus infection", "infection virale", "preferred"]]
    assert _found(run(tmp_path, pairs, H, gloss, variants="none")) == []
    assert _found(run(tmp_path, pairs, H, gloss, variants="static")) == [
        ("viral infection", "derivation", "morphosyntactic", "MORPH4", "infection virale", "conforming")]


def test_english_noun_of_an_adjective_modifier_and_the_target_derivation(tmp_path):
    # the glossary has the adjective on both sides; the text has the noun on both sides
    pairs = [("Precautions must be taken to minimise the risk of virus transmission, especially in healthcare "
              "settings.",
              "Des précautions doivent être prises pour minimiser le risque de transmission du virus, en "
              "particulier dans des conditions de soins.")]
    r = run(tmp_path, pairs, H, [["c1", "viral transmission", "transmission virale", "preferred"]],
            variants="static")
    assert _found(r) == [("virus transmission", "derivation", "morphosyntactic", "MORPH4", "transmission du virus",
                          "conforming")]
    assert r["occurrences"][0]["target_variant"] == "derivation"


def test_french_de_phrase_and_adjective_are_one_term(tmp_path):
    pairs = [("Certains chercheurs ont suggéré que le marché de Wuhan puisse ne pas être la source originelle de "
              "la transmission virale à l’homme.",
              "Some researchers have suggested the Wuhan market may not be the original source of viral "
              "transmission to humans."),
             ("En janvier et en février 2020, pendant le pic de l’épidémie à Wuhan, environ 5 millions de "
              "personnes en Chine ont perdu leur emploi.",
              "In January and February 2020, during the height of the epidemic in Wuhan, about 5 million people "
              "in China lost their jobs.")]
    gloss = [["c1", "transmission du virus", "viral transmission", "preferred"],
             ["c2", "pic épidémique", "epidemic peak", "preferred"]]
    r = run(tmp_path, pairs, HF, gloss, variants="static", src="fr", tgt="en")
    assert [(o["concept_id"], o["source_text"], o["via"], o.get("variation_subtype")) for o in r["occurrences"]] == [
        ("c1", "transmission virale", "derivation", "MORPH4"), ("c2", "pic de l’épidémie", "derivation", "MORPH4")]
    assert r["occurrences"][0]["target_text"] == "viral transmission"


def test_derivation_never_makes_a_one_word_term_or_a_head(tmp_path):
    # "viral" is not an occurrence of "virus", nor "épidémique" of "épidémie": only a modifier changes
    pairs = [("The humoral immunity is also essential in combating the viral infection.",
              "L’immunité humorale est également essentielle pour combattre l’infection virale.")]
    assert _found(run(tmp_path, pairs, H, [["c1", "virus", "virus", "preferred"]], variants="dynamic")) == []
    pairs = [("En février 2020, pendant le pic épidémique à Wuhan, 5 millions de personnes ont perdu leur emploi.",
              "In February 2020, during the epidemic peak in Wuhan, 5 million people lost their jobs.")]
    assert _found(run(tmp_path, pairs, HF, [["c1", "épidémie", "epidemic", "preferred"]], variants="dynamic",
                      src="fr", tgt="en")) == []


def test_derivation_needs_both_words_in_the_part_of_speech_index():
    from termqa.pipeline.variants import derived_keys

    assert ("viral", "infection") in derived_keys(("virus", "infection"), "en")
    assert derived_keys(("cost", "control"), "en") == []  # "costal" is an adjective, but a short look-alike
    assert derived_keys(("infection", "rate"), "en") == []  # "infectious" is not "of an infection"
    assert derived_keys(("epidemie", "de", "grippe"), "fr") == [("epidemie", "grippal")]
    assert derived_keys(("virus",), "en") == derived_keys(("virus",), "fr") == []
    assert derived_keys(("virus", "infection"), "de") == []  # no suffix rules for the language


# --- French article forms (MORPH2) -------------------------------------------------------------

def test_french_article_forms_both_ways(tmp_path):
    pairs = [("Laissez-les aux professionnels de la santé.", "Leave them for healthcare professionals."),
             ("Les symptômes de la COVID-19 sont parfois assez non spécifiques.",
              "Symptoms of COVID-19 can be relatively non-specific."),
             ("L’exposition au risque d’infection est plus élevée à l’hôpital.",
              "Exposure to the risk of infection is higher in hospital.")]
    gloss = [["c1", "professionnel de santé", "healthcare professional", "preferred"],
             ["c2", "symptômes du covid-19", "COVID-19 symptoms", "preferred"],
             ["c3", "exposition à risque", "risk exposure", "preferred"]]
    r = run(tmp_path, pairs, HF, gloss, variants="static", src="fr", tgt="en")
    assert [(o["concept_id"], o["source_text"], o["via"], o.get("variation_subtype")) for o in r["occurrences"]] == [
        ("c1", "professionnels de la santé", "article", "MORPH2"),
        ("c2", "symptômes de la COVID-19", "article", "MORPH2"),
        ("c3", "exposition au risque", "article", "MORPH2")]
    assert [o["concept_id"] for o in run(tmp_path, pairs, HF, gloss, variants="none", src="fr",
                                         tgt="en")["occurrences"]] == []


def test_french_article_form_of_a_target_term_conforms(tmp_path):
    pairs = [("Symptoms of COVID-19 can be relatively non-specific and infected people may be asymptomatic.",
              "Les symptômes de la COVID-19 sont parfois assez non spécifiques et les personnes infectées "
              "peuvent être asymptomatiques.")]
    r = run(tmp_path, pairs, H, [["c1", "symptoms of COVID-19", "symptômes du covid-19", "preferred"]],
            variants="static")
    o = r["occurrences"][0]
    assert (o["target_text"], o["outcome"], o["target_variant"]) == ("symptômes de la COVID-19", "conforming",
                                                                     "article")


def test_french_de_phrase_is_never_a_bare_juxtaposition(tmp_path):
    # French does not make "N N" from "N de N" freely: "le taux change" is a rate that changes
    pairs = [("Le taux change chaque jour, mais l’épidémie de la part du gouvernement reste mal gérée.",
              "The rate changes every day, but the government's handling of the epidemic stays poor.")]
    gloss = [["c1", "taux de change", "exchange rate", "preferred"],
             ["c2", "épidémie de maladie", "outbreak of disease", "preferred"]]
    assert _found(run(tmp_path, pairs, HF, gloss, variants="dynamic", src="fr", tgt="en")) == []


# --- static modifier reduction (RED1) ---------------------------------------------------------

def test_english_modifier_reduction_of_stacked_adjectives(tmp_path):
    pairs = [("It has also caused a shortage of protective equipment worldwide, with the WHO warning that this "
              "will endanger health workers.",
              "Cela a également entraîné une pénurie d’équipements de protection dans le monde entier et "
              "l’OMS avertit que cela mettra en danger les professionnels de la santé.")]
    gloss = [["c1", "personal protective equipment", "équipement de protection individuelle", "preferred"]]
    assert _found(run(tmp_path, pairs, H, gloss, variants="none")) == []
    r = run(tmp_path, pairs, H, gloss, variants="static")
    assert _found(r) == [("protective equipment", "modifier_reduction", "reduction", "RED1",
                          "équipements de protection", "conforming")]
    assert r["occurrences"][0]["target_variant"] == "modifier_reduction"


def test_french_modifier_reduction(tmp_path):
    pairs = [("Il est possible de contracter des maladies respiratoires telles que la grippe ou le rhume en "
              "omettant de se laver les mains.",
              "You can catch respiratory diseases such as flu or a cold by not washing your hands.")]
    r = run(tmp_path, pairs, HF, [["c1", "maladie respiratoire chronique", "chronic respiratory disease",
                                   "preferred"]], variants="static", src="fr", tgt="en")
    assert [(o["source_text"], o["via"], o["variation"], o["target_text"]) for o in r["occurrences"]] == [
        ("maladies respiratoires", "modifier_reduction", "reduction", "respiratory diseases")]


def test_no_modifier_reduction_where_it_changes_the_concept(tmp_path):
    pairs = [("It has been known that a cytokine storm results from an overreaction of the immune system.",
              "Il a été établi qu’une réaction excessive du système immunitaire entraîne un choc cytokinique."),
             ("Patients have a normal or reduced blood cell count at the early stage.",
              "Les patients présentent un nombre normal ou réduit de cellules sanguines dans les premiers stades."),
             ("HCoV-HKU1 was found worldwide, causing mild respiratory diseases.",
              "Le HCoV-HKU1 a été trouvé dans le monde entier, causant des maladies respiratoires bénignes.")]
    gloss = [["c1", "compromised immune system", "système immunitaire affaibli", "preferred"],  # a participle
             ["c2", "white blood cell count", "numération leucocytaire", "preferred"],  # "white" is of the cell
             ["c3", "acute respiratory disease", "maladie respiratoire aiguë", "preferred"],  # two concepts
             ["c4", "chronic respiratory disease", "maladie respiratoire chronique", "preferred"]]  # share it
    assert _found(run(tmp_path, pairs, H, gloss, variants="dynamic")) == []
    # the reduction of one concept that is another concept's designation stays that concept's
    gloss = [["c4", "chronic respiratory disease", "maladie respiratoire chronique", "preferred"],
             ["c5", "respiratory disease", "maladie respiratoire", "preferred"]]
    assert [(o["concept_id"], o["via"]) for o in run(tmp_path, pairs, H, gloss)["occurrences"]] == [
        ("c5", "glossary")]
    fr = [(b, a) for a, b in pairs]
    gloss = [["c1", "système immunitaire affaibli", "compromised immune system", "preferred"]]
    assert _found(run(tmp_path, fr, HF, gloss, variants="dynamic", src="fr", tgt="en")) == []


def test_no_modifier_reduction_of_a_name_or_inside_a_compound():
    from termqa.pipeline.variants import modifier_reductions

    assert modifier_reductions(("severe", "acute", "respiratory", "syndrome"), "Severe Acute Respiratory Syndrome",
                               "en") is None
    assert modifier_reductions(("alcohol", "based", "hand", "rub"), "alcohol-based hand rub", "en") is None
    assert modifier_reductions(("personal", "protective", "equipment"), "personal protective equipment",
                               "en") == ("protective", "equipment")


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

def _tico19_found(**kw) -> tuple[set, dict]:
    """(via, source text) of every occurrence termqa finds in TICO-19 with its two glossaries, and the result."""
    from tests.conftest import CORPUS
    from termqa.pipeline.check import check

    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    base = CORPUS / "eval" / "tico19-enfr" / "data"
    r = check([str(base / "TM" / "all.en-fr.tmx")],
              [str(base / "terminologies" / "f_en-fr_XX.csv"), str(base / "terminologies" / "g_en_fr-FR.csv")],
              Settings(lemmatiser="lookup", **kw)).to_dict()
    return {(o["via"], o["source_text"]) for o in r["occurrences"]}, r


@pytest.mark.corpus
def test_variants_on_tico19():
    found, r = _tico19_found(variants="dynamic")
    assert ("insertion", "intermediate reservoir hosts") in found
    assert ("split_compound", "lock-downs") in found
    assert ("coordination", "communicable") in found  # "other communicable and respiratory diseases"
    assert ("closed_compound", "facemask") in found
    assert ("of_phrase", "spread of the virus") in found  # "virus spread", restructured
    # the glossary's own: all still there (4649) but the 34 one-word terms that stand inside a restructured
    # designation ("spread" and "virus" in "spread of the virus": one occurrence of "virus spread"); 4615
    # before the parts of hyphen-joined names stopped counting ("SARS" in "SARS-CoV-2": 45 of them)
    # before the parts of hyphen-joined names stopped counting ("SARS" in "SARS-CoV-2": 45 of them); 4570
    # before verb uses of noun terms did (23: "updated", "touch"... termqa.lang.verbuse)
    # 4,547; 4,545 when two verb uses stopped counting ("develop and update", "don't touch"); 4,550 since the
    # verb entry "touch" (its French terms are infinitives) keeps its verb uses ("ne vous touchez pas")
    assert sum(o["via"] == "glossary" for o in r["occurrences"]) == 4550
    assert sum(o["via"] == "of_phrase" for o in r["occurrences"]) == 21


@pytest.mark.corpus
def test_static_variants_on_tico19_french_source():
    found, r = _tico19_found(variants="static", src_lang="fr", tgt_lang="en")
    assert ("derivation", "pic de l’épidémie") in found  # "pic épidémique"
    assert ("article", "professionnels de la santé") in found  # "professionnel de santé"
    assert ("article", "symptômes de la COVID-19") in found  # "symptômes du covid-19"
    assert ("article", "exposition au risque") in found  # "exposition à risque"
    # each variant is labelled with its rule's subtype
    subtypes = {o["via"]: o.get("variation_subtype") for o in r["occurrences"] if o["via"] in ("article", "derivation")}
    assert subtypes == {"article": "MORPH2", "derivation": "MORPH4"}


def test_concept_heads_are_made_once_per_index(tmp_path):
    """Reductions ("the pump" after "centrifugal pump") look up the heads of the concepts a document
    found: made once per index and language (not stored with it: making them is cheaper than reading
    them back), equal to reading every entry again."""
    from termqa.store import indexcache
    from termqa.lang.lemma import get_lemmatiser
    from termqa.pipeline import sourcevariants as sv, variants as vr
    from termqa.pipeline.read import read_glossary_cached
    from termqa.pipeline.sourceindex import cached_source_index
    from tests.conftest import SAMPLES

    with indexcache.using(indexcache.IndexCache(tmp_path / "cache")):
        concepts = read_glossary_cached(SAMPLES / "pump-terms.tbx").concepts
        lem = get_lemmatiser("en", mode="lookup")
        cached_source_index(concepts, "en", lem, "x", Detection("dynamic"))
        trie, _heads = cached_source_index(concepts, "en", lem, "x", Detection("dynamic"))  # read back
    assert ("heads", "en") not in trie.derived
    want: dict = {}
    for e in trie.entries:
        h = vr.head_of(e.key, "en") if len(e.key) >= 2 else e.key[0]
        if h:
            want.setdefault(e.concept_id, []).append(h)
    got = sv.concept_heads(trie, "en")
    assert got == want and "pump" in {h for hs in want.values() for h in hs}
    assert sv.concept_heads(trie, "en") is got  # once per index
