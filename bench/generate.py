"""Generate a synthetic, language-like EN->FR project for benchmarking `termqa check`.

    python bench/generate.py --words 1000000 --concepts 20000 --out /tmp

writes `<out>/termqa-bench-<words>w-<concepts>c-s<seed>/` holding
    xliff/part-001.xlf ...   XLIFF 1.2, one <file> per part, about --words-per-file source words each
    glossary.tbx             TBX 2008 (martif type="TBX"), preferred/admitted/deprecated statuses,
                             acronyms, do-not-translate product names, source-only entries
    manifest.json            what was generated: words, term tokens, occurrences per target variant

Sentences come from bilingual templates filled with technical vocabulary (bench/lexicon.py), so both
sides read like a maintenance manual. Glossary terms are placed at a controlled rate (--term-rate,
share of source tokens that belong to a term occurrence), concepts are drawn from a Zipf law (a few
frequent concepts, a long tail of hapaxes), and each occurrence's French rendering is the preferred
term most of the time, otherwise an admitted synonym, a divergent rendering, the untranslated English
term, a missing rendering, a deprecated term or a misspelling (accents dropped). Everything is drawn
from one seeded `random.Random`: the same arguments give byte-identical files.
"""
from __future__ import annotations

import argparse
import bisect
import itertools
import json
import os
import random
import sys
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lexicon as lx  # noqa: E402  (bench scripts run from anywhere, without installing)

# Bumped whenever the same arguments would produce different files, so bench/run.py regenerates.
GENERATOR_VERSION = 3

# Target-side variants of one occurrence and their default shares. Variants a concept cannot have
# (no admitted/deprecated term, nothing to misspell) fall back to the preferred rendering.
VARIANT_SHARES = (
    ("preferred", 0.84),
    ("admitted", 0.04),
    ("divergent", 0.04),
    ("untranslated", 0.02),
    ("missing", 0.02),
    ("deprecated", 0.02),
    ("misspelt", 0.02),
)
_VOWELS = set("aeiouyéèêàâîôûœh")
_H_ASPIRE = {"hauteur"}  # "la hauteur", not "l'hauteur"


# --- French morphology (just enough for the templates) --------------------------------------------


def _plural_word(w: str) -> str:
    if w.endswith(("s", "x", "z")):
        return w
    if w.endswith(("eau", "au", "eu")):
        return w + "x"
    if w.endswith("al"):
        return w[:-2] + "aux"
    return w + "s"


def _plural_head(phrase: str) -> str:
    """Pluralise the head (first word) of a French noun phrase: "pompe volumétrique" -> "pompes volumétrique"
    would be wrong for the adjective, so every word before a "de"/"d'" is pluralised."""
    words = phrase.split(" ")
    out = []
    stop = False
    for w in words:
        if stop or w in ("de", "à") or w.startswith("d'"):
            stop = True
            out.append(w)
        else:
            out.append(_plural_word(w))
    return " ".join(out)


def _elides(word: str) -> bool:
    w = word.lower()
    return bool(w) and w[0] in _VOWELS and not any(w.startswith(h) for h in _H_ASPIRE)


def _de(phrase: str) -> str:
    return ("d'" if _elides(phrase) else "de ") + phrase


def _adj(adj: tuple, gender: str, plural: bool) -> str:
    form = adj[2] if gender == "f" else adj[1]
    if plural and " " not in form:
        form = _plural_word(form)  # principal -> principaux, principale -> principales
    return form


def _strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")


def article(phrase: str, gender: str, plural: bool, prep: str = "") -> str:
    """French definite article (+ preposition de/à with their contractions) before `phrase`."""
    if plural:
        art = {"": "les", "de": "des", "à": "aux"}[prep]
        return f"{art} {phrase}"
    if _elides(phrase):
        return {"": "l'", "de": "de l'", "à": "à l'"}[prep] + phrase
    if gender == "f":
        return {"": "la ", "de": "de la ", "à": "à la "}[prep] + phrase
    return {"": "le ", "de": "du ", "à": "au "}[prep] + phrase


# --- concepts ------------------------------------------------------------------------------------


