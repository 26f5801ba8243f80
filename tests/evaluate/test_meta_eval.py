"""meta-eval statistics on hand-computed matrices, the table/result plumbing, and one small end-to-end run
on bio-MQM (3 systems x 5 documents, TICO-19 glossary) when the corpus is present."""
from __future__ import annotations

import json
import math

import pytest

np = pytest.importorskip("numpy")

from termqa.evaluate import agreement as ag  # noqa: E402
from termqa.evaluate import meta_eval as me  # noqa: E402
from termqa.errors import InputError, UsageError  # noqa: E402
from termqa.formats import biomqm  # noqa: E402
from termqa.formats.biomqm import Annotation, BioSegment, MQMError  # noqa: E402

NAN = float("nan")


# --- permutation p-values -------------------------------------------------------------------------

def test_sign_vectors_are_exhaustive_for_few_items():
    s = ag.sign_vectors(3, k=1000)
    assert s.shape == (8, 3)
    assert len({tuple(r) for r in s}) == 8
    r = ag.sign_vectors(12, k=100, seed=5)
    assert r.shape == (100, 12) and set(np.unique(r)) == {-1.0, 1.0}
    assert np.array_equal(r, ag.sign_vectors(12, k=100, seed=5))


def test_pairwise_p_values_by_hand():
    # differences [1, 2, 3]: the 8 sums of +-1 +-2 +-3 are 6, 4, 2, 0, 0, -2, -4, -6 -> only 6 >= 6
    p = ag.pairwise_p_values([[3, 2, 3], [2, 0, 0]], k=1000)
    assert p[0, 1] == pytest.approx(1 / 8)
    assert math.isnan(p[1, 0]) and math.isnan(p[0, 0])
    # the other direction: every sum >= -6
    assert ag.pairwise_p_values([[2, 0, 0], [3, 2, 3]])[0, 1] == 1.0
    # a zero difference doubles every sum: [1, 0, 2] -> 3 is reached by 2 of 8 sign vectors
    assert ag.pairwise_p_values([[1, 0, 2], [0, 0, 0]])[0, 1] == pytest.approx(2 / 8)
    # equal systems: no evidence either way, p = 1 (every sum >= 0)
    assert ag.pairwise_p_values([[1, 1], [1, 1]])[0, 1] == 1.0


def test_pairwise_p_values_skip_missing_items():
    # item 3 is missing for system 1: the pair is tested on items 1-2 only (d = [1, 2] -> 1/4)
    p = ag.pairwise_p_values([[1, 2, NAN], [0, 0, 5]])
    assert p[0, 1] == pytest.approx(1 / 4)


# --- SPA ------------------------------------------------------------------------------------------

H3 = [[1, 2, 3], [0, 2, 1], [0, 0, 0]]


def test_spa_is_one_when_metric_agrees_with_humans():
    assert ag.spa(H3, H3).value == 1.0
    # a positive affine map leaves every p-value unchanged
    assert ag.spa(H3, np.array(H3) * 2.5 + 7).value == 1.0
    rng = np.random.default_rng(3)
    h = rng.normal(size=(6, 40))
    h[2, 5] = NAN
    s = ag.spa(h, h * 0.1 - 3, k=300, seed=9)
    assert s.value == pytest.approx(1.0) and s.pairs == 15


def test_spa_by_hand_for_a_reversed_metric():
    # humans: p(0>1) = 2/8, p(0>2) = 1/8, p(1>2) = 2/8; the reversed metric has p = 1 for each pair
    s = ag.spa(H3, -np.array(H3, dtype=float))
    assert s.human_p[0, 1] == pytest.approx(0.25) and s.human_p[0, 2] == pytest.approx(0.125)
    assert s.metric_p[0, 1] == 1.0
    assert s.value == pytest.approx(1 - (0.75 + 0.875 + 0.75) / 3)  # 5/24
    assert s.as_dict(["a", "b", "c"])["pairs_detail"][0] == {"a": "a", "b": "b", "p_human": 0.25, "p_metric": 1.0}


