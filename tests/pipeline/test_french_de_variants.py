"""French "N de N" terms on the target side (#28; the MORPH2 article and MORPH4 derivation pairs of the
Variation Matters typology): a glossary rendering "N1 de N2" found as "N1 du / de la / des N2" or with N2
as its relational adjective conforms, whether the English source says "Y X" or "X of Y"; the same two
nouns the other way round, a dropped article or another preposition never do: those occurrences go to
the judge (unjudged), never to a guessed verdict; the closest candidate is shown (termqa.pipeline.closest)."""
from __future__ import annotations

import pytest

from tests.helpers import run

H = ["id", "en", "fr", "fr_status"]


def _verdicts(tmp_path, gloss, pairs):
    r = run(tmp_path, pairs, H, [["c1", *gloss, "preferred"]], variants="dynamic")
    return {o["unit_id"]: (o["target_text"], o["outcome"], o.get("target_variant")) for o in r["occurrences"]}


@pytest.mark.parametrize("gloss, pairs, want", [
    # article added inside the term (MORPH2), after a "Y X" and after an "X of Y" source
    (("head loss", "perte de charge"),
     [("The head loss rises with the flow.", "La perte de la charge augmente avec le débit."),
      ("The loss of head rises with the flow.", "La perte de charge augmente avec le débit."),
      ("The head loss rises with the flow.", "La charge de la perte augmente avec le débit.")],
     [("perte de la charge", "conforming", "article"), ("perte de charge", "conforming", None),
      ("charge de la perte", "unjudged", None)]),
    (("exchange rate", "taux de change"),
     [("The exchange rate moves.", "Le taux du change bouge."),
      ("The exchange rate moves.", "Le change du taux bouge.")],
     [("taux du change", "conforming", "article"), ("change du taux", "unjudged", None)]),
    # N2 as its relational adjective (MORPH4), and the two nouns swapped
    (("virus transmission", "transmission du virus"),
     [("Virus transmission is fast.", "La transmission virale est rapide."),
      ("Virus transmission is fast.", "Le virus de la transmission est rapide.")],
     # the swapped phrase is shown as the closest candidate (both words of the term), never conforming
     [("transmission virale", "conforming", "derivation"), ("virus de la transmission", "unjudged", None)]),
    # another preposition: "pompe à eau" is not "eau de la pompe"
    (("water pump", "pompe à eau"),
     [("Check the water pump every week.", "Vérifiez la pompe à eau chaque semaine."),
      ("Check the water pump every week.", "Vérifiez l'eau de la pompe chaque semaine.")],
     [("pompe à eau", "conforming", None), ("eau de la pompe", "unjudged", None)]),
    # an article is never dropped: "mise à terre" is another term than "mise à la terre"
    (("grounding", "mise à la terre"),
     [("Check the grounding of the pump.", "Vérifiez la mise à la terre de la pompe."),
      ("Check the grounding of the pump.", "Vérifiez la mise à terre de la pompe.")],
     [("mise à la terre", "conforming", None), ("mise à terre", "unjudged", None)]),
], ids=["perte-de-charge", "taux-de-change", "transmission-du-virus", "pompe-a-eau", "mise-a-la-terre"])
def test_french_de_phrase_renderings(tmp_path, gloss, pairs, want):
    got = _verdicts(tmp_path, gloss, pairs)
    assert [got.get(f"u{n}") for n in range(1, len(pairs) + 1)] == want
