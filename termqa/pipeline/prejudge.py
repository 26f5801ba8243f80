"""Deterministic verdicts: what counting can settle without any model.

Conforming (glossary term, admitted term, DNT kept, the document's own majority rendering for forms
without a glossary reference), and errors that are certain: a deprecated/forbidden target term (A1),
a source term left untranslated although the glossary has a target term and the copy is not also a
word of the target language (A4), a do-not-translate item translated or altered (A5), a glossary
term misspelt in its diacritics where the found word is not itself a form of the term's lemma (F). Everything else is
`unjudged` with the reason, for the judge or a person; it is never scored as 0.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Optional, Sequence

from termqa.lang.langtags import primary
from termqa.lang.lemma import Lemmatiser, Token
from termqa.lang.normalise import marks_inflect, spelling_issue, term_key, term_tokens, uncertain_spelling
from termqa.model import CONFORMING, ERROR, GENERATED, GLOSSARY, PREFERRED, UNJUDGED, Concept, Reference, Segment, Span
from termqa.pipeline.align import TargetForm
from termqa.labels import (  # noqa: F401 (the reasons this stage gives, importable from it as before)
    R_ACRONYM_KEPT, R_COPIED_WORD, R_COPY_UNKNOWN, R_DIVERGES_GLOSSARY, R_DIVERGES_MAJORITY, R_HAPAX, R_HEAD_DROPPED,
    R_DERIVED, R_IN_KEPT_NAME, R_INFLECTED, R_MISALIGNED, R_MISSING, R_NO_REFERENCE, R_SHORT_FORM_KEPT, R_SPELLING_PSEUDO,
    R_SPELLING_INFLECTED, R_SPELLING_VARIANT, Rule,
)
from termqa.score import penalty_for
from termqa.pipeline.variants import CONJUNCTIONS

# variant rules of a target form that may leave out words of the designation (termqa.pipeline.align):
# their renderings conform only when they keep the term's head noun
_CUTTING_RULES = frozenset({"reduction", "coordination", "modifier_reduction"})
_SHARED_HEAD_WINDOW = 6  # words between a coordinated rendering's conjunction and the head it shares


@dataclass(frozen=True)
class Decision:
    outcome: str
    label: Optional[str]
    reason: str
    rule: Optional[Rule] = None  # which deterministic rule decided (None when unjudged)


def _error(rule: Rule, reason: str) -> Decision:
    """An error a rule settles, scored under the rule's label."""
    return Decision(ERROR, rule.label, reason, rule)


def _conforming(rule: Rule, reason: str) -> Decision:
    return Decision(CONFORMING, None, reason, rule)


def acronym_like(text: str) -> bool:
    """An abbreviation: one word of at most ten characters with two or more capitals (WHO, CoV)."""
    return bool(text) and " " not in text.strip() and len(text.strip()) <= 10 and \
        sum(c.isupper() for c in text) >= 2


# "Left untranslated" is certain only when the copy is clearly not a word of the target text: written in
# another script than the text around it, or absent from a word list that knows nearly all the rest of
# the segment. spaCy's lookup tables are thin for some languages (Indonesian knows ~60 % of running
# text, French ~90 %): there "pneumonia" kept in an Indonesian text may well be Indonesian, and the
# judge decides.
_LETTERS = re.compile(r"[^\W\d_]+")
KNOWN_SHARE = 0.85  # of the segment's other words the word list must know before its silence counts
KNOWN_MIN_WORDS = 5


def _latin(word: str) -> bool:
    return all(ord(c) < 0x250 for c in word)


def contains_form(term: str, form: str) -> bool:
    """Does a glossary term write `form` inside it as a whole piece ("核糖核酸（RNA）" holds "RNA")?"""
    t, f = term.casefold(), form.casefold().strip()
    if not f or t == f:
        return False
    at = t.find(f)
    while at >= 0:
        before, after = t[at - 1:at], t[at + len(f):at + len(f) + 1]
        if not (before.isalnum() and _latin(before)) and not (after.isalnum() and _latin(after)):
            return True
        at = t.find(f, at + 1)
    return False


