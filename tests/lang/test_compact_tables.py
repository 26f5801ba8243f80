"""What a first run builds of the word lists, in the compact forms later runs load without parsing, answers
exactly as the structures they replace: simplemma's dictionaries read in place from their front-coded
streams (termqa.lang.dictlemma.CompactDictionary) against simplemma's own dicts, and spaCy's lookup tables
answered from the lexicon's sorted lines (termqa.lang.lookuptables.SortedTable) against the dict table."""
from __future__ import annotations

import random

import pytest

from termqa.lang import dictlemma, lookuptables
from termqa.lang.fold import loose
from termqa.store import indexcache


def _simplemma_dict(lang: str):
    from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

    return DefaultDictionaryFactory().get_dictionary(lang)


@pytest.mark.parametrize("lang", ["en", "fr", "id"])
def test_the_compact_dictionary_answers_as_simplemma_on_every_form(tmp_path, lang):
    if not dictlemma.available(lang):
        pytest.skip(f"simplemma has no {lang} dictionary")
    ref = _simplemma_dict(lang)
    with indexcache.using(indexcache.IndexCache(tmp_path / "cache")):
        built = dictlemma.compact_dictionary(lang)  # the stream index made, and stored
        assert sorted((tmp_path / "cache").glob("dictionary-index-*.pickle"))
        cached = dictlemma.compact_dictionary(lang)
    assert built is not None and cached is not None and len(built) == len(ref)
    forms = list(ref)
    rng = random.Random(5)
    others = [w + "x" for w in rng.sample(forms, 500)] + [w[:-1] for w in rng.sample(forms, 500)]
    others += [w.upper() for w in rng.sample(forms, 500)] + ["", "\ud800", "zzzzzzzz", "\U0001f600"]
    def expected(w):
        try:
            return ref.get(w)
        except UnicodeEncodeError:  # simplemma raises on a lone surrogate; termqa.lang.dictlemma reads None
            return None

    for w in forms + others:
        assert built.get(w) == expected(w) == cached.get(w), w
    assert list(built) == forms


def test_the_lemmatiser_lemmas_of_words_no_table_knows_come_from_the_dictionary(tmp_path):
    """Through simplemma's own lookup strategy (case and apostrophe variants), with the compact dictionary."""
    from simplemma.strategies import DictionaryLookupStrategy

    ref = DictionaryLookupStrategy()
    with indexcache.using(indexcache.IndexCache(tmp_path / "cache")):
        lemma = dictlemma.lookup("fr")
        words = ["Chevaux", "chevaux", "AUJOURD'HUI", "aujourd’hui", "l'eau", "Mangeaient", "zzqx", "ÉTATS"]
        assert [lemma(w) for w in words] == [ref.get_lemma(w, "fr") for w in words]


@pytest.mark.parametrize("lang", ["fr", "en", "de"])
def test_the_sorted_table_answers_as_the_dict_table(tmp_path, lang):
    names, files = lookuptables.table_names(lang), lookuptables.lookup_files(lang)
    if not names:
        pytest.skip(f"no lookup table for {lang}")
    with indexcache.using(indexcache.IndexCache(None)):
        ref = lookuptables.cached_table(lang, names, files)
    with indexcache.using(indexcache.IndexCache(tmp_path / "cache")):
        built = lookuptables.cached_table(lang, names, files)  # built this run, the dict let go
        lookuptables._PARTS.clear()
        cached = lookuptables.cached_table(lang, names, files)  # loaded
    lookuptables._PARTS.clear()
    assert isinstance(cached, lookuptables.SortedTable) and isinstance(built, lookuptables.SortedTable)
    assert type(ref) is lookuptables.Table
    rng = random.Random(7)
    forms = rng.sample(sorted(ref.data), 2000)
    words = forms + [f.upper() for f in forms[:300]] + [f.capitalize() for f in forms] + [loose(f) for f in forms]
    words += ["ETATS", "Etats", "etats", "Mütter", "MUTTER", "zzqx", ""]
    ri, bi, ci = ref.loose_index(), built.loose_index(), cached.loose_index()
    for w in words:
        assert ref.get(w) == built.get(w) == cached.get(w), w
        k = loose(w)
        assert ri.get(k) == bi.get(k) == ci.get(k) and (k in ri) == (k in ci), w
    assert len(ref.data) == len(cached.data) and ref.alternatives == cached.alternatives
