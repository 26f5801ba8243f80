"""Source-side detection: find every occurrence of every glossary concept in each document.

Terms are matched leftmost-longest on normalised lemma keys with a token trie, so inflected forms,
case variants and all synonyms of a concept are found in one pass. Acronyms the document defines
itself ("variable frequency drive (VFD)") become extra source forms of the concept for the rest of
that document.

This module holds the trie and its entries, the matching keys of tokens, the matching of one segment and
the acronyms; the variant passes are in `sourcevariants`, a whole document's matches in `occurrences`,
the cached index of a run in `sourceindex`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from termqa.config import VariantLevel
from termqa.lang.fold import exact_key, is_caps
from termqa.lang.langtags import lang_matches
from termqa.lang.normalise import loose, term_tokens
from termqa.model import Concept, Segment, Term
from termqa.pipeline import variants as vr
from termqa.pipeline.detection import Detection
from termqa.store.pickling import pickled_by_fields

# Variation categories of a source form relative to the concept's head term.
NONE = "none"
GRAPHICAL = "graphical"  # acronym, abbreviation, hyphenation, case
MORPHOSYNTACTIC = "morphosyntactic"  # inflection
REDUCTION = "reduction"
EXPANSION = "expansion"
LEXICAL = "lexical"  # a synonym listed in the glossary

_ACRONYM = re.compile(r"^[A-Z][A-Za-z0-9&]{0,2}[A-Z0-9&]{0,8}s?$")
_OPEN = {"(", "["}
_CLOSE = {")", "]"}


GAPS = frozenset(("-", "‐", "‑", "–", "/"))
# hyphens that glue the parts of one written word ("SARS-CoV-2"); an en dash or a slash joins two words
_HYPHENS = frozenset(("-", "‐", "‑"))


def is_gap(tok) -> bool:
    """Tokens that matching skips: hyphens joining the parts of a compound."""
    return tok.punct and tok.text in GAPS


# pickled in bulk: the cached source index of a 20k-concept termbase holds tens of thousands of entries
@pickled_by_fields
@dataclass(frozen=True, slots=True)
class SourceEntry:
    """One matchable source designation of a concept."""

    concept_id: str
    text: str  # surface as written in the glossary (or the document, for acronyms)
    key: tuple[str, ...]  # lemma keys
    term_type: Optional[str]
    via: str  # "glossary", "acronym", or the variant rule that made it (termqa.pipeline.variants.RULES)
    skey: tuple[str, ...] = ()  # surface keys (a term lemmatised out of context can go wrong:
    # "pompe" -> "pomper"; matching accepts a token whose lemma or surface equals either key)
    rule: str = ""  # variant rule; empty for the glossary's own designations and acronyms
    base_key: tuple[str, ...] = ()  # for a variant: the key of the designation it was made from
    pos: str = ""  # the glossary's word class of the designation, "" when it gives none
    match_case: bool = False  # found only written in the designation's own case (Term.match_case)


@dataclass(frozen=True, slots=True)
class Match:
    """One occurrence found in a segment's source (token and char spans)."""

    segment: Segment
    entry: SourceEntry
    tok_start: int
    tok_end: int
    start: int
    end: int


# the derived indexes travel with the trie (the index cache stores them built: reading them back is cheaper
# than building them); the entries go first, so that pickle writes each entry in that flat list rather than
# deep in the trie where it is first met, and reads them back in one run
@pickled_by_fields(fields=("entries", "root", "size", "derived"))
class TermTrie:
    """A token trie over normalised term keys. Values are lists of entries ending at a node."""

    __slots__ = ("root", "size", "entries", "derived")

    def __init__(self):
        self.root: dict = {}
        self.size = 0
        self.entries: list[SourceEntry] = []  # every entry added, in order (variant passes read them)
        self.derived: dict = {}  # indexes the variant passes build from `entries`: once per trie, not per document

    def add(self, entry: SourceEntry) -> None:
        self.entries.append(entry)
        self.derived.clear()
        for path in dict.fromkeys((entry.key, entry.skey or entry.key)):
            if not path:
                continue
            node = self.root
            for k in path:
                node = node.setdefault(k, {})
            ends = node.setdefault(None, [])
            if all(e.concept_id != entry.concept_id for e in ends):
                ends.append(entry)
                self.size += 1

    def longest_at(self, keys: Sequence[tuple[str, ...]], i: int) -> tuple[int, list]:
        """Longest match starting at keys[i]: (end index, entries) or (i, []).

        Each text position offers its keys (lemma, surface, exact); any may continue a path.
        """
        best_end, best = i, []
        n = len(keys)
        stack = [(self.root, i)]
        while stack:
            node, j = stack.pop()
            if j > i and None in node and (j > best_end or (j == best_end and not best)):
                best_end, best = j, node[None]
            if j >= n:
                continue
            for k in dict.fromkeys(keys[j]):  # ordered: results must not depend on hash seeds
                nxt = node.get(k)
                if nxt is not None:
                    stack.append((nxt, j + 1))
        return best_end, best


