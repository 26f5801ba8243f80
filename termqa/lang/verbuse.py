"""Is a word of the source text a verb here, where the glossary's term is a noun?

A noun term matches on lemmas, so "are also hearing from" finds the glossary's "hearings", "This helps
Mozilla" the UI label "Help", "exported" the noun "export". Such a verb use is not an occurrence of the
concept: asking for its rendering only makes false flags ("no rendering found", "diverges").

No trained English tagger installs from PyPI as an official package, so English is decided by rules over
two facts:
- which word classes a word form can have, from lemminflect's lexicon (`readings`): "exported" can only
  be a verb (or an adjective), "helps" a verb or a noun;
- the frame the word stands in, as English grammar writes it (`verb_frame`):
  - after a modal ("can", "will"...) or the auxiliary "do", the base form is a verb;
  - after a subject pronoun ("we", "they"...), a base or past form is a verb;
  - after a singular subject pronoun ("this", "it", "she"...), an "-s" form is a verb ("that" and
    "which" are left out: "Remember that masks are..." is a conjunction, "which masks" a determiner);
  - after a form of "be", an "-ing" form or a past participle is a verb; after "have", a past participle;
  - after "to", a base form followed by an object (a determiner or a pronoun: "to help the") is a verb;
  - an "-ing" form followed by an object ("testing the samples") is a verb;
  - a form joined by "and" or "or" to a verb of the same form ("develop and update resources": "develop"
    can only be a verb) is a verb.
  Adverbs ("also", "not", "n't", any "-ly" word) may stand between the frame word and the verb.

A word that can only be a verb (no noun reading) is never the noun term, wherever it stands. Anything
else keeps its match: an undecided use stays an occurrence, and nothing here makes an error.

French (`french_verb_use`) is decided by the frames its grammar makes certain, over the word classes the
French lexicon lists (termqa.lang.lexicon: spacy-lookups-data's per-part-of-speech lemma index), without a
trained tagger (a trained pipeline lemmatises about 25 times slower than the tables, and `--lemmatiser
lookup` runs load none):
  - after a subject clitic ("je", "j'", "tu", "il", "elle", "on", "ils", "elles"), the negation "ne"/"n'" or
    the reflexive "se"/"s'", a form the lexicon lists under a verb is a verb ("il contrôle la pompe", "ils
    ne testent pas"); object clitics ("le", "la", "les", "l'", "lui", "leur", "y", "en"...) may stand
    between a subject clitic and the verb ("il le contrôle");
  - "le", "la" and "les" are articles too, and "elle"/"elles" stand after prepositions ("pour elle"):
    alone, these open no frame.
A French noun term is a noun unless the glossary says otherwise or the lexicon lists the word as a verb
and not as a noun (`noun_term`). Other source languages keep every match (no rules written for them yet).
"""
from __future__ import annotations

from typing import Optional, Sequence

# words that open a verb frame, lowercased (the tokenizer splits "can't" into "ca" "n't", "won't" into
# "wo" "n't", "don't" into "do" "n't")
_MODALS = frozenset("can could will would shall should may might must ca wo 'll 'd cannot".split())
_DO = frozenset("do does did".split())
# not "'s": "the disease's spread" is a possessive
_BE = frozenset("am is are was were be been being 're 'm".split())
_HAVE = frozenset("have has had having 've".split())
_SUBJECTS = frozenset("i you we they he she it who".split())
# not "that" or "which": "Remember that masks are..." (a conjunction), "which masks" (a determiner)
_SINGULAR = frozenset("he she it this who everyone everybody someone somebody nobody".split())
# words that may stand between the frame word and the verb
_ADVERBS = frozenset("not n't also still now just already currently really only never always often even "
                     "further then ever usually sometimes first".split())
# what starts a verb's object
_OBJECT = frozenset("the a an this that these those their your our his her its my them us him me it you "
                    "some any all each every".split())
# subject pronouns cannot take the frame of a plural subject: "it", "he", "she" with a base form is
# wrong English (and "it" is also an object: "use it")
_PLURAL_SUBJECTS = frozenset("i you we they".split())


