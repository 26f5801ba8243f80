"""Throughput of Lemmatiser.tokenize_many on ~1M words of real EN/FR text (TICO-19 TMX + bio-MQM).

Usage: python bench_lemma.py [--words 1000000] [--mode lookup]
Reports words/s for (a) the 1M-word stream (repeated segments hit the per-text cache, as in real
projects) and (b) distinct texts only, cold caches (worst case).
"""
import argparse, glob, json, time
from pathlib import Path
from lxml import etree

# ../shared/corpus beside the checkout, as CI lays it out
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "eval"


def segments():
    en, fr = [], []
    for tu in etree.parse(str(CORPUS / "tico19-enfr/data/TM/all.en-fr.tmx")).iter("tu"):
        for tuv in tu.iter("tuv"):
            lang = (tuv.get("{http://www.w3.org/XML/1998/namespace}lang") or "").lower()
            seg = tuv.find("seg")
            txt = "".join(seg.itertext()) if seg is not None else ""
            (en if lang.startswith("en") else fr).append(txt)
    for f in sorted(glob.glob(str(CORPUS / "bio-mqm/data/v2/target/**/*.json"), recursive=True)):
        for r in json.load(open(f)):
            s_lang = "en" if r["source_locale"].startswith("en") else "fr"
            (en if s_lang == "en" else fr).append(r["source"])
            (fr if s_lang == "en" else en).append(r["target"])
    return en, fr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--words", type=int, default=1_000_000)
    ap.add_argument("--mode", default="lookup")
    ap.add_argument("--langs", default="en,fr")
    a = ap.parse_args()
    from termqa.lang.lemma import get_lemmatiser

    en, fr = segments()
    for lang, segs in (("en", en), ("fr", fr)):
        if lang not in a.langs.split(","):
            continue
        distinct = list(dict.fromkeys(segs))
        nd = sum(len(s.split()) for s in distinct)
        # distinct texts of natural vocabulary: pair segment i with segment (i*7+k) % len, so
        # that the per-text cache never hits (worst case for real projects, which repeat a lot)
        stream, n, k = [], 0, 1
        seen = set()
        while n < a.words:
            for i in range(len(distinct)):
                s = distinct[i] + " " + distinct[(i * 7 + k) % len(distinct)]
                if s in seen:
                    continue
                seen.add(s)
                stream.append(s)
                n += len(s.split())
                if n >= a.words:
                    break
            k += 1
        t0 = time.perf_counter()
        lem = get_lemmatiser(lang, mode=a.mode)
        lem.tokenize("warm up the tables: États ETATS réseaux")
        t_load = time.perf_counter() - t0
        t0 = time.perf_counter()
        lem.tokenize_many(distinct)
        t_d = time.perf_counter() - t0
        lem._texts.clear()
        lem._words.clear()
        lem._lemmas.clear()
        lem._chunks.clear()
        t0, c0 = time.perf_counter(), time.process_time()
        out = lem.tokenize_many(stream)
        t_s, c_s = time.perf_counter() - t0, time.process_time() - c0
        ntok = sum(map(len, out))
        print(f"{lang} {lem.name}: load {t_load:.2f}s | distinct {len(distinct)} segs {nd} words "
              f"{nd / t_d:,.0f} w/s | stream {n} words ({len(stream)} segs, {ntok} tokens) "
              f"{n / t_s:,.0f} w/s wall, {n / c_s:,.0f} w/s CPU (distinct texts, cold caches)")


main()
