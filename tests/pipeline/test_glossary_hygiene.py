"""Glossary hygiene (issue 35): entries that are function words are warned about by `check` and
`inspect`, and match-case (a CSV column, a TBX term note, the `match_case` setting) keeps a UI label
"Settings" from matching every lowercase "settings"."""
from click.testing import CliRunner

from termqa.config import Settings
from termqa.cli import main
from termqa.pipeline.check import check
from tests.helpers import run, write_csv, write_xliff

PAIRS = [("Open Settings to change it.", "Ouvrez Paramètres pour le changer."),
         ("The settings of the pump are saved.", "Les réglages de la pompe sont enregistrés.")]


def _found(r):
    return [(o["unit_id"], o["source_text"], o["concept_id"]) for o in r["occurrences"]]


def test_a_match_case_column_keeps_the_label_case(tmp_path):
    r = run(tmp_path, PAIRS, ["concept_id", "en", "fr", "match_case"], [["ui", "Settings", "Paramètres", "yes"]])
    assert _found(r) == [("u1", "Settings", "ui")]
    r = run(tmp_path, PAIRS, ["concept_id", "en", "fr", "match_case"], [["ui", "Settings", "Paramètres", ""]])
    assert _found(r) == [("u1", "Settings", "ui"), ("u2", "settings", "ui")]


def test_the_plain_entry_takes_what_the_case_sensitive_one_leaves(tmp_path):
    rows = [["ui", "Settings", "Paramètres", "yes"], ["gen", "settings", "réglages", ""]]
    r = run(tmp_path, PAIRS, ["concept_id", "en", "fr", "match_case"], rows)
    assert _found(r) == [("u1", "Settings", "ui"), ("u2", "settings", "gen")]
    assert {o["outcome"] for o in r["occurrences"]} == {"conforming"}


def test_the_match_case_setting(tmp_path):
    r = run(tmp_path, PAIRS, ["concept_id", "en", "fr"], [["ui", "Settings", "Paramètres"]], match_case=True)
    assert _found(r) == [("u1", "Settings", "ui")]
    assert r["signature"]["settings"]["match_case"] is True


def test_a_tbx_case_sensitive_term_note(tmp_path):
    tbx = tmp_path / "g.tbx"
    tbx.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><martif type="TBX" xml:lang="en"><text><body>'
        '<termEntry id="ui"><langSet xml:lang="en"><tig><term>Settings</term>'
        '<termNote type="caseSensitive">yes</termNote><termNote type="partOfSpeech">noun</termNote></tig></langSet>'
        '<langSet xml:lang="fr"><tig><term>Paramètres</term></tig></langSet></termEntry>'
        '</body></text></martif>', encoding="utf-8")
    from termqa.formats import read_glossary

    [c] = read_glossary(str(tbx)).concepts
    assert c.terms[0].match_case and c.terms[0].part_of_speech == "noun" and not c.terms[1].match_case
    r = check([write_xliff(tmp_path / "d.xlf", PAIRS)], [str(tbx)], Settings(lemmatiser="lookup")).to_dict()
    assert _found(r) == [("u1", "Settings", "ui")]


def test_function_word_entries_are_warned_about(tmp_path):
    rows = [["f", "following", "suivant"], ["a", "about", "à propos"], ["p", "pump", "pompe"], ["w", "WHO", "OMS"]]
    g = write_csv(tmp_path / "g.csv", ["concept_id", "en", "fr"], rows)
    x = write_xliff(tmp_path / "d.xlf", [("See the following pump.", "Voir la pompe suivante.")])
    r = check([x], [g], Settings(lemmatiser="lookup")).to_dict()
    [w] = [w for w in r["warnings"] if "function word" in w]
    assert "'following'" in w and "'about'" in w and "pump" not in w and "WHO" not in w and "match-case" in w
    out = CliRunner().invoke(main, ["inspect", g])
    assert out.exit_code == 0 and "function words of 'en'" in out.output and "'following'" in out.output


def test_match_case_entries_are_not_warned_about(tmp_path):
    g = write_csv(tmp_path / "g.csv", ["concept_id", "en", "fr", "match_case"], [["s", "Select", "Sélectionner", "x"]])
    out = CliRunner().invoke(main, ["inspect", g])
    assert "function word" not in out.output