def build_entries(concepts: Sequence[Concept], src_lang: str, lemmatiser,
                  detection: Detection) -> list[SourceEntry]:
    """Every source-language designation of every concept, with its matching key.

    `detection.variants` (termqa.pipeline.detection): from `static` on, the variants generated from each
    designation follow the glossary's own entries (which win where both give the same path).
    """
    variants = detection.variants
    items: list[tuple[Concept, Term]] = []
    for c in concepts:
        for t in c.terms_in(src_lang):
            if t.text.strip():
                items.append((c, t))
    toks = lemmatiser.tokenize_many([t.text for _, t in items])
    out = []
    verbal: dict = {}
    for (c, t), tk in zip(items, toks):
        key, skey = keys_of(tk)
        if key:
            pos = t.part_of_speech or ""
            if not pos and len(key) == 1:
                if c.id not in verbal:
                    verbal[c.id] = _verb_concept(c, src_lang)
                pos = "verb" if verbal[c.id] else ""
            out.append(SourceEntry(c.id, t.text, key, t.term_type, "glossary", skey, pos=pos,
                                   match_case=t.match_case))
    if variants != VariantLevel.NONE:
        lang = src_lang.split("-")[0].lower()
        own = {e.key for e in out}
        extra = []
        for e in out:
            for rule, k in vr.static_keys(e.key, lang, e.text):
                if k not in own:
                    extra.append(SourceEntry(e.concept_id, e.text, k, e.term_type, rule, k, rule, e.key))
        out += extra + _modifier_reductions(out, lang, own | {e.key for e in extra})
    return _shared(out)


def _verb_concept(c: Concept, src_lang: str) -> bool:
    """Does a concept whose one-word source term has no word class render it by verbs (termqa.lang.verbuse
    .verb_targets: "touch" -> "toucher")? Then its verb uses are its occurrences ("don't touch your face")."""
    from termqa.lang.verbuse import verb_targets

    targets = [(t.text, t.lang or "") for t in c.terms if t.text.strip() and not lang_matches(t.lang, src_lang)]
    return bool(targets) and verb_targets(targets)


def _shared(entries: list[SourceEntry]) -> list[SourceEntry]:
    """The entries with equal words and keys made one object each (values unchanged).

    Each term's keys are made apart ("pump" anew in every term holding it; surface keys equal to the
    lemma keys as a second tuple), and pickle writes, and the index cache reads back, one object per
    object, however equal: sharing them makes the cached index smaller and faster to load.
    """
    words: dict = {}
    keys: dict = {}

    def one(key: tuple) -> tuple:
        key = tuple([words.setdefault(w, w) for w in key])
        return keys.setdefault(key, key)

    return [SourceEntry(e.concept_id, e.text, one(e.key), e.term_type, e.via, one(e.skey), e.rule, one(e.base_key),
                        e.pos, e.match_case) for e in entries]


def _modifier_reductions(entries: Sequence[SourceEntry], lang: str, taken: set) -> list[SourceEntry]:
    """The designations without their outermost adjective (variants.modifier_reductions), except a
    form that is already a designation or variant of any concept, or the reduction of designations of
    two concepts ("acute respiratory disease" and "chronic respiratory disease" both give
    "respiratory disease", which names neither)."""
    made: dict = {}
    for e in entries:
        if e.via != "glossary" or e.rule:
            continue
        k = vr.modifier_reductions(e.key, e.text, lang)
        if k is not None and k not in taken:
            made.setdefault(k, {}).setdefault(e.concept_id, e)
    return [SourceEntry(e.concept_id, e.text, k, e.term_type, "modifier_reduction", k, "modifier_reduction", e.key)
            for k, by_concept in made.items() if len(by_concept) == 1 for e in by_concept.values()]


