"""Alignment's shortcuts give what the plain definitions give: a term found only where its first word
stands (`TargetIndex.find`), n-grams counted only when they can become a rendering (`_countable`,
`_needed_in`). Checked on real target text and on a generated project where mining establishes
renderings."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa import formats
from termqa.lang.lemma import get_lemmatiser
from termqa.pipeline import align as al, established as est, mining
from termqa.pipeline.check import check

from tests.conftest import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import generate as gen  # noqa: E402


@pytest.fixture(scope="module")
def target_indexes():
    """TargetIndex of every French target of the samples."""
    lem = get_lemmatiser("fr", mode="lookup")
    texts = [s.target for f in SAMPLES.glob("*.xlf") for d in formats.read_bilingual(str(f)).documents
             for s in d.segments if (s.target or "").strip()]
    assert len(texts) > 20
    return [al.TargetIndex(t) for t in lem.tokenize_many(texts)]


def _scan(idx: al.TargetIndex, key, skey=(), surface=False):
    """The plain definition: try every start."""
    m = len(key)
    skey = tuple(skey) if skey and len(skey) == m else tuple(key)
    lists = (idx.surf, idx.exact) if surface else (idx.keys, idx.surf, idx.exact)
    return [(a, a + m) for a in range(len(idx.keys) - m + 1)
            if all(any(seq[a + x] in (key[x], skey[x]) for seq in lists) for x in range(m))]


def test_find_looks_where_the_first_word_stands_and_finds_what_a_scan_finds(target_indexes):
    rng = random.Random(3)
    tried = found = 0
    for idx in target_indexes:
        n = len(idx.keys)
        for _ in range(6):  # spans of the segment itself (lemma or surface keys), and shuffled ones
            m = rng.randint(1, 3)
            if n < m:
                continue
            a = rng.randrange(n - m + 1)
            key = tuple(idx.keys[a:a + m])
            skey = tuple(idx.surf[a:a + m])
            if rng.random() < 0.3:
                key = key[::-1]
            for surface in (False, True):
                got = idx.find(key, skey, surface=surface)
                assert got == _scan(idx, key, skey, surface), (key, skey, surface)
                tried += 1
                found += bool(got)
    assert tried > 100 and found > 50


def test_needed_ngrams_are_those_of_ngrams(target_indexes):
    stop = al.stop_words("fr")
    every = {g for idx in target_indexes for g in mining.ngrams(idx, stop)}
    rng = random.Random(5)
    needed = set(rng.sample(sorted(every), len(every) // 3)) | {g[:1] for g in every}
    prefixes = frozenset(g[:m] for g in needed for m in range(1, len(g) + 1))
    firsts = frozenset(g[0] for g in needed)
    hits = 0
    for idx in target_indexes:
        want = {g for g in mining.ngrams(idx, stop) if g in needed}
        assert mining._needed_in(idx, stop, needed, prefixes, firsts) == want
        hits += len(want)
    assert hits > 100


def test_counting_only_countable_ngrams_changes_no_result(tmp_path, monkeypatch):
    """Mining reads document counts of its candidates only: counting every n-gram of every open segment
    (what `_countable` narrows) gives the same result, renderings established included."""
    project = gen.generate(40_000, 400, tmp_path, seed=11, words_per_file=40_000)
    args = ([project / "xliff"], [project / "glossary.tbx"])
    narrow = check(*args, settings=Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    established = sum(o["align_method"] == "established" for o in narrow["occurrences"])
    assert established >= 5, established

    def every_ngram(work, todo, indexes, stop, pair_of):
        return {g for _k, members in todo for i in members if work[i].alignment is None
                for g in mining.ngrams(indexes[work[i].seg.index], stop)}

    monkeypatch.setattr(est, "_countable", every_ngram)
    wide = check(*args, settings=Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    assert json.dumps(wide, sort_keys=True) == json.dumps(narrow, sort_keys=True)


def test_pairs_seen_remembers_what_a_set_remembers_through_growth():
    """`PairsSeen` (the document counts' table of pairs already counted) answers as a set would, across
    the table's doublings, for keys that share their first bytes (the slot) and for an all-zero digest."""
    rng = random.Random(5)
    keys = [bytes(rng.randrange(256) for _ in range(est.PairsSeen.WIDTH)) for _ in range(3000)]
    keys += [b"\x07" * 8 + bytes([i]) * 4 for i in range(1, 40)]  # same slot, different keys
    seen, plain = est.PairsSeen(10), set()
    for k in keys + keys[::7]:
        assert seen.add(k) == (k not in plain), k
        plain.add(k)
    assert len(seen) == len(plain)
    assert est.PairsSeen.EMPTY not in {est._pair_key("a b", "c d"), est._pair_key("", "")}


def test_pair_keys_ignore_case_spacing_and_numbers_only():
    """Two segment pairs count once when they differ in case, spacing or the numbers they hold; any
    other difference, or the same words moved from source to target, makes two pairs."""
    k = est._pair_key
    assert k("Open the  valve 3", "Ouvrir la vanne 3") == k("open the valve 12", "OUVRIR LA  VANNE 7")
    assert k("Open the valve", "Ouvrir la vanne") != k("Open the valves", "Ouvrir la vanne")
    assert k("Open the valve", "Ouvrir la vanne") != k("Open the valve Ouvrir", "la vanne")
    assert len(k("x", "y")) == est.PairsSeen.WIDTH
