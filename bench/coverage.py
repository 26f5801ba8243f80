"""Word-list coverage: the share of a text's running words a word list knows (spaCy's lookup table with its
lemmas, then simplemma's dictionary), rather than leaving them to the fallback rules, per target language of TMX files.

    python bench/coverage.py FILE.tmx [FILE.tmx ...] [--limit N]

Prints, per target language: words, the share the lookup table knows (what termqa knew before simplemma),
and the share the table or the dictionary knows (what it knows now).
"""
from __future__ import annotations

import argparse
from collections import defaultdict

from lxml import etree

from termqa.lang import dictlemma
from termqa.lang.fold import loose
from termqa.lang.langtags import primary
from termqa.lang.lemma import get_lemmatiser
from termqa.lang.lexicon import is_target_word
from termqa.lang.lookuptables import load_table

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def targets(path: str, limit: int) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for _, tu in etree.iterparse(path, tag="tu"):
        for tuv in tu.iter("tuv"):
            lang = primary(tuv.get(XML_LANG) or tuv.get("lang") or "")
            seg = tuv.find("seg")
            if lang and lang != "en" and seg is not None and len(out[lang]) < limit:
                out[lang].append("".join(seg.itertext()))
        tu.clear()
    return out


def coverage(lang: str, texts: list[str]) -> tuple[int, float, float]:
    lem = get_lemmatiser(lang, mode="lookup")
    table = load_table(lang)
    index = table.loose_index() if table is not None else {}
    listed = dictlemma.lookup(lang)
    words = table_known = any_known = 0
    for toks in lem.tokenize_many(texts):
        for t in toks:
            if t.punct or not t.text.isalpha():
                continue
            words += 1
            # a form of the table, one of its lemmas (the table lists only forms that differ from their
            # lemma), or the table's form up to accents
            in_table = is_target_word(t.text, lang) or bool(index.get(loose(t.text)))
            table_known += in_table
            any_known += in_table or (listed is not None and lem._dictionary_lemma(t.text, t.text.lower()) is not None)
    return words, table_known / max(1, words), any_known / max(1, words)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tmx", nargs="+")
    ap.add_argument("--limit", type=int, default=1_000_000, help="segments per language")
    args = ap.parse_args()
    for path in args.tmx:
        for lang, texts in sorted(targets(path, args.limit).items()):
            n, before, after = coverage(lang, texts)
            print(f"{lang}\t{n} words\ttable {before:.1%}\ttable+simplemma {after:.1%}")


if __name__ == "__main__":
    main()
