"""R(s): the reference translation of each source form in each document, with its provenance.

Glossary first (the concept's preferred target term; for a do-not-translate concept the source item
itself), else the document's most frequent rendering of that form on lemmas, ties by first appearance,
marked `pseudo` until a judge validates it.
"""
from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

from termqa.model import GLOSSARY, PSEUDO, Concept, Reference


def glossary_reference(doc_id: str, concept: Concept, source_form: str, source_text: str,
                       tgt_lang: str) -> Optional[Reference]:
    """The glossary's reference for a source form: its preferred target term (the item itself for DNT)."""
    if concept.dnt:
        return Reference(doc_id, concept.id, source_form, source_text, GLOSSARY)
    pref = concept.preferred(tgt_lang)
    if pref is None:
        return None
    return Reference(doc_id, concept.id, source_form, pref.text, GLOSSARY)


def pseudo_reference(doc_id: str, concept_id: str, source_form: str,
                     renderings: Sequence[tuple]) -> Optional[Reference]:
    """`renderings`: (key, surface) of the chain's aligned occurrences in document order."""
    seen = [(k, t) for k, t in renderings if k]
    if not seen:
        return None
    counts = Counter(k for k, _ in seen)
    best = max(counts.values())
    key, text = next((k, t) for k, t in seen if counts[k] == best)
    return Reference(doc_id, concept_id, source_form, text, PSEUDO)