def rendering_key(lemmatiser, text: Optional[str]) -> Optional[tuple[str, ...]]:
    """The lemma key of a rendering as written (leading articles dropped), None for no text."""
    if not text:
        return None
    return keys_of(lemmatiser.tokenize(text))[0] or None


def keys_of(tokens) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(lemma keys, surface keys) of a term's tokens: leading articles and hyphens dropped.

    A word the glossary writes in capitals (an acronym) matches only the same capitals: "TIS" is
    not "this", "DID" is not "did". Both keys are then its exact key.
    """

    toks = [x for x in term_tokens([x for x in tokens if not is_gap(x)])]
    keys, skeys = [], []
    for x in toks:
        if is_caps(x.text):
            keys.append(exact_key(x.text))
            skeys.append(keys[-1])
        else:
            keys.append(x.key)
            skeys.append(loose(x.text))
    return tuple(keys), tuple(skeys)


def form_name(key: Sequence[str]) -> str:
    """A source form's readable name: its keys joined, acronyms in their capitals ("VFD")."""
    return " ".join(k[1:] if k.startswith("=") else k for k in key)


_SURFACE: dict[str, tuple[str, str]] = {}


def surface_keys(text: str) -> tuple[str, str]:
    """(loose surface key, exact key) of a word; cached, since running text repeats its words."""
    got = _SURFACE.get(text)
    if got is None:
        if len(_SURFACE) > 500_000:
            _SURFACE.clear()
        got = _SURFACE[text] = (loose(text), exact_key(text))
    return got


def text_keys(tokens, positions) -> list[tuple[str, str, str]]:
    """(lemma key, surface key, exact key) for each content position of a text: the tokens carry
    them (computed once per distinct word by the lemmatiser); a token made elsewhere gets them here."""
    out = []
    for i in positions:
        t = tokens[i]
        out.append(t.keys or (t.key, *surface_keys(t.text)))
    return out


def content_positions(tokens) -> list[int]:
    """Indexes of the tokens matching looks at (hyphens joining compounds are skipped)."""
    return [i for i, t in enumerate(tokens) if not (t.punct and t.text in GAPS)]


def positions_and_keys(tokens) -> tuple[list[int], list[tuple[str, str, str]]]:
    """(content positions, their keys) of a text's tokens: what every matching pass reads."""
    pos = content_positions(tokens)
    return pos, text_keys(tokens, pos)


def find_in_segment(trie: TermTrie, segment: Segment, tokens, prepared: Optional[tuple] = None) -> list[Match]:
    """Leftmost-longest matches of the trie in one segment's source tokens (`prepared`: their
    `positions_and_keys`, when already computed)."""
    pos, keys = prepared or positions_and_keys(tokens)
    out = []
    root = trie.root
    i, n = 0, len(keys)
    while i < n:
        k = keys[i]
        if tokens[pos[i]].punct or (k[0] not in root and k[1] not in root and k[2] not in root):
            i += 1
            continue
        end, entries = trie.longest_at(keys, i)
        if entries:
            a, b = pos[i], pos[end - 1]
            if part_of_name(tokens, a, b):
                i = end  # "SARS" in "SARS-CoV-2": the glossary's term is not what the text names here
                continue
            for e in _exact_first(entries, keys, i, end)[:1]:  # homographs across concepts: one entry wins
                mark = e.text[:1]
                if mark == "#" or mark == "@":
                    if not _has_sigil(tokens, a, mark):
                        continue  # "AndNow" or "and now" is not the hashtag "#AndNow"
                    if not tokens[a].text.startswith(mark):  # the sign, its own token, is part of the term
                        out.append(Match(segment, e, a - 1, b + 1, tokens[a - 1].start, tokens[b].end))
                        continue
                out.append(Match(segment, e, a, b + 1, tokens[a].start, tokens[b].end))
            i = end
        else:
            i += 1
    return out


def _exact_first(entries: list, keys, i: int, end: int) -> list:
    """The entries ending at one node, the one written as the text is first: with the entries "activity"
    and "activities" (one lemma), the text "activity" is the entry "activity"'s occurrence, not an inflected
    form of "activities". Otherwise the glossary's order decides (the first entry wins)."""
    if len(entries) < 2:
        return entries
    written = tuple(keys[j][1] for j in range(i, end))
    for e in entries:
        if (e.skey or e.key) == written and e.via == "glossary":
            return [e]
    for e in entries:
        if (e.skey or e.key) == written:
            return [e]
    return entries


