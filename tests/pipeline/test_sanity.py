"""Input sanity: inputs that do not fit together are said first and loudly, never a quiet exit 0."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.cli import main
from termqa.evaluate import compare as cmp
from termqa.lang.identify import guess_language
from termqa.pipeline.check import check
from tests.helpers import write_csv, write_xliff

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
GLOSSARY = str(SAMPLES / "pump-terms.tbx")

FRENCH = ("Avant toute intervention, coupez l'alimentation électrique de la pompe et attendez que le moteur "
          "soit complètement arrêté. Vérifiez ensuite que la conduite d'aspiration est bien fermée et que la "
          "pression est retombée. Les pièces d'usure doivent être remplacées par des pièces d'origine.")
RUSSIAN = ("Перед любыми работами отключите электропитание насоса и дождитесь полной остановки двигателя. "
           "Затем убедитесь, что всасывающая линия закрыта и что давление упало. Изношенные детали "
           "следует заменять только оригинальными деталями, которые поставляет производитель.")
GERMAN = ("Schalten Sie vor allen Arbeiten die Stromversorgung der Pumpe ab und warten Sie, bis der Motor "
          "vollständig stillsteht. Prüfen Sie dann, ob die Saugleitung geschlossen ist und der Druck "
          "abgebaut wurde. Verschleißteile dürfen nur durch Originalteile des Herstellers ersetzt werden.")


@pytest.mark.parametrize("text, lang", [(FRENCH, "fr"), (RUSSIAN, "ru"), (GERMAN, "de")])
def test_function_words_name_the_language(text, lang):
    g = guess_language([text, text])
    assert g.best == lang
    assert not g.contradicts(lang) and g.contradicts("en")


def test_too_little_text_is_never_judged():
    assert guess_language(["Pompe centrifuge."]).best is None
    assert not guess_language(["Pompe centrifuge."]).contradicts("de")


def test_closely_related_languages_are_not_flagged():
    g = guess_language(["La bomba centrífuga de la planta necesita un mantenimiento que los técnicos hacen cada "
                        "semana, y el agua que sale de la bomba no es potable para las personas del barrio. " * 2])
    assert g.best == "es" and not g.contradicts("ca") and not g.contradicts("pt")


def test_a_target_language_override_that_contradicts_the_text_is_said_first():
    r = check([str(SAMPLES / "pump-manual.xlf")], [GLOSSARY],
              Settings(lemmatiser="lookup", tgt_lang="de", source_only_glossary=True)).to_dict()
    assert any("the target text looks like French, not German (given with --tgt-lang)" in a for a in r["alerts"])
    assert r["warnings"][: len(r["alerts"])] == r["alerts"]


def test_a_source_language_override_that_contradicts_the_text_is_said_first(tmp_path):
    x = write_xliff(tmp_path / "doc.xlf", [(GERMAN.replace("Pumpe", "pump"), FRENCH)], "en", "fr")
    g = write_csv(tmp_path / "g.csv", ["id", "de", "fr"], [["c1", "pump", "pompe"]])
    r = check([x], [g], Settings(lemmatiser="lookup", src_lang="de")).to_dict()
    assert r["alerts"] == []  # the text is German: the override is right
    g2 = write_csv(tmp_path / "g2.csv", ["id", "fr", "en"], [["c1", "pompe", "pump"]])
    y = write_xliff(tmp_path / "doc2.xlf", [(GERMAN, FRENCH)], "de", "en")
    r = check([y], [g2], Settings(lemmatiser="lookup", src_lang="fr", tgt_lang="en")).to_dict()
    assert any("the source text looks like German, not French (given with --src-lang)" in a for a in r["alerts"])
    assert any("the target text looks like French, not English (given with --tgt-lang)" in a for a in r["alerts"])


def test_source_text_in_another_language_is_flagged(tmp_path):
    x = write_xliff(tmp_path / "doc.xlf", [(FRENCH, GERMAN)], "en", "de")
    g = write_csv(tmp_path / "g.csv", ["id", "en", "de"], [["c1", "pump", "Pumpe"]])
    r = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    assert any("the source text looks like French, not English (as the file says)" in a for a in r["alerts"])


def test_no_occurrence_found_is_said(tmp_path):
    x = write_xliff(tmp_path / "doc.xlf", [("The weather is fine today.", "Il fait beau aujourd'hui.")])
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "centrifugal pump", "pompe centrifuge"]])
    r = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    assert r["alerts"] == [r["warnings"][0]]
    # nothing was checked: said as a run without translations says it, never a pass (#34)
    assert r["alerts"][0].startswith("nothing checked: no glossary term was found in the 1 source segments")


def test_cli_prints_alerts_before_anything_else(tmp_path):
    x = write_xliff(tmp_path / "doc.xlf", [("The weather is fine today.", "Il fait beau aujourd'hui.")])
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "centrifugal pump", "pompe centrifuge"]])
    res = CliRunner().invoke(main, ["check", x, "-g", g, "--lemmatiser", "lookup", "--json", str(tmp_path / "r.json")])
    assert res.exit_code == 2  # nothing checked (#34): the exit code of a run without translations
    # after the progress lines of the run itself, before the summary and anything written
    said = [line for line in res.stderr.splitlines() if not line.startswith("termqa: documents")]
    assert said[0].startswith("termqa: warning: nothing checked: no glossary term was found")
    assert said[-1].startswith("termqa: error: nothing checked: no glossary term was found")
    o = res.output
    assert o.index("no glossary term was found") < o.index("termqa: wrote") < o.index("NOT CHECKED: ") \
        < o.index("termqa 0.1.0")


def test_glossary_without_target_terms_is_refused_on_the_command_line(tmp_path):
    x = write_xliff(tmp_path / "doc.xlf", [("Check the pump.", "Prüfen Sie die Pumpe.")], "en", "de")
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "pump", "pompe"]])
    res = CliRunner().invoke(main, ["check", x, "-g", g, "--lemmatiser", "lookup"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "no terms in the target language 'de'" in res.stderr and "--source-only-glossary" in res.stderr
    res = CliRunner().invoke(main, ["check", x, "-g", g, "--lemmatiser", "lookup", "--source-only-glossary"])
    assert res.exit_code == 0, res.output


def test_compare_flags_a_system_in_another_language(tmp_path):
    pairs_de = [("Switch off the pump before any work on the pump and wait until the motor has stopped "
                 "completely; then check that the suction line is closed and that the pressure has dropped, "
                 "because worn parts of the pump must only be replaced by original parts.", GERMAN)]
    pairs_ru = [(pairs_de[0][0], RUSSIAN)] * 2
    pairs_de = pairs_de * 2
    a = write_xliff(tmp_path / "good.xlf", pairs_de, "en", "de")
    b = write_xliff(tmp_path / "russian.xlf", pairs_ru, "en", "de")
    g = write_csv(tmp_path / "g.csv", ["id", "en", "de"], [["c1", "pump", "Pumpe"]])
    data = cmp.compare([a, b], [g], Settings(lemmatiser="lookup")).to_dict()
    flags = {r["name"]: r["flags"] for r in data["ranking"]}
    assert flags == {"good": [], "russian": ["target text not in the target language"]}
    assert any(w.startswith("russian: ") and "looks like Russian, not German" in w for w in data["warnings"])