@dataclass
class Concept:
    id: str
    en: str
    en_pl: str
    fr: Optional[str]  # None for source-only entries (but renderings are still generated)
    fr_pl: str
    fr_sg: str  # French rendering used in the target even when the glossary has none
    gender: str
    alt_sg: str  # divergent rendering (unlisted synonym)
    alt_pl: str
    admitted: Optional[str] = None
    admitted_pl: Optional[str] = None
    deprecated: Optional[str] = None
    deprecated_pl: Optional[str] = None
    acronym: Optional[str] = None
    dnt: bool = False
    subject: str = ""
    definition: Optional[str] = None
    extra: dict = field(default_factory=dict)


def _compose(kind: tuple, nouns, adjs):
    """(en, en_pl, fr, fr_pl, gender, alt, alt_pl, admitted, admitted_pl, deprecated, deprecated_pl)."""
    if kind[0] == "N":
        n = nouns[kind[1]]
        return (n[0], n[1], n[2], n[3], n[4], n[5], _plural_head(n[5]), None, None, None, None)
    if kind[0] == "NN":
        m, h = nouns[kind[1]], nouns[kind[2]]
        fr, fr_pl = f"{h[2]} {_de(m[2])}", f"{h[3]} {_de(m[2])}"
        return (
            f"{m[0]} {h[0]}", f"{m[0]} {h[1]}", fr, fr_pl, h[4],
            f"{h[5]} {_de(m[2])}", f"{_plural_head(h[5])} {_de(m[2])}",
            f"{h[2]} {_de(m[5])}", f"{h[3]} {_de(m[5])}",
            f"{m[2]} {h[2]}", f"{m[2]} {h[3]}",
        )
    if kind[0] == "AN":
        a, n = adjs[kind[1]], nouns[kind[2]]
        g = n[4]
        return (
            f"{a[0]} {n[0]}", f"{a[0]} {n[1]}", f"{n[2]} {_adj(a, g, False)}", f"{n[3]} {_adj(a, g, True)}", g,
            f"{n[5]} {_adj(a, g, False)}", f"{_plural_head(n[5])} {_adj(a, g, True)}",
            None, None,
            f"{_adj(a, g, False)} {n[2]}", f"{_adj(a, g, True)} {n[3]}",
        )
    a, m, h = adjs[kind[1]], nouns[kind[2]], nouns[kind[3]]  # "ANN"
    g = h[4]
    return (
        f"{a[0]} {m[0]} {h[0]}", f"{a[0]} {m[0]} {h[1]}",
        f"{h[2]} {_de(m[2])} {_adj(a, g, False)}", f"{h[3]} {_de(m[2])} {_adj(a, g, True)}", g,
        f"{h[5]} {_de(m[2])} {_adj(a, g, False)}", f"{_plural_head(h[5])} {_de(m[2])} {_adj(a, g, True)}",
        f"{h[2]} {_de(m[5])} {_adj(a, g, False)}", f"{h[3]} {_de(m[5])} {_adj(a, g, True)}",
        None, None,
    )


# Every word the templates and word lists use: an acronym spelling one of them ("ALL", "ONE") would be
# found in ordinary text by a case-insensitive matcher, which is not what a benchmark should measure.
_PLAIN_WORDS = {
    w.strip(".,").lower()
    for group in (lx.VERBS, lx.WHEN, lx.GENERAL_NP, lx.GENERAL_OBJ, lx.ADVERBS, lx.TERM_NOUNS, lx.TERM_ADJECTIVES)
    for entry in group for phrase in entry for w in phrase.split()
} | set(
    "all any are and the for not one per set use via off top bar must read before starting work keep up to date at "
    "times wear protective gloves safety glasses during this operation keeps in a safe place inform of anomaly "
    "record condition is connected if damaged contact do operate unit without note result checks".split()
)


