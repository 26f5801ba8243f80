"""The index cache (termqa.store.indexcache) and worker processes (--jobs): same results, whatever is cached.

Stages: glossary reading and the source index go through the cache; counting goes through workers.
Each test uses its own cache folder, so what another test left there never matters.
"""
from __future__ import annotations

import copy
import gc
import json
import multiprocessing
import shutil
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.pipeline.detection import Detection
from termqa.store import indexcache
from termqa.cli.main import main
from termqa.lang.lemma import get_lemmatiser
from termqa.model import Glossary, terms_fingerprint
from termqa.pipeline import align as al
from termqa.pipeline import check as ck
from termqa.pipeline import occurrences as occ
from termqa.pipeline.sourceindex import cached_source_index, source_index
from termqa.store import parallel
from termqa.pipeline.check import check
from termqa.pipeline.read import read_glossary_cached

from tests.conftest import SAMPLES
from tests.helpers import run_cli_saying_spacy

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import generate as gen  # noqa: E402


def _files(folder: Path, kind: str) -> list[Path]:
    return sorted(folder.glob(f"{kind}-*.pickle"))


def _result(inputs, glossary, **kw) -> str:
    """The whole JSON result as one string (it holds no timing)."""
    return json.dumps(check(inputs, [glossary], Settings(**kw)).to_dict(), sort_keys=True, ensure_ascii=False)


@pytest.fixture
def samples(tmp_path) -> Path:
    out = tmp_path / "samples"
    shutil.copytree(SAMPLES, out)
    return out


def test_warm_run_gives_the_cold_result_and_no_cache_the_same(samples, tmp_path):
    folder = tmp_path / "cache"
    gl = samples / "pump-terms.tbx"
    none = _result([samples], gl, index_cache=False)
    assert not folder.exists()
    cold = _result([samples], gl, index_cache=folder)
    assert _files(folder, "glossary") and _files(folder, "source-index")
    warm = _result([samples], gl, index_cache=folder)
    assert none == cold == warm


def test_glossary_bytes_change_is_a_new_key(samples, tmp_path):
    folder = tmp_path / "cache"
    gl = samples / "pump-terms.tbx"
    with indexcache.using(indexcache.IndexCache(folder)):
        first = read_glossary_cached(gl)
        text = gl.read_text(encoding="utf-8")
        pref = first.concepts[0].terms[0].text
        gl.write_text(text.replace(f">{pref}<", f">{pref}x<", 1), encoding="utf-8")
        second = read_glossary_cached(gl)
    assert second.content_hash != first.content_hash
    assert second.concepts[0].terms[0].text == pref + "x"
    # the terms' fingerprint (the source index's key) is kept with the glossary, and follows its terms
    with indexcache.using(indexcache.IndexCache(folder)):
        again = read_glossary_cached(gl)
    assert "terms_fingerprint" in vars(again)  # read back, not recomputed
    assert again.terms_fingerprint == terms_fingerprint(again.concepts) != first.terms_fingerprint
    assert len(_files(folder, "glossary")) == 2
    # and the run against the edited file finds the edited term
    res = check([samples], [gl], Settings(index_cache=folder))
    assert any(t.text == pref + "x" for c in res.concepts.values() for t in c.terms)


def test_target_forms_are_kept_and_an_edited_target_term_is_derived_again(samples, tmp_path):
    """The target forms of the concepts found (static variants included) are read back on the next run,
    with the same result; a target term edited in the glossary is a new row, never a stale one."""
    folder = tmp_path / "cache"
    gl = samples / "pump-terms.tbx"
    cold = _result([samples], gl, index_cache=folder, variants="dynamic")
    (table,) = folder.glob("target-forms-*.sqlite")
    concepts = read_glossary_cached(gl).concepts
    with indexcache.using(indexcache.IndexCache(folder)):
        store = al.StoredForms("fr", get_lemmatiser("fr", mode="auto"), Detection("dynamic"))
    kept = store.fetch([(c, "") for c in concepts])
    assert kept, "no forms kept after a run"
    for c in concepts:
        if c.id in {cid for cid, _r in kept}:
            assert kept[(c.id, "")] == al.target_forms(c, "fr", get_lemmatiser("fr", mode="auto"), Detection("dynamic"))
    assert _result([samples], gl, index_cache=folder, variants="dynamic") == cold
    # an edited French term: its row is another, so the run derives (and finds) the new term
    text = gl.read_text(encoding="utf-8")
    fr_term = next(t.text for c in concepts if (c.id, "") in kept for t in c.terms_in("fr"))
    gl.write_text(text.replace(f">{fr_term}<", f">{fr_term}e<", 1), encoding="utf-8")
    res = check([samples], [gl], Settings(index_cache=folder, variants="dynamic"))
    fresh = check([samples], [gl], Settings(index_cache=False, variants="dynamic"))
    assert json.dumps(res.to_dict(), sort_keys=True) == json.dumps(fresh.to_dict(), sort_keys=True)
    assert table.exists()


