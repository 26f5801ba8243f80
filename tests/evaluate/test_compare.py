"""`termqa compare`: the permutation test and ranking by hand, the refusal of mismatched inputs, shared
references on the sample project, several target languages of one TMX, the judge with shared
questions, the JSON and the HTML report, and the real bio-MQM systems when the corpus is there."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.config import DEFAULT_RESAMPLES, DEFAULT_SEED, Settings
from termqa.evaluate import compare as cmp
from termqa.evaluate import compare_output, ranking, systems
from termqa.cli.compare import compare_command
from termqa.errors import InputError, UsageError
from tests.conftest import SAMPLES
from tests.helpers import write_csv, write_xliff

TEST = {"resamples": DEFAULT_RESAMPLES, "seed": DEFAULT_SEED}  # the permutation test as a run makes it

GLOSS = str(SAMPLES / "pump-terms.tbx")

# A second "system" for the sample manual: its four counting errors fixed, one deprecated term
# introduced, and other renderings of the two source-only concepts.
EDITS_B = [
    ("Si le debit descend", "Si le débit descend"),
    ("Nettoyez le strainer", "Nettoyez la crépine"),
    ("l'usure de l'hélice", "l'usure de la roue"),
    ("Le module GardeFlux", "Le module FlowGuard"),
    ("Remplacez la bague d'usure", "Remplacez l'anneau d'usure"),
    ("La bague d'usure est", "L'anneau d'usure est"),
    ("dans le support de palier", "dans la chaise de palier"),
    ("pour protéger la roue.", "pour protéger l'hélice."),
]


def edited(path: Path, edits) -> str:
    text = (SAMPLES / "pump-manual.xlf").read_text(encoding="utf-8")
    for a, b in edits:
        assert text.count(a) == 1, a
        text = text.replace(a, b)
    path.write_text(text, encoding="utf-8")
    return str(path)


def invoke(*args):
    return CliRunner().invoke(compare_command, [str(a) for a in args])


# --- the permutation test, by hand -----------------------------------------------------------------

def test_identical_systems_have_p_one():
    t = ranking.paired_permutation_test([0.2, 0.5, 0.0], [0.2, 0.5, 0.0], **TEST)
    assert (t.n, t.mean_diff, t.p_value, t.method) == (3, 0.0, 1.0, "exact")


def test_exact_p_value_by_enumeration():
    # d = (1, 2, 3), mean 2: of the 8 sign patterns only +++ and --- reach |sum| = 6
    t = ranking.paired_permutation_test([1, 2, 3], [0, 0, 0], **TEST)
    assert t.mean_diff == 2.0 and t.p_value == 2 / 8 and t.resamples == 8
    # d = (1, 1, 2): the eight signed sums are 4, 0, 2, -2, 2, -2, 0, -4; two reach |4|
    t = ranking.paired_permutation_test([1, 1, 2], [0, 0, 0], **TEST)
    assert t.p_value == 2 / 8
    # d = (1, -1): observed mean 0, every pattern is as extreme
    assert ranking.paired_permutation_test([1, 0], [0, 1], **TEST).p_value == 1.0


def test_clearly_different_systems_have_small_p():
    t = ranking.paired_permutation_test([1.0] * 12, [0.0] * 12, **TEST)
    assert t.method == "exact" and t.p_value == 2 / 4096
    # the sign of the difference does not matter (two-sided)
    assert ranking.paired_permutation_test([0.0] * 12, [1.0] * 12, **TEST).p_value == 2 / 4096


def test_sampled_p_value_is_seeded_and_corrected():
    a, b = [1.0] * 20, [0.0] * 20
    t1 = ranking.paired_permutation_test(a, b, resamples=2000, seed=7)
    t2 = ranking.paired_permutation_test(a, b, resamples=2000, seed=7)
    assert t1.method == "sampled" and t1 == t2
    # no random pattern of 20 signs reaches the observed all-plus sum here: p = (0 + 1) / (2000 + 1)
    assert t1.p_value == 1 / 2001
    same = ranking.paired_permutation_test([0.3] * 20, [0.3] * 20, resamples=500, seed=DEFAULT_SEED)
    assert same.p_value == 1.0  # (500 + 1) / (500 + 1)
    assert ranking.paired_permutation_test([], [], **TEST).p_value is None


def test_ranking_clusters_and_ties():
    scores = {"A": 0.1, "B": 0.2, "C": 0.5, "D": None}
    p = {frozenset("AB"): 0.3, frozenset("AC"): 0.01, frozenset("BC"): 0.2}
    ranks = ranking.rank_systems(scores, lambda a, b: p[frozenset((a, b))], 0.05)
    assert [(r.name, r.rank, r.tie, r.cluster) for r in ranks] == [
        ("A", 1, True, 1), ("B", 1, True, 1), ("C", 3, False, 2), ("D", None, False, None)]
    # everything separable: no ties, ranks 1..3
    ranks = ranking.rank_systems({"A": 0.1, "B": 0.2, "C": 0.5}, lambda a, b: 0.001, 0.05)
    assert [(r.name, r.rank, r.tie) for r in ranks] == [("A", 1, False), ("B", 2, False), ("C", 3, False)]


# --- refusing what cannot be compared -----------------------------------------------------------------

def test_refuses_a_different_source_naming_the_segment(tmp_path):
    a = write_xliff(tmp_path / "a.xlf", [("Check the pump.", "Vérifiez la pompe."), ("Drain it.", "Videz-la.")])
    b = write_xliff(tmp_path / "b.xlf", [("Check the pump.", "Contrôlez la pompe."), ("Drain the pump.", "Vidangez.")])
    r = invoke(a, b, "-g", GLOSS)
    assert r.exit_code == 2
    errors = r.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("termqa: error: ")
    assert "segment 2 (unit u2)" in errors[0] and "'Drain the pump.'" in errors[0] and "'Drain it.'" in errors[0]


def test_refuses_missing_segments_and_single_systems(tmp_path):
    a = write_xliff(tmp_path / "a.xlf", [("Check the pump.", "Vérifiez la pompe."), ("Drain it.", "Videz-la.")])
    b = write_xliff(tmp_path / "b.xlf", [("Check the pump.", "Vérifiez la pompe.")])
    with pytest.raises(InputError, match=r"segment 2 \(unit u2\) exists only in a"):
        cmp.compare([a, b], [GLOSS], Settings(lemmatiser="lookup"))
    with pytest.raises(UsageError, match="compare needs at least two systems"):
        cmp.compare([a], [GLOSS], Settings(lemmatiser="lookup"))
    with pytest.raises(UsageError, match="1 --name for 2 systems"):
        systems.plan_systems([a, b], names=["x"])
    # renumbered units with the same source text are the same segments
    c = write_xliff(tmp_path / "c.xlf", [("x1", "Check the pump.", "Vérifiez la pompe."),
                                         ("x2", "Drain it.", "Videz.")])
    specs = systems.plan_systems([a, c])
    systems.check_same_source([(s, systems.read_system(s, None)) for s in specs])


# --- the sample project: shared references ---------------------------------------------------------

@pytest.fixture(scope="module")
def sample_compare(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp")
    a = d / "A.xlf"
    a.write_text((SAMPLES / "pump-manual.xlf").read_text(encoding="utf-8"), encoding="utf-8")
    b = edited(d / "B.xlf", EDITS_B)
    res = cmp.compare([str(a), b], [GLOSS], Settings(lemmatiser="lookup"))
    return res, res.to_dict()


def _occ(data, concept, unit):
    c = next(c for c in data["concepts"] if c["id"] == concept)
    row = next(o for o in c["occurrences"] if o["unit_id"] == unit)
    return {n: (s["target_text"], s["outcome"], s["label"]) for n, s in row["systems"].items()}


def test_one_reference_per_source_form_for_every_system(sample_compare):
    _res, data = sample_compare
    for c in data["concepts"]:
        for f in c["forms"]:
            texts = {(r["text"], r["provenance"]) for r in f["references"].values()}
            assert len(texts) <= 1, (c["id"], f["source_form"], texts)
    wear = next(f for c in data["concepts"] if c["id"] == "c13" for f in c["forms"])
    # A: bague x2 (anneau unaligned); B: anneau x3 -> the majority across systems
    assert wear["reference"] == {"text": "anneau d'usure", "provenance": "pseudo"}
    assert _occ(data, "c13", "u20") == {"A": ("bague d'usure", "unjudged", None),
                                        "B": ("anneau d'usure", "conforming", None)}
    # A's own minority rendering is found through B's rendering and matches the shared reference
    assert _occ(data, "c13", "u22") == {"A": ("anneau d'usure", "conforming", None),
                                        "B": ("anneau d'usure", "conforming", None)}
    # bearing bracket: A alone never aligns it; B's rendering is the shared reference
    assert _occ(data, "c14", "u31") == {"A": ("chaise de palier", "conforming", None),
                                        "B": ("chaise de palier", "conforming", None)}
    occ_a = {o["unit_id"] + o["concept_id"]: o for o in _res.results[0].to_dict()["occurrences"]}
    assert occ_a["u20c13"]["reason"] == "rendering diverges from the document's majority rendering"
    assert occ_a["u30c14"]["reason"].startswith("no rendering found in the target")
    assert occ_a["u22c13"]["align_method"] == "established"


def test_sample_scores_ranking_and_errors(sample_compare):
    _res, data = sample_compare
    sysd = {s["name"]: s for s in data["systems"]}
    assert sysd["B"]["labels"] == {"A1": 1}  # only the deprecated 'hélice' of u15
    assert _occ(data, "c03", "u15")["B"] == ("hélice", "error", "A1")
    assert set(sysd["A"]["labels"]) >= {"F", "A1", "A5"}
    assert sysd["B"]["scores"]["system"] < sysd["A"]["scores"]["system"]
    assert [r["name"] for r in data["ranking"]] == ["B", "A"]
    # one document: a test over documents could never separate them; segments are paired instead, and
    # the difference (a few errors of A in 38 scored segments) is not significant: a tie, said so
    pw = data["pairwise"][0]
    assert (pw["unit"], pw["pairs"], pw["documents"], pw["method"]) == ("segment", 37, 1, "sampled")
    assert 0.05 < pw["p_value"] < 0.5
    assert [(r["rank"], r["tie"]) for r in data["ranking"]] == [(1, True), (1, True)]
    assert data["warnings"][0] == ("1 document(s): systems are compared on paired segment scores (38 segments "
                                   "hold scored terms)")
    assert data["signature"]["test"]["unit"] == "segment"
    assert sysd["B"]["shared_references_changed"] == {"references": 0, "verdicts": 0}
    assert sysd["A"]["shared_references_changed"]["references"] == 2
    assert "|compare:2|refs:shared" in data["signature"]["string"]
    assert data["signature"]["settings"]["references"] == "shared"


def test_console_and_html(sample_compare, tmp_path):
    from termqa.reports.compare_html import render_compare_html

    _res, data = sample_compare
    text = compare_output.render_text(data)
    lines = text.splitlines()
    assert any(line.startswith("1=    B ") for line in lines) and any(line.startswith("1=    A ") for line in lines)
    assert "A vs B: mean diff +" in text and "over 37 segment(s)" in text and "(sampled)" in text
    html = render_compare_html(data)
    assert "<script" not in html and "Content-Security-Policy" in html
    assert "anneau d&#39;usure" in html and "chaise de palier" in html and ">tie<" in html
    # every concept found appears once as a side-by-side card
    assert html.count('<article class="concept"') == len(data["concepts"])


def test_html_escapes_names_and_texts(sample_compare):
    import copy

    from termqa.reports.compare_html import render_compare_html

    data = copy.deepcopy(sample_compare[1])
    for s in data["systems"]:
        s["name"] = "<b>x</b>" if s["name"] == "A" else s["name"]
    for r in data["ranking"]:
        r["name"] = "<b>x</b>" if r["name"] == "A" else r["name"]
    for p in data["pairwise"]:
        p["a"], p["b"] = [("<b>x</b>" if n == "A" else n) for n in (p["a"], p["b"])]
    for d in data["documents"]:
        d["doc_ids"] = {("<b>x</b>" if k == "A" else k): v for k, v in d["doc_ids"].items()}
        d["scores"] = {("<b>x</b>" if k == "A" else k): v for k, v in d["scores"].items()}
    for c in data["concepts"]:
        for f in c["forms"]:
            f["systems"] = {("<b>x</b>" if k == "A" else k): v for k, v in f["systems"].items()}
            f["references"] = {("<b>x</b>" if k == "A" else k): v for k, v in f["references"].items()}
        for o in c["occurrences"]:
            o["systems"] = {("<b>x</b>" if k == "A" else k): v for k, v in o["systems"].items()}
    html = render_compare_html(data)
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    with pytest.raises(UsageError, match="comparison object"):
        render_compare_html({"termqa_result": 1})


# --- several systems, several documents: significance end to end --------------------------------------

def test_six_documents_separate_two_systems_and_tie_a_third(tmp_path):
    gl = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "suction line", "conduite d'aspiration"]])
    good = [("Replace the suction line.", "Remplacez la conduite d'aspiration."),
            ("Drain the suction line.", "Videz la conduite d'aspiration.")]
    bad = [("Replace the suction line.", "Remplacez la suction line."),
           ("Drain the suction line.", "Videz la conduite d'aspiration.")]
    for name, pairs in (("good", good), ("twin", good), ("bad", bad)):
        (tmp_path / name).mkdir()
        for k in range(6):
            write_xliff(tmp_path / name / f"doc{k}.xlf", pairs)
    out = tmp_path / "c.json"
    r = invoke(tmp_path / "good", tmp_path / "twin", tmp_path / "bad", "-g", gl, "--lemmatiser", "lookup",
               "--json", out, "--report", tmp_path / "c.html")
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [(x["name"], x["rank"], x["tie"]) for x in data["ranking"]] == [
        ("good", 1, True), ("twin", 1, True), ("bad", 3, False)]
    pw = {(p["a"], p["b"]): p for p in data["pairwise"]}
    assert pw[("good", "bad")]["p_value"] == pytest.approx(2 / 64) and pw[("good", "bad")]["better"] == "good"
    assert pw[("good", "bad")]["mean_diff"] == pytest.approx(-2.0)  # A4 (4) on one of two occurrences
    assert pw[("good", "twin")]["p_value"] == 1.0
    assert {s["name"]: s["labels"] for s in data["systems"]}["bad"] == {"A4": 6}
    assert len(data["documents"]) == 6
    # "twin" is a copy of "good": said, and both are marked in the ranking
    assert data["warnings"] == ["good and twin are identical (the same target text in every segment): comparing "
                                "them measures nothing; was a file given twice?"]
    assert {r["name"]: r["flags"] for r in data["ranking"]} == {
        "good": ["identical to twin"], "twin": ["identical to good"], "bad": []}
    assert "bad" in r.output and "good better" in r.output


# --- one TMX, several target languages ----------------------------------------------------------------

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="x"
 adminlang="en" srclang="en" datatype="plaintext"/><body>
<tu tuid="1"><tuv xml:lang="en"><seg>Check the wear ring.</seg></tuv>
 <tuv xml:lang="fr-FR"><seg>Contrôlez la bague d'usure.</seg></tuv>
 <tuv xml:lang="fr-CA"><seg>Vérifiez l'anneau d'usure.</seg></tuv></tu>
<tu tuid="2"><tuv xml:lang="en"><seg>Replace the wear ring.</seg></tuv>
 <tuv xml:lang="fr-FR"><seg>Remplacez la bague d'usure.</seg></tuv>
 <tuv xml:lang="fr-CA"><seg>Remplacez la bague d'usure.</seg></tuv></tu>
<tu tuid="3"><tuv xml:lang="en"><seg>Clean the wear ring.</seg></tuv>
 <tuv xml:lang="fr-FR"><seg>Nettoyez l'anneau d'usure.</seg></tuv>
 <tuv xml:lang="fr-CA"><seg>Nettoyez la bague d'usure.</seg></tuv></tu>
</body></tmx>
"""