def test_spa_uses_items_where_both_scores_exist():
    h = [[1, 2, 3], [0, 0, 0]]
    m = [[1, 2, NAN], [0, 0, 0]]
    s = ag.spa(h, m)
    # both tested on items 1-2: d = [1, 2] -> p = 1/4 for both, SPA 1
    assert s.human_p[0, 1] == pytest.approx(0.25) and s.value == 1.0


def test_spa_refuses_different_shapes():
    with pytest.raises(UsageError):
        ag.spa([[1, 2]], [[1, 2, 3]])


# --- acc*_eq --------------------------------------------------------------------------------------

def test_acc_eq_by_hand():
    h = np.array(H3, dtype=float)
    a = ag.acc_eq(h, h)
    assert a.value == pytest.approx(1.0) and a.epsilon == 0.0 and a.items == 3 and a.pairs == 9
    # reversed: item 1 keeps only its human tie (1/3), item 2 too (1/3), item 3 nothing -> 2/9
    assert ag.acc_eq(h, -h).value == pytest.approx(2 / 9)


def test_tie_calibration_picks_the_best_epsilon():
    h = [[0], [0], [1]]
    m = [[0.1], [0.0], [0.5]]
    # epsilon 0: the human tie (0,1) is missed -> 2/3; epsilon 0.1 gets it -> 1; 0.4 loses (0,2)
    assert ag.acc_eq(h, m, epsilon=0.0).value == pytest.approx(2 / 3)
    assert ag.acc_eq(h, m, epsilon=0.4).value == pytest.approx(2 / 3)
    best = ag.acc_eq(h, m)
    assert best.value == pytest.approx(1.0) and best.epsilon == pytest.approx(0.1)


def test_acc_eq_averages_over_items_not_pairs():
    # item 1: three systems, all ordered right (1.0); item 2: two usable systems, ordered wrong (0.0)
    h = [[3, 1], [2, 0], [1, NAN]]
    m = [[3, 0], [2, 1], [1, 9]]
    a = ag.acc_eq(h, m, epsilon=0.0)
    assert a.value == pytest.approx(0.5) and a.items == 2 and a.pairs == 4


def test_acc_eq_without_pairs():
    assert ag.acc_eq([[1, NAN]], [[1, 2]]).value is None


def test_compare_finds_the_better_metric():
    rng = np.random.default_rng(0)
    h = rng.normal(size=(4, 30))
    good, bad = h + rng.normal(scale=0.1, size=h.shape), rng.normal(size=h.shape)
    r = ag.compare(lambda a, b: ag.acc_eq(a, b).value, h, good, bad, k=100)
    assert r["p"] < 0.05 and r["delta"] > 0.3
    same = ag.compare(lambda a, b: ag.acc_eq(a, b).value, h, good, good, k=20)
    assert same == {"p": 1.0, "delta": 0.0}


# --- human scores ---------------------------------------------------------------------------------

def _seg():
    e = [MQMError(0, 9, "Terminology", "Wrong_term", "major", "Evolution"),
         MQMError(10, 12, "Style", "Non_fluent", "minor", "de")]
    return BioSegment("doc1", "1", "src", "Evolution de la prise",
                      (Annotation("A", tuple(e)), Annotation("B", (MQMError(3, 5, "Accuracy", "", "critical", "lu"),)),
                       Annotation("C", ())))


def test_span_penalty_averages_over_annotators():
    s = _seg()
    # [0, 12) overlaps A's major (5) and minor (1), B's critical (25), C nothing: (6 + 25 + 0) / 3
    assert me.span_penalty(s, 0, 12) == pytest.approx(31 / 3)
    assert me.span_penalty(s, 9, 10) == 0.0  # touches no error (ends are exclusive)
    assert me.span_penalty(s, 0, 12, me.category_filter("terminology")) == pytest.approx(5 / 3)
    assert me.span_penalty(s, 0, 12, me.category_filter("Style, accuracy")) == pytest.approx(26 / 3)


