"""Translators answer termqa's notes in their CAT tool; the next check reads the answers as decisions."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa.formats.annotate import annotate_files, annotations_from_result
from termqa.formats.annotate.replies import parse_answer, read_replies
from termqa.pipeline.check import check
from tests.helpers import write_csv

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
GLOSSARY = str(SAMPLES / "pump-terms.tbx")


@pytest.mark.parametrize("text, expected", [
    ("accept", ("accept", None, "")),
    ("OK, the client wants it", ("accept", None, "the client wants it")),
    ("Reject A3: invented", ("reject", "A3", "invented")),
    ("rejected", ("reject", None, "")),
    ("wrong - G", ("reject", "G", "")),
    ("Why is this flagged?", (None, None, "Why is this flagged?")),
    ("acceptable wording?", (None, None, "acceptable wording?")),
])
def test_answers_are_read_in_plain_words(text, expected):
    assert parse_answer(text) == expected


def _occ(data, source, target):
    return [o for o in data["occurrences"] if o["source_text"] == source and o["target_text"] == target]


def test_answers_under_xliff_notes_become_decisions(tmp_path):
    src = tmp_path / "pump-manual.xlf"
    shutil.copy(SAMPLES / "pump-manual.xlf", src)
    first = check([str(src)], [GLOSSARY], Settings(lemmatiser="lookup"))
    data = first.to_dict()
    assert _occ(data, "strainer", "strainer")[0]["label"] == "A4"
    out = tmp_path / "annotated.xlf"
    annotate_files(first.files, annotations_from_result(data), out=str(out))
    text = out.read_text(encoding="utf-8")
    assert text.count('"strainer" is left in English') == 1
    # the translator answers in two units (a note after termqa's, as a CAT tool adds one), and asks in a third
    units = {o["unit_id"] for o in _occ(data, "strainer", "strainer") + _occ(data, "impeller", "hélice")}
    assert len(units) == 2
    strainer_unit = _occ(data, "strainer", "strainer")[0]["unit_id"]
    impeller_unit = _occ(data, "impeller", "hélice")[0]["unit_id"]

    def answer(unit, reply, t):
        pat = re.compile(rf'(<trans-unit id="{unit}".*?<note from="termqa"[^>]*>.*?</note>)', re.S)
        assert pat.search(t), unit
        return pat.sub(lambda m: m.group(1) + f'<note from="maria">{reply}</note>', t, count=1)

    text = answer(strainer_unit, "Accept: the client keeps the English name", text)
    text = answer(impeller_unit, "Why is hélice deprecated?", text)
    out.write_text(text, encoding="utf-8")
    replies = read_replies(str(out))
    assert [(r.unit_id, r.author, r.decision) for r in replies] == [
        (strainer_unit, "maria", "accept"), (impeller_unit, "maria", None)]

    again = check([str(out)], [GLOSSARY], Settings(lemmatiser="lookup")).to_dict()
    o = _occ(again, "strainer", "strainer")[0]
    assert (o["outcome"], o["judge"], o["rule"]) == ("justified", "reviewer", "reviewer")
    assert "maria" in o["reason"] and "client keeps the English name" in o["reason"]
    assert _occ(again, "impeller", "hélice")[0]["label"] == "A1"  # a question is not a decision
    results = {r["unit_id"]: r["result"] for r in again["decisions"]["replies"]}
    assert results[strainer_unit] == "accepted 1 occurrence(s)"
    assert results[impeller_unit].startswith("a comment, not a decision")
    assert any("answer(s) to termqa's notes read from the files" in w for w in again["warnings"])
    # re-annotating keeps the translator's note and drops the flag that is now decided
    out2 = tmp_path / "annotated2.xlf"
    res2 = check([str(out)], [GLOSSARY], Settings(lemmatiser="lookup"))
    annotate_files(res2.files, annotations_from_result(res2.to_dict()), out=str(out2))
    t2 = out2.read_text(encoding="utf-8")
    assert "Accept: the client keeps the English name" in t2 and '"strainer" is left in English' not in t2


SDL = ("\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?><xliff xmlns:sdl=\"http://sdl.com/FileTypes/SdlXliff/1.0\" "
       "xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\" sdl:version=\"1.0\"><file original=\"m.docx\" "
       "datatype=\"x-sdlfilterframework2\" source-language=\"en-US\" target-language=\"fr-FR\"><body>"
       "<trans-unit id=\"tu1\"><source>Clean the strainer.</source><seg-source><mrk mtype=\"seg\" mid=\"1\">Clean the "
       "strainer.</mrk></seg-source><target><mrk mtype=\"seg\" mid=\"1\">Nettoyez le strainer.</mrk></target>"
       "<sdl:seg-defs><sdl:seg id=\"1\" conf=\"Translated\"/></sdl:seg-defs></trans-unit></body></file></xliff>")


def test_a_reply_in_a_trados_comment_thread_becomes_a_decision(tmp_path):
    src = tmp_path / "m.sdlxliff"
    src.write_text(SDL, encoding="utf-8")
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "strainer", "crépine"]])
    first = check([str(src)], [g], Settings(lemmatiser="lookup"))
    assert first.to_dict()["occurrences"][0]["label"] == "A4"
    out = tmp_path / "out.sdlxliff"
    annotate_files(first.files, annotations_from_result(first.to_dict()), out=str(out))
    text = out.read_text(encoding="utf-8-sig")
    # Trados keeps a reply as a further <Comment> in the same thread
    text, n = re.subn(r'(<Comment [^>]*user="termqa"[^>]*>.*?</Comment>)',
                      r'\1<Comment severity="Low" user="maria" date="2026-12-01T09:00:00+01:00" version="1.0">'
                      r'reject A3 calque, use crépine</Comment>', text, count=1)
    assert n == 1
    out.write_text(text, encoding="utf-8")
    assert [(r.author, r.decision, r.label, r.seg_id) for r in read_replies(str(out))] == [("maria", "reject", "A3", "1")]
    o = check([str(out)], [g], Settings(lemmatiser="lookup")).to_dict()["occurrences"][0]
    assert (o["outcome"], o["label"], o["judge"]) == ("error", "A3", "reviewer")