def test_tmx_target_languages_are_systems(tmp_path):
    tmx = tmp_path / "multi.tmx"
    tmx.write_text(TMX, encoding="utf-8")
    gl = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "wear ring", ""]])
    res = cmp.compare([str(tmx)], [gl], Settings(lemmatiser="lookup", source_only_glossary=True))
    data = res.to_dict()
    assert [s["name"] for s in data["systems"]] == ["fr-FR", "fr-CA"]
    form = data["concepts"][0]["forms"][0]
    # bague d'usure: 2 (fr-FR) + 2 (fr-CA) against anneau 1 + 1: one French reference for both
    assert form["reference"] == {"text": "bague d'usure", "provenance": "pseudo"}
    assert {n: s["outcomes"]["conforming"] for n, s in form["systems"].items()} == {"fr-FR": 2, "fr-CA": 2}
    # --tgt-lang repeated picks and orders them; --name renames
    res = cmp.compare([str(tmx)], [gl], Settings(lemmatiser="lookup", source_only_glossary=True),
                      tgt_langs=["fr-CA", "fr-FR"], names=["canada", "france"])
    assert [r.spec.name for r in res.runs] == ["canada", "france"]


# --- the judge: shared references, shared questions ---------------------------------------------------

PAIRS = [
    ("u1", "Replace the suction line.", "Remplacez la conduite d'aspiration."),
    ("u2", "Flush the suction line.", "Rincez la tuyauterie d'aspiration."),
    ("u3", "Insulate the suction line.", "Isolez la tuyauterie d'aspiration."),
    ("u4", "Check the wear ring.", "Contrôlez la bague d'usure."),
    ("u5", "Clean the wear ring.", "Nettoyez la bague d'usure."),
]