def homographs(trie: TermTrie) -> dict:
    """{(key, text folded): concept ids in glossary order} of the glossary designations written the same in
    several concepts ("transmission" in two termbases, one giving 传染, the other 传播). Detection gives the
    text to the first (`find_in_segment`); alignment may give it to another whose own target term the
    translation uses (termqa.pipeline.passes). Built once per trie."""
    got = trie.derived.get("homographs")
    if got is None:
        by: dict = {}
        for e in trie.entries:
            if e.via == "glossary" and not e.rule:
                ids = by.setdefault((e.key, e.text.casefold()), [])
                if e.concept_id not in ids:
                    ids.append(e.concept_id)
        got = trie.derived["homographs"] = {k: tuple(v) for k, v in by.items() if len(v) > 1}
    return got


_NOUN_ENTRY: dict = {}


def in_case(matches: list, tokens, trie: Optional[TermTrie] = None) -> list:
    """`matches` of one segment without those of a match-case entry written in another case ("settings"
    is not the UI label "Settings" marked case-sensitive). Another entry of the same words that is not
    match-case (the glossary's plain "settings") takes the match instead."""
    out = []
    for m in matches:
        if m.entry.match_case and not case_fits(tokens[m.tok_start:m.tok_end], m.entry.text):
            other = None
            if trie is not None:
                pos = [i for i in range(m.tok_start, m.tok_end) if not is_gap(tokens[i])]
                end, entries = trie.longest_at(text_keys(tokens, pos), 0)
                if end == len(pos):
                    other = next((e for e in entries if not e.match_case
                                  or case_fits(tokens[m.tok_start:m.tok_end], e.text)), None)
            if other is not None:
                out.append(replace(m, entry=other))
            continue
        out.append(m)
    return out


def case_fits(tokens, text: str) -> bool:
    """Are the words of `tokens` written in the case of the designation `text`, word by word (a capital
    where it has one, capitals throughout where it is in capitals, lower case where it is)? Inflection
    is free: "Exports" fits "Export"."""
    words = [t.text for t in tokens if not t.punct]
    mine = re.findall(r"\w+", text)
    if len(words) != len(mine):
        return "".join(words) == "".join(mine)
    for w, t in zip(words, mine):
        if len(t) > 1 and t.isupper():
            if not w.isupper():
                return False
        elif w[:1].isupper() != t[:1].isupper():
            return False
    return True


def _noun_entry(e: SourceEntry, lang: str = "en") -> bool:
    k = (e.text, e.pos, lang)
    noun = _NOUN_ENTRY.get(k)
    if noun is None:
        from termqa.lang.verbuse import noun_term

        noun = _NOUN_ENTRY[k] = noun_term(e.text, e.pos, lang)
    return noun


def without_verb_uses(matches: list, tokens, lang: str, trie: Optional[TermTrie] = None) -> list:
    """`matches` of one segment without the one-word matches of a noun term that the text uses as a verb
    ("are also hearing from" is not the glossary's "hearings"; termqa.lang.verbuse). English and French
    ("il contrôle la pompe" is not the glossary's "contrôle").

    Where the glossary also has the word as a verb (an entry whose word class it gives as "verb": TICO-19
    lists "quarantine" the noun and "quarantine" the verb), the match goes to that entry instead.
    """
    if lang not in ("en", "fr") or not matches:
        return matches
    from termqa.lang.verbuse import french_verb_use, verb_use

    used_as_verb = verb_use if lang == "en" else french_verb_use
    words = None
    out = []
    for m in matches:
        e = m.entry
        if m.tok_end - m.tok_start == 1 and not tokens[m.tok_start].text.isupper() and _noun_entry(e, lang):
            if words is None:
                words = [None if t.punct else t.text.lower().replace("\u2019", "'") for t in tokens]
            if used_as_verb(words, m.tok_start):
                verb = _verb_entry(trie, tokens, m.tok_start, lang) if trie is not None else None
                if verb is not None:
                    out.append(replace(m, entry=verb))
                continue
        elif lang == "en" and m.tok_end - m.tok_start == 1 and e.pos.strip().lower() in _VERB_CLASSES \
                and _noun_use(tokens, m.tok_start):
            # a verb entry's word right after an article is a noun ("the touch screen"): the noun entry's,
            # where the glossary has one (and no other match has it there already), else no occurrence
            noun = _noun_entry_at(trie, tokens, m.tok_start) if trie is not None else None
            if noun is not None and not any(x.entry is noun and x.tok_start == m.tok_start for x in matches):
                out.append(replace(m, entry=noun))
            continue
        out.append(m)
    return out