class WordClasses:
    """Each word form's readings and verb tags, from lemminflect, kept in the index cache between runs.

    Importing lemminflect and loading its lexicon takes seconds (numpy, large tables), more than a whole
    warm run of a small project; the words asked about are only those a one-word noun term matched,
    a few thousand at most. So the answers are kept as one small dictionary per lemminflect install
    (keyed by its file's path and time), loaded once per process; lemminflect is imported only when a
    word is new, and `save` writes the dictionary back when it grew.
    """

    def __init__(self):
        self._memo: Optional[dict] = None
        self._key: Optional[str] = None
        self._cache = None
        self.dirty = False

    def _load(self) -> dict:
        from termqa.lang import langcache as indexcache  # lang's door to the index cache

        cache = indexcache.active()
        if self._memo is not None and cache is self._cache:
            return self._memo
        self._cache, self._memo, self._key, self.dirty = cache, {}, None, False
        if cache.enabled:
            import importlib.util
            import os

            spec = importlib.util.find_spec("lemminflect")
            origin = getattr(spec, "origin", None)
            if origin:
                self._key = indexcache.make_lang_key("word-classes", origin, os.stat(origin).st_mtime_ns)
                got = cache.load(self._key)
                if isinstance(got, dict):
                    self._memo = got
        return self._memo

    def get(self, word: str) -> tuple[dict, frozenset]:
        """(readings: {word class: lemmas}, verb tags) of a lowercase word form."""
        memo = self._load()
        got = memo.get(word)
        if got is None:
            got = memo[word] = _ask_lemminflect(word)
            self.dirty = True
        return got

    def save(self) -> None:
        """Write the dictionary back when it grew, merged with what is stored now: counting workers each
        add the words of their documents, and one must not drop another's."""
        if self.dirty and self._key is not None and self._cache is not None:
            stored = self._cache.load(self._key)
            if isinstance(stored, dict):
                stored.update(self._memo)
                self._memo = stored
            self._cache.store(self._key, self._memo)
        self.dirty = False


def _lemminflect():
    """lemminflect's lemmatiser and inflector. The package's `__init__` imports spaCy to hook into it, which
    costs seconds that a run over new text otherwise never pays (the tokenizer rules come from the index
    cache, termqa.lang.chunktok): so the package is made without running its `__init__` and only the two
    classes termqa asks are imported from it. The data they load are the same."""
    import importlib.util
    import sys

    if "lemminflect" not in sys.modules:
        spec = importlib.util.find_spec("lemminflect")
        if spec is None:
            raise ImportError("lemminflect")
        sys.modules["lemminflect"] = importlib.util.module_from_spec(spec)  # its submodules, no spaCy hook
    from lemminflect.core.Inflections import Inflections
    from lemminflect.core.Lemmatizer import Lemmatizer

    return Lemmatizer().getAllLemmas, Inflections().getInflection


def _ask_lemminflect(w: str) -> tuple[dict, frozenset]:
    getAllLemmas, getInflection = _lemminflect()  # lazy: its lexicon loads on first use

    readings = {k: tuple(v) for k, v in getAllLemmas(w).items()}
    tags = set()
    for lemma in readings.get("VERB", ()):
        for tag in ("VB", "VBZ", "VBD", "VBN", "VBG"):
            if w in (x.lower() for x in getInflection(lemma, tag)):
                tags.add(tag)
    return readings, frozenset(tags)


WORD_CLASSES = WordClasses()


def readings(word: str) -> dict:
    """{word class: lemmas} lemminflect knows for a word form ("helps" -> NOUN help, VERB help); {} for a
    word it does not know."""
    return WORD_CLASSES.get(word.lower())[0]


def verb_tags(word: str) -> frozenset:
    """The verb tags (Penn: VB base, VBZ "-s", VBD past, VBN participle, VBG "-ing") a word form can
    have, from lemminflect's inflections of each verb lemma it may belong to; empty for a non-verb."""
    return WORD_CLASSES.get(word.lower())[1]


