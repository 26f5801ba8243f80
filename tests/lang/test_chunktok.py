"""chunktok: spaCy's tokenizer rules run without spaCy give spaCy's tokens, chunk by chunk.

Lookup mode tokenises new text with chunktok once the rules are in the index cache, and with spaCy
itself in the run that stored them: a difference would make results depend on what is cached. So each
test compares the two on every whitespace-free chunk of real text, one chunk per call as lemma.py makes
them, with spaCy's tokenizer built the two ways termqa builds it (`spacy.blank` then `token_match =
None`, and `Tokenizer.from_bytes` from the stored copy).
"""
from __future__ import annotations

import json
import marshal
import re
import sys
from pathlib import Path

import pytest

from termqa.lang import chunktok

from tests.conftest import CORPUS, SAMPLES
from tests.helpers import run_cli_saying_spacy, write_csv, write_xliff

spacy = pytest.importorskip("spacy")
from spacy.tokenizer import Tokenizer  # noqa: E402
from spacy.vocab import Vocab  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import generate as gen  # noqa: E402

LANGS = ["en", "fr", "de", "es", "it"]

# Chunks where the rules interact: special cases behind or before punctuation, elisions, web and
# e-mail addresses, numbers, quotes and dashes of several scripts, emoji, markup.
HARD = """
https://www.example.com/a/b?x=1&y=2 (https://example.org). <http://t.co/x> www.termqa.org, ftp://h/f
mail@example.com (mail@example.com) <jean.dupont@exemple.fr>. user+tag@sub.example.co.uk;
l'État l'état L'Europe aujourd'hui d'abord qu'il jusqu'à presqu'île l’État aujourd’hui c'est-à-dire
(voir voir) (voir). «voir» « » «Bonjour» „Hallo“ “quoted” 'single' ‘curly’ "double" ‹x› »x«
etc. etc.) etc.), (etc.) U.S. U.S.A. (U.S.) U.S.-based e.g. e.g., (e.g., i.e. i.e., Mr. (Mr. Mr.)
Dr. Dr.-Ing. z.B. z. B. usw. bzw. (bzw. S.A. Sr. Sra. EE.UU. EE. UU. p.ej. ecc. ecc.) Sig. sig.
1,5 1.5 10% (10%) 10 % 1.000,50 1,000.50 -5 +5 5-10 3/4 12:30 2019-2020 20°C 5km 5 km €5 5€ $5.00 §3
-- --- ... .... … (…) ?! !? ?? !!! ;) :-) :) (: <3 ^_^ ¿Qué? ¡Hola! "¿Qué?" (¡Hola!)
😀 👍🏽 😀😀 (😀) word😀 🇫🇷 ❤️ ™ ® © °
don't don't. (don't) won't can't. I'm (I'm you'll they've we'd it's. It's, 'tis y'all ain't
(Mr. Smith's) Smith's. James' o'clock rock'n'roll
e-mail E-Mail machine-translation well-known. (state-of-the-art) arc-en-ciel porte-monnaie
Rhein-Main-Gebiet Sonnen- und Mondfinsternis 2-3-mal non-profit. -ing pre- -post
&lt;b&gt;word&lt;/b&gt; <b>x</b> Change</Affiliation [1] [1], (a) a) (a b) {x} x/y and/or
n't 's 'S 'LL 's. ’s ’ ' '' ’’ `` ` ´ ˈ ‚ ‛ ″ ′
C++ C# .NET Node.js node.js. #hashtag @handle @handle: A&M AT&T R&D 24/7 x86_64 file_name.txt
""".split()


def _built_like_termqa(lang: str):
    """spaCy's tokenizer for `lang` built as lemma._blank builds it, both ways: fresh and from bytes."""
    nlp = spacy.blank(lang)
    nlp.tokenizer.token_match = None
    fresh = nlp.tokenizer
    stored = Tokenizer(Vocab()).from_bytes(fresh.to_bytes(exclude=["vocab", "token_match"]),
                                           exclude=["vocab", "token_match"])
    return fresh, stored