_ARTICLES = frozenset({"the", "a", "an"})
_VERB_CLASSES = frozenset({"verb", "v", "vb", "verbe"})


def _noun_use(tokens, i: int) -> bool:
    """Is tokens[i] right after an English article, and no participle? Then it is a noun, whatever verb it
    can also be. Participles after an article stay the verb's: "the touching of surfaces" names the action,
    "the hospitalized subject" is the verb's participle."""
    if i == 0 or tokens[i - 1].punct or tokens[i - 1].text.lower() not in _ARTICLES:
        return False
    from termqa.lang.verbuse import verb_tags

    w = tokens[i].text.lower()
    return not w.endswith(("ing", "ed")) and not verb_tags(w) & {"VBN", "VBD", "VBG"}


def _noun_entry_at(trie: TermTrie, tokens, i: int) -> Optional[SourceEntry]:
    """An entry of one word ending at tokens[i] (the same keys) that is a noun term."""
    _end, entries = trie.longest_at(text_keys(tokens, [i]), 0)
    return next((e for e in entries if _noun_entry(e, "en")), None)


def _verb_entry(trie: TermTrie, tokens, i: int, lang: str = "en") -> Optional[SourceEntry]:
    """An entry of one word ending at tokens[i] (the same keys) that the glossary says is not a noun."""
    _end, entries = trie.longest_at(text_keys(tokens, [i]), 0)
    return next((e for e in entries if e.pos and not _noun_entry(e, lang)), None)


# words a name may hold in lower case between its capitalised words ("Panel on Climate Change")
_NAME_GLUE = frozenset("of on for the and in to de du des la le et".split())
_WORD_AT = re.compile(r"[^\W\d_][\w'’-]*")


def inside_name(source: str, start: int, end: int, term: str) -> bool:
    """Is source[start:end] a lower-case glossary term written capitalised inside a longer name, a
    capitalised word right before or after it ("Intergovernmental Panel on Climate Change" holds "Climate
    Change"), glue words ("on", "of") aside? A sentence's first word alone makes no name."""
    words = _WORD_AT.findall(source[start:end])
    if not words or not term[:1].islower() or not all(w[:1].isupper() for w in words):
        return False
    before = _WORD_AT.findall(source[:start])
    while before and before[-1] in _NAME_GLUE:
        before.pop()
    if len(before) >= 2 and before[-1][:1].isupper():  # the first word of a sentence is capitalised anyway
        return True
    after = _WORD_AT.findall(source[end:])
    while after and after[0] in _NAME_GLUE:
        after.pop(0)
    return bool(after) and after[0][:1].isupper() and not after[0].isupper()


def part_of_name(tokens, a: int, b: int) -> bool:
    """Is the match over tokens a..b a proper part of one hyphen-joined name with a digit or an inner
    capital elsewhere in it ("SARS" or "CoV" in "SARS-CoV-2", "Syndrome" in "Syndrome-Coronavirus-2")?

    Such a word is a name of its own (a virus, a model, a standard), translated as a whole; the part is
    not an occurrence of the glossary's concept, and asking about it makes false flags ("no rendering of
    SARS") and judge questions. A hyphenated compound of plain words ("COVID-19-related", "beta-CoVs",
    "non-SARS") keeps its match: there the term is named; so does a plain word ending the compound, its
    head ("infected" in "SARS-CoV-2-infected", "epidemic" in "SIR-epidemic").
    """
    after = _glued(tokens, b, 1)
    if not after and tokens[a].text[:1].islower():
        return False
    rest = _glued(tokens, a, -1) + after
    return any(any(ch.isdigit() for ch in w) or any(ch.isupper() for ch in w[1:]) for w in rest)