@pytest.fixture
def server():
    from tests.llm_server import ScriptedLLM

    s = ScriptedLLM().start()
    yield s
    s.stop()


def test_judge_mode_validates_shared_references_once_and_shares_questions(server, tmp_path):
    from termqa.judge.llm import settings_from_env
    from tests.judge.test_judge import Script

    script = Script()
    server.default = script
    a = write_xliff(tmp_path / "a.xlf", PAIRS)
    b = write_xliff(tmp_path / "b.xlf", PAIRS)  # the same translation twice: every question is shared
    gl = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "suction line", "conduite d'aspiration"],
                                                        ["c2", "wear ring", ""]])
    settings = settings_from_env(model="scripted-judge", judge_base_url=server.url, cache=str(tmp_path / "c.db"),
                                 backoff_base=0.01, backoff_max=0.05, judge_timeout=2.0)
    res = cmp.compare([a, b], [gl], Settings(lemmatiser="lookup"), judge=settings)
    data = res.to_dict()
    # one pseudo chain (wear ring) in one document: one reference check for both systems
    checks = [r for r in server.completions if "proposed as the reference" in r.prompt]
    assert len(checks) == 1
    # ... and it saw the renderings of both systems (4 occurrences, not 2)
    assert "used for all of the occurrences of the form (which occurs 3-4 times)" in checks[0].prompt
    form = next(f for c in data["concepts"] if c["id"] == "c2" for f in c["forms"])
    assert form["reference"] == {"text": "bague d'usure", "provenance": "validated"}
    # the second system asked nothing new: its questions were identical to the first's
    asked = [s["questions"] for s in data["systems"]]
    assert asked[0] == {"reference_check": 1, "error": 1, "consistency": 1}  # one Q2 question per chain
    assert asked[1] == {"error": 1, "consistency": 1}
    calls = data["accounting"]["calls"]
    assert calls == sum(script.asked.values())
    assert data["accounting"]["cached"] >= asked[1]["error"] + asked[1]["consistency"]
    a_occ = _occ(data, "c1", "u2")
    assert a_occ["a"] == a_occ["b"] == ("tuyauterie d'aspiration", "justified", "document_usage")
    assert data["pairwise"][0]["unit"] == "segment" and data["pairwise"][0]["p_value"] >= 0.05
    assert data["signature"]["judge"]["model"] == "scripted-judge"


