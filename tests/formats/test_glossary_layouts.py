"""Glossary layouts people keep (#37): OmegaT's tab-separated glossaries, headers naming languages in
words (English names and the languages' own names), and the message for a header nobody can read.

No licensed public file at hand for these layouts: the glossaries are written here, in the layouts
OmegaT writes (its '#' first line included) and client termbases use."""
from __future__ import annotations

import pytest

from termqa.config import Settings
from termqa.errors import InputError
from termqa.formats import read_glossary
from termqa.lang.langtags import tag_of_name
from termqa.pipeline.check import check
from tests.helpers import write_xliff

OMEGAT = ("# Glossary in tab-separated format -*- coding: utf-8 -*-\n"
          "impeller\troue\tpump part\n"
          "seal\tjoint\n"
          "# a comment line\n"
          "casing\tcarter\tnot 'boîtier'\n")


def _terms(g):
    return [[(t.text, t.lang) for t in c.terms] for c in g.concepts]


@pytest.mark.parametrize("name", ["glossary.txt", "project.tab", "glossary.utf8"])
def test_omegat_glossary_is_read_source_target_comment(tmp_path, name):
    p = tmp_path / name
    p.write_text(OMEGAT, encoding="utf-8")
    g = read_glossary(str(p))
    assert (g.format, g.dialect, g.languages) == ("tsv", "omegat", ())
    assert _terms(g) == [[("impeller", ""), ("roue", "")], [("seal", ""), ("joint", "")],
                         [("casing", ""), ("carter", "")]]
    assert [c.note for c in g.concepts] == ["pump part", None, "not 'boîtier'"]


def test_omegat_glossary_takes_the_languages_of_the_files_checked(tmp_path):
    p = tmp_path / "glossary.txt"
    p.write_text(OMEGAT, encoding="utf-8")
    x = write_xliff(tmp_path / "doc.xlf", [("Replace the impeller.", "Remplacez la roue."),
                                           ("Check the seal.", "Vérifiez le joint.")], "en", "fr")
    r = check([x], [str(p)], Settings(lemmatiser="lookup")).to_dict()
    assert {(o["source_text"], o["target_text"], o["outcome"]) for o in r["occurrences"]} == {
        ("impeller", "roue", "conforming"), ("seal", "joint", "conforming")}


def test_omegat_glossary_with_language_options(tmp_path):
    p = tmp_path / "glossary.utf8"
    p.write_text(OMEGAT, encoding="utf-8")
    x = write_xliff(tmp_path / "doc.xlf", [("Replace the impeller.", "Remplacez la roue.")], "en", "fr")
    r = check([x], [str(p)], Settings(lemmatiser="lookup", src_lang="en", tgt_lang="fr")).to_dict()
    assert [(o["source_text"], o["outcome"]) for o in r["occurrences"]] == [("impeller", "conforming")]


@pytest.mark.parametrize("header, langs", [
    ("English Term,Persian Term,Description", ("en", "fa")),
    ("English,Français,Note", ("en", "fr")),
    ("English Terms;日本語", ("en", "ja")),
    ("Term (English),Term (German)", ("en", "de")),
    ("Deutsch\tEnglish", ("de", "en")),
    ("en,Русский", ("en", "ru")),
])
def test_headers_naming_languages_in_words(tmp_path, header, langs):
    sep = next(d for d in (";", "\t", ",") if d in header)
    row = sep.join(["alpha", "beta", "a note"][:header.count(sep) + 1])
    p = tmp_path / "g.csv"
    p.write_text(f"{header}\n{row}\n", encoding="utf-8")
    g = read_glossary(str(p))
    assert g.languages == langs
    assert [t.text for t in g.concepts[0].terms] == ["alpha", "beta"]
    if "Description" in header:
        assert g.concepts[0].definition == "a note"


def test_endonyms_are_case_and_normalisation_blind():
    assert tag_of_name("FRANÇAIS") == "fr" and tag_of_name("Franc\u0327ais") == "fr"
    assert tag_of_name("Simplified Chinese") == "zh-Hans" and tag_of_name("Klingon") is None


def test_an_unreadable_header_is_named_with_the_two_fixes(tmp_path):
    p = tmp_path / "g.csv"
    p.write_text("Begriff,Übersetzung,Bemerkung\nPumpe,pump,x\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_glossary(str(p))
    text = str(err.value)
    assert "'Begriff,Übersetzung,Bemerkung'" in text and "3 columns" in text
    assert "name the language columns in the header" in text and "--src-lang/--tgt-lang" in text


def test_inspect_gives_an_omegat_glossary_the_languages_passed(tmp_path):
    from termqa.inspect import inspect_file

    p = tmp_path / "glossary.txt"
    p.write_text(OMEGAT, encoding="utf-8")
    assert set(inspect_file(str(p))["languages"]) == {"(none)"}
    info = inspect_file(str(p), src_lang="en", tgt_lang="fr")
    assert (info["dialect"], sorted(info["languages"])) == ("omegat", ["en", "fr"])
    assert info["languages"]["fr"]["terms"] == 3