def copy_is_foreign(rendering: str, target: str, t0: int, t1: int, is_word) -> bool:
    """Is a source term copied into the target (target[t0:t1]) certainly not a word of the target text?
    `is_word(word)` says whether the target language's word list knows a word."""
    words = _LETTERS.findall(rendering)
    if not words:
        return False
    around = _LETTERS.findall(target[:t0] + " " + target[t1:])
    if all(_latin(w) for w in words):
        other = [w for w in around if not _latin(w)]
        if len(other) > len(around) / 2:  # a Latin word in a Cyrillic, Han, Arabic... text
            return True
    if not around:
        return False
    # a short segment ("Nettoyez le strainer.") counts only when the list knows every other word of it
    need = KNOWN_SHARE if len(around) >= KNOWN_MIN_WORDS else 1.0
    return sum(1 for w in around if is_word(w)) >= need * len(around)


_PREV_WORD = re.compile(r"(\w[\w'’-]*)\W{0,3}$")
_NEXT_WORD = re.compile(r"^\W{0,3}(\w[\w'’-]*)")
# a word of letters only, next to the term across spaces only: not a placeholder ("%(space1Name)s") nor markup
_PREV_LETTERS = re.compile(r"(?<!\w)([^\W\d_]{3,})[ \u00a0]+$")
_NEXT_LETTERS = re.compile(r"^[ \u00a0]+([^\W\d_]{3,})(?!\w)")


def inside_kept_name(source: str, s0: int, s1: int, target: str, t0: int, t1: int) -> bool:
    """Is a copied source term part of a longer expression the translation kept as it is?

    "Centre for Evidence-Based Medicine" left in English around "Medicine" is a name kept on
    purpose, not the term left untranslated: the word next to the term is the same on both sides.
    A target that is its whole source again ("Filter activities" in a Japanese file) keeps no name: the
    segment was not translated at all.
    """
    if source.strip() == target.strip():
        return False
    for pat, a, b in ((_PREV_WORD, source[:s0], target[:t0]), (_NEXT_WORD, source[s1:], target[t1:])):
        ms, mt = pat.search(a), pat.search(b)
        if ms and mt and ms.group(1) == mt.group(1):
            return True
    return False


