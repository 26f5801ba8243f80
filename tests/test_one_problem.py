"""One problem, one verdict, everywhere (#28): occurrences with the same concept, source form, rendering
(case-folded unless case is the problem) and rule are one problem with one id, the same in "Fix first",
the CSV, the spreadsheet and the notes written into the XLIFF; and the pipeline never gives two
occurrences of one problem different verdicts (checked on the samples and on TICO-19)."""
from __future__ import annotations

import csv
import re
import shutil

import pytest
from lxml import etree

from termqa.config import Settings
from termqa.formats.annotate import annotate, annotate_files, annotations_from_result
from termqa.pipeline.check import check
from termqa.problems import problem_id, problem_key, problems, rendering_key, split_verdicts
from termqa.reports.csvout import rows as csv_rows
from termqa.reports.csvout import write_csv
from termqa.reports.issues import group_flags
from termqa.reports.xlsx import PROBLEM_COLUMNS, write_xlsx

from tests.conftest import CORPUS, SAMPLES
from tests.notecheck import repeated_notes


def _occ(unit, found, *, doc="a.xlf", outcome="error", label="A1", rule="forbidden_term", form="oil filter",
         concept="c1"):
    return {"doc_id": doc, "unit_id": unit, "segment_id": "", "segment_index": 0, "concept_id": concept,
            "source_form": form, "source_text": form, "target_text": found, "target_span": None,
            "outcome": outcome, "label": label, "rule": rule, "penalty": 1.0, "reason": "r"}


def _result(occs, docs=("a.xlf", "b.xlf")):
    return {"termqa_result": 1, "occurrences": occs,
            "documents": [{"doc_id": d, "path": d, "src_lang": "en", "tgt_lang": "fr"} for d in docs]}


# --- the key --------------------------------------------------------------------------------------

def test_case_at_the_start_of_a_sentence_is_the_same_problem():
    a, b = _occ("1", "Initiatives parlementaires"), _occ("2", "initiatives  parlementaires")
    assert problem_key(a) == problem_key(b) and problem_id(a) == problem_id(b)
    assert problem_id(a).startswith("P-") and len(problem_id(a)) == 10


def test_a_spelling_problem_keeps_its_writing():
    a = _occ("1", "Debit", label="F", rule="spelling")
    b = _occ("2", "debit", label="F", rule="spelling")
    assert problem_id(a) != problem_id(b)


def test_rule_source_form_concept_and_language_tell_problems_apart():
    base = _occ("1", "filtre d'huile")
    assert problem_id(base) != problem_id(_occ("1", "filtre d'huile", rule="glossary"))
    assert problem_id(base) != problem_id(_occ("1", "filtre d'huile", form="filter"))
    assert problem_id(base) != problem_id(_occ("1", "filtre d'huile", concept="c2"))
    assert problem_id(base, "fr") != problem_id(base, "de")
    assert problem_id(base) == problem_id(_occ("9", "filtre d'huile", doc="b.xlf"))  # place is not the problem


# --- every output groups the same way ------------------------------------------------------------

def _three_of_one_problem():
    return _result([_occ("12", "Filtre d'huile"), _occ("40", "filtre d'huile"),
                    _occ("7", "filtre d'huile", doc="b.xlf"),
                    _occ("13", "filtre", rule="glossary", outcome="conforming", label=None)])


