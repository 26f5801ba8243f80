"""The bundled sample project: schema-valid files, read with the segment counts its README states,
and an expectation table (samples/expected-outcomes.tsv) that matches the files' text."""
from __future__ import annotations

import csv
import importlib

import pytest

from tests.conftest import SAMPLES, SHARED

MANUAL = SAMPLES / "pump-manual.xlf"
SERVICE = SAMPLES / "pump-service.xlf"
TERMS = SAMPLES / "pump-terms.tbx"
EXPECTED = SAMPLES / "expected-outcomes.tsv"


def _schema(rel: str):
    if SHARED is None:
        pytest.skip("../shared is not present (XSDs live in ../shared/corpus/schemas)")
    from lxml import etree

    # The XSDs import xml.xsd by a relative schemaLocation, so parsing them from their own folder
    # resolves it from the local copy without any network access.
    return etree.XMLSchema(etree.parse(str(SHARED / "corpus" / "schemas" / rel)))


def _validate(schema, path):
    from lxml import etree

    ok = schema.validate(etree.parse(str(path)))
    assert ok, "\n".join(str(e) for e in schema.error_log)


@pytest.mark.parametrize("xsd", ["xliff12/xliff-core-1.2-transitional.xsd", "xliff12/xliff-core-1.2-strict.xsd"])
def test_manual_validates_against_xliff12(xsd):
    _validate(_schema(xsd), MANUAL)


def test_service_validates_against_xliff20():
    _validate(_schema("xliff20/xliff_core_2.0.xsd"), SERVICE)


def _formats():
    try:  # installed package
        from termqa import formats
    except ImportError:  # running from the source tree
        import formats
    return formats


def _need(module: str):
    # Readers are written in parallel with these samples; skip until they exist.
    formats = _formats()
    try:
        importlib.import_module(f"{formats.__name__}.{module}")
    except ModuleNotFoundError:
        pytest.skip(f"formats/{module}.py not written yet")
    return formats


def test_manual_reads_with_expected_segments():
    formats = _need("xliff1")
    bf = formats.read_bilingual(MANUAL)
    assert bf.format == "xliff-1.2"
    assert (bf.src_lang, bf.tgt_lang) == ("en", "fr")
    assert bf.problems == () and bf.warnings == ()
    (doc,) = bf.documents
    assert len(doc.segments) == 41
    assert doc.skipped == 1  # u40, translate="no"
    keys = [(s.unit_id, s.seg_id) for s in doc.segments]
    assert ("u09", "1") in keys and ("u09", "2") in keys and not any(k[0] == "u40" for k in keys)
    by_key = {(s.unit_id, s.seg_id): s for s in doc.segments}
    assert by_key[("u09", "2")].target == "Les élingues doivent être fixées aux anneaux de levage, jamais à l'arbre."
    # Native code inside <bpt>/<ept> never reaches the plain text.
    assert by_key[("u05", "")].source.startswith("WARNING: Never run the pump dry.")
    assert by_key[("u41", "")].target == ""
    assert by_key[("u41", "")].state == "needs-translation"
    assert by_key[("u17", "")].state == "needs-review-translation"


def test_service_reads_with_expected_segments():
    formats = _need("xliff2")
    bf = formats.read_bilingual(SERVICE)
    assert bf.format == "xliff-2.0"
    assert (bf.src_lang, bf.tgt_lang) == ("en", "fr")
    assert bf.problems == ()
    (doc,) = bf.documents
    assert len(doc.segments) == 23
    assert doc.skipped == 1  # s17, translate="no"
    assert len({s.unit_id for s in doc.segments}) == 19
    by_key = {(s.unit_id, s.seg_id): s for s in doc.segments}
    assert by_key[("s10", "s10-1")].source == "Fit the new mechanical seal using the installation sleeve."
    assert by_key[("s20", "s20-1")].state == "initial"


def test_glossary_reads_with_expected_concepts():
    formats = _need("tbx")
    g = formats.read_glossary(TERMS)
    assert g.format == "tbx-2008"
    assert g.problems == ()
    assert len(g.concepts) == 18
    c = {x.id: x for x in g.concepts}
    assert [x.id for x in g.concepts if x.dnt] == ["c10"]
    assert [x.id for x in g.concepts if not x.terms_in("fr")] == ["c13", "c14", "c15"]
    assert {(t.text, t.status) for t in c["c03"].terms_in("fr")} == {
        ("roue", "preferred"), ("roue à aubes", "admitted"), ("hélice", "deprecated")
    }
    assert c["c02"].preferred("fr").text == "corps de pompe"
    assert {t.term_type for t in c["c09"].terms_in("en")} == {"fullForm", "acronym"}
    assert c["c06"].subject == "hydraulics"


def _expected_rows():
    with open(EXPECTED, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_expected_outcomes_match_the_files():
    formats = _need("xliff1")
    _need("xliff2")
    segs = {}
    for path in (MANUAL, SERVICE):
        for s in formats.read_bilingual(path).segments:
            segs[(path.name, s.unit_id, s.seg_id)] = s
    rows = _expected_rows()
    assert len(rows) == 89
    for row in rows:
        seg = segs[(row["file"], row["unit_id"], row["segment_id"])]
        assert row["source_text"] in seg.source, row
        if row["target_rendering"] != "-":
            assert row["target_rendering"] in seg.target, row
        assert row["outcome"] in ("conforming", "error", "unjudged")
    counts = {}
    for row in rows:
        counts[(row["file"], row["outcome"])] = counts.get((row["file"], row["outcome"]), 0) + 1
    assert counts == {
        ("pump-manual.xlf", "conforming"): 52,
        ("pump-manual.xlf", "error"): 4,
        ("pump-manual.xlf", "unjudged"): 9,
        ("pump-service.xlf", "conforming"): 24,
    }