# --- real multi-system data ------------------------------------------------------------------------

def test_bio_mqm_systems(corpus, tmp_path):
    """Three WMT21 biomedical EN->FR systems (bio-MQM) on their first 8 documents, against the TICO-19
    COVID terminology: inputs are accepted as the same source and every system gets the same anchors."""
    from xml.sax.saxutils import escape, quoteattr

    src = corpus / "eval/bio-mqm/data/v2/target/main_phase/round_two/en2fr"
    if not src.is_dir():
        pytest.skip("bio-MQM en2fr is not in the corpus")
    names = ["mtcarousel", "TMT_run1", "LISN_run1"]
    paths = []
    for name in names:
        rows = json.loads((src / f"{name}.json").read_text(encoding="utf-8"))
        docs: dict = {}
        for r in rows:
            docs.setdefault(r["DOC_ID"], {})[int(r["SEG_ID"])] = r
        files = []
        for d in sorted(docs, key=lambda x: int(x[3:]))[:8]:
            units = "".join(f'<trans-unit id="{k}"><source>{escape(v["source"])}</source>'
                            f'<target>{escape(v["target"] or "")}</target></trans-unit>'
                            for k, v in sorted(docs[d].items()))
            files.append(f'<file original={quoteattr(d)} datatype="plaintext" source-language="en" '
                         f'target-language="fr"><body>{units}</body></file>')
        p = tmp_path / f"{name}.xlf"
        p.write_text('<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2" '
                     'xmlns="urn:oasis:names:tc:xliff:document:1.2">' + "".join(files) + "</xliff>",
                     encoding="utf-8")
        paths.append(str(p))
    gl = corpus / "eval/tico19-enfr/data/terminologies/g_en_fr-FR.csv"
    data = cmp.compare(paths, [str(gl)], Settings(lemmatiser="lookup")).to_dict()
    assert [s["name"] for s in data["systems"]] == names and len(data["documents"]) == 8
    assert all(s["occurrences"] == data["systems"][0]["occurrences"] > 0 for s in data["systems"])
    for c in data["concepts"]:
        for f in c["forms"]:
            assert len({(r["text"], r["provenance"]) for r in f["references"].values()}) <= 1
    assert len(data["pairwise"]) == 3 and all(p["method"] == "exact" for p in data["pairwise"])
    assert {r["rank"] for r in data["ranking"]} <= {1, 2, 3}