def can_be_noun(word: str) -> bool:
    r = readings(word)
    return not r or "NOUN" in r or "PROPN" in r


def noun_term(text: str, part_of_speech: Optional[str], lang: str = "en") -> bool:
    """Is a glossary term a noun? The glossary's word class where it gives one; else a term of several
    words is taken for a noun phrase, and a single word for a noun when it can be one (English:
    lemminflect's readings; French: unless it is an infinitive the lexicon lists as no noun, "tester")."""
    if part_of_speech:
        return part_of_speech.replace(" ", "").lower() in ("noun", "propernoun", "n", "nn", "substantive",
                                                            "nom", "substantif")
    words = text.split()
    if len(words) != 1:
        return True
    if lang == "fr":
        from termqa.lang.fold import loose
        from termqa.lang.lexicon import part_of_speech_keys

        nouns, _adjs, verbs = part_of_speech_keys("fr")
        w = loose(words[0].lower())
        return not (w in verbs and w not in nouns)  # an infinitive the lexicon lists as no noun
    return can_be_noun(words[0])


# infinitive endings by language, where the lexicon tells word classes apart (termqa.lang.lexicon)
_INFINITIVES = {"fr": ("er", "ir", "re"), "es": ("ar", "er", "ir")}


def verb_targets(targets: Sequence[tuple[str, str]]) -> bool:
    """Do a concept's target terms, (text, language) pairs, show it is a verb concept? True when, in a
    language whose lexicon tells word classes apart, every target term is one word, an infinitive: its own
    lemma, listed under a verb, with the infinitive's ending ("toucher", "tousser", "tocar"). A French
    infinitive may also be listed as a noun ("le toucher"); a glossary that renders an English word
    that can be a verb by an infinitive means the verb. False where no such language has target terms (an
    undecided word class keeps the noun reading and its filter)."""
    from termqa.lang.fold import loose
    from termqa.lang.lexicon import lemmas_of, part_of_speech_keys

    by_lang: dict = {}
    for text, lang in targets:
        base = (lang or "").split("-")[0].split("_")[0].lower()
        if base in _INFINITIVES:
            by_lang.setdefault(base, []).append(text.strip())
    if not by_lang:
        return False
    for lang, texts in by_lang.items():
        _nouns, _adjs, verbs = part_of_speech_keys(lang)
        for text in texts:
            words = text.split()
            if len(words) != 1:
                return False
            w = words[0].lower()
            k = loose(w)
            if not w.endswith(_INFINITIVES[lang]) or k not in verbs:
                return False
            if {loose(x.lower()) for x in lemmas_of(w, lang)} != {k}:
                return False
    return True


def _prev(words: Sequence[str], i: int) -> Optional[str]:
    """The word before position i, adverbs skipped, None at the start or at punctuation."""
    j = i - 1
    while j >= 0:
        w = words[j]
        if w is None:
            return None
        if w in _ADVERBS or (w.endswith("ly") and len(w) > 4):
            j -= 1
            continue
        return w
    return None


def _prev_at(words: Sequence[Optional[str]], i: int) -> int:
    """The position of the word before position i, adverbs skipped; -1 at the start or at punctuation."""
    j = i - 1
    while j >= 0:
        w = words[j]
        if w is None:
            return -1
        if w in _ADVERBS or (w.endswith("ly") and len(w) > 4):
            j -= 1
            continue
        return j
    return -1


def _coordinated_verb(words: Sequence[Optional[str]], i: int, tags: frozenset) -> bool:
    """Is words[i] joined by "and"/"or" to a word before it that is a verb of the same form: one that can
    only be a verb ("develop and update"), or one standing in a verb frame ("we test and update")?"""
    j = _prev_at(words, i)
    if j < 0 or words[j] not in ("and", "or"):
        return False
    k = _prev_at(words, j)
    if k < 0:
        return False
    w = words[k]
    if not w.isalpha() or not tags & verb_tags(w):
        return False
    r = readings(w)
    if "VERB" in r and not can_be_noun(w) and not w.endswith("ing") and not words[i].endswith("ing"):
        return True  # not "-ing" forms: "coughing and sneezing" name actions
    return words[k] != words[i] and verb_frame(words, k, coordinated=False)