def _port(tokenizer) -> chunktok.ChunkTokenizer:
    data = chunktok.extract(tokenizer)
    assert data is not None and chunktok.valid(data)
    data = marshal.loads(marshal.dumps(data))  # what the index cache gives back
    assert chunktok.valid(data)
    return chunktok.ChunkTokenizer(data)


def _differences(tokenizer, port, chunks) -> list:
    bad = []
    for c in chunks:
        want = [(t.text, t.idx) for t in tokenizer(c)]
        got = port(c)
        if got != want:
            bad.append((c, want, got))
    return bad


def _chunks_of(paths) -> list[str]:
    found: set[str] = set()
    for p in paths:
        found.update(re.findall(r"\S+", p.read_bytes().decode("utf-8", "ignore")))
    return sorted(found)


@pytest.fixture(scope="module", params=LANGS)
def tokenizers(request):
    fresh, stored = _built_like_termqa(request.param)
    return request.param, fresh, stored, _port(fresh), _port(stored)


def test_hard_chunks_give_spacys_tokens(tokenizers):
    lang, fresh, stored, port, port_stored = tokenizers
    assert _differences(fresh, port, HARD) == []
    assert _differences(stored, port_stored, HARD) == []
    # and again, now that spaCy has these chunks in its own cache
    assert _differences(fresh, port, HARD) == []


def test_the_samples_and_the_benchmark_text_give_spacys_tokens(tokenizers, tmp_path):
    lang, fresh, stored, port, port_stored = tokenizers
    project = gen.generate(6_000, 300, tmp_path, seed=11, words_per_file=3_000)
    files = [p for p in SAMPLES.iterdir() if p.is_file()] + [p for p in project.rglob("*") if p.is_file()]
    chunks = _chunks_of(files)
    assert len(chunks) > 2_000
    assert _differences(fresh, port, chunks) == []
    assert _differences(stored, port_stored, chunks) == []


@pytest.mark.skipif(CORPUS is None, reason="../shared/corpus is not present")
def test_every_chunk_of_the_corpus_gives_spacys_tokens(tokenizers):
    """TICO-19 and bio-MQM (English and French running text), and the CAT-tool, TMX and TBX files of
    the format corpus (many languages, markup, entities). Chunks longer than 300 characters (embedded
    base64 payloads) are left out: they take spaCy's regular expressions a tenth of a second each."""
    lang, fresh, stored, port, port_stored = tokenizers
    files = [p for p in (CORPUS / "eval").rglob("*") if p.is_file()]
    files += [p for p in (CORPUS / "formats").rglob("*") if p.is_file() and p.suffix != ".ttl"]
    chunks = [c for c in _chunks_of(files) if len(c) <= 300]
    assert len(chunks) > 50_000
    assert _differences(fresh, port, chunks) == []


def test_special_cases_hidden_by_a_prefix_or_a_suffix():
    """A special case found only after an affix comes off, or as a token sequence after the split (the
    matcher step), on a tokenizer made for the purpose."""
    en = spacy.blank("en").tokenizer
    rules = {"ab": [{"ORTH": "a"}, {"ORTH": "b"}], "x.y.": [{"ORTH": "x.y."}],
             "q-r": [{"ORTH": "q"}, {"ORTH": "-r"}], "zz (ab": [{"ORTH": "zz"}, {"ORTH": " "}, {"ORTH": "(ab"}]}
    tok = Tokenizer(Vocab(), rules=rules, prefix_search=en.prefix_search, suffix_search=en.suffix_search,
                    infix_finditer=en.infix_finditer, url_match=en.url_match)
    chunks = ["ab", "(ab", "ab)", "(ab)", "((ab))", "x.y.", "(x.y.)", "x.y.,", "q-r", "(q-r)", "aq-r", "zz",
              "(zz", "ab.", "a-b", "(ab", "x.y.z."]
    # straight from the constructor: spaCy's chunk cache is empty
    assert _differences(tok, chunktok.ChunkTokenizer(chunktok.extract(tok, reloaded=False)), chunks) == []
    # reloaded (as termqa builds its tokenizers): the last special case's chunks sit in spaCy's cache
    # tokenised without special cases, "(ab" among them
    tok.token_match = None
    data = chunktok.extract(tok)
    assert data["precached"]["(ab"] == ("(", "ab")
    assert [t.text for t in tok("(ab")] == ["(", "ab"]
    assert _differences(tok, chunktok.ChunkTokenizer(data), chunks) == []


