"""spaCy's rule-based tokenizer for one whitespace-free chunk, without importing spaCy.

Lookup mode tokenises text one whitespace-delimited chunk at a time with the language's blank spaCy
tokenizer. Importing spaCy and building that tokenizer costs one to two seconds per process, while the
tokenizer's work on a project's new chunks is small. So the tokenizer's rules are extracted once, as plain
data (`extract`, which needs spaCy), kept in the index cache, and a later process tokenises with
`ChunkTokenizer`, which follows the same steps as spaCy 3.8's `Tokenizer.__call__` on one chunk:

1. the whole chunk is a special case (a listed exception such as "don't" or "etc."): its tokens;
2. otherwise prefixes and suffixes are peeled off in turn until nothing more comes off, the rest is a
   special case, or the rest with one prefix or suffix removed is a special case; the middle that
   remains is a special case, a web address (kept whole) or split at its infixes;
3. finally, special cases that only show once the affixes are split ("(Mr." -> "(", "Mr.") are
   found as token sequences and replaced: the longest sequence first, the leftmost among equals,
   one that shares its first or last token with a sequence already taken is skipped.

The data holds the pattern strings (prefix, suffix, infix, web address) with their flags, each special
case as its token texts, the token sequences step 3 looks for (computed by spaCy itself when the data
is extracted) and the chunks spaCy's own chunk cache holds from building its rules (see `extract`). All
of it is strings, tuples, lists, dicts and ints: `marshal` can store it.

`extract` gives None for a tokenizer this module cannot reproduce (another class, a `token_match`
pattern, affix rules that are not compiled regular expressions): the caller keeps spaCy for those.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Optional

FORMAT = 1

# The steps of spaCy's Tokenizer this module follows, and the versions whose tokenizer.pyx was read and
# checked against (tests/test_chunktok.py). Data from another major.minor is not used.
SPACY_SERIES = ("3.8",)

_Pattern = Optional[tuple[str, int]]


def _pattern_of(fn: Any, method: str) -> tuple[bool, _Pattern]:
    """(usable, (pattern, flags) or None) for one of the tokenizer's affix callables: a bound
    `search`/`finditer`/`match` method of a compiled `re` pattern, or None."""
    if fn is None:
        return True, None
    owner = getattr(fn, "__self__", None)
    if not isinstance(owner, re.Pattern) or getattr(fn, "__name__", None) != method:
        return False, None
    if not isinstance(owner.pattern, str):
        return False, None
    return True, (owner.pattern, int(owner.flags))


def extract(tokenizer: Any, reloaded: bool = True) -> Optional[dict]:
    """The rules of a spaCy `Tokenizer` as plain data, or None when this module cannot reproduce it.

    `reloaded`: the tokenizer's special cases were loaded again after it was constructed, as they are
    by `spacy.blank` followed by setting `token_match`, and by `Tokenizer.from_bytes` (termqa's two
    ways of building one). It decides what spaCy's chunk cache holds (see below); a tokenizer straight
    from `Tokenizer(...)` has not been reloaded.
    """
    import spacy
    from spacy.attrs import ORTH, intify_attrs
    from spacy.tokenizer import Tokenizer
    from spacy.vocab import Vocab

    if type(tokenizer) is not Tokenizer or tokenizer.token_match is not None:
        return None
    if ".".join(spacy.__version__.split(".")[:2]) not in SPACY_SERIES:
        return None
    data: dict[str, Any] = {"format": FORMAT, "spacy": spacy.__version__,
                            "faster_heuristics": bool(tokenizer.faster_heuristics)}
    for name, fn, method in (("prefix", tokenizer.prefix_search, "search"),
                             ("suffix", tokenizer.suffix_search, "search"),
                             ("infix", tokenizer.infix_finditer, "finditer"),
                             ("url", tokenizer.url_match, "match")):
        ok, pat = _pattern_of(fn, method)
        if not ok:
            return None
        data[name] = pat

    specials: dict[str, tuple[str, ...]] = {}
    for orth, subs in tokenizer.rules.items():
        texts = []
        for sub in subs:
            attrs = intify_attrs(dict(sub), strings_map=tokenizer.vocab.strings, _do_deprecated=True)
            value = attrs.get(ORTH)
            if isinstance(value, int):
                value = tokenizer.vocab.strings[value]
            if not isinstance(value, str) or not value:
                return None  # a token we could not name: leave this tokenizer to spaCy
            texts.append(value)
        if "".join(texts) != orth:
            return None
        specials[orth] = tuple(texts)
    data["specials"] = specials

    # What spaCy's matcher looks for (step 3): a special case whose text has an affix or infix, or a
    # space (all of them without `faster_heuristics`), as the tokens the rules give it when no special
    # case applies. A tokenizer with the same rules and no special cases gives exactly those tokens.
    bare = Tokenizer(Vocab(), rules={}, prefix_search=tokenizer.prefix_search,
                     suffix_search=tokenizer.suffix_search, infix_finditer=tokenizer.infix_finditer,
                     token_match=None, url_match=tokenizer.url_match,
                     faster_heuristics=tokenizer.faster_heuristics)

    def matched(orth: str) -> bool:
        return (not tokenizer.faster_heuristics or bool(tokenizer.find_prefix(orth))
                or bool(tokenizer.find_infix(orth)) or bool(tokenizer.find_suffix(orth)) or " " in orth)

    patterns = []
    for orth in sorted(specials):
        if matched(orth):
            toks = tuple(t.text for t in bare(orth))
            if toks:  # spaCy's matcher skips an empty pattern
                patterns.append(toks)
    data["patterns"] = sorted(set(patterns))

    # spaCy keeps a cache of chunks it has tokenised. Loading the special cases empties it before each
    # one, and the last one loaded (in sorted order) fills it with its own chunks tokenised WITHOUT
    # special cases; those entries stay, and a later call on such a chunk gets them. Recorded so the
    # result is the same (the entries of a chunk that is itself a special case are never read). The
    # constructor loads the special cases before it sets the cache's size limit (zero until then), so
    # a tokenizer that was never reloaded caches nothing at that point.
    precached: dict[str, tuple[str, ...]] = {}
    if specials and reloaded:
        last = sorted(specials)[-1]
        if matched(last):
            for chunk in re.findall(r"\S+", last):
                if chunk not in specials:
                    precached[chunk] = tuple(t.text for t in bare(chunk))
    data["precached"] = precached
    return data


def valid(data: Any) -> bool:
    """Is `data` something `extract` made (read from a cache file: checked, never trusted)?"""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return False
    for name in ("prefix", "suffix", "infix", "url"):
        pat = data.get(name)
        if pat is not None and not (isinstance(pat, tuple) and len(pat) == 2 and isinstance(pat[0], str)
                                    and isinstance(pat[1], int)):
            return False

    def tokens(v) -> bool:
        return isinstance(v, tuple) and bool(v) and all(isinstance(t, str) and t for t in v)

    for name in ("specials", "precached"):
        table = data.get(name)
        if not isinstance(table, dict) or not all(isinstance(k, str) and tokens(v) and "".join(v) == k
                                                  for k, v in table.items()):
            return False
    pats = data.get("patterns")
    return isinstance(pats, list) and all(tokens(p) for p in pats)


class ChunkTokenizer:
    """Tokens of one whitespace-free chunk, as spaCy's tokenizer the data came from gives them."""

    def __init__(self, data: dict):
        def compiled(name: str, method: str) -> Optional[Callable]:
            pat = data.get(name)
            return getattr(re.compile(pat[0], pat[1]), method) if pat is not None else None

        self._prefix = compiled("prefix", "search")
        self._suffix = compiled("suffix", "search")
        self._infix = compiled("infix", "finditer")
        self._url = compiled("url", "match")
        self._specials: dict[str, tuple[str, ...]] = data["specials"]
        self._precached: dict[str, tuple[str, ...]] = data["precached"]
        # the sequences of step 3 as a trie of token texts; None marks the end of a sequence
        trie: dict = {}
        for pat in data["patterns"]:
            node = trie
            for tok in pat:
                node = node.setdefault(tok, {})
            node[None] = True
        self._trie = trie

    def __call__(self, chunk: str) -> list[tuple[str, int]]:
        """(text, offset in the chunk) of each token."""
        out = []
        pos = 0
        for text in self.texts(chunk):
            out.append((text, pos))
            pos += len(text)
        return out

    def texts(self, chunk: str) -> list[str]:
        """The token texts of `chunk` (they join back to `chunk`)."""
        if not chunk:
            return []
        known = self._specials.get(chunk)
        if known is None:
            known = self._precached.get(chunk)
        toks = list(known) if known is not None else self._split(chunk)
        trie = self._trie
        if trie and any(t in trie for t in toks):
            toks = self._respecial(toks)
        return toks

    # -- step 2 -----------------------------------------------------------------------------------

    def _affix_len(self, search, text: str) -> int:
        if search is None:
            return 0
        m = search(text)
        return m.end() - m.start() if m is not None else 0

    def _split(self, text: str) -> list[str]:
        specials = self._specials
        prefixes: list[str] = []
        suffixes: list[str] = []
        last = 0
        while text and len(text) != last:
            if text in specials:
                break
            last = len(text)
            pre = self._affix_len(self._prefix, text)
            if pre:
                rest = text[pre:]
                if rest and rest in specials:
                    prefixes.append(text[:pre])
                    text = rest
                    break
            suf = self._affix_len(self._suffix, text[pre:])
            if suf:
                rest = text[:-suf]
                if rest and rest in specials:
                    suffixes.append(text[-suf:])
                    text = rest
                    break
            # spaCy takes both only when they do not overlap; otherwise the prefix alone
            if pre and suf and pre + suf <= len(text):
                prefixes.append(text[:pre])
                suffixes.append(text[-suf:])
                text = text[pre:-suf]
            elif pre:
                prefixes.append(text[:pre])
                text = text[pre:]
            elif suf:
                suffixes.append(text[-suf:])
                text = text[:-suf]
        toks = prefixes
        if text:
            known = specials.get(text)
            if known is None:
                known = self._precached.get(text)
            if known is not None:
                toks.extend(known)
            elif self._url is not None and self._url(text) is not None:
                toks.append(text)  # a web address stays whole
            else:
                toks.extend(self._infixes(text))
        toks.extend(reversed(suffixes))
        return toks

    def _infixes(self, text: str) -> list[str]:
        if self._infix is None:
            return [text]
        out: list[str] = []
        start = 0
        found = False
        for m in self._infix(text):
            found = True
            a, b = m.start(), m.end()
            if a == 0:  # an infix at the very start does not split
                continue
            if a != start:
                out.append(text[start:a])
            if a != b:
                out.append(text[a:b])
            start = b
        if not found:
            return [text]
        if text[start:]:
            out.append(text[start:])
        return out

    # -- step 3 -----------------------------------------------------------------------------------

    def _respecial(self, toks: list[str]) -> list[str]:
        trie = self._trie
        n = len(toks)
        spans = []
        for i in range(n):
            node = trie.get(toks[i])
            j = i + 1
            while node is not None:
                if None in node:
                    spans.append((i, j))
                if j == n:
                    break
                node = node.get(toks[j])
                j += 1
        if not spans:
            return toks
        # longest first, then leftmost; a span whose first or last token is taken is skipped, and
        # every span looked at (taken or not) marks its tokens as taken
        spans.sort(key=lambda s: (s[0] - s[1], s[0]))
        seen: set[int] = set()
        chosen: dict[int, int] = {}
        for a, b in spans:
            if a not in seen and b - 1 not in seen:
                chosen[a] = b
            seen.update(range(a, b))
        out: list[str] = []
        i = 0
        specials = self._specials
        while i < n:
            b = chosen.get(i)
            if b is None:
                out.append(toks[i])
                i += 1
                continue
            rule = specials.get("".join(toks[i:b]))
            out.extend(rule if rule is not None else toks[i:b])
            i = b
        return out


__all__ = ["ChunkTokenizer", "extract", "valid", "FORMAT", "SPACY_SERIES"]
