"""Spotting segments whose target is not a translation of their source."""
from termqa.lang.segcheck import misalignment


def test_a_translation_passes():
    assert misalignment("Tighten the 4 bolts to 45 N·m in 2 passes.", "Serrez les 4 vis à 45 N·m en 2 passes.") is None
    assert misalignment("UNESCO estimates 473,933,356 learners in 10 countries.",
                        "L'UNESCO estime à 473 933 356 le nombre d'élèves dans dix pays.") is None


def test_lengths_far_apart():
    why = misalignment("Most HCoVs originated from bats where they are not pathogenic.",
                       "Des lésions alvéolaires diffuses, une prolifération des cellules épithéliales et une "
                       "augmentation des macrophages sont également observées chez les patients atteints du SRAS "
                       "sévère, en plus des voies respiratoires inférieures et de plusieurs autres organes.")
    assert why and "target words" in why


def test_numbers_missing():
    why = misalignment("At least 52 thousand deaths, 244 thousand cases.", "Parmi eux, le HCoV-NL63 est un alpha-CoV.")
    assert why == "none of the source's numbers is in the target"


def test_short_or_empty_segments_are_not_judged():
    assert misalignment("Pump", "Moteur") is None
    assert misalignment("Check the pump now please, carefully, before you start it.", "") is None


def test_one_plural_variant_translating_two_is_no_misalignment():
    # Symfony validators.ja.xlf unit 55: Japanese writes one form where English writes two
    src = ("This collection should contain {{ limit }} element or less.|"
           "This collection should contain {{ limit }} elements or less.")
    assert misalignment(src, "要素は{{ limit }}個までです。") is None
    # a target far too short is still one, variants or not
    assert misalignment(src, "要素。") is not None
