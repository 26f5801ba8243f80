"""CSV glossary headers: a column headed `id` is Indonesian when its cells are words and another column
is a language; identifiers otherwise (formats/csvgloss.py)."""
from __future__ import annotations

import csv

from termqa.config import Settings
from termqa.formats import read_glossary
from termqa.inspect import inspect_file
from termqa.pipeline.check import check

from tests.helpers import write_csv, write_xliff


def _tico_pairs(corpus, n=40):
    """(English, Indonesian) pairs of the TICO-19 Indonesian terminology (long layout, languages per row)."""
    path = corpus / "eval/tico19-multi/data/terminologies/g_en_id.csv"
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    pairs = [(r["sourceString"], r["targetString"]) for r in rows]
    return [(s, t) for s, t in pairs if "," not in s + t][:n]


def test_en_id_reads_indonesian_terms(tmp_path, corpus):
    pairs = _tico_pairs(corpus)
    g = read_glossary(write_csv(tmp_path / "en_id.csv", ["en", "id"], [list(p) for p in pairs]))
    assert g.languages == ("en", "id")
    assert [(c.terms_in("en")[0].text, c.terms_in("id")[0].text) for c in g.concepts] == pairs
    assert any("column 'id' read as Indonesian terms" in w for w in g.warnings)


def test_id_first_with_words_is_indonesian_too(tmp_path, corpus):
    pairs = _tico_pairs(corpus, 5)
    g = read_glossary(write_csv(tmp_path / "id_en.csv", ["id", "en"], [[i, e] for e, i in pairs]))
    assert [c.terms_in("id")[0].text for c in g.concepts] == [i for _e, i in pairs]


def test_id_holding_identifiers_stays_the_concept_id(tmp_path):
    g = read_glossary(write_csv(tmp_path / "ids.csv", ["id", "en", "fr"], [["1", "pump", "pompe"],
                                                                           ["2", "valve", "vanne"]]))
    assert [c.id for c in g.concepts] == ["1", "2"] and g.languages == ("en", "fr")
    g = read_glossary(write_csv(tmp_path / "keys.csv", ["id", "en", "fr"], [["c-1", "pump", "pompe"],
                                                                            ["login.title", "valve", "vanne"]]))
    assert [c.id for c in g.concepts] == ["c-1", "login.title"]
    assert not any("Indonesian" in w for w in g.warnings)


def test_id_beside_a_clear_identifier_column_is_indonesian(tmp_path):
    g = read_glossary(write_csv(tmp_path / "both.csv", ["concept_id", "en", "id"],
                                [["7", "hand sanitizer", "pembersih tangan"]]))
    assert (g.concepts[0].id, g.concepts[0].terms_in("id")[0].text) == ("7", "pembersih tangan")
    g = read_glossary(write_csv(tmp_path / "tag.csv", ["concept_id", "en", "id-ID"],
                                [["7", "hand sanitizer", "pembersih tangan"]]))
    assert (g.concepts[0].id, g.concepts[0].terms_in("id-ID")[0].text) == ("7", "pembersih tangan")


def test_the_tico_long_layout_keeps_its_id_column(corpus):
    g = read_glossary(corpus / "eval/tico19-multi/data/terminologies/f_en-id_ID.csv")
    assert g.concepts[0].id == "1" and {"en", "id"} <= {t.lang.split("-")[0] for t in g.concepts[0].terms}


def test_check_with_an_en_id_glossary_checks_indonesian(tmp_path, corpus):
    pairs = _tico_pairs(corpus)
    g = write_csv(tmp_path / "en_id.csv", ["en", "id"], [list(p) for p in pairs])
    doc = [(f"The {e} is here.", f"Ada {i} di sini.") for e, i in pairs[:5]]
    x = write_xliff(tmp_path / "d.xlf", doc, src="en", tgt="id")
    r = check([x], [g], Settings(lemmatiser="lookup")).to_dict()  # before: refused, "no terms in the target language"
    assert r["summary"]["outcomes"]["conforming"] >= 5


def test_inspect_says_which_reading(tmp_path):
    p = write_csv(tmp_path / "en_id.csv", ["en", "id"], [["hand sanitizer", "pembersih tangan"]])
    info = inspect_file(p)
    assert set(info["languages"]) == {"en", "id"}
    assert any("Indonesian" in w for w in info["warnings"])