def test_mqm_weightings():
    s = _seg()
    wmt = biomqm.weighting("wmt")
    # WMT: Major 5 + Minor 1, and the Critical of annotator B counts as Major: (5 + 1 + 5) / 3
    assert me.span_penalty(s, 0, 12, weights=wmt) == pytest.approx(11 / 3)
    assert me.span_penalty(s, 0, 12, weights=biomqm.weighting("severity-25-5-1")) == pytest.approx(31 / 3)
    punct = MQMError(0, 1, "Linguistic_conventions", "Punctuation", "minor", ",")
    assert wmt.weight(punct) == 0.1 and punct.weight == 1.0
    assert wmt.weight(MQMError(0, 1, "Linguistic_conventions", "Punctuation", "major", ",")) == 5.0
    assert wmt.weight(MQMError(0, 1, "Linguistic_conventions", "Spelling", "minor", "x")) == 1.0
    assert wmt.weight(MQMError(0, 1, "Other", "", "neutral", "x")) == 0.0
    with pytest.raises(UsageError, match="unknown MQM weighting 'mqm'"):
        biomqm.weighting("mqm")
    assert me.category_filter("all") is None


def test_read_human_table(tmp_path):
    t = tmp_path / "h.tsv"
    t.write_text("system\tdoc\tsegment\tscore\nA\td1\t1\t-2\nA\td1\t2\t0.5\n", encoding="utf-8")
    assert me.read_human_table(t) == {("A", "d1", "1"): -2.0, ("A", "d1", "2"): 0.5}
    j = tmp_path / "h.json"
    j.write_text(json.dumps([{"system": "B", "doc": "d", "segment": 3, "penalty": 4}]), encoding="utf-8")
    assert me.read_human_table(j) == {("B", "d", "3"): -4.0}
    bad = tmp_path / "bad.csv"
    bad.write_text("system,doc,score\nA,d,1\n", encoding="utf-8")
    with pytest.raises(InputError, match="needs columns"):
        me.read_human_table(bad)


# --- results -> tables ----------------------------------------------------------------------------

def _occ(doc, unit, cid, sf, target, span, outcome, penalty, align="glossary", label=None, chain=1):
    return {"doc_id": doc, "unit_id": unit, "segment_id": "", "concept_id": cid, "source_form": sf,
            "source_text": sf, "target_text": target, "target_span": span, "outcome": outcome, "label": label,
            "penalty": penalty, "align_method": align, "chain_size": chain, "judge": "rule",
            "reference": None}


def _result(occ, docs=("d1",)):
    return {
        "termqa_result": 1, "signature": {"string": "sig"},
        "documents": [{"doc_id": d, "tgt_lang": "fr", "src_lang": "en"} for d in docs],
        "concepts": [{"id": "c1", "dnt": False, "terms": [{"text": "pompe", "lang": "fr", "status": "preferred"}]},
                     {"id": "c2", "dnt": False, "terms": [{"text": "seal", "lang": "en", "status": "preferred"}]}],
        "segments": [], "occurrences": occ,
        "metrics": {"documents": {d: {"em": {"value": 0.5}} for d in docs}},
    }


def test_item_hits_mirror_the_counting_metrics():
    occ = [_occ("d1", "1", "c1", "pump", "pompe", [0, 5], "conforming", 0.0),
           _occ("d1", "2", "c1", "pump", "pompes", [0, 6], "unjudged", None, align="established"),
           _occ("d1", "3", "c1", "pump", "Pompe", [0, 5], "conforming", 0.0),
           _occ("d1", "1", "c2", "seal", "joint", [6, 11], "conforming", 0.0, align="established"),
           _occ("d1", "2", "c2", "seal", "joint", [7, 12], "conforming", 0.0, align="established")]
    h = me.item_hits(_result(occ))
    assert h[0] == {"em": True, "conformity_first": True, "conformity_majority": True, "tcr_pr": True, "tcr_em": True}
    assert h[1]["em"] is False and h[1]["tcr_pr"] is False and h[1]["tcr_t"] is False
    assert h[2]["tcr_pr"] is True and h[2]["tcr_t"] is False  # case-folded "pompe" vs previous "pompes"
    # c2 has no French term: no em, conformity against the chain's own first/majority rendering
    assert "em" not in h[3] and h[3]["conformity_first"] is True and h[4]["tcr_t"] is True