def test_fix_first_csv_and_xlsx_carry_one_id_per_problem(tmp_path):
    r = _three_of_one_problem()
    groups = group_flags(r)
    assert len(groups) == 1 and groups[0]["count"] == 3
    pid = groups[0]["problem"]
    with write_csv(r, tmp_path / "qa.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [row["problem"] for row in rows[:3]] == [pid] * 3
    assert rows[3]["problem"] not in ("", pid)

    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.load_workbook(write_xlsx(r, tmp_path / "qa.xlsx"))
    assert wb.sheetnames == ["Summary", "Issues", "Problems", "Concepts", "Run"]
    issues = wb["Issues"]
    col = [c.value for c in issues[1]].index("Problem")
    assert [row[col].value for row in issues.iter_rows(min_row=2)] == [pid] * 3
    ps = wb["Problems"]
    assert [c.value for c in ps[1]] == [t for t, _w in PROBLEM_COLUMNS]
    body = [[c.value for c in row] for row in ps.iter_rows(min_row=2)]
    assert len(body) == 1
    row = dict(zip([t for t, _w in PROBLEM_COLUMNS], body[0]))
    assert (row["Problem"], row["Verdict"], row["Occurrences"]) == (pid, "Error", 3)
    assert row["Where"] == "a.xlf: 12, 40; b.xlf: 7" and row["Units"] == 3


def test_notes_name_the_other_places_of_the_same_problem():
    """Counted in units, never in occurrences: the other units of this file by id, those of other files
    counted (#34)."""
    notes = {(a.doc_id, a.unit_id): a.text for a in annotations_from_result(_three_of_one_problem(), level="all")}
    assert notes[("a.xlf", "12")].endswith(
        "replace it. Also in 2 other units: 40 in this file and 1 in another file.")
    assert notes[("a.xlf", "40")].endswith("Also in 2 other units: 12 in this file and 1 in another file.")
    assert notes[("b.xlf", "7")].endswith("replace it. Also in 2 other units, in another file.")
    assert ("a.xlf", "13") not in notes  # conforming: no note
    assert not any("in all" in t for t in notes.values())


def test_many_other_units_are_counted_as_units():
    # the problem twice in unit 1, once in units 2..13 of a.xlf, and in two units of each of two other files
    occs = [_occ("1", "filtre d'huile"), _occ("1", "filtre d'huile")] + [_occ(str(u), "filtre d'huile")
                                                                          for u in range(2, 14)]
    occs += [_occ(u, "filtre d'huile", doc=d) for d in ("b.xlf", "c.xlf") for u in ("7", "8")]
    notes = {(a.doc_id, a.unit_id): a.text for a in annotations_from_result(_result(occs, ("a.xlf", "b.xlf", "c.xlf")))}
    assert len(notes) == 13 + 4  # one note per unit
    assert notes[("a.xlf", "1")].endswith(
        "replace it. \u00d72 in this unit. Also in 16 other units: 2, 3, 4, 5, 6, 7, 8, 9 and 4 more in this file "
        "and 4 in other files.")
    assert notes[("a.xlf", "2")].endswith("replace it. Also in 16 other units: 1, 3, 4, 5, 6, 7, 8, 9 and 4 more "
                                          "in this file and 4 in other files.")
    assert notes[("b.xlf", "7")].endswith("replace it. Also in 16 other units: 8 in this file and 15 in other files.")


def test_a_problem_seen_once_keeps_its_note_as_it_was():
    r = _result([_occ("1", "filtre d'huile"), _occ("2", "filtre à huile", rule="glossary", outcome="conforming",
                                                    label=None)])
    (a,) = annotations_from_result(r, level="all")
    assert a.text == 'termqa error: "filtre d\'huile" is a deprecated term in the glossary: replace it.'


def test_twice_in_one_unit_is_one_note():
    r = _result([_occ("5", "filtre d'huile"), _occ("5", "Filtre d'huile")])
    (a,) = annotations_from_result(r)
    assert a.text.endswith("replace it. \u00d72 in this unit.") and "Also in" not in a.text
    assert [p.target_text for p in a.places()] == ["filtre d'huile", "Filtre d'huile"]


def test_two_problems_that_read_the_same_are_one_note():
    # the same term in two glossaries: two concepts, so two problems, but the translator would read one line twice
    r = _result([_occ("5", "filtre d'huile", concept="g1:7"), _occ("5", "filtre d'huile", concept="g2:3")])
    (a,) = annotations_from_result(r)
    assert a.text.endswith("replace it. \u00d72 in this unit.")


# --- real runs: one verdict per problem, notes written schema-valid ----------------------------------

@pytest.fixture(scope="module")
def samples_result():
    return check([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup")).to_dict()


def _one_verdict_whatever_the_rule(result) -> dict:
    """(document, concept, source form, rendering) -> its verdicts, where they differ: the problem key holds
    the rule that settled an occurrence, so two rules giving one rendering two verdicts would hide there."""
    seen: dict = {}
    for o in result["occurrences"]:
        if o.get("target_text") is None or o.get("label") == "F" or o.get("rule") == "spelling":
            continue
        k = (o["doc_id"], o["concept_id"], o["source_form"], rendering_key(o))
        seen.setdefault(k, set()).add((o["outcome"], o["label"]))
    return {k: v for k, v in seen.items() if len(v) > 1}


def test_a_split_is_found():
    r = _result([_occ("1", "filtre d'huile"), _occ("2", "Filtre d'huile", outcome="unjudged", label=None)])
    assert len(split_verdicts(r)) == 1


def test_samples_one_verdict_per_problem(samples_result):
    assert split_verdicts(samples_result) == {}
    assert _one_verdict_whatever_the_rule(samples_result) == {}
    by = problems(samples_result)
    assert 1 < len(by) < len(samples_result["occurrences"])  # some problems repeat
    # "Débit"/"DEBIT" conforming and "debit" misspelt: the spelling error stays a problem of its own
    spelt = [o for o in samples_result["occurrences"] if o.get("rule") == "spelling"]
    assert spelt and all(len(by[problem_id(o)]) == 1 for o in spelt)


def test_tico19_one_verdict_per_problem(corpus):
    base = corpus / "eval" / "tico19-enfr" / "data"
    r = check([str(base / "TM" / "all.en-fr.tmx")],
              [str(base / "terminologies" / "f_en-fr_XX.csv"), str(base / "terminologies" / "g_en_fr-FR.csv")],
              Settings(lemmatiser="lookup")).to_dict()
    assert split_verdicts(r) == {}
    assert _one_verdict_whatever_the_rule(r) == {}
    assert len(problems(r)) < len(r["occurrences"]) / 4  # thousands of occurrences, a few hundred problems


def _schema_errors(path, rel):
    parser = etree.XMLParser(no_network=True, resolve_entities=False, load_dtd=False)
    schema = etree.XMLSchema(etree.parse(str(CORPUS / "schemas" / rel), parser))
    schema.validate(etree.parse(str(path), parser))
    return {e.message for e in schema.error_log}


@pytest.mark.parametrize("name, rel", [("pump-manual.xlf", "xliff12/xliff-core-1.2-transitional.xsd"),
                                       ("pump-service.xlf", "xliff20/xliff_core_2.0.xsd")])
def test_samples_notes_written_back_are_schema_valid(samples_result, tmp_path, corpus, name, rel):
    src = tmp_path / name
    shutil.copy(SAMPLES / name, src)
    doc = next(d["doc_id"] for d in samples_result["documents"] if d["doc_id"].endswith(name))
    anns = [a for a in annotations_from_result(samples_result, level="all") if a.doc_id == doc]
    anns = [a.__class__(**{**a.__dict__, "doc_id": str(src)}) for a in anns]
    before = _schema_errors(src, rel)
    out = tmp_path / ("out-" + name)
    rep = annotate(src, anns, out=out)
    assert rep.written == len(anns) and rep.units_not_found == 0
    assert _schema_errors(out, rel) <= before
    text = out.read_text(encoding="utf-8")
    if name == "pump-manual.xlf":  # "bearing bracket" untranslated in u30 and u31: one problem, said in both
        assert "Also in 1 other unit: u31." in text and "Also in 1 other unit: u30." in text
    assert repeated_notes(out.read_bytes()) == []


def test_csv_rows_of_a_multilingual_result_keep_languages_apart():
    r = _three_of_one_problem()
    r["languages"] = {"fr": {}, "de": {}}
    r["documents"][1]["tgt_lang"] = "de"
    ids = {(row["document"], row["unit_id"]): row["problem"] for row in csv_rows(r)}
    assert ids[("a.xlf", "12")] == ids[("a.xlf", "40")] != ids[("b.xlf", "7")]


# --- real text: a term repeated in one unit gets one note (#34) -------------------------------------

X12 = "urn:oasis:names:tc:xliff:document:1.2"
X20 = "urn:oasis:names:tc:xliff:document:2.0"


def _tico_xliff(corpus, path, first: int, count: int, v2: bool):
    """TICO-19 EN-FR units [first, first + count) as an XLIFF 1.2 or 2.0 file, written with lxml: the
    translation memory's own text and ids (it has "PPE" four times in one sentence, rendered "EPI")."""
    tmx = etree.parse(str(corpus / "eval" / "tico19-enfr" / "data" / "TM" / "all.en-fr.tmx")).getroot()
    ns = X20 if v2 else X12
    root = etree.Element(f"{{{ns}}}xliff", nsmap={None: ns}, version="2.0" if v2 else "1.2")
    if v2:
        root.set("srcLang", "en")
        root.set("trgLang", "fr")
        parent = etree.SubElement(root, f"{{{ns}}}file", id="f1")
    else:
        f = etree.SubElement(root, f"{{{ns}}}file", original="tico19.txt", datatype="plaintext",
                             **{"source-language": "en", "target-language": "fr"})
        parent = etree.SubElement(f, f"{{{ns}}}body")
    for tu in tmx.iter("tu"):
        if first > 0:
            first -= 1
            continue
        if count == 0:
            break
        count -= 1
        src, tgt = (tuv.findtext("seg") for tuv in tu.iter("tuv"))
        unit = etree.SubElement(parent, f"{{{ns}}}{'unit' if v2 else 'trans-unit'}", id=tu.get("tuid"))
        holder = etree.SubElement(unit, f"{{{ns}}}segment") if v2 else unit
        etree.SubElement(holder, f"{{{ns}}}source").text = src
        etree.SubElement(holder, f"{{{ns}}}target").text = tgt
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    return str(path)


def test_tico19_a_term_repeated_in_a_unit_gets_one_note(corpus, tmp_path):
    data = corpus / "eval" / "tico19-enfr" / "data" / "terminologies"
    files = [_tico_xliff(corpus, tmp_path / "tico.xlf", 2000, 50, v2=False),
             _tico_xliff(corpus, tmp_path / "tico2.xlf", 2000, 50, v2=True)]
    result = check(files, [str(data / "f_en-fr_XX.csv"), str(data / "g_en_fr-FR.csv")], Settings(lemmatiser="lookup"))
    r = result.to_dict()
    unit = "Wikipedia_handpicked_7:2045"
    epi = [o for o in r["occurrences"] if o["unit_id"] == unit and o["target_text"] == "EPI"]
    assert len(epi) == 8 and len({problem_id(o) for o in epi}) == 1  # four times in each file, one problem
    annotate_files(result.files, annotations_from_result(r), out=str(tmp_path / "out"))
    for name, rel in (("tico.xlf", "xliff12/xliff-core-1.2-transitional.xsd"),
                      ("tico2.xlf", "xliff20/xliff_core_2.0.xsd")):
        out = tmp_path / "out" / name
        assert repeated_notes(out.read_bytes()) == []
        assert _schema_errors(out, rel) == set()
        root = etree.parse(str(out)).getroot()
        notes = [n for u in root.iter("{*}trans-unit", "{*}unit") if u.get("id") == unit
                 for n in u.iter("{*}note") if "EPI" in (n.text or "")]
        assert len(notes) == 1, [n.text for n in notes]
        # a question termqa could not decide, likely wrong (a different word than the glossary's): priority 4,
        # the other units counted as units
        assert notes[0].get("priority") == "4"
        assert notes[0].text.startswith('termqa question: check whether "EPI" is right for "PPE" here: it differs '
                                        'from the glossary term "\u00e9quipement de protection individuelle".')
        assert re.search(r"\u00d74 in this unit\. Also in \d+ other units: [^.]+ in this file and \d+ in another "
                         r"file\.$", notes[0].text), notes[0].text
