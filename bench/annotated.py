"""Counting mode on the annotated sets (tests/fixtures/annotated/<lang>/), scored against their gold: per language
the counting-mode flags a translator accepts (N right of M) and the conforming precision, then every wrong flag.

    python bench/annotated.py [LANG ...]

The classes and the scoring are those of tests/pipeline/test_annotated_de_fr_ja_ru.py (the test asserts the
goals; this prints the figures). Run from a checkout: the test module is imported from it.
"""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

TEST = Path(__file__).resolve().parents[1] / "tests" / "pipeline" / "test_annotated_de_fr_ja_ru.py"


def _scoring():
    spec = importlib.util.spec_from_file_location("annotated_scoring", TEST)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("langs", nargs="*")
    args = ap.parse_args(argv)
    t = _scoring()
    for lang in args.langs or t.LANGS:
        pairs = t.paired(lang, t.run_counting(lang))
        flags = t.flags(pairs)
        conf = [row for row, occ in pairs if occ is not None and t.termqa_class(occ) == "conforming"]
        bad = [row for row in conf if row["gold"] not in ("correct", "inflected")]
        right = sum(ok for *_, ok in flags)
        print(f"{lang}: flags right {right}/{len(flags)}; conforming precision {len(conf) - len(bad)}/{len(conf)}")
        for row, got, ok in flags:
            if not ok:
                print(f"  wrong flag {row['unit']} {row['term']!r}: gold {row['gold']}, termqa {got}  {row['note']}")
        for row in bad:
            print(f"  conforming on {row['unit']} {row['term']!r}: gold {row['gold']}  {row['note']}")


if __name__ == "__main__":
    main()