def test_tables_from_results_and_a_human_table():
    a = _result([_occ("d1", "1", "c1", "pump", "pompe", [0, 5], "conforming", 0.0),
                 _occ("d1", "2", "c1", "pump", "pompa", [0, 5], "error", 1.0, label="A1")])
    b = _result([_occ("d1", "1", "c1", "pump", "pompe", [0, 5], "error", 4.0, label="A4"),
                 _occ("d1", "2", "c1", "pump", "pompe", [0, 5], "conforming", 0.0)])
    runs = [me.Run("A", a, {"d1": "d1"}), me.Run("B", b, {"d1": "d1"})]
    human = {("A", "d1", "1"): 0.0, ("A", "d1", "2"): -1.0, ("B", "d1", "1"): -5.0, ("B", "d1", "2"): 0.0}
    t, warnings = me.build_tables(runs, human_table=human, metrics=["termqa", "em"])
    assert warnings == []
    assert t.segments["termqa"]["A"] == {("d1", "1"): -0.0, ("d1", "2"): -1.0}
    assert t.documents["termqa"]["B"] == {"d1": -2.0}
    assert t.documents["human"]["A"] == {"d1": -0.5}
    assert t.documents["em"]["A"] == {"d1": 0.5}
    rep = me.evaluate(t, k=100)
    # the metric orders both segments exactly as the humans do
    assert rep["metrics"]["termqa"]["acc_eq_segment"]["value"] == 1.0
    assert rep["metrics"]["termqa"]["system_scores"] == {"A": -0.5, "B": -2.0}
    assert rep["human_system_scores"] == {"A": -0.5, "B": -2.5}
    assert rep["exact_test"] is True and rep["permutations"] == 2


def test_unknown_metric_is_refused():
    with pytest.raises(UsageError, match="unknown metrics"):
        me.build_tables([], human_table={("A", "d", "1"): 0.0}, metrics=["bleu"])


def test_doc_keys_read_the_xliff_originals(tmp_path):
    x = tmp_path / "sys.xlf"
    x.write_text('<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
                 '<file original="doc7" source-language="en" target-language="fr" datatype="plaintext"><body/></file>'
                 '<file original="doc9" source-language="en" target-language="fr" datatype="plaintext"><body/></file>'
                 '</xliff>', encoding="utf-8")
    res = {"documents": [{"doc_id": "elsewhere/sys.xlf#2"}, {"doc_id": "x.xlf#1", "original": "docA"},
                         {"doc_id": "missing.xlf#1"}]}
    assert me.doc_keys(res, [tmp_path]) == {"elsewhere/sys.xlf#2": "doc9", "x.xlf#1": "docA",
                                             "missing.xlf#1": "missing.xlf#1"}