def _glued(tokens, i: int, step: int) -> list[str]:
    """The words glued by hyphens (no space on either side) to token i, going left (-1) or right (1)."""
    out = []
    j = i
    while 0 <= j + 2 * step < len(tokens):
        h, w = tokens[j + step], tokens[j + 2 * step]
        if h.text not in _HYPHENS:
            break
        left, right = (w, h) if step < 0 else (h, w)
        if not (tokens[j].start == h.end if step < 0 else tokens[j].end == h.start) or left.end != right.start:
            break
        out.append(w.text)
        j += 2 * step
    return out


def _has_sigil(tokens, a: int, mark: str) -> bool:
    """Does the match starting at token `a` carry the sign `mark` ("#", "@") written right before it or
    as its own first character (a tokenizer may keep "@name" whole)?"""
    if tokens[a].text.startswith(mark):
        return True
    return a > 0 and tokens[a - 1].text.endswith(mark) and tokens[a - 1].end == tokens[a].start


def find_acronyms(matches: Sequence[Match], tokens_by_seg: dict) -> list[SourceEntry]:
    """Acronyms defined right after a matched term: "term (ACR)" makes ACR a form of the concept.

    The letters must plausibly come from the term (its first letter starts the acronym), so that
    a parenthesised reference like "(Fig)" is not taken for one.
    """
    found: dict[tuple[str, str], SourceEntry] = {}
    for m in matches:
        if not _has_bracket(m.segment.source):
            continue  # no "(" or "[": no definition (and no tokens asked for)
        toks = tokens_by_seg[m.segment.index]
        j = m.tok_end
        if j + 2 < len(toks) and toks[j].text in _OPEN and toks[j + 2].text in _CLOSE:
            cand = toks[j + 1].text
            if _ACRONYM.match(cand) and sum(ch.isupper() for ch in cand) >= 2:
                if cand[0].lower() == m.entry.text.strip()[:1].lower():
                    key = (exact_key(cand),)
                    found.setdefault((m.entry.concept_id, key[0]), SourceEntry(
                        m.entry.concept_id, cand, key, "acronym", "acronym", key))
    return list(found.values())


def _has_bracket(text: str) -> bool:
    return "(" in text or "[" in text


def acronym_definition_spans(matches: Sequence[Match], tokens_by_seg: dict, acronyms) -> set:
    """(segment index, char start) of acronyms standing in their own definition parentheses.

    The acronym inside "term (ACR)" is part of the definition, not a second occurrence.
    """
    keys = {(a.concept_id, a.key[0]) for a in acronyms}
    spans = set()
    for m in matches:
        if not _has_bracket(m.segment.source):
            continue
        toks = tokens_by_seg[m.segment.index]
        j = m.tok_end
        if j + 2 < len(toks) and toks[j].text in _OPEN and toks[j + 2].text in _CLOSE:
            if (m.entry.concept_id, exact_key(toks[j + 1].text)) in keys:
                spans.add((m.segment.index, toks[j + 1].start))
    return spans



def variation_and_subtype(entry: SourceEntry, surface: str, head: Optional[SourceEntry]) -> tuple[str, Optional[str]]:
    """(variation, subtype): the subtype only for variants, from the rule that found them."""
    if not entry.rule:
        return variation_of(entry, surface, head), None
    base = SourceEntry(entry.concept_id, entry.text, entry.base_key, entry.term_type, "glossary", entry.base_key)
    # the written-out conjunct of a coordination is its designation as written here: its own surface
    return vr.variation_for_rule(entry.rule, variation_of(base, surface if entry.rule == "coordinated" else entry.text,
                                                          head))


def variation_of(entry: SourceEntry, surface: str, head: Optional[SourceEntry]) -> str:
    """Variation category of a source form relative to the concept's head term (deterministic)."""
    if entry.rule:
        return variation_and_subtype(entry, surface, head)[0]
    if entry.via == "acronym" or (entry.term_type or "").lower() in ("acronym", "abbreviation", "initialism"):
        return GRAPHICAL
    if head is None or entry.key == head.key:
        if head is None:
            return NONE
        a, b = surface.casefold(), head.text.casefold()
        if a == b:
            return NONE
        if re.sub(r"[\s\-‐‑]+", "", a) == re.sub(r"[\s\-‐‑]+", "", b):
            return GRAPHICAL
        return MORPHOSYNTACTIC if a != b else NONE
    hk, ek = set(head.key), set(entry.key)
    if len(entry.key) < len(head.key) and ek <= hk:
        return REDUCTION
    if len(entry.key) > len(head.key) and hk <= ek:
        return EXPANSION
    return LEXICAL