def make_concepts(k: int, rng: random.Random) -> list[Concept]:
    nouns, adjs = lx.TERM_NOUNS, lx.TERM_ADJECTIVES
    n_n, n_a = len(nouns), len(adjs)
    singles = [("N", i) for i in range(n_n)]
    pairs = [("NN", i, j) for i in range(n_n) for j in range(n_n) if i != j]
    adj_n = [("AN", a, i) for a in range(n_a) for i in range(n_n)]
    n_single = min(len(singles), max(1, k // 50))
    n_dnt = max(1, k // 100)
    rest = k - n_single - n_dnt
    n_pairs = min(len(pairs), rest * 5 // 10)
    n_adjn = min(len(adj_n), rest * 2 // 10)
    n_ann = rest - n_pairs - n_adjn
    max_ann = n_a * len(pairs)
    if n_ann > max_ann:
        raise SystemExit(f"--concepts {k} is more than this lexicon can spell distinctly")
    kinds = rng.sample(singles, n_single) + rng.sample(pairs, n_pairs) + rng.sample(adj_n, n_adjn)
    seen_ann: set = set()
    while len(seen_ann) < n_ann:
        x = rng.randrange(max_ann)
        seen_ann.add(x)
    for x in sorted(seen_ann):
        p = pairs[x % len(pairs)]
        kinds.append(("ANN", x // len(pairs), p[1], p[2]))
    rng.shuffle(kinds)

    concepts: list[Concept] = []
    fr_main: set = set()
    subjects = ["pumps", "valves and piping", "electrical equipment", "drives and controls", "HVAC", "lubrication"]
    for idx, kind in enumerate(kinds):
        en, en_pl, fr, fr_pl, g, alt, alt_pl, adm, adm_pl, dep, dep_pl = _compose(kind, nouns, adjs)
        c = Concept(
            id=f"c{idx + 1:05d}", en=en, en_pl=en_pl, fr=fr, fr_pl=fr_pl, fr_sg=fr, gender=g,
            alt_sg=alt, alt_pl=alt_pl, subject=rng.choice(subjects),
        )
        r = rng.random()
        if adm and r < 0.15:
            c.admitted, c.admitted_pl = adm, adm_pl
        if dep and rng.random() < 0.08:
            c.deprecated, c.deprecated_pl = dep, dep_pl
        if kind[0] == "ANN" and rng.random() < 0.2:
            c.acronym = "".join(w[0] for w in en.split()).upper()
        if rng.random() < 0.03:
            c.fr = None  # source-only entry: the glossary has no French term
        if rng.random() < 0.3:
            c.definition = f"{en[0].upper()}{en[1:]} of the equipment described in the maintenance manual."
        concepts.append(c)
        fr_main.add(fr)
    # Keep admitted/deprecated terms that are not another concept's preferred term, and acronyms that
    # name one concept only; a real glossary would have flagged those as conflicts.
    acr_count: dict = {}
    for c in concepts:
        if c.acronym:
            acr_count[c.acronym] = acr_count.get(c.acronym, 0) + 1
    for c in concepts:
        if c.admitted in fr_main:
            c.admitted = c.admitted_pl = None
        if c.deprecated in fr_main:
            c.deprecated = c.deprecated_pl = None
        if c.acronym and (acr_count[c.acronym] > 1 or len(c.acronym) < 3 or c.acronym.lower() in _PLAIN_WORDS):
            c.acronym = None
    # Do-not-translate product names.
    names = [s + t for s, t in itertools.product(lx.PRODUCT_STEMS, lx.PRODUCT_TAILS)]
    for j in range(n_dnt):
        base = names[j % len(names)]
        name = base if j < len(names) else f"{base} {j // len(names) + 1}"
        concepts.append(
            Concept(
                id=f"p{j + 1:04d}", en=name, en_pl=name, fr=name, fr_pl=name, fr_sg=name, gender="m",
                alt_sg=name.replace(lx.PRODUCT_TAILS[j % len(lx.PRODUCT_TAILS)], "Garde") if "Guard" in name else name.lower(),
                alt_pl=name.lower(), dnt=True, subject="products",
            )
        )
    return concepts


# --- glossary ------------------------------------------------------------------------------------


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _tig(term: str, status: Optional[str], term_type: Optional[str] = None, extra: str = "") -> str:
    out = [f"<tig><term>{_esc(term)}</term>"]
    if term_type:
        out.append(f'<termNote type="termType">{term_type}</termNote>')
    if status:
        out.append(f'<termNote type="administrativeStatus">{status}-admn-sts</termNote>')
    out.append(extra)
    out.append("</tig>")
    return "".join(out)


def write_tbx(path: Path, concepts: list[Concept]) -> None:
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<martif type="TBX" xml:lang="en">\n'
        "<martifHeader><fileDesc><sourceDesc><p>termqa synthetic benchmark glossary</p></sourceDesc></fileDesc>"
        '<encodingDesc><p type="XCSURI">TBXXCSV02.xcs</p></encodingDesc></martifHeader>\n<text><body>\n'
    ]
    for c in concepts:
        e = [f'<termEntry id="{c.id}"><descrip type="subjectField">{_esc(c.subject)}</descrip>']
        if c.definition:
            e.append(f'<descrip type="definition">{_esc(c.definition)}</descrip>')
        if c.dnt:
            e.append('<descrip type="note">Do not translate</descrip>')
        e.append('<langSet xml:lang="en">')
        e.append(_tig(c.en, None if c.dnt else "preferredTerm", "productName" if c.dnt else ("fullForm" if c.acronym else None)))
        if c.acronym:
            e.append(_tig(c.acronym, "admittedTerm", "acronym"))
        e.append("</langSet>")
        if c.fr is not None:
            e.append('<langSet xml:lang="fr">')
            e.append(_tig(c.fr, None if c.dnt else "preferredTerm", "productName" if c.dnt else None))
            if c.admitted:
                e.append(_tig(c.admitted, "admittedTerm"))
            if c.deprecated:
                e.append(_tig(c.deprecated, "deprecatedTerm"))
            e.append("</langSet>")
        e.append("</termEntry>\n")
        parts.append("".join(e))
    parts.append("</body></text>\n</martif>\n")
    path.write_text("".join(parts), encoding="utf-8")


# --- sentences -----------------------------------------------------------------------------------


def _agree(word_m: str, gender: str, plural: bool) -> str:
    """Past participle agreement: relié / reliée / reliés / reliées."""
    return word_m + ("e" if gender == "f" else "") + ("s" if plural else "")


class Writer:
    """Builds (source, target, state) triples while tracking words and term tokens."""

    def __init__(self, concepts: list[Concept], rng: random.Random, term_rate: float, zipf: float):
        self.rng = rng
        self.concepts = concepts
        self.term_rate = term_rate
        order = list(range(len(concepts)))
        rng.shuffle(order)  # frequency rank independent of concept id: order[r] has rank r
        weight = [0.0] * len(concepts)
        for r, i in enumerate(order):
            weight[i] = 1.0 / (r + 1) ** zipf
        self.cum = list(itertools.accumulate(weight))
        self.words = 0
        self.term_tokens = 0
        self.variants: dict = {v: 0 for v, _ in VARIANT_SHARES}
        self.variants["acronym_source"] = 0
        self.occurrences = 0
        self.shares_cum = list(itertools.accumulate(s for _, s in VARIANT_SHARES))

    def _concept(self) -> Concept:
        x = self.rng.random() * self.cum[-1]
        return self.concepts[bisect.bisect_right(self.cum, x)]

    def _term(self):
        """One occurrence: (English term as written, French rendering without article, French gender, plural)."""
        c = self._concept()
        rng = self.rng
        plural = (not c.dnt) and rng.random() < 0.2
        en = c.en_pl if plural else c.en
        if c.acronym and not plural and rng.random() < 0.25:
            en = c.acronym
            self.variants["acronym_source"] += 1
        x = rng.random() * self.shares_cum[-1]
        variant = VARIANT_SHARES[bisect.bisect_right(self.shares_cum, x)][0]
        fr = c.fr_pl if plural else c.fr_sg
        gender = c.gender
        if variant == "admitted" and c.admitted:
            fr = c.admitted_pl if plural else c.admitted
        elif variant == "divergent":
            fr = c.alt_pl if plural else c.alt_sg
        elif variant == "untranslated":
            fr, gender = en, "m"
        elif variant == "missing":
            fr, gender = ("éléments" if plural else "élément"), "m"
        elif variant == "deprecated" and c.deprecated:
            fr = c.deprecated_pl if plural else c.deprecated
        elif variant == "misspelt" and _strip_accents(fr) != fr:
            fr = _strip_accents(fr)
        else:
            variant = "preferred"  # the drawn variant does not apply to this concept
        self.variants[variant] += 1
        self.occurrences += 1
        self.term_tokens += len(en.split())
        return en, fr, gender, plural

    def sentence(self) -> tuple[str, str]:
        want_term = self.term_tokens < self.term_rate * max(self.words, 1) + 1
        if not want_term:
            en, fr = self._plain()
        else:
            en, fr = self._with_terms()
        self.words += len(en.split())
        return en, fr

    def _plain(self) -> tuple[str, str]:
        rng = self.rng
        k = rng.randrange(6)
        v, w, g, o, r = (rng.choice(lx.VERBS), rng.choice(lx.WHEN), rng.choice(lx.GENERAL_NP),
                         rng.choice(lx.GENERAL_OBJ), rng.choice(lx.ADVERBS))
        if k == 0:
            return f"{v[0]} {o[0]} {w[0]}.", f"{v[1]} {o[1]} {w[1]}."
        if k == 1:
            return (f"{g[0][0].upper()}{g[0][1:]} must read {o[0]} {r[0]} before starting work.",
                    f"{g[1][0].upper()}{g[1][1:]} doit lire {r[1]} {o[1]} avant de commencer les travaux.")
        if k == 2:
            return f"Keep {o[0]} up to date at all times.", f"Tenez {o[1]} à jour en permanence."
        if k == 3:
            return ("Wear protective gloves and safety glasses during this operation.",
                    "Portez des gants de protection et des lunettes de sécurité pendant cette opération.")
        if k == 4:
            return (f"{g[0][0].upper()}{g[0][1:]} keeps {o[0]} in a safe place {w[0]}.",
                    f"{g[1][0].upper()}{g[1][1:]} conserve {o[1]} en lieu sûr {w[1]}.")
        return (f"Inform {g[0]} of any anomaly {r[0]}.", f"Informez {r[1]} {g[1]} de toute anomalie.")

    def _with_terms(self) -> tuple[str, str]:
        rng = self.rng
        k = rng.randrange(8)
        en_a, fr_a, g_a, pl_a = self._term()
        A = lambda prep="": article(fr_a, g_a, pl_a, prep)  # noqa: E731
        v, w, gn, o, r = (rng.choice(lx.VERBS), rng.choice(lx.WHEN), rng.choice(lx.GENERAL_NP),
                          rng.choice(lx.GENERAL_OBJ), rng.choice(lx.ADVERBS))
        if k == 0:
            return f"{v[0]} the {en_a} {w[0]}.", f"{v[1]} {A()} {w[1]}."
        if k == 1:
            return (f"Record the condition of the {en_a} in {o[0]}.", f"Consignez l'état {A('de')} dans {o[1]}.")
        if k == 2:
            en_b, fr_b, g_b, pl_b = self._term()
            verb = "are" if pl_a else "is"
            fa = A()
            return (f"The {en_a} {verb} connected to the {en_b}.",
                    f"{fa[0].upper()}{fa[1:]} {'sont' if pl_a else 'est'} {_agree('relié', g_a, pl_a)} "
                    f"{article(fr_b, g_b, pl_b, 'à')}.")
        if k == 3:
            en_b, fr_b, g_b, pl_b = self._term()
            return (f"{v[0]} the {en_a} and the {en_b} {w[0]}.", f"{v[1]} {A()} et {article(fr_b, g_b, pl_b)} {w[1]}.")
        if k == 4:
            verb = "are" if pl_a else "is"
            return (f"If the {en_a} {verb} damaged, contact {gn[0]}.",
                    f"Si {A()} {'sont' if pl_a else 'est'} {_agree('endommagé', g_a, pl_a)}, contactez {gn[1]}.")
        if k == 5:
            g = gn
            return (f"{g[0][0].upper()}{g[0][1:]} checks the {en_a} {w[0]}.", f"{g[1][0].upper()}{g[1][1:]} vérifie {A()} {w[1]}.")
        if k == 6:
            return (f"Do not operate the unit without the {en_a}.", f"Ne faites pas fonctionner l'unité sans {A()}.")
        return (f"{v[0]} the {en_a} {r[0]} and note the result in {o[0]}.",
                f"{v[1]} {r[1]} {A()} et notez le résultat dans {o[1]}.")


# --- XLIFF ---------------------------------------------------------------------------------------


def _unit_xml(uid: str, en: str, fr: Optional[str], state: str, rng: random.Random) -> str:
    en_x, fr_x = _esc(en), (None if fr is None else _esc(fr))
    # A few inline codes so readers do real work: a bold span around the first word, a placeholder.
    r = rng.random()
    if fr_x and r < 0.03:
        a, _, b = en_x.partition(" ")
        c, _, d = fr_x.partition(" ")
        en_x = f'<g id="1" ctype="bold">{a}</g> {b}'
        fr_x = f'<g id="1" ctype="bold">{c}</g> {d}'
    elif fr_x and r < 0.05:
        en_x = en_x[:-1] + ' <x id="1" ctype="x-footnote"/>' + en_x[-1:]
        fr_x = fr_x[:-1] + ' <x id="1" ctype="x-footnote"/>' + fr_x[-1:]
    if fr_x is None:
        return f'<trans-unit id="{uid}"><source>{en_x}</source></trans-unit>\n'
    return f'<trans-unit id="{uid}"><source>{en_x}</source><target state="{state}">{fr_x}</target></trans-unit>\n'


def _tu_xml(uid: str, en: str, fr: Optional[str], rng: random.Random) -> str:
    rng.random()  # the draw _unit_xml makes for inline codes: the same text stream as the XLIFF output
    tgt = "" if fr is None else f'<tuv xml:lang="fr-FR"><seg>{_esc(fr)}</seg></tuv>'
    return f'<tu tuid="{uid}"><tuv xml:lang="en-US"><seg>{_esc(en)}</seg></tuv>{tgt}</tu>\n'


def generate_tmx(words: int, concepts_n: int, out: Path, seed: int = 7, term_rate: float = 0.04,
                 zipf: float = 1.0) -> Path:
    """One TMX 1.4 file (`tmx/memory.tmx`) of `words` source words, written as it is generated (a 10M-word
    memory never sits in this process), with the glossary and a manifest like `generate`'s."""
    t0 = time.perf_counter()
    rng = random.Random(seed)
    target = out / f"termqa-bench-{words}w-{concepts_n}c-s{seed}-tmx"
    (target / "tmx").mkdir(parents=True, exist_ok=True)
    concepts = make_concepts(concepts_n, rng)
    write_tbx(target / "glossary.tbx", concepts)
    w = Writer(concepts, rng, term_rate, zipf)
    u = 0
    with open(target / "tmx" / "memory.tmx", "w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n<header creationtool="termqa-bench" '
                 'creationtoolversion="1" segtype="sentence" o-tmf="none" adminlang="en" srclang="en-US" '
                 'datatype="plaintext"/>\n<body>\n')
        while w.words < words:
            en, fr = w.sentence()
            if rng.random() < 0.1:
                en2, fr2 = w.sentence()
                en, fr = f"{en} {en2}", f"{fr} {fr2}"
            u += 1
            fh.write(_tu_xml(str(u), en, None if rng.random() < 0.005 else fr, rng))
        fh.write("</body>\n</tmx>\n")
    manifest = {"generator": "termqa bench/generate.py", "generator_version": GENERATOR_VERSION, "seed": seed,
                "words_requested": words, "source_words": w.words, "term_tokens": w.term_tokens,
                "occurrences": w.occurrences, "concept_request": concepts_n, "concepts": len(concepts),
                "segments": u, "files": ["memory.tmx"], "glossary": "glossary.tbx",
                "seconds": round(time.perf_counter() - t0, 2)}
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return target


def generate(words: int, concepts_n: int, out: Path, seed: int = 7, words_per_file: int = 100_000,
             term_rate: float = 0.04, zipf: float = 1.0) -> Path:
    t0 = time.perf_counter()
    rng = random.Random(seed)
    target = out / f"termqa-bench-{words}w-{concepts_n}c-s{seed}"
    xdir = target / "xliff"
    xdir.mkdir(parents=True, exist_ok=True)
    for old in xdir.glob("*.xlf"):
        old.unlink()
    concepts = make_concepts(concepts_n, rng)
    write_tbx(target / "glossary.tbx", concepts)
    w = Writer(concepts, rng, term_rate, zipf)
    n_files = max(1, -(-words // words_per_file))
    files, segments, empty, absent = [], 0, 0, 0
    for fi in range(n_files):
        goal = min(words, (fi + 1) * words_per_file)
        body = []
        u = 0
        while w.words < goal:
            en, fr = w.sentence()
            if rng.random() < 0.1:  # some units hold two sentences
                en2, fr2 = w.sentence()
                en, fr = f"{en} {en2}", f"{fr} {fr2}"
            u += 1
            x = rng.random()
            state = "translated"
            if x < 0.005:
                fr_out = None
                absent += 1
            elif x < 0.015:
                fr_out, state = "", "needs-translation"
                empty += 1
            else:
                fr_out = fr
                state = "final" if x < 0.3 else "needs-review-translation" if x < 0.35 else "translated"
            body.append(_unit_xml(f"{fi + 1}-{u}", en, fr_out, state, rng))
        segments += u
        name = f"part-{fi + 1:03d}.xlf"
        head = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
            f'<file original="manual-part-{fi + 1:03d}.docx" source-language="en" target-language="fr" datatype="plaintext">\n'
            "<body>\n"
        )
        (xdir / name).write_text(head + "".join(body) + "</body>\n</file>\n</xliff>\n", encoding="utf-8")
        files.append(name)
    manifest = {
        "generator": "termqa bench/generate.py",
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "words_requested": words,
        "source_words": w.words,
        "term_tokens": w.term_tokens,
        "term_token_rate": round(w.term_tokens / max(w.words, 1), 4),
        "occurrences": w.occurrences,
        "variants": w.variants,
        "concept_request": concepts_n,
        "concepts": len(concepts),
        "concepts_source_only": sum(1 for c in concepts if c.fr is None),
        "concepts_dnt": sum(1 for c in concepts if c.dnt),
        "concepts_with_acronym": sum(1 for c in concepts if c.acronym),
        "segments": segments,
        "segments_empty_target": empty,
        "segments_without_target": absent,
        "files": files,
        "glossary": "glossary.tbx",
        "seconds": round(time.perf_counter() - t0, 2),
    }
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=100_000, help="source words to generate (default 100000)")
    ap.add_argument("--concepts", type=int, default=20_000, help="glossary concepts (default 20000)")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")), help="parent folder (default /tmp)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--words-per-file", type=int, default=100_000, help="split into XLIFF files of about this many words")
    ap.add_argument("--term-rate", type=float, default=0.04, help="share of source tokens inside term occurrences")
    ap.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent of concept frequencies")
    ap.add_argument("--tmx", action="store_true", help="write one TMX file (tmx/memory.tmx) instead of XLIFF files")
    a = ap.parse_args(argv)
    if a.tmx:
        target = generate_tmx(a.words, a.concepts, a.out, a.seed, a.term_rate, a.zipf)
        m = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
        print(f"{target}: {m['source_words']} words, {m['segments']} units in tmx/memory.tmx, "
              f"{m['occurrences']} term occurrences, {m['concepts']} concepts, {m['seconds']} s")
        return 0
    target = generate(a.words, a.concepts, a.out, a.seed, a.words_per_file, a.term_rate, a.zipf)
    m = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    print(f"{target}: {m['source_words']} words, {m['segments']} segments in {len(m['files'])} files, "
          f"{m['occurrences']} term occurrences ({m['term_token_rate']:.1%} of tokens), "
          f"{m['concepts']} concepts, {m['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