def test_load_runs_needs_two_named_results(tmp_path):
    (tmp_path / "A.json").write_text(json.dumps(_result([])), encoding="utf-8")
    with pytest.raises(UsageError, match="at least two"):
        me.load_runs([str(tmp_path)])
    (tmp_path / "B.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match="not a termqa result"):
        me.load_runs([str(tmp_path)])


def test_cli_with_a_human_table(tmp_path):
    from click.testing import CliRunner

    from termqa.cli.evaluate import meta_eval_cmd

    occ_a = [_occ("d1", "1", "c1", "pump", "pompe", [0, 5], "conforming", 0.0),
             _occ("d2", "1", "c1", "pump", "pompa", [0, 5], "error", 1.0, label="A1")]
    occ_b = [_occ("d1", "1", "c1", "pump", "pompa", [0, 5], "error", 1.0, label="A1"),
             _occ("d2", "1", "c1", "pump", "pompe", [0, 5], "conforming", 0.0)]
    (tmp_path / "A.json").write_text(json.dumps(_result(occ_a, ("d1", "d2"))), encoding="utf-8")
    (tmp_path / "B.json").write_text(json.dumps(_result(occ_b, ("d1", "d2"))), encoding="utf-8")
    h = tmp_path / "human.tsv"
    h.write_text("system\tdoc\tsegment\tpenalty\nA\td1\t1\t0\nA\td2\t1\t5\nB\td1\t1\t1\nB\td2\t1\t0\n",
                 encoding="utf-8")
    out = tmp_path / "meta.json"
    r = CliRunner().invoke(meta_eval_cmd, [str(tmp_path / "A.json"), str(tmp_path / "B.json"), "--human", str(h),
                                           "--metrics", "termqa,em", "--json", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["systems"] == ["A", "B"] and data["documents"] == 2 and data["segments"] == 2
    assert data["metrics"]["termqa"]["acc_eq_document"]["value"] == 1.0
    assert data["metrics"]["termqa"]["spa"]["value"] == 1.0
    assert "termqa" in r.output and "SPA" in r.output
    # no results with a table: refused
    r = CliRunner().invoke(meta_eval_cmd, ["--human", str(h)])
    assert isinstance(r.exception, UsageError)


# --- end to end on bio-MQM ------------------------------------------------------------------------

def test_biomqm_protocol_end_to_end(corpus, tmp_path):
    from click.testing import CliRunner

    from termqa.cli.evaluate import meta_eval_cmd

    bio = corpus / "eval" / "bio-mqm"
    terms = corpus / "eval" / "tico19-enfr" / "data" / "terminologies"
    if not bio.is_dir() or not terms.is_dir():
        pytest.skip("bio-MQM or TICO-19 not in the corpus")
    out = tmp_path / "meta.json"
    r = CliRunner().invoke(meta_eval_cmd, [
        "--human", str(bio), "-g", str(terms / "f_en-fr_XX.csv"), "-g", str(terms / "g_en_fr-FR.csv"),
        "--systems", "LISN_run1,TMT_run1,reference", "--docs", "5", "--lemmatiser", "lookup",
        "--work-dir", str(tmp_path / "work"), "--permutations", "200", "--json", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["systems"] == ["LISN_run1", "TMT_run1", "reference"]
    assert data["human"]["mqm_weights"]["name"] == "severity-25-5-1"
    assert data["human"]["mqm_weights"]["severities"] == {"critical": 25.0, "major": 5.0, "minor": 1.0, "neutral": 0.0}
    spans = data["human"]["error_spans"]
    assert set(spans["systems"]) == {"LISN_run1", "TMT_run1", "reference"}
    assert spans["total"]["total"] == sum(v["total"] for v in spans["systems"].values())
    t = spans["total"]
    assert t["as_given"] + t["relocated_in_segment"] + t["moved_to_neighbour"] + t["dropped"] == t["total"] > 0
    assert "moved to a neighbouring segment" in r.output and "MQM weights: severity-25-5-1" in r.output
    assert 1 <= data["documents"] <= 5 and data["segments"] >= data["documents"]
    assert set(data["metrics"]) == set(me.ALL_METRICS)
    assert data["warnings"] == []
    spa = data["metrics"]["termqa"]["spa"]
    assert spa["pairs"] == 3 and 0.0 <= spa["value"] <= 1.0
    # the per-system results are kept, carry the dataset's doc ids, and re-run from the files
    saved = sorted(p.name for p in (tmp_path / "work" / "results").glob("*.json"))
    assert saved == ["LISN_run1.json", "TMT_run1.json", "reference.json"]
    first = json.loads((tmp_path / "work" / "results" / "TMT_run1.json").read_text(encoding="utf-8"))
    assert [d["original"] for d in first["documents"]] == ["doc2", "doc7", "doc9", "doc12", "doc13"]
    out2 = tmp_path / "meta2.json"
    r = CliRunner().invoke(meta_eval_cmd, [str(tmp_path / "work" / "results"), "--human", str(bio),
                                           "--permutations", "200", "--json", str(out2)])
    assert r.exit_code == 0, r.output
    again = json.loads(out2.read_text(encoding="utf-8"))
    assert again["metrics"] == data["metrics"]
    # the WMT weighting is recorded in the report
    out3 = tmp_path / "meta3.json"
    r = CliRunner().invoke(meta_eval_cmd, [str(tmp_path / "work" / "results"), "--human", str(bio),
                                           "--permutations", "200", "--mqm-weights", "wmt", "--json", str(out3)])
    assert r.exit_code == 0, r.output
    wmt = json.loads(out3.read_text(encoding="utf-8"))
    assert wmt["human"]["mqm_weights"]["name"] == "wmt" and wmt["human"]["mqm_weights"]["minor_punctuation"] == 0.1
    r = CliRunner().invoke(meta_eval_cmd, [str(tmp_path / "work" / "results"), "--human", str(bio),
                                           "--mqm-weights", "mqm"])
    assert r.exit_code == 2 and "mqm-weights" in r.output