def verb_frame(words: Sequence[Optional[str]], i: int, coordinated: bool = True) -> bool:
    """Does words[i] stand as a verb? `words`: a text's tokens lowercased, None for punctuation."""
    w = words[i]
    tags = verb_tags(w)
    if not tags:
        return False
    if coordinated and _coordinated_verb(words, i, tags):
        return True
    base, s_form, ing = "VB" in tags, "VBZ" in tags, "VBG" in tags
    past = "VBD" in tags or "VBN" in tags
    participle = "VBN" in tags
    prev = _prev(words, i)
    nxt = words[i + 1] if i + 1 < len(words) else None
    if prev is not None:
        if prev in _MODALS or prev in _DO:
            return base
        if prev in _BE:
            return ing or participle
        if prev in _HAVE:
            return participle
        if prev in _SINGULAR and s_form:
            return True
        if prev in _PLURAL_SUBJECTS and (base or past):
            return True
        if prev == "to" and base and nxt in _OBJECT:
            return True
    if ing and nxt in _OBJECT and nxt not in ("this", "that"):
        return prev not in _DETERMINERS
    return False


_DETERMINERS = frozenset("the a an this that of its their his her our your my".split())


def verb_use(words: Sequence[Optional[str]], i: int) -> bool:
    """Is words[i] (lowercased, None for punctuation) used as a verb, so not an occurrence of a noun term?
    A form that cannot be a noun at all ("exported", "tested"), or a form in a verb frame (`verb_frame`)."""
    w = words[i]
    if not w or not w.isalpha():
        return False
    r = readings(w)
    if "VERB" not in r:
        return False
    if not can_be_noun(w) and not w.endswith("ing"):  # "-ing" forms name actions ("the spreading of")
        return True
    return verb_frame(words, i)


# --- French -------------------------------------------------------------------------------------------

_FR_SUBJECTS = frozenset("je j' tu il elle on ils elles".split())
_FR_VERB_ONLY = frozenset("ne n' se s'".split())  # only a verb (or a clitic) follows these
_FR_OBJECT_CLITICS = frozenset("le la les l' lui leur y en me m' te t' nous vous".split())
# "elle(s)" after a preposition is no subject ("pour elle"); only with a clitic or a verb reading right after
_FR_STRESSABLE = frozenset("elle elles".split())


def _french_classes(word: str) -> tuple[bool, bool]:
    """(can be a verb, can be a noun) of a lowercase French word form, as the lexicon lists its lemmas."""
    from termqa.lang.fold import loose
    from termqa.lang.lexicon import lemmas_of, part_of_speech_keys

    nouns, _adjs, verbs = part_of_speech_keys("fr")
    lemmas = {loose(x.lower()) for x in lemmas_of(word, "fr")}
    return any(x in verbs for x in lemmas), any(x in nouns for x in lemmas)


def french_verb_use(words: Sequence[Optional[str]], i: int) -> bool:
    """Is words[i] of a French text (lowercased, apostrophes straight, None for punctuation) a verb here, so
    not an occurrence of a noun term? Only in the frames the module's docstring lists."""
    w = words[i]
    if not w or not w.isalpha():
        return False
    verb, _noun = _french_classes(w)
    if not verb:
        return False
    j = i - 1
    clitic = False
    while j >= 0 and words[j] in _FR_OBJECT_CLITICS:
        j -= 1
        clitic = True
    if j < 0 or words[j] is None:
        return False
    prev = words[j]
    if prev in ("ne", "n'"):
        return True
    if prev in ("se", "s'"):
        return not clitic or words[j + 1] in ("y", "en")
    if prev in _FR_SUBJECTS:
        if prev in _FR_STRESSABLE and not clitic and j > 0 and words[j - 1] is not None \
                and words[j - 1] not in ("et", "mais", "ou", "qu'", "que", "si", "quand", "lorsqu'", "lorsque"):
            return False  # "pour elle", "avec elles": a stressed pronoun, no subject
        return True
    return False