def decide(*, kind: Optional[str], rendering: Optional[str], concept: Concept, reference: Optional[Reference],
           form: Optional[TargetForm], chain_size: int, same_as_reference: bool, spelling: Optional[str],
           target_terms: Sequence[str] = (), in_kept_name: bool = False, foreign: bool = True) -> Decision:
    """The verdict for one occurrence from its alignment.

    kind: alignment kind (glossary, forbidden, dnt, dnt_altered, untranslated, copied_word, established)
    or None.
    form: the glossary TargetForm matched (glossary/forbidden kinds). spelling: spelling_issue() of the
    rendering against `form` (glossary kind) or the pseudo-reference (established kind).
    target_terms: the texts of the concept's target-language terms. in_kept_name: an untranslated
    copy stands inside a longer expression the translation kept in the source language. foreign: the
    copy is certainly not a word of the target text (`copy_is_foreign`).
    """
    ref_text = reference.text if reference else None
    if kind is None:
        if concept.dnt:
            return _error(Rule.DNT_MISSING, f"do-not-translate item '{ref_text}' not found in the target "
                          "(translated, altered or omitted)")
        if reference is None:
            return Decision(UNJUDGED, None, R_HAPAX if chain_size == 1 else R_NO_REFERENCE)
        return Decision(UNJUDGED, None, R_MISSING)
    if kind == "closest":
        # the closest candidate the target holds (termqa.pipeline.closest): shown, never decided
        return Decision(UNJUDGED, None, R_DIVERGES_GLOSSARY if reference is not None else R_NO_REFERENCE)
    if kind == "dnt":
        return _conforming(Rule.DNT_KEPT, "do-not-translate item kept as is")
    if kind == "dnt_altered":
        return _error(Rule.DNT_ALTERED, f"do-not-translate item altered: '{rendering}' instead of '{ref_text}'")
    if concept.dnt and kind in ("glossary", "forbidden"):
        return _error(Rule.DNT_TRANSLATED, f"do-not-translate item translated as '{rendering}'; keep '{ref_text}'")
    if kind == "inflected":
        # only the stem agrees with a glossary term: likely the term in another case or number, not certain
        return Decision(UNJUDGED, None, R_INFLECTED)
    if kind == "inflected_spelling":
        return Decision(UNJUDGED, None, R_SPELLING_INFLECTED)
    if kind == "derived":
        return Decision(UNJUDGED, None, R_DERIVED)
    if kind == "copied_word":
        # French "influenza" is English and French: the copy may be the right target word
        return Decision(UNJUDGED, None, R_COPIED_WORD)
    if kind == "untranslated":
        if in_kept_name:
            return Decision(UNJUDGED, None, R_IN_KEPT_NAME)
        if acronym_like(rendering or "") and not any(acronym_like(t) for t in target_terms):
            # "CoV" kept in a French text whose glossary lists only "coronavirus": target texts often
            # keep such abbreviations, so this is for the judge, not a certain error
            return Decision(UNJUDGED, None, R_ACRONYM_KEPT)
        if rendering and any(contains_form(t, rendering) for t in target_terms):
            return Decision(UNJUDGED, None, R_SHORT_FORM_KEPT)
        if not foreign:
            return Decision(UNJUDGED, None, R_COPY_UNKNOWN)
        return _error(Rule.UNTRANSLATED, f"left untranslated; the glossary gives '{ref_text}'")
    if kind == "forbidden":
        status = form.status if form else "deprecated"
        return _error(Rule.FORBIDDEN_TERM, f"'{rendering}' is {status} in the glossary; use '{ref_text}'")
    if kind == "glossary":
        if spelling:
            return _error(Rule.SPELLING, spelling)
        if form is not None and form.status == PREFERRED or (ref_text and form and form.text == ref_text):
            return _conforming(Rule.GLOSSARY, "matches the glossary's preferred term")
        return _conforming(Rule.GLOSSARY_ADMITTED, f"matches the glossary term '{form.text if form else rendering}'"
                           f" ({form.status if form else 'allowed'})")
    # established: a rendering the document uses, not a glossary term
    if reference is not None and reference.provenance == GLOSSARY:
        return Decision(UNJUDGED, None, R_DIVERGES_GLOSSARY)
    if same_as_reference and reference is not None and reference.provenance == GENERATED and not spelling:
        # a generated reference comes from the concept, not from this output: matching it is not
        # circular, even for a single occurrence
        return _conforming(Rule.REFERENCE, f"matches the generated reference '{ref_text}'")
    if chain_size == 1:
        return Decision(UNJUDGED, None, R_HAPAX)
    if same_as_reference:
        if spelling:
            return Decision(UNJUDGED, None, R_SPELLING_PSEUDO)
        return _conforming(Rule.PSEUDO_REFERENCE, "matches the document's majority rendering (no glossary term)")
    return Decision(UNJUDGED, None, R_DIVERGES_MAJORITY)


# a copy whose writing the rules could not call certain (an abbreviation, the glossary's short form)
_UNCERTAIN_WRITING = (R_ACRONYM_KEPT, R_SHORT_FORM_KEPT)


def one_verdict_per_copy(verdicts: list) -> list:
    """The same source term kept the same way in one document is one problem with one verdict.

    Where a place of it was left to the judge for its writing (an abbreviation, the glossary's own short
    form), every place goes to the judge. Where places differ only in what the word list knew of the text
    around them (`copy_is_foreign`), the question is about the word, asked in several contexts: it is
    "left untranslated" where most of its places said so, else every place goes to the judge (a kept
    "sputum", vouched for once in six Indonesian segments, is for the judge; "SARS-CoV-2" kept in 40
    French segments of 41 is untranslated)."""
    a4: dict = {}
    unsure: dict = {}
    for v in verdicts:
        if not v.occurrence.target_text:
            continue
        if v.label == "A4":
            a4.setdefault(_copy_key(v.occurrence), []).append(v)
        elif v.reason in _UNCERTAIN_WRITING or v.reason == R_COPY_UNKNOWN:
            unsure.setdefault(_copy_key(v.occurrence), []).append(v)
    settle: dict = {}
    for k, vs in unsure.items():
        errors = a4.get(k)
        if not errors:
            continue
        writing = next((u for u in vs if u.reason in _UNCERTAIN_WRITING), None)
        if writing is not None or len(vs) >= len(errors):
            settle[k] = writing or vs[0]  # to the judge, everywhere
        else:
            settle[k] = errors[0]  # untranslated, everywhere
    if not settle:
        return verdicts
    out = []
    for v in verdicts:
        s = settle.get(_copy_key(v.occurrence)) if v.occurrence.target_text else None
        if s is None or (v.label != "A4" and v.reason not in _UNCERTAIN_WRITING and v.reason != R_COPY_UNKNOWN):
            out.append(v)
        else:
            out.append(replace(v, outcome=s.outcome, label=s.label, penalty=s.penalty, reason=s.reason,
                               judge=s.judge, extra=s.extra))
    return out