def _index_files_after(concepts, lemmatiser, folder) -> list[Path]:
    with indexcache.using(indexcache.IndexCache(folder)):
        cached_source_index(concepts, "en", lemmatiser, "x", Detection("dynamic"))
    return _files(folder, "source-index")


def test_source_index_key_holds_lemmatiser_terms_and_version(samples, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    with indexcache.using(indexcache.IndexCache(None)):
        concepts = read_glossary_cached(samples / "pump-terms.tbx").concepts
    lem = get_lemmatiser("en", mode="lookup")
    assert len(_index_files_after(concepts, lem, folder)) == 1
    assert len(_index_files_after(concepts, lem, folder)) == 1  # unchanged: the same file
    other = copy.copy(lem)
    other.name = lem.name + " (another table version)"
    assert len(_index_files_after(concepts, other, folder)) == 2
    edited = list(concepts)
    t0 = edited[0].terms[0]
    edited[0] = type(edited[0])(**{**edited[0].__dict__, "terms": (type(t0)(**{**t0.__dict__, "status": "deprecated"}),
                                                                     *edited[0].terms[1:])})
    assert len(_index_files_after(edited, lem, folder)) == 3
    monkeypatch.setattr(indexcache, "__version__", "99.0")
    assert len(_index_files_after(concepts, lem, folder)) == 4


def test_a_cache_of_another_format_is_not_read(tmp_path, monkeypatch):
    cache = indexcache.IndexCache(tmp_path)
    cache.store("k", {"a": 1})
    assert cache.load("k") == {"a": 1}
    monkeypatch.setattr(indexcache, "FORMAT", indexcache.FORMAT + 1)
    assert cache.load("k") is None


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty", "bad pickle"])
def test_corrupt_files_are_rebuilt(samples, tmp_path, damage):
    folder = tmp_path / "cache"
    gl = samples / "pump-terms.tbx"
    good = _result([samples], gl, index_cache=folder)
    files = list(folder.glob("*.pickle"))
    assert files
    for f in files:
        data = f.read_bytes()
        if damage == "garbage":
            f.write_bytes(b"\x80\x05not a cache file at all")
        elif damage == "truncated":
            f.write_bytes(data[: len(data) // 2])
        elif damage == "flipped":
            f.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
        elif damage == "empty":
            f.write_bytes(b"")
        else:  # right header, payload that cannot be unpickled: still refused, never trusted
            import hashlib

            payload = b"\x80\x05\x95garbage"
            f.write_bytes(indexcache.MAGIC + f"{indexcache.FORMAT} {hashlib.sha256(payload).hexdigest()}\n".encode()
                          + payload)
    assert _result([samples], gl, index_cache=folder) == good
    cache = indexcache.IndexCache(folder)
    # every damaged file this process reads again was overwritten with a valid one: the glossary and
    # source index (tables, lexicons and tokenizer rules stay in memory once a process has loaded
    # them, so whether a run here reads their files depends on the tests before: see the next test)
    read_again = [f for f in files if f.name.startswith(("glossary-", "source-index-"))]
    assert read_again
    for f in read_again:
        assert cache.load(f.stem) is not None, f.name


def test_truncated_files_of_every_kind_are_rebuilt_by_a_fresh_process(samples, tmp_path):
    """Every cache file cut short, then a run in a fresh process (which reads every file it needs,
    lemma tables, lexicons, part-of-speech keys and tokenizer rules included): the same result, and
    each file written again, so the next run need not import spaCy."""
    folder = tmp_path / "cache"
    args = ["check", str(samples), "-g", str(samples / "pump-terms.tbx"), "-q", "--json"]
    first = _run_cli(args + [str(tmp_path / "good.json")], folder)
    assert first.returncode in (0, 1), first.stderr
    files = sorted(folder.glob("*.pickle"))
    assert {f.name.split("-")[0] for f in files} >= {"glossary", "source", "lemma", "pos", "chunk", "blank"}
    for f in files:
        data = f.read_bytes()
        f.write_bytes(data[: max(1, len(data) - 100)])
    for f in folder.glob("*.sqlite"):  # the analyses and target forms too, so the run needs every file
        f.unlink()
    again = _run_cli(args + [str(tmp_path / "again.json")], folder)
    assert again.returncode == first.returncode, again.stderr
    good, got = (json.loads((tmp_path / f"{n}.json").read_text(encoding="utf-8")) for n in ("good", "again"))
    assert got == good
    cache = indexcache.IndexCache(folder)
    for f in files:
        assert cache.load(f.stem) is not None, f.name


def _writer(folder: str, key: str, n: int, rounds: int) -> None:
    cache = indexcache.IndexCache(Path(folder))
    value = {"writer": n, "payload": list(range(200_000))}
    for _ in range(rounds):
        cache.store(key, value)


def test_concurrent_writers_and_readers_never_see_half_a_file(tmp_path):
    ctx = multiprocessing.get_context("spawn" if not parallel.can_fork() else "fork")
    writers = [ctx.Process(target=_writer, args=(str(tmp_path), "same", n, 15)) for n in range(3)]
    for w in writers:
        w.start()
    cache = indexcache.IndexCache(tmp_path)
    seen = 0
    while any(w.is_alive() for w in writers):
        v = cache.load("same")
        if v is not None:
            assert v["payload"][-1] == 199_999 and v["writer"] in (0, 1, 2)
            seen += 1
    for w in writers:
        w.join()
        assert w.exitcode == 0
    assert cache.load("same")["writer"] in (0, 1, 2)
    assert not list(tmp_path.glob("*.termqa-tmp"))  # no temporary file left behind
    assert seen > 0  # readers did read while the writers wrote


def test_unwritable_folder_means_no_cache_not_an_error(samples, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = _result([samples], samples / "pump-terms.tbx", index_cache=blocker / "cache")
    assert res == _result([samples], samples / "pump-terms.tbx", index_cache=False)


# --- worker processes -------------------------------------------------------------------------------

@pytest.mark.skipif(not parallel.can_fork(), reason="worker processes need fork")
def test_jobs_give_the_same_result_on_samples(samples, tmp_path, monkeypatch):
    gl = samples / "pump-terms.tbx"
    calls = []
    real = parallel.run_documents
    monkeypatch.setattr(parallel, "run_documents", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    one = _result([samples], gl, jobs=1, index_cache=tmp_path / "c")
    two = _result([samples], gl, jobs=2, index_cache=tmp_path / "c")
    assert calls == [2]  # the second run did count in two worker processes
    assert one == two


@pytest.mark.skipif(not parallel.can_fork(), reason="worker processes need fork")
def test_jobs_give_the_same_result_on_a_many_file_project(tmp_path, monkeypatch):
    project = gen.generate(24_000, 600, tmp_path, seed=3, words_per_file=3_000)
    xliff, gl = project / "xliff", project / "glossary.tbx"
    calls = []
    real = parallel.run_documents
    monkeypatch.setattr(parallel, "run_documents", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    one = _result([xliff], gl, jobs=1, index_cache=False)
    assert calls == []
    three = _result([xliff], gl, jobs=3, index_cache=False)
    assert calls == [3]
    assert one == three


@pytest.mark.skipif(not parallel.can_fork(), reason="worker processes need fork")
def test_jobs_flag_the_same_misaligned_segments(tmp_path):
    """Workers look for misaligned segments in their own documents: the warning, its examples and the
    reasons of the occurrences in those segments are those of one process."""
    import re

    project = gen.generate(6_000, 200, tmp_path, seed=4, words_per_file=2_000)
    xliff, gl = project / "xliff", project / "glossary.tbx"
    for k, f in enumerate(sorted(xliff.glob("*.xlf"))):
        text = f.read_text(encoding="utf-8")
        # in every file, each 7th target becomes a fourfold copy of itself (far too long for its source)
        units = iter(range(10**6))
        text = re.sub(r"(<target[^>]*>)([^<]{40,})(</target>)",
                      lambda m: m.group(1) + (" ".join([m.group(2)] * 4) if next(units) % 7 == k else m.group(2))
                      + m.group(3), text)
        f.write_text(text, encoding="utf-8")
    one = check([xliff], [gl], Settings(jobs=1, index_cache=False))
    two = check([xliff], [gl], Settings(jobs=2, index_cache=False))
    flagged = [w for w in one.warnings if "misaligned" in w]
    assert flagged and flagged == [w for w in two.warnings if "misaligned" in w]
    assert json.dumps(one.to_dict(), sort_keys=True) == json.dumps(two.to_dict(), sort_keys=True)


def test_plan_jobs_keeps_small_projects_in_one_process(samples, monkeypatch):
    docs = [d for f in check([samples], [samples / "pump-terms.tbx"],
                             Settings(index_cache=False)).files for d in f.documents]
    assert parallel.plan_jobs(None, docs) == 1  # default: too small to gain
    assert parallel.plan_jobs(8, docs) == min(8, len(docs))  # asked: honoured, bounded by documents
    assert parallel.plan_jobs(4, docs[:1]) == 1
    # the default goes parallel from PARALLEL_MIN_WORDS source words on, counted until reached
    words = sum(len(s.source.split()) for d in docs for s in d.segments)
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    monkeypatch.setattr(parallel, "can_fork", lambda: True)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_WORDS", words)
    assert parallel.plan_jobs(None, docs) == 2
    monkeypatch.setattr(parallel, "PARALLEL_MIN_WORDS", words + 1)
    assert parallel.plan_jobs(None, docs) == 1


# --- command line -----------------------------------------------------------------------------------

def test_cli_no_index_cache_writes_nothing_and_cache_clear_empties(samples, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TERMQA_CACHE_DIR", str(folder))
    base = ["check", str(samples), "--glossary", str(samples / "pump-terms.tbx"), "-q"]
    r = CliRunner().invoke(main, base + ["--no-index-cache", "--jobs", "2"])
    assert r.exit_code == 0, r.output
    assert not folder.exists()
    r = CliRunner().invoke(main, base)
    assert r.exit_code == 0, r.output
    n = len([p for p in folder.iterdir() if p.is_file()])  # pickles, analyses tables, tokenizer rules
    assert n > 0 and list(folder.glob("*.pickle"))
    r = CliRunner().invoke(main, ["cache", "path"])
    assert r.output.strip() == str(folder)
    r = CliRunner().invoke(main, ["cache", "clear"])
    assert r.exit_code == 0 and f"removed {n} file" in r.output
    assert not folder.exists()


def test_glossary_record_is_not_cached_twice(samples, tmp_path):
    with indexcache.using(indexcache.IndexCache(tmp_path)):
        g = read_glossary_cached(samples / "pump-terms.tbx")
        h = read_glossary_cached(samples / "pump-terms.tbx")
    assert isinstance(h, Glossary) and g == h
    assert len(_files(tmp_path, "glossary")) == 1


# --- big documents: detection in chunks -------------------------------------------------------------

def test_detection_in_chunks_gives_the_same_result(samples, tmp_path, monkeypatch):
    project = gen.generate(12_000, 400, tmp_path, seed=5, words_per_file=12_000)
    for inputs, gl in (([samples], samples / "pump-terms.tbx"), ([project / "xliff"], project / "glossary.tbx")):
        whole = _result(inputs, gl, index_cache=False)
        monkeypatch.setattr(occ, "BIG_DOCUMENT", 7)
        monkeypatch.setattr(occ, "DETECT_CHUNK", 7)
        chunked = _result(inputs, gl, index_cache=False)
        monkeypatch.undo()
        assert chunked == whole


def test_detection_in_chunks_finds_acronyms_defined_anywhere(tmp_path, monkeypatch):
    from tests.helpers import write_csv, write_xliff

    pairs = [("Filler sentence number %d without terms." % i, "Phrase de remplissage %d." % i) for i in range(30)]
    pairs[3] = ("Check the variable frequency drive (VFD) first.", "Vérifiez d'abord le variateur de fréquence (VFD).")
    pairs[25] = ("Then restart the VFD.", "Puis redémarrez le VFD.")
    write_xliff(tmp_path / "a.xlf", pairs)
    write_csv(tmp_path / "g.csv", ["en", "fr"], [["variable frequency drive", "variateur de fréquence"]])
    whole = _result([tmp_path / "a.xlf"], tmp_path / "g.csv", index_cache=False)
    monkeypatch.setattr(occ, "BIG_DOCUMENT", 4)
    monkeypatch.setattr(occ, "DETECT_CHUNK", 4)
    assert _result([tmp_path / "a.xlf"], tmp_path / "g.csv", index_cache=False) == whole
    assert '"source_text": "VFD"' in whole


# --- warm runs without spaCy: analyses, tables and the lexicon from the cache -------------------------

_run_cli = run_cli_saying_spacy


@pytest.mark.parametrize("mode", ["lookup", "auto"])
def test_a_second_run_over_the_same_text_never_imports_spacy(samples, tmp_path, mode):
    """Tokens and lemmas of every text seen before come from the cache (whole texts with a trained
    pipeline, whitespace-delimited chunks with the lookup tables), and so do the tables and the
    lexicon: the rerun neither imports spaCy nor loads a pipeline, and its result is the same."""
    cache = tmp_path / "cache"
    args = ["check", str(samples), "-g", str(samples / "pump-terms.tbx"), "--lemmatiser", mode, "-q"]
    first = _run_cli(args + ["--json", str(tmp_path / "first.json")], cache)
    assert first.returncode in (0, 1), first.stderr
    assert "spacy imported" in first.stderr
    assert sorted(cache.glob("analyses-*.sqlite")) and sorted(cache.glob("lemma-lexicon-*.pickle"))
    second = _run_cli(args + ["--json", str(tmp_path / "second.json")], cache)
    assert second.returncode == first.returncode, second.stderr
    assert "spacy not imported" in second.stderr
    # nor lemminflect: the word classes of the words verb uses were decided on are kept (termqa.lang.verbuse)
    assert '"lemminflect"' in first.stderr and '"lemminflect"' not in second.stderr
    a, b = (json.loads((tmp_path / f"{n}.json").read_text(encoding="utf-8")) for n in ("first", "second"))
    assert a == b


def test_a_new_text_loads_spacy_on_need_and_is_kept(samples, tmp_path):
    """A segment never seen before is analysed by spaCy in that run, then kept: same tokens either way."""
    from termqa.lang import lemma, lookuptables, spacytok

    folder = tmp_path / "cache"
    text = "Remplacez le joint d'étanchéité du corps de pompe avant la mise en service."
    with indexcache.using(indexcache.IndexCache(folder)):
        fresh = lemma.Lemmatiser("fr", "lookup", "test-lookup-fr", None, None,
                                 load_nlp=lambda: spacytok.blank("fr"), load_table=lambda: lookuptables.load_table("fr"))
        toks = fresh.tokenize(text)
        assert fresh._nlp is not None  # built on need
        fresh.save_analyses()
        again = lemma.Lemmatiser("fr", "lookup", "test-lookup-fr", None, None,
                                 load_nlp=lambda: pytest.fail("spaCy asked for a text seen before"),
                                 load_table=lambda: pytest.fail("the table asked for a text seen before"))
        assert again.tokenize(text) == toks
        assert again._nlp is None


@pytest.mark.parametrize("lang", ["fr", "en", "de"])
def test_the_cached_lexicon_answers_like_a_fresh_one(tmp_path, lang):
    """is_target_word, known_form and lemmas_of read the lexicon as sorted text from the cache: the same
    answers as the lexicon built from the tables in this run, on real table words and their variants."""
    import random

    from termqa.lang import lexicon, lookuptables

    table = lookuptables.load_table(lang)
    rng = random.Random(3)
    forms = rng.sample(sorted(table.data), 400) + ["Infecte", "ETATS", "Etats", "côte", "cote", "Mütter",
                                                   "zzqx", "l'eau", "Waren", "GUT", "débit", "debit"]
    words = forms + [f.upper() for f in forms[:50]] + [f.capitalize() for f in forms[50:100]]

    def answers():
        return [(lexicon.is_target_word(w, lang), lexicon.known_form(w, lang), sorted(lexicon.lemmas_of(w, lang)))
                for w in words]

    with indexcache.using(indexcache.IndexCache(tmp_path / "cache")):
        lexicon._LEXICONS.pop(lang, None)
        built = answers()  # built from the table, and stored
        assert sorted((tmp_path / "cache").glob("lemma-lexicon-*.pickle"))
        lexicon._LEXICONS.pop(lang, None)
        cached = answers()
    lexicon._LEXICONS.pop(lang, None)
    assert built == cached
    assert any(a[0] for a in built) and any(not a[0] for a in built)


def test_sorted_words_and_pairs_behave_like_a_set_and_a_dict():
    """The lexicon's binary search over lines agrees with Python's set and dict on random words
    (accented, capitalised, prefixes of each other)."""
    import random

    from termqa.lang.sortedtext import SortedPairs, SortedWords

    rng = random.Random(11)
    alphabet = "aàbcéeE'-zœ\U0001d518"  # 1-, 2-, 3- and 4-byte UTF-8: the text is searched as bytes
    for _ in range(300):
        words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(0, 60))}
        pairs = {w: "\t".join(rng.choice(["x", "y", "zé"]) for _ in range(rng.randint(1, 3))) for w in words}
        sw, sp = SortedWords(words), SortedPairs(pairs)
        probes = words | {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(80)}
        for q in probes:
            assert (q in sw) == (q in words)
            assert sp.get(q) == pairs.get(q)
        assert sorted(sw) == sorted(words) and len(sw) == len(words)
        assert SortedWords.from_text(sw.text()).text() == sw.text()


@pytest.mark.skipif(not parallel.can_fork(), reason="worker processes need fork")
def test_analyses_made_in_worker_processes_are_kept(tmp_path):
    """Documents counted in workers hand their new analyses to the main process, which keeps them: a
    rerun in one process finds every text analysed and never imports spaCy."""
    project = gen.generate(12_000, 300, tmp_path, seed=5, words_per_file=3_000)
    cache = tmp_path / "cache"
    args = ["check", str(project / "xliff"), "-g", str(project / "glossary.tbx"), "--lemmatiser", "lookup", "-q"]
    first = _run_cli(args + ["--jobs", "2", "--json", str(tmp_path / "first.json")], cache)
    assert first.returncode in (0, 1), first.stderr
    assert "spacy imported" in first.stderr
    second = _run_cli(args + ["--jobs", "1", "--json", str(tmp_path / "second.json")], cache)
    assert "spacy not imported" in second.stderr, second.stderr
    a, b = (json.loads((tmp_path / f"{n}.json").read_text(encoding="utf-8")) for n in ("first", "second"))
    a["signature"].pop("settings", None), b["signature"].pop("settings", None)  # --jobs differs
    assert a == b


def test_analyses_table_reads_only_what_is_asked_and_survives_damage(tmp_path):
    """The analyses table returns the keys asked for, keeps values as they were, trims its oldest rows
    beyond its size, and a damaged file means no cache, never an error."""
    table = indexcache.Table(tmp_path / "t.sqlite", max_rows=10)
    assert table.get_many(["a"]) == {}  # no file yet: nothing, and no file made by reading
    assert not (tmp_path / "t.sqlite").exists()
    value = (("pompe", 0, 5, "pompe", "pompe", False, False, ("pompe", "pompe", "=pompe")),)
    table.put_many({"pompe": value, "joint": ()})
    assert table.get_many(["pompe", "absent"]) == {"pompe": value}
    table.put_many({f"w{i}": (i,) for i in range(12)})  # 14 rows > 10: the oldest go
    got = table.get_many(["pompe", "joint"] + [f"w{i}" for i in range(12)])
    assert "pompe" not in got and got["w11"] == (11,) and len(got) <= 10
    (tmp_path / "t.sqlite").write_bytes(b"not a database at all" * 100)
    assert table.get_many(["w11"]) == {}
    table.put_many({"x": (1,)})  # skipped quietly


def test_counting_and_the_result_run_with_the_collector_paused_and_resume_it(samples, monkeypatch):
    """Detection (inside `count`) and `result_dict` see the cyclic collector off; it is on again after."""
    import gc

    from termqa.results import serialise

    seen = []
    real_detect, real_dict = occ.detect_document, serialise.occurrence_dict
    monkeypatch.setattr(occ, "detect_document", lambda *a, **k: seen.append(("detect", gc.isenabled()))
                        or real_detect(*a, **k))
    monkeypatch.setattr(serialise, "occurrence_dict", lambda *a, **k: seen.append(("dict", gc.isenabled()))
                        or real_dict(*a, **k))
    assert gc.isenabled()
    check([samples], [samples / "pump-terms.tbx"], Settings(index_cache=False)).to_dict()
    assert {k for k, _ in seen} == {"detect", "dict"}
    assert not any(on for _, on in seen), seen
    assert gc.isenabled()


def _local_function():
    def inner():
        return 1

    return inner


@pytest.mark.parametrize("value", [lambda: 1, threading.Lock(), _local_function(), {"deep": [threading.Lock()]}],
                         ids=["lambda", "lock", "local function", "nested lock"])
def test_a_value_pickle_cannot_write_is_skipped_quietly(tmp_path, value):
    """store() of a value pickle refuses (PicklingError, TypeError, AttributeError by object) writes
    nothing and raises nothing; the key stays a miss and other keys are unaffected."""
    cache = indexcache.IndexCache(tmp_path)
    cache.store("bad", value)
    assert cache.load("bad") is None
    assert not list(tmp_path.iterdir())  # no file, no temporary file left
    cache.store("good", {"a": 1})
    assert cache.load("good") == {"a": 1}


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 3 * 4096 + 5])
def test_the_glossary_key_hash_read_blockwise_equals_the_whole_file_hash(tmp_path, size):
    """The glossary key's digest is read a block at a time (no copy of a big termbase in memory), and is
    the sha256 of the whole file, which the readers record as the glossary's content hash."""
    import hashlib
    import random

    from termqa.fileio import file_sha256

    data = random.Random(size).randbytes(size)
    (tmp_path / "g.tbx").write_bytes(data)
    assert file_sha256(tmp_path / "g.tbx", block=4096) == hashlib.sha256(data).hexdigest()
    assert file_sha256(str(tmp_path / "g.tbx")) == hashlib.sha256(data).hexdigest()


def test_a_cached_glossary_carries_the_blockwise_hash(samples, tmp_path):
    import hashlib

    gl = samples / "pump-terms.tbx"
    cache = indexcache.IndexCache(tmp_path)
    with indexcache.using(cache):
        read_glossary_cached(gl)
        again = read_glossary_cached(gl)
    assert (cache.misses, cache.hits) == (1, 1)  # the second read is the stored glossary
    assert again.content_hash == hashlib.sha256(gl.read_bytes()).hexdigest()


def _open_paths() -> set[str]:
    """Files this process has open or mapped (Linux /proc)."""
    import os

    fds = {os.path.realpath(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")}
    maps = {line.split(maxsplit=5)[-1].strip() for line in Path("/proc/self/maps").read_text().splitlines()
            if len(line.split()) >= 6}
    return fds | maps


@pytest.mark.parametrize("cut", ["empty", "inside magic", "inside header", "after header", "payload half",
                                 "one byte short"])
def test_a_truncated_file_read_through_the_map_is_a_miss_and_leaves_nothing_open(tmp_path, cut):
    """Cache files are read through a read-only mmap: a file cut anywhere is a miss (never an error nor
    a wrong value), and the file and its map are closed after every load, hit or miss."""
    import warnings

    cache = indexcache.IndexCache(tmp_path)
    value = {"words": "\n".join(f"mot{i}é" for i in range(50_000)), "n": list(range(1000))}
    cache.store("k", value)
    path = cache.path_of("k")
    data = path.read_bytes()
    header = data.index(b"\n", len(indexcache.MAGIC)) + 1
    keep = {"empty": 0, "inside magic": 5, "inside header": header - 10, "after header": header,
            "payload half": header + (len(data) - header) // 2, "one byte short": len(data) - 1}[cut]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        assert cache.load("k") == value  # whole: a hit
        path.write_bytes(data[:keep])
        assert cache.load("k") is None
        gc.collect()  # an unclosed file would warn when collected
    assert (cache.hits, cache.misses) == (1, 1)
    if Path("/proc/self/maps").exists():
        assert str(path.resolve()) not in _open_paths()


def test_a_file_system_that_cannot_map_files_reads_them_whole(tmp_path, monkeypatch):
    import mmap

    cache = indexcache.IndexCache(tmp_path)
    cache.store("k", {"a": "é" * 1000})

    def refuse(*_a, **_k):
        raise OSError(19, "No such device")

    monkeypatch.setattr(mmap, "mmap", refuse)
    assert cache.load("k") == {"a": "é" * 1000}
    data = cache.path_of("k").read_bytes()
    cache.path_of("k").write_bytes(data[:-1])
    assert cache.load("k") is None


# --- keys: the language code's entries outlive edits elsewhere ----------------------------------------

def test_lang_fingerprint_follows_the_language_code_and_the_cache_module_only(tmp_path):
    """In an edited copy of the package: an edit of detection (or any module outside termqa/lang/ and
    store/indexcache.py) changes the whole-code fingerprint only; an edit of a language module or of the
    cache module changes both."""
    pkg = tmp_path / "termqa"
    shutil.copytree(Path(indexcache.__file__).resolve().parent.parent, pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))

    def prints():
        return (indexcache.source_fingerprint(pkg), indexcache.source_fingerprint(pkg, lang_only=True))

    code0, lang0 = prints()
    assert prints() == (code0, lang0)  # stable
    with (pkg / "pipeline" / "detect.py").open("a") as f:
        f.write("\n# an edit of detection\n")
    code1, lang1 = prints()
    assert code1 != code0 and lang1 == lang0
    with (pkg / "lang" / "fold.py").open("a") as f:
        f.write("\n# an edit of folding\n")
    code2, lang2 = prints()
    assert code2 != code1 and lang2 != lang1
    with (pkg / "store" / "indexcache.py").open("a") as f:
        f.write("\n# an edit of the cache module\n")
    code3, lang3 = prints()
    assert code3 != code2 and lang3 != lang2
    # this install's fingerprints are those of its own files
    real = Path(indexcache.__file__).resolve().parent.parent
    assert indexcache.lang_fingerprint() == indexcache.source_fingerprint(real, lang_only=True)


def test_an_edit_outside_lang_keeps_analyses_and_tables_and_an_edit_of_lang_drops_them(tmp_path, monkeypatch):
    """Fingerprints patched as an edit would change them: after an edit outside termqa/lang/ the stored
    analyses are read (no spaCy) and the lemma table is a hit, while the glossary, source index and
    target forms get new keys; after an edit of termqa/lang/ the analyses and the table are rebuilt."""
    from termqa.lang import lemma, lookuptables, spacytok

    folder = tmp_path / "cache"
    text = "Remplacez le joint d'étanchéité du corps de pompe avant la mise en service."
    spacy_asked = []

    def lemmatiser():
        def load_nlp():
            spacy_asked.append(1)
            return spacytok.blank("fr")
        return lemma.Lemmatiser("fr", "lookup", "test-lookup-fr", None, None, load_nlp=load_nlp,
                                load_table=lambda: lookuptables.load_table("fr"))

    files = lookuptables.lookup_files("fr")
    names = lookuptables.table_names("fr")

    def table_hit(cache) -> bool:
        before = cache.hits
        lookuptables._PARTS.clear()  # the parts a process loaded are kept: ask the cache again
        lookuptables.cached_table("fr", names, files)
        return cache.hits == before + 1

    def keys():
        return {"glossary": indexcache.make_key("glossary", "x"), "source": indexcache.make_key("source-index", "x"),
                "analyses": lemmatiser().analyses_key(), "chunk": spacytok.chunk_rules_key("fr"),
                "table": lookuptables.table_key("fr", names, files)}

    cache = indexcache.IndexCache(folder)
    with indexcache.using(cache):
        first = lemmatiser()
        toks = first.tokenize(text)
        first.save_analyses()
        assert spacy_asked
        lookuptables.cached_table("fr", names, files)  # stored
        k0 = keys()

        monkeypatch.setattr(indexcache, "_CODE", "an edit of detection")
        k1 = keys()
        assert [k for k in k0 if k0[k] != k1[k]] == ["glossary", "source"]
        spacy_asked.clear()
        assert lemmatiser().tokenize(text) == toks and not spacy_asked  # analyses kept
        assert table_hit(cache)

        monkeypatch.setattr(indexcache, "_LANG", "an edit of termqa/lang")
        k2 = keys()
        assert all(k1[k] != k2[k] for k in ("analyses", "chunk", "table"))
        assert lemmatiser().tokenize(text) == toks and spacy_asked  # analysed again
        assert not table_hit(cache)


def test_records_workers_send_back_pickle_equal_through_their_fields():
    """Workers send references, verdicts and metric items back (registered by store.pickling): each comes back
    equal, shared objects stay shared, and a record whose fields are not all __init__ arguments is
    refused when the class is made, not when a pickle comes back wrong."""
    import copyreg
    import dataclasses
    import pickle

    from termqa.model import Occurrence, Reference, Span, Verdict
    from termqa.store import pickling
    from termqa.store.pickling import pickled_by_fields
    from termqa.metrics import Item

    ref = Reference("d", "c1", "pump", "pompe", "glossary")
    occ = Occurrence("d", "u1", "s1", 4, "c1", "pump", "pumps", Span(0, 5), "pompes", Span(3, 9),
                     chain_size=2, is_first_mention=True, via="glossary", target_variant="inflection")
    verdicts = [Verdict(occ, "conforming", None, 0.0, "glossary term", ref, "rule", None, (("rule", "glossary"),)),
                Verdict(replace(occ, segment_index=5), "error", "A4", 1, "dropped", ref)]
    item = Item("d", "c1", "pump", ("pompe",), True, variation="morphosyntactic", spelling=True)
    back = pickle.loads(pickle.dumps((verdicts, item), protocol=pickle.HIGHEST_PROTOCOL))
    assert back == (verdicts, item)
    for record in (ref, occ, occ.source_span, verdicts[0], item):  # pickled as a call with the fields
        make, values = copyreg.dispatch_table[type(record)](record)  # registered by store.pickling
        assert make.__module__ == "termqa.store.pickling" and getattr(pickling, make.__name__) is make
        assert values == tuple(getattr(record, f.name) for f in dataclasses.fields(record))
        assert "_unpickle" not in vars(type(record))  # the record's class is left as it is
    assert back[0][0].reference is back[0][1].reference  # one object, as in the worker
    assert type(back[0][1].penalty) is int  # values as they were

    @dataclasses.dataclass(frozen=True, slots=True)
    class Later:
        a: int
        b: int = dataclasses.field(default=0, init=False)

    with pytest.raises(TypeError):
        pickled_by_fields(Later)

    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    with pytest.raises(TypeError, match="slots"):
        pickled_by_fields(NoSlots)


def test_source_entries_survive_the_cache_equal_and_the_read_trie_finds_the_same(samples, tmp_path):
    """The source index is pickled with SourceEntry's `__reduce__` (store.pickling: a call setting its slots)
    and its equal keys shared (detect._shared): what the cache gives back must be the same entries
    (equal, hashing the same, still frozen and `replace`-able) and find the same occurrences."""
    import dataclasses
    import pickle

    from termqa.pipeline import detect as dt, sourcevariants as sv

    run = ck.prepare([str(samples / "pump-manual.xlf")], [str(samples / "pump-terms.tbx")],
                     Settings(lemmatiser="lookup"))
    doc, lem = run.documents[0], run.lem("en")
    trie, heads = source_index(list(run.concepts), "en", lem, doc.path, Detection("dynamic"))
    sv.variant_indexes(trie, True)
    cache = indexcache.IndexCache(tmp_path / "cache")
    cache.store("source-index-test", (trie, heads))
    read, read_heads = cache.load("source-index-test")
    assert read.entries == trie.entries and read_heads == heads and read.size == trie.size
    assert [hash(e) for e in read.entries] == [hash(e) for e in trie.entries]
    assert all(type(e) is dt.SourceEntry for e in read.entries)
    assert read.derived == trie.derived and read.root == trie.root
    e = read.entries[-1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.text = "x"
    assert dataclasses.replace(e, rule="reduction") == dataclasses.replace(trie.entries[-1], rule="reduction")
    assert pickle.loads(pickle.dumps(e)) == e
    assert b"concept_id" not in pickle.dumps(e)  # the fields as arguments, no state dict naming them
    # heads and the trie's leaves are the very entry objects of `entries`, as before the round trip
    ids = {id(x) for x in read.entries}
    assert all(id(x) in ids for x in read_heads.values())
    # equal keys are one object: a term's surface keys equal to its lemma keys, a word in every term
    assert all(x.skey is x.key for x in read.entries if x.skey == x.key)
    words = {}
    assert all(words.setdefault(w, w) is w for x in read.entries for w in x.key)
    found = [(m.segment.index, m.start, m.end, m.entry)
             for m in occ.detect_in_chunks(trie, doc.segments, lem, Detection("dynamic"), "en")[0]]
    assert found and found == [(m.segment.index, m.start, m.end, m.entry) for m in occ.detect_in_chunks(
        read, doc.segments, lem, Detection("dynamic"), "en")[0]]
