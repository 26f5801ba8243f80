"""Source forms are shown as written in every report, never as termqa's lemma key.

`source_form` is a matching key ("1 nation" for "First Nations", "bear bracket" for "bearing
brackets"): the HTML report, the CSV (but for its last, machine column), the spreadsheet and the
comparison report show `source_display` or the occurrence's own text. Checked on the samples and on
the TICO-19 translation memory, where lemma keys differ from the text most.
"""
from __future__ import annotations

import csv
import html
import io
import re
import zipfile
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa.evaluate.compare import compare
from termqa.pipeline.check import check
from termqa.reports import render_html, write_csv
from termqa.reports.compare_html import render_compare_html
from termqa.reports.xlsx import xlsx_bytes

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _keys_never_written(result: dict) -> set[str]:
    """Lemma keys that differ from every way the text writes them: finding one in a report means the
    key itself was shown (a key that is also written somewhere in the inputs proves nothing)."""
    written = set()
    for s in result.get("segments") or []:
        written.add(s["source"])
        written.add(s.get("target") or "")
    for c in result.get("concepts") or []:
        written.update(t["text"] for t in c.get("terms") or [])
        written.add(c.get("definition") or "")
    written.update(o.get("reason") or "" for o in result["occurrences"])
    text = "\n".join(written)
    keys = set()
    for o in result["occurrences"]:
        k = o["source_form"]
        if k in (o["source_display"], o["source_text"]):
            continue
        if not re.search(rf"(?<!\w){re.escape(k)}(?!\w)", text):
            keys.add(k)
    return keys


def _found(keys: set[str], text: str) -> list[str]:
    return sorted(k for k in keys if re.search(rf"(?<!\w){re.escape(k)}(?!\w)", text))


def _page_text(page: str) -> str:
    """What a person reads (and what a screen reader says): text, titles and labels; no markup."""
    page = re.sub(r"<script\b.*?</script>", " ", page, flags=re.S)
    attrs = " ".join(re.findall(r'(?:title|aria-label|placeholder)="([^"]*)"', page))
    return html.unescape(re.sub(r"<[^>]+>", " ", page) + " " + attrs)


def _xlsx_text(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return html.unescape(" ".join(z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".xml")))


def _csv_human_text(path: Path) -> str:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    assert rows[0][-1] == "source_form" and "source_display" in rows[0]
    return "\n".join("\t".join(r[:-1]) for r in rows)


def _check_outputs(result: dict, tmp_path: Path) -> set[str]:
    keys = _keys_never_written(result)
    assert _found(keys, _page_text(render_html(result))) == []
    csv_path = write_csv(result, tmp_path / "r.csv")
    assert _found(keys, _csv_human_text(csv_path)) == []
    assert _found(keys, _xlsx_text(xlsx_bytes(result, issues_only=False))) == []
    return keys


def test_samples_show_forms_as_written(tmp_path):
    result = check([str(SAMPLES / "pump-manual.xlf"), str(SAMPLES / "pump-service.xlf")],
                   [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup")).to_dict()
    keys = _check_outputs(result, tmp_path)
    assert keys  # the samples do have keys unlike their text ("bear bracket"-like lemmas)
    # the CSV's machine column still carries the key, for joining rows to the JSON
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text(encoding="utf-8-sig"))))
    assert {r["source_form"] for r in rows} == {o["source_form"] for o in result["occurrences"]}
    assert all(r["source_display"] for r in rows)


def test_comparison_shows_forms_as_written(tmp_path):
    gloss = str(SAMPLES / "pump-terms.tbx")
    a = tmp_path / "a.xlf"
    a.write_text((SAMPLES / "pump-manual.xlf").read_text(encoding="utf-8"), encoding="utf-8")
    data = compare([str(SAMPLES / "pump-manual.xlf"), str(a)], [gloss], Settings(lemmatiser="lookup")).to_dict()
    one = check([str(SAMPLES / "pump-manual.xlf")], [gloss], Settings(lemmatiser="lookup")).to_dict()
    keys = _keys_never_written(one)
    assert keys
    for c in data["concepts"]:
        for f in c["forms"]:
            assert f["source_display"] and "source_form" in f
        for o in c["occurrences"]:
            assert o["source_display"]
    assert _found(keys, _page_text(render_compare_html(data))) == []


def test_tico19_shows_forms_as_written(tmp_path):
    from tests.conftest import CORPUS

    if CORPUS is None:
        pytest.skip("../shared/corpus is not present")
    base = CORPUS / "eval" / "tico19-enfr" / "data"
    result = check([str(base / "TM" / "all.en-fr.tmx")],
                   [str(base / "terminologies" / "f_en-fr_XX.csv"), str(base / "terminologies" / "g_en_fr-FR.csv")],
                   Settings(lemmatiser="lookup")).to_dict()
    keys = _check_outputs(result, tmp_path)
    assert len(keys) > 20  # "1 nation", "gender base violence", ...


def test_align_methods_are_named_in_words():
    from tests.fixtures_result import build_result

    r = build_result()
    o = next(o for o in r["occurrences"] if o["outcome"] == "unjudged")
    o["align_method"] = "copied_word"
    text = _page_text(render_html(r))
    assert "rendering: kept as in the source; it is also a word of the target language" in text
    assert "copied_word" not in text
