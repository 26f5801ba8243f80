"""Target-side alignment: find the span of the target segment that renders each source occurrence.

Without an LLM, a rendering is found as one of:
- `glossary`: an allowed target term of the concept (any status, matched on lemmas, diacritics loose
  so that misspellings are found and then judged);
- `forbidden`: a deprecated/superseded target term of the concept;
- `dnt`: the do-not-translate source item kept as it is (`dnt_altered` when only case, spacing or
  accents changed);
- `untranslated`: the source form copied into the target, and not a word of the target language;
- `copied_word`: the source form copied into the target where every word of it is also a word of the
  target language (French "influenza", Spanish "radio", German "Computer", as the language's
  lookup tables say): maybe left untranslated, maybe the target word, so never a certain error;
- `inflected` / `derived`: an inflected or a derived form of one of the concept's glossary terms, where
  none matched on lemmas (termqa.pipeline.inflection): left for review, never conforming;
- `established`: a rendering the document itself establishes for the source form: a target phrase
  mined from the chain's segments only on evidence (`mining.mine_renderings`, pass 2
  `established.align_established`);
- `closest`: for what is still open, the target words closest to a glossary target term (pass 3,
  `closest.align_closest`): shown so a person sees what is there, always left undecided.

Alignment is one-to-one within a segment: each target span answers at most one source occurrence,
renderings with more words claim first (so "corps de pompe" is not also read as "pompe"), then source
order. Occurrences left without a span are `unaligned`: kept, never dropped, and never given a guess.

This module holds the target forms of a concept, the target index of a segment and pass 1 (`candidates`,
`assign`); pass 2 is in `established` and `mining`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from termqa.lang.identify import stop_words  # noqa: F401 (stages import it from here)
from termqa.lang.langtags import primary
from termqa.lang.lexicon import is_target_word
from termqa.model import FORBIDDEN_STATUSES
from termqa.pipeline import inflection, variants as vr
from termqa.pipeline.detect import content_positions, keys_of, text_keys
from termqa.pipeline.detection import Detection
from termqa.store import indexcache
from termqa.store.pickling import pickled_by_fields

# Lower wins when two kinds propose the same span.
_PRIORITY = {"glossary": 0, "dnt": 0, "forbidden": 1, "dnt_altered": 2, "inflected": 2, "inflected_spelling": 2,
             "derived": 3,
             "established": 3, "untranslated": 4, "copied_word": 4}


@dataclass(frozen=True)
class TargetForm:
    """A target-language designation to look for: its key, surface and where it comes from."""

    key: tuple[str, ...]
    text: str
    kind: str  # glossary | forbidden | established
    status: Optional[str] = None
    skey: tuple[str, ...] = ()  # surface keys; a token matches on its lemma or surface, see detect.py
    lang: str = ""  # primary language subtag of the target designation
    rule: str = ""  # a variant of a glossary designation (termqa.pipeline.variants.RULES), else empty


@pickled_by_fields  # counting workers send alignments back
@dataclass(frozen=True, slots=True)
class Alignment:
    tok_start: int
    tok_end: int
    start: int
    end: int
    text: str
    kind: str
    form: Optional[TargetForm] = None


class TargetIndex:
    """Content-token keys of one target segment, with positions of each key for fast lookup."""

    __slots__ = ("tokens", "pos", "keys", "surf", "exact", "_starts", "morph")

    def __init__(self, tokens):

        self.tokens = tokens
        self.pos = pos = content_positions(tokens)
        ks = text_keys(tokens, pos)
        for c, i in enumerate(pos):
            t = tokens[i]
            if t[6] and t[0][:1].isalpha():  # punct: a word inside markup ("<table>", a CDATA "<bold>")
                ks[c] = _NEVER  # a tag name is never a rendering, nor a copy of the source
            elif _NUMBER_STOP.match(t[0]):
                # where a number may be an ordinal ("19." in German and, by spaCy's rules, Arabic), the full stop
                # ending a sentence stays on it: "كوفيد-19." holds the term's number "19"
                n = t[0][:-1]
                ks[c] = (n, n, "=" + n)
        self.keys = [k[0] for k in ks]
        self.surf = [k[1] for k in ks]
        self.exact = [k[2] for k in ks]
        self._starts: dict = {}  # (surface only?) -> {key: positions}, made on first use
        self.morph = None  # the words' stems (termqa.pipeline.inflection.Morph), made on first need

    def find(self, key: Sequence[str], skey: Sequence[str] = (), *, surface: bool = False,
             gap: bool = False) -> list[tuple[int, int]]:
        """Content-index spans [a, b) where the term occurs.

        A text token matches a term token when its lemma, surface or exact key equals the term's
        lemma or surface key. With `surface=True` lemmas are not compared (copies of the source).
        A term can only start where its first word is: the positions of every key are looked up (made
        once per segment), and only those starts are checked word by word. With
        `gap`, only spans with one extra word inside the term ("pompe centrifuge d'alimentation"
        for "pompe d'alimentation": an inserted modifier, termqa.pipeline.variants).
        """
        if not key:
            return []
        if gap:
            return self._find_gapped(key, skey)
        m = len(key)
        skey = tuple(skey) if skey and len(skey) == m else tuple(key)
        lists = (self.surf, self.exact) if surface else (self.keys, self.surf, self.exact)
        starts = self._starts.get(surface)
        if starts is None:
            starts = self._starts[surface] = _positions(lists)
        first = starts.get(key[0], ())
        if skey[0] != key[0]:
            first = sorted({*first, *starts.get(skey[0], ())})
        last = len(self.keys) - m
        out = []
        for a in first:
            if a > last:
                break
            for x in range(1, m):
                want = (key[x], skey[x])
                if not any(seq[a + x] in want for seq in lists):
                    break
            else:
                out.append((a, a + m))
        return out

    def _find_gapped(self, key: Sequence[str], skey: Sequence[str]) -> list[tuple[int, int]]:
        m = len(key)
        skey = tuple(skey) if skey and len(skey) == m else tuple(key)
        lists = (self.keys, self.surf, self.exact)
        out = []
        for a in range(len(self.keys) - m):
            for g in range(1, m):
                if self.tokens[self.pos[a + g]].punct or self.surf[a + g] in vr.CONJUNCTIONS:
                    continue  # "washing and hand": two phrases, not a term with a word inside
                if all(any(seq[a + x + (x >= g)] in (key[x], skey[x]) for seq in lists) for x in range(m)):
                    out.append((a, a + m + 1))
                    break
        return out

    def span(self, a: int, b: int, text: str) -> tuple[int, int, int, int, str]:
        ta, tb = self.pos[a], self.pos[b - 1]
        s, e = self.tokens[ta].start, self.tokens[tb].end
        if _NUMBER_STOP.match(self.tokens[tb][0]):
            e -= 1  # the sentence's full stop is no part of the rendering
        return ta, tb + 1, s, e, text[s:e]


# the keys of a word that markup made punctuation (termqa.lang.markupcut): no term key equals them
_NEVER = ("\x00", "\x00", "\x00")
_NUMBER_STOP = re.compile(r"\d+\.\Z")  # a number the tokenizer kept with the full stop after it


def _positions(lists) -> dict:
    """key -> the positions (ascending) where any of `lists` (of one length) holds it."""
    at: dict = {}
    for i, ks in enumerate(zip(*lists)):
        for k in dict.fromkeys(ks):  # a key met in two lists at one position counts once
            got = at.get(k)
            if got is None:
                at[k] = [i]
            else:
                got.append(i)
    return at


_OPTIONAL = re.compile(r"\s*\[[^\]]*\]")  # "подтвержденные случаи [заболевания]": the bracketed words may be left out
# a gender or number ending in brackets: "contagioso(a)" is "contagioso" or "contagiosa", "infecté(e)s" ...
_ENDING = re.compile(r"(\w+)\((a|as|e|es|s|os|x)\)")


# a full name with its abbreviation after it: "منظمة الصحة العالمية (WHO)", "非典型肺炎（SARS）"
_ABBREVIATION_AFTER = re.compile(r"^(.*\S)\s*[(（]\s*([^\s()（）]+)\s*[)）]$")


def written_forms(text: str) -> list[str]:
    """The designations a glossary term writes in one: the text, and the forms its notation stands for.

    Square brackets mark words that may be left out ("подтвержденные случаи [заболевания]", confirmed cases
    [of the disease]); an ending in parentheses glued to a word gives the word without it and with it
    ("contagioso(a)": "contagioso", "contagiosa", the "-o" the feminine replaces dropped; "infecté(e)":
    "infecté", "infectée"); an abbreviation in parentheses after a full name gives the full name, which
    names the concept alone ("Organisasi Kesehatan Dunia (WHO)": "Organisasi Kesehatan Dunia"; the
    abbreviation alone stays a question for review, termqa.pipeline.prejudge). The text itself comes
    first; a text with no such notation is its only form."""
    out = [text]
    if "[" in text:
        short = " ".join(_OPTIONAL.sub("", text).split())
        if short and short != text:
            out.append(short)
    m = _ABBREVIATION_AFTER.match(text)
    if m and len(m.group(2)) <= 12 and sum(c.isupper() for c in m.group(2)) >= 2 and not _spaceless(m.group(1)):
        # not in scripts written without spaces, matched character by character: "核糖核酸" would be found
        # inside "核糖核酸外切酶" (exoribonuclease)
        out.append(m.group(1))
    if "(" in text and _ENDING.search(text):
        out.append(_ENDING.sub(r"\1", text))
        out.append(_ENDING.sub(_with_ending, text))
    return list(dict.fromkeys(out))


_REDUPLICATED = re.compile(r"\b(\w+)-\1\b")


def single_reduplications(text: str, lang: str) -> list[str]:
    """The text, and where a word of it is a word said twice ("paru-paru", the lungs) that the language's
    lexicon lists under the word said once, the text with it said once ("paru": Indonesian writes the
    single form in compounds, "kanker paru"). A reduplication the lexicon keeps as its own word ("mata-mata",
    a spy, not "mata", an eye) is left as it is."""
    if "-" not in text:
        return [text]
    from termqa.lang.lexicon import lemmas_of

    def once(m) -> str:
        word, half = m.group(0), m.group(1)
        got = {x.lower() for x in lemmas_of(word.lower(), lang)}
        return half if half.lower() in got and word.lower() not in got else word

    single = _REDUPLICATED.sub(once, text)
    return [text, single] if single != text else [text]


def _spaceless(text: str) -> bool:
    return any("\u0e00" <= ch <= "\u0e7f" or "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff"
               or "\uac00" <= ch <= "\ud7af" for ch in text)


def _with_ending(m) -> str:
    word, end = m.group(1), m.group(2)
    if end in ("a", "as") and word.endswith(("o", "os")):
        return word[: len(word) - (1 if word.endswith("o") else 2)] + end  # "contagioso(a)": "contagiosa"
    return word + end


def target_forms(concept, tgt_lang, lemmatiser, detection: Detection, reduced: str = "") -> list[TargetForm]:
    """The concept's target designations with their lemma keys (hidden labels included: matchable).

    From `detection.variants` "static" on (the run's Detection record, termqa.pipeline.detection), the
    static variants of each allowed designation follow (a closed compound, "N du N" for "N de N"...): they
    render the term as well. `reduced` adds the parts of each multi-word designation (its head, its other
    words) for an occurrence whose source is itself a reduction or coordination ("la pompe" renders "the
    pump" said of the centrifugal pump); `reduced="insertion"` the designations with one inserted word;
    `reduced="modifier_reduction"` each designation of three words or more without its outermost modifier
    ("équipement de protection" renders "protective equipment" said of personal protective equipment).
    """

    lang = primary(tgt_lang)
    terms = [(t, x) for t in concept.terms_in(tgt_lang) if t.text.strip()
             for w in written_forms(t.text) for x in single_reduplications(w, lang)]
    toks = lemmatiser.tokenize_many([x for _t, x in terms])
    out = []
    for (t, text), tk in zip(terms, toks):
        key, skey = keys_of(tk)
        if key:
            kind = "forbidden" if t.status in FORBIDDEN_STATUSES else "glossary"
            out.append(TargetForm(key, text, kind, t.status, skey, lang))
    if not detection.any_variants:
        return out
    own = {f.key for f in out}
    extra = []
    for f in out:
        if f.kind != "glossary":
            continue
        for rule, k in vr.static_keys(f.key, lang, f.text):
            if k not in own:
                extra.append(TargetForm(k, f.text, "glossary", f.status, k, lang, rule))
        if reduced == "modifier_reduction" and len(f.key) >= 3:
            k = vr.outer_modifier_dropped(f.key, lang)
            if k and k not in own:
                extra.append(TargetForm(k, f.text, "glossary", f.status, k, lang, "modifier_reduction"))
        elif reduced == "insertion" and len(f.key) >= 2:
            extra.append(TargetForm(f.key, f.text, "glossary", f.status, f.skey, lang, "insertion"))
        elif reduced and len(f.key) >= 2:
            sk = f.skey if len(f.skey) == len(f.key) else f.key
            h = 0 if lang in vr.HEAD_FIRST else len(f.key) - 1
            stop = stop_words(lang)
            for i in [h] + [i for i, k in enumerate(f.key)
                            if i != h and k.isalpha() and len(k) >= 3 and k not in stop and sk[i] not in stop]:
                if (f.key[i],) not in own:
                    extra.append(TargetForm((f.key[i],), f.text, "glossary", f.status, (sk[i],), lang, "reduction"))
    return out + extra


class StoredForms:
    """`target_forms` kept between runs: a table of the index cache per target language, lemmatiser
    (tables and mode) and variant level (`detection.variants`), one row per concept's target designations
    and `reduced` kind.

    A row is keyed by what `target_forms` reads of the concept (its target terms' texts and statuses),
    not by its id: an edited designation is another row, and two termbases sharing a concept share it.
    Deriving the static variants of every concept found (the lexicon consulted for each word) cost a
    tenth of a warm 100k-word run; reading them back is one query per document.
    """

    def __init__(self, tgt_lang: str, lemmatiser, detection: Detection):
        self.tgt_lang = tgt_lang
        cache = indexcache.active()
        self.table = cache.table(indexcache.make_key("target-forms", lemmatiser.name, lemmatiser.mode,
                                                     tgt_lang, detection.variants)) if cache.enabled else None
        self.fresh: dict = {}

    def row(self, concept, reduced: str) -> str:
        terms = concept.terms_in(self.tgt_lang)
        return reduced + "".join(f"\x1e{t.text}\x1f{t.status}" for t in terms)

    def fetch(self, wanted) -> dict:
        """{(concept id, reduced): forms} of the (concept, reduced) pairs of `wanted` the table holds."""
        if self.table is None or not wanted:
            return {}
        rows = {(c.id, r): self.row(c, r) for c, r in wanted}
        got = self.table.get_many(rows.values())
        out = {}
        for k, row in rows.items():
            value = got.get(row)
            if value is not None:
                try:
                    out[k] = [TargetForm(*f) for f in value]
                except TypeError:  # a row of another shape: made again
                    pass
        return out

    def keep(self, concept, reduced: str, forms: Sequence[TargetForm]) -> None:
        if self.table is not None:
            self.fresh[self.row(concept, reduced)] = tuple(
                (f.key, f.text, f.kind, f.status, f.skey, f.lang, f.rule) for f in forms)

    def save(self) -> None:
        if self.table is not None and self.fresh:
            self.table.put_many(self.fresh)
        self.fresh = {}


def copy_kind(tokens, forms: Sequence[TargetForm]) -> str:
    """`untranslated`, or `copied_word` when every word of the copied span is also a word of the
    target language (the language of the concept's target forms) as its lexicon knows it."""
    lang = next((f.lang for f in forms if f.lang), "")
    words = [t.text for t in tokens if not t.punct]
    if lang and words and all(is_target_word(w, lang) for w in words):
        return "copied_word"
    return "untranslated"


def classify_rendering(tokens, forms: Sequence[TargetForm], source_skey: Sequence[str],
                       has_target_terms: bool) -> tuple[str, Optional[TargetForm]]:
    """The alignment kind of a rendering found some other way (the judge copied it from the segment):
    the same matching as `candidates`, on the whole span. Returns (kind, glossary form or None)."""
    idx = TargetIndex(tokens)
    whole = (0, len(idx.pos))
    for f in forms:
        if whole in idx.find(f.key, f.skey):
            return f.kind, f
    if has_target_terms and whole in idx.find(tuple(source_skey), surface=True):
        return copy_kind(tokens, forms), None
    return "established", None


@dataclass(slots=True)
class Pending:
    """What alignment needs to know about one source occurrence."""

    index: int  # position in the document's occurrence list
    concept_id: str
    source_form: str
    source_surface_key: tuple[str, ...]
    source_text: str
    dnt: bool
    forms: Sequence[TargetForm]  # glossary target forms of the concept
    has_target_terms: bool
    in_name: bool = False  # the source writes the term inside a longer name (`detect.inside_name`)


def candidates(p: Pending, idx: TargetIndex, target: str, extra: Sequence[TargetForm] = (),
               inflected: bool = False) -> list[tuple]:
    """(priority, -length in words, start, Alignment) for every span that could render `p`.

    Inflected and derived forms are looked for where no glossary term matched, or when `inflected` (the
    glossary's matches went to the segment's other occurrences of the concept: "بحثك ... البحث" for
    "your search ... your search").

    Length counts words, not characters: "infections" is no longer a rendering than "infection", so
    two occurrences of one term pair with its renderings in source order.
    """
    out = []

    def add(a, b, kind, form=None):
        ta, tb, s, e, txt = idx.span(a, b, target)
        out.append((_PRIORITY[kind], -(b - a), s, Alignment(ta, tb, s, e, txt, kind, form)))

    if p.dnt:
        for a, b in idx.find(p.source_surface_key, surface=True):
            ta, tb, s, e, txt = idx.span(a, b, target)
            add(a, b, "dnt" if txt == p.source_text else "dnt_altered")
    for f in p.forms:
        for a, b in idx.find(f.key, f.skey, gap=f.rule == "insertion"):
            add(a, b, f.kind, f)
    if not p.dnt and p.forms and (inflected or not out):
        # no term of the glossary matched on lemmas: an inflected or derived form of one of them
        lang = next((f.lang for f in p.forms if f.lang), "")
        if lang:
            idx.morph, found = inflection.find(idx, p.forms, lang, idx.morph)
            for a, b, kind, f in found:
                add(a, b, kind, f)
    for f in extra:
        for a, b in idx.find(f.key, f.skey):
            add(a, b, "established", f)
    if not p.dnt and p.has_target_terms:
        for a, b in idx.find(p.source_surface_key, surface=True):
            ta, tb = idx.pos[a], idx.pos[b - 1] + 1
            if _capitalised_copy(p.source_text, idx.tokens[ta], target, p.forms):
                continue  # "Assays" of the name "Origami Assays" kept as written is no copy of "assays"
            add(a, b, copy_kind(idx.tokens[ta:tb], p.forms))
    return out


# target languages that capitalise every noun: a capital there says nothing of a name
_NOUNS_CAPITALISED = frozenset({"de", "lb"})


def _capitalised_copy(source_text: str, first, target: str, forms: Sequence[TargetForm]) -> bool:
    """Is a copy of a source term written in lower case capitalised in the target, not at the start of a
    sentence (nor in a language that capitalises its nouns)? Then it is part of a name the target keeps,
    not the term left untranslated."""
    if not source_text[:1].islower() or not first.text[:1].isupper():
        return False
    if any(f.lang in _NOUNS_CAPITALISED for f in forms):
        return False
    before = target[:first.start].rstrip()
    return bool(before) and before[-1] not in ".!?:;\u3002\"«“(["



def assign(pendings: Sequence[Pending], cands: dict[int, list[tuple]]) -> dict[int, Alignment]:
    """One-to-one assignment within a segment: longest spans first, then source order.

    Spans may not overlap: a rendering nested inside a longer one already claimed is not reused.
    Among equally long spans of one occurrence the best kind, then the earliest, wins. An occurrence
    written inside a longer name ("Intergovernmental Panel on Climate Change") comes after the plain
    ones: the name is translated as a whole ("... sur l'évolution du climat"), and the glossary's
    rendering in the segment ("changements climatiques") belongs to the plain "climate change".
    """
    pool = []
    for order, p in enumerate(pendings):
        for prio, neglen, start, al in cands.get(p.index, ()):
            pool.append((neglen, p.in_name, order, prio, start, p.index, al))
    pool.sort(key=lambda x: x[:5])
    taken: list[tuple[int, int]] = []
    done: dict[int, Alignment] = {}
    for _neglen, _in_name, _order, _prio, _start, i, al in pool:
        if i in done:
            continue
        if any(al.start < e and s < al.end for s, e in taken):
            continue
        done[i] = al
        taken.append((al.start, al.end))
    return done