def test_a_tokenizer_chunktok_cannot_reproduce_is_left_to_spacy():
    nlp = spacy.blank("fr")  # keeps its token_match (the elision and hyphen exception list)
    assert nlp.tokenizer.token_match is not None
    assert chunktok.extract(nlp.tokenizer) is None
    tok = Tokenizer(Vocab(), prefix_search=lambda s: None)  # not a compiled pattern
    assert chunktok.extract(tok) is None


def test_damaged_data_is_not_used():
    data = chunktok.extract(_built_like_termqa("en")[0])
    assert chunktok.valid(data)
    assert not chunktok.valid(None)
    assert not chunktok.valid({**data, "format": 0})
    assert not chunktok.valid({**data, "specials": {"don't": ("do", "not")}})  # tokens must join back
    assert not chunktok.valid({**data, "patterns": [("",)]})
    assert not chunktok.valid({**data, "prefix": "^a"})


# --- in a run: new text without spaCy -----------------------------------------------------------------

_run_cli = run_cli_saying_spacy


def test_new_text_after_one_run_is_tokenised_without_spacy(tmp_path):
    """After one run has stored the tokenizer rules, a run over text never seen before (lookup mode)
    imports no spaCy and gives the JSON of a run with no cache at all."""
    cache = tmp_path / "cache"
    first = ["check", str(SAMPLES), "-g", str(SAMPLES / "pump-terms.tbx"), "--lemmatiser", "lookup", "-q",
             "--json", str(tmp_path / "first.json")]
    r = _run_cli(first, cache)
    assert r.returncode in (0, 1), r.stderr
    assert "spacy imported" in r.stderr
    assert sorted(cache.glob("chunk-rules-*.pickle"))

    pairs = [
        ("Don't open the pump (U.S. model) before 10:30, e.g. when the e-mail says so.",
         "N'ouvrez pas la pompe (modèle U.S.) avant 10h30, p. ex. quand l'e-mail le dit."),
        ("See https://example.com/pump?id=7 or mail service@example.com; the impeller's seal...",
         "Voir https://example.com/pump?id=7 ou écrire à service@example.com ; le joint de l'impulseur..."),
        ("«Check» the mechanical seal—then the impeller (Mr. Smith's notes).",
         "« Vérifiez » la garniture mécanique — puis la roue (notes de M. Smith)."),
        ("Replace the impellers, the seals and the bearings: 1,5 mm, 10% wear, etc.",
         "Remplacez les roues, les joints et les roulements : 1,5 mm, 10 % d'usure, etc."),
    ]
    doc = write_xliff(tmp_path / "new.xlf", pairs)
    gloss = write_csv(tmp_path / "g.csv", ["en", "fr"],
                      [["impeller", "roue"], ["mechanical seal", "garniture mécanique"], ["bearing", "roulement"]])
    new = ["check", doc, "-g", gloss, "--lemmatiser", "lookup", "-q"]
    r = _run_cli(new + ["--json", str(tmp_path / "warm.json")], cache)
    assert r.returncode in (0, 1), r.stderr
    assert "spacy not imported" in r.stderr
    r2 = _run_cli(new + ["--json", str(tmp_path / "none.json"), "--no-index-cache"], tmp_path / "unused")
    assert r2.returncode == r.returncode, r2.stderr
    assert "spacy imported" in r2.stderr
    warm, none = (json.loads((tmp_path / f"{n}.json").read_text(encoding="utf-8")) for n in ("warm", "none"))
    assert warm == none