def _copy_key(o) -> tuple:
    return o.doc_id, o.concept_id, o.source_form, " ".join(o.target_text.casefold().split())


def verdict_fields(d: Decision, table: Mapping[str, float]) -> dict:
    """The Verdict fields a decision sets (penalty from `table`), for building or replacing verdicts."""
    return {"outcome": d.outcome, "label": d.label, "penalty": penalty_for(d.outcome, d.label, table),
            "reason": d.reason, "judge": "rule" if d.rule else None,
            "extra": (("rule", d.rule.value),) if d.rule else ()}  # the id: records hold plain data


class Rules:
    """The one place a deterministic verdict is built: `termqa check`, the judge stage (after it aligned
    an occurrence or changed its reference) and `termqa compare` (after sharing references) all ask it.

    It works out what `decide` needs from the rendering: its spelling against the glossary form it
    matched (or against the reference it equals), whether it equals the reference, and whether a copied
    source term sits inside a longer expression kept in the source language. Spelling depends only on
    the texts, and renderings repeat, so each pair is checked once.
    """

    def __init__(self, lem: Callable[[str], Lemmatiser], table: Mapping[str, float]):
        self.lem = lem
        self.table = table
        self._spelling: dict = {}
        self._reference_keys: dict = {}
        self._heads: dict = {}

    def spelling(self, lang: str, rendering: str, expected: str,
                 expected_tokens: Optional[Sequence[Token]] = None) -> Optional[str]:
        k = (lang, rendering, expected)
        if k not in self._spelling:
            lt = self.lem(lang)
            exp = expected_tokens if expected_tokens is not None else term_tokens(lt.tokenize(expected))
            self._spelling[k] = spelling_issue(term_tokens(lt.tokenize(rendering)), exp, lang)
        return self._spelling[k]

    def uncertain(self, lang: str, rendering: str, expected: str) -> bool:
        """Is the spelling issue of `rendering` one the language leaves to the judge (normalise.uncertain_spelling)?"""
        lt = self.lem(lang)
        return uncertain_spelling(lt.tokenize(rendering), lt.tokenize(expected), lang)

    def reference_key(self, lang: str, text: str) -> tuple:
        """(lemma key, tokens) of a reference text."""
        k = (lang, text)
        if k not in self._reference_keys:
            toks = term_tokens(self.lem(lang).tokenize(text))
            self._reference_keys[k] = (term_key(toks), toks)
        return self._reference_keys[k]

    def decide(self, *, kind: Optional[str], form: Optional[TargetForm], rendering: Optional[str],
               rendering_key: Optional[tuple], concept: Concept, reference: Optional[Reference], chain_size: int,
               tgt_lang: str, segment: Optional[Segment] = None, source_span: Optional[Span] = None,
               target_span: Optional[Span] = None) -> tuple[Decision, Optional[str]]:
        """The decision for one occurrence, and the spelling issue found (None when the spelling is fine).

        kind, form: the alignment kind and glossary form matched (termqa.pipeline.align); rendering and
        rendering_key: the aligned target text and its lemma key; segment and spans locate a copied term.
        """
        lang = primary(tgt_lang)
        spelling, same = None, False
        if rendering is not None:
            if kind == "glossary" and form is not None:
                spelling = self.spelling(lang, rendering, form.text)
            elif kind == "established" and reference is not None and reference.text:
                key, toks = self.reference_key(lang, reference.text)
                same = key == rendering_key
                if same:
                    spelling = self.spelling(lang, rendering, reference.text, toks)
        if kind == "glossary" and form is not None and form.rule in _CUTTING_RULES and \
                self.drops_head(lang, form, segment, target_span):
            return Decision(UNJUDGED, None, R_HEAD_DROPPED), None
        if spelling and kind == "glossary" and self.uncertain(lang, rendering, form.text):
            return Decision(UNJUDGED, None, R_SPELLING_VARIANT), None
        if spelling and kind == "glossary" and self.marks_inflect(lang, rendering, form.text):
            # Czech "anotací" for "anotace": the length mark makes a case form, not a misspelling
            return Decision(UNJUDGED, None, R_INFLECTED), None
        if spelling and kind == "glossary" and self.inflected_copy(lang, rendering, rendering_key, segment, source_span):
            # "diesels" for "diesel" (glossary "diésel"): the source word kept, inflected, and a word of the target
            # language: maybe a misspelt plural, maybe a correct one that moves its accent (Spanish "pangolines"
            # for "pangolín"); the exact copy "diesel" is the misspelling (below)
            return Decision(UNJUDGED, None, R_COPIED_WORD), None
        if spelling and kind == "glossary" and self.copied_in_name(rendering, segment, source_span, target_span):
            # "Hygiene" in "London School of Hygiene" kept in English: the name kept, not "hygiène" misspelt.
            # Elsewhere a copy that differs from the glossary term only in its accents is the misspelling
            # ("diesel" for "diésel"), even though it is also the source word.
            return Decision(UNJUDGED, None, R_IN_KEPT_NAME), None
        if not spelling and kind == "glossary" and self.loan_in_kept_name(lang, rendering, segment, source_span,
                                                                         target_span):
            # "sendet Space Invaders" for "sends space invaders": the glossary's loan word "Space" is there, but as
            # part of a name kept in the source language, not as the term
            return Decision(UNJUDGED, None, R_IN_KEPT_NAME), None
        copied = kind == "untranslated"
        kept = bool(copied and segment is not None and source_span is not None and target_span is not None and
                    inside_kept_name(segment.source, source_span.start, source_span.end, segment.target,
                                     target_span.start, target_span.end))
        foreign = True
        if copied and rendering and segment is not None and target_span is not None and segment.target:
            from termqa.lang.lexicon import is_target_word

            foreign = copy_is_foreign(rendering, segment.target, target_span.start, target_span.end,
                                      lambda w: is_target_word(w, lang))
        d = decide(kind=kind, rendering=rendering, concept=concept, reference=reference, form=form,
                   chain_size=chain_size, same_as_reference=same, spelling=spelling,
                   target_terms=[t.text for t in concept.terms_in(tgt_lang)] if copied else (), in_kept_name=kept,
                   foreign=foreign)
        return d, spelling

    def inflected_copy(self, lang: str, rendering: Optional[str], rendering_key: Optional[tuple],
                       segment: Optional[Segment], source_span: Optional[Span]) -> bool:
        """Is a rendering the source term kept as written, but inflected ("diesels" for "diesel"), with
        every word a word of the target language? (The exact copy is `copied_word` at alignment.)"""
        if not rendering or not rendering_key or segment is None or source_span is None:
            return False
        source = segment.source[source_span.start:source_span.end]
        if not source or source == rendering:
            return False
        from termqa.lang.lexicon import is_target_word
        from termqa.pipeline.detect import keys_of

        lt = self.lem(lang)
        if keys_of(lt.tokenize(source))[0] != tuple(rendering_key):
            return False
        return all(is_target_word(t.text, lang) for t in lt.tokenize(rendering) if not t.punct)

    def marks_inflect(self, lang: str, rendering: Optional[str], expected: str) -> bool:
        """Does the rendering differ from the glossary term only by length marks in its endings, the marks
        that tell case forms apart (normalise.marks_inflect)?"""
        if not rendering:
            return False
        lt = self.lem(lang)
        return marks_inflect(lt.tokenize(rendering), lt.tokenize(expected), lang)

    @staticmethod
    def copied_in_name(rendering: Optional[str], segment: Optional[Segment], source_span: Optional[Span],
                       target_span: Optional[Span]) -> bool:
        """Is the rendering the source term written as in the source, inside a longer expression the
        translation kept as it is (`inside_kept_name`)?"""
        if not rendering or segment is None or source_span is None or target_span is None or not segment.target:
            return False
        if segment.source[source_span.start:source_span.end] != rendering:
            return False
        return inside_kept_name(segment.source, source_span.start, source_span.end, segment.target,
                                target_span.start, target_span.end)

    @staticmethod
    def loan_in_kept_name(lang: str, rendering: Optional[str], segment: Optional[Segment],
                          source_span: Optional[Span], target_span: Optional[Span]) -> bool:
        """Is a glossary term written as the source word (a loan word: "Space" for "space") next to another
        source word the target keeps with a capital where the source writes it in lower case, and which is no
        word of the target language ("Space Invaders" in a German text for "space invaders")? Then the
        translation writes the two as a name or title kept as it is. (A name the source already capitalises
        is the source's own, `detect.inside_name`; UI strings often write names in lower case.)"""
        if not rendering or segment is None or source_span is None or target_span is None or not segment.target:
            return False
        if segment.source[source_span.start:source_span.end].casefold() != rendering.casefold():
            return False
        from termqa.lang.lexicon import is_target_word

        src, tgt = segment.source, segment.target
        for pat, a, b in ((_PREV_LETTERS, src[:source_span.start], tgt[:target_span.start]),
                          (_NEXT_LETTERS, src[source_span.end:], tgt[target_span.end:])):
            ms, mt = pat.search(a), pat.search(b)
            if ms and mt and ms.group(1)[0].islower() and mt.group(1)[0].isupper() and \
                    ms.group(1).casefold() == mt.group(1).casefold() and not is_target_word(mt.group(1), lang):
                return True
        return False

    def head(self, lang: str, text: str) -> Optional[str]:
        """The head noun (lemma key) of a target designation, None for a one-word one."""
        k = (lang, text)
        if k not in self._heads:
            from termqa.pipeline.detect import keys_of
            from termqa.pipeline.variants import head_noun

            self._heads[k] = head_noun(keys_of(self.lem(lang).tokenize(text))[0], lang)
        return self._heads[k]

    def drops_head(self, lang: str, form: TargetForm, segment: Optional[Segment],
                   target_span: Optional[Span]) -> bool:
        """Does a reduced target form leave out its designation's head noun ("l'opposition" for
        "partis de l'opposition"), outside a coordination whose other conjunct carries the head ("vannes
        d'entrée et de sortie": "de sortie" shares "vannes")? Such a rendering may name something else:
        it never conforms by rule."""
        head = self.head(lang, form.text)
        if head is None or head in form.key or head in form.skey:
            return False
        return not (segment is not None and target_span is not None and
                    self.shares_head(lang, segment.target or "", target_span, head))

    def shares_head(self, lang: str, target: str, span: Span, head: str) -> bool:
        """Is the rendering at `span` a conjunct of a coordination whose head noun `head` is written once
        for both: head first (French), the head before the conjunction that opens the rendering; head
        last (English), the head after the conjunction that follows it."""
        from termqa.pipeline.variants import HEAD_FIRST

        toks = [t for t in self.lem(lang).tokenize(target) if not t.punct]
        inside = [i for i, t in enumerate(toks) if span.start <= t.start and t.end <= span.end]
        if not inside:
            return False

        def is_head(t) -> bool:
            return head == t.key or head in (t.keys or ())

        if lang in HEAD_FIRST:
            before = [i for i in range(max(0, inside[0] - 3), inside[0]) if toks[i].key in CONJUNCTIONS]
            if not before:
                return False
            j = before[-1]
            return any(is_head(t) for t in toks[max(0, j - _SHARED_HEAD_WINDOW):j])
        after = [i for i in range(inside[-1] + 1, min(len(toks), inside[-1] + 2)) if toks[i].key in CONJUNCTIONS]
        if not after:
            return False
        j = after[0]
        return any(is_head(t) for t in toks[j + 1:j + 1 + _SHARED_HEAD_WINDOW])

    def fields(self, **kw: Any) -> dict:
        """`verdict_fields` of `decide(**kw)`: what a Verdict built or replaced from the rules holds."""
        return verdict_fields(self.decide(**kw)[0], self.table)