def test_registered_in_the_termqa_command():
    from termqa.cli.main import main

    r = CliRunner().invoke(main, ["compare", "--help"])
    assert r.exit_code == 0 and "one TMX with several target" in r.output


def test_variant_level_is_shared_by_every_system_and_signed(tmp_path):
    a = write_xliff(tmp_path / "a.xlf", [("Check the pump.", "Vérifiez la pompe."), ("Drain it.", "Videz-la.")])
    b = write_xliff(tmp_path / "b.xlf", [("Check the pump.", "Contrôlez la pompe."), ("Drain it.", "Vidangez.")])
    g = write_csv(tmp_path / "g.csv", ["id", "en", "fr"], [["c1", "pump", "pompe"]])
    default = cmp.compare([a, b], [g], Settings(lemmatiser="lookup")).to_dict()
    none = cmp.compare([a, b], [g], Settings(lemmatiser="lookup", variants="none")).to_dict()
    assert "|var:dynamic|" in default["signature"]["string"]
    assert "var:" not in none["signature"]["string"]
    assert all("var:" not in s["signature"] for s in none["systems"])
    r = invoke(a, b, "-g", g, "--lemmatiser", "lookup", "--variants", "static", "--json", str(tmp_path / "c.json"))
    assert r.exit_code == 0, r.output
    assert "|var:static|" in json.loads((tmp_path / "c.json").read_text())["signature"]["string"]
