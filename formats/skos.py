"""SKOS vocabularies as glossaries: Turtle, N-Triples, RDF/XML and JSON-LD, read with rdflib.

A concept is any resource with a SKOS or SKOS-XL label (or typed skos:Concept), except concept
schemes, collections and SKOS-XL label resources themselves. A collection or scheme is known by its
type (skos:Collection, skos:OrderedCollection, skos:ConceptScheme, ISO 25964's iso-thes:ConceptGroup and
iso-thes:ThesaurusArray, or a class the file declares a subclass of one of them) or, untyped, by what
SKOS says only they have (the domain and range of its properties): skos:member / skos:memberList
(a collection), skos:hasTopConcept, or being the object of skos:inScheme / skos:topConceptOf (a
scheme). A resource typed skos:Concept stays a concept whatever else it has. Members of a collection
are concepts like any other. Label kinds map onto statuses:
prefLabel -> preferred, altLabel -> admitted, hiddenLabel -> matchable only (found in text, never
recommended). `owl:deprecated true` on a concept or on a SKOS-XL label makes its terms deprecated.
Concept ids are the concept URIs; relative URIs stay relative.

Output is deterministic (concepts sorted by id, labels by kind then language then text): rdflib's
graph has no order of its own.
"""
from __future__ import annotations

import warnings
from collections import defaultdict
from typing import Optional

from termqa.errors import InputError
from termqa.lang.langtags import normalise_tag
from termqa.model import ADMITTED, DEPRECATED, PREFERRED, UNKNOWN, Concept, Glossary, Term

_SKOS = "http://www.w3.org/2004/02/skos/core#"
_XL = "http://www.w3.org/2008/05/skos-xl#"
_OWL_DEPRECATED = "http://www.w3.org/2002/07/owl#deprecated"
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_RDF_VALUE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"
_RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_DCT_TITLE = "http://purl.org/dc/terms/title"
_DC_TITLE = "http://purl.org/dc/elements/1.1/title"

# Relative IRIs in Turtle resolve against this; it is stripped again from ids so that ids do not
# depend on where the file happens to be on disk.
_BASE = "urn:x-termqa-base:/"

# Label kind -> (status, matchable_only); the order is the order terms are listed in a concept.
_KINDS = (
    ("prefLabel", PREFERRED, False),
    ("altLabel", ADMITTED, False),
    ("hiddenLabel", UNKNOWN, True),
)
_ISO_THES = "http://purl.org/iso25964/skos-thes#"
_RDFS_SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
_NOT_CONCEPTS = (
    _SKOS + "ConceptScheme",
    _SKOS + "Collection",
    _SKOS + "OrderedCollection",
    _ISO_THES + "ConceptGroup",  # ISO 25964's kinds of skos:Collection, often typed without the SKOS class
    _ISO_THES + "ThesaurusArray",
    _XL + "Label",
)
# (predicate, which end of it) that only a collection or a concept scheme can be
_GROUPING_ENDS = (
    (_SKOS + "member", "subject"),
    (_SKOS + "memberList", "subject"),
    (_SKOS + "hasTopConcept", "subject"),
    (_SKOS + "inScheme", "object"),
    (_SKOS + "topConceptOf", "object"),
)


def _decode_start(data: bytes) -> str:
    head = data[:2048]
    for bom, enc in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if head.startswith(bom):
            return head[len(bom):].decode(enc, "ignore").lstrip()
    return head.decode("utf-8", "ignore").lstrip()


def guess_syntax(data: bytes) -> str:
    """rdflib parser name from the file's first characters. N-Triples is read as Turtle (a subset)."""
    start = _decode_start(data)
    if start.startswith("<?xml") or start.startswith("<rdf:") or start.startswith("<RDF"):
        return "xml"
    if start.startswith(("{", "[")):
        return "json-ld"
    return "turtle"


_SYNTAX_NAMES = {"xml": "RDF/XML", "json-ld": "JSON-LD", "turtle": "Turtle/N-Triples"}


def _remote_contexts(node) -> list[str]:
    found = []
    if isinstance(node, dict):
        ctx = node.get("@context")
        for c in ctx if isinstance(ctx, list) else [ctx]:
            if isinstance(c, str):
                found.append(c)
        for v in node.values():
            found += _remote_contexts(v)
    elif isinstance(node, list):
        for v in node:
            found += _remote_contexts(v)
    return found


def _refuse_remote_context(path: str, data: bytes) -> None:
    """rdflib would download a JSON-LD @context given by URL; we never fetch from the network."""
    import json

    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(path, f"is not valid JSON-LD: {exc}") from None
    remote = _remote_contexts(doc)
    if remote:
        raise InputError(
            path,
            f"uses a remote JSON-LD @context ({remote[0]}); termqa does not fetch anything from the network",
            fix="inline the context in the file, or convert it to Turtle",
        )


def _parse(path: str, data: bytes):
    import rdflib  # heavy: only when a SKOS file is actually read

    syntax = guess_syntax(data)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if syntax == "json-ld":
        _refuse_remote_context(path, data)
    graph = rdflib.Graph()
    try:
        with warnings.catch_warnings():
            # rdflib's JSON-LD parser uses its own deprecated ConjunctiveGraph internally
            warnings.simplefilter("ignore", DeprecationWarning)
            graph.parse(data=data, format=syntax, publicID=_BASE)
    except Exception as exc:  # rdflib raises many unrelated types for bad input
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(path, f"is not valid {_SYNTAX_NAMES[syntax]}: {first[:300]}") from None
    return graph, syntax


def _is_true(lit) -> bool:
    value = getattr(lit, "value", None)
    if isinstance(value, bool):
        return value
    return str(lit).strip().lower() in ("true", "1")


def _concept_id(node) -> str:
    s = str(node)
    if s.startswith(_BASE):
        return s[len(_BASE):]
    if type(node).__name__ == "BNode":
        return f"_:{s}"
    return s


def _pick_literal(literals) -> Optional[str]:
    """One text among several language versions: English, then untagged, then the first by tag."""
    lits = [x for x in literals if type(x).__name__ == "Literal" and str(x).strip()]
    if not lits:
        return None

    def rank(lit):
        lang = (lit.language or "").lower()
        return (0 if lang.startswith("en") else 1 if not lang else 2, lang, str(lit))

    return " ".join(str(min(lits, key=rank)).split())


def _groupings(graph, concepts: set) -> set:
    """Collections, concept schemes and SKOS-XL labels: resources that are not concepts (see the module
    docstring); `concepts` (typed skos:Concept) are never among them unless typed as one of those too."""
    from rdflib import URIRef

    classes = {URIRef(t) for t in _NOT_CONCEPTS}
    grew = True
    while grew:  # subclasses the file declares, transitively
        more = {c for k in classes for c in graph.subjects(URIRef(_RDFS_SUBCLASS), k)} - classes
        classes |= more
        grew = bool(more)
    out = set()
    for cls in classes:
        out.update(graph.subjects(URIRef(_RDF_TYPE), cls))
    for pred, end in _GROUPING_ENDS:
        pairs = graph.subject_objects(URIRef(pred))
        out.update(n for n in ((s if end == "subject" else o) for s, o in pairs) if n not in concepts)
    return out


def read(source) -> Glossary:
    from rdflib import URIRef

    path, data, content_hash, default_lang = source.path, source.data, source.content_hash, source.default_lang

    graph, syntax = _parse(path, data)
    deprecated_pred = URIRef(_OWL_DEPRECATED)

    def deprecated(node) -> bool:
        return any(_is_true(o) for o in graph.objects(node, deprecated_pred))

    default = normalise_tag(default_lang) if default_lang else ""
    no_lang = 0
    used_xl = False
    # concept -> list of (kind index, lang, text, deprecated)
    labels: dict = defaultdict(list)
    for k, (kind, _status, _hidden) in enumerate(_KINDS):
        for s, o in graph.subject_objects(URIRef(_SKOS + kind)):
            if type(o).__name__ == "Literal":
                labels[s].append((k, o, False))
        for s, label in graph.subject_objects(URIRef(_XL + kind)):
            used_xl = True
            label_dep = deprecated(label)
            for form in graph.objects(label, URIRef(_XL + "literalForm")):
                if type(form).__name__ == "Literal":
                    labels[s].append((k, form, label_dep))

    typed = set(graph.subjects(URIRef(_RDF_TYPE), URIRef(_SKOS + "Concept")))
    excluded = _groupings(graph, typed)
    unlabeled = len(typed - set(labels) - excluded)

    scheme_names: dict = {}

    def scheme_name(scheme) -> str:
        if scheme not in scheme_names:
            names = []
            for pred in (_SKOS + "prefLabel", _DCT_TITLE, _DC_TITLE, _RDFS_LABEL):
                names = list(graph.objects(scheme, URIRef(pred)))
                if names:
                    break
            scheme_names[scheme] = _pick_literal(names) or _concept_id(scheme)
        return scheme_names[scheme]

    def definition(node) -> Optional[str]:
        values = []
        for o in graph.objects(node, URIRef(_SKOS + "definition")):
            if type(o).__name__ == "Literal":
                values.append(o)
            else:  # a definition resource (e.g. with rdf:value and a source)
                values.extend(graph.objects(o, URIRef(_RDF_VALUE)))
        return _pick_literal(values)

    concepts = []
    languages = set()
    for node in sorted((n for n in labels if n not in excluded), key=_concept_id):
        concept_dep = deprecated(node)
        terms: list[Term] = []
        seen = set()
        entries = []
        for k, lit, label_dep in labels[node]:
            text = " ".join(str(lit).split())
            if not text:
                continue
            if lit.language:
                lang = normalise_tag(lit.language)
            else:
                lang = default
                if not default:
                    no_lang += 1
            entries.append((k, lang, text, label_dep))
        for k, lang, text, label_dep in sorted(entries):
            # A form given both as a plain and as an XL label, or as pref and alt, is kept once
            # with its strongest kind (the sort puts prefLabel first).
            if (lang, text) in seen:
                continue
            seen.add((lang, text))
            kind, status, hidden = _KINDS[k]
            dep = concept_dep or label_dep
            terms.append(
                Term(
                    text=text,
                    lang=lang,
                    status=DEPRECATED if dep else status,
                    raw_status=f"{kind} (owl:deprecated)" if dep else kind,
                    matchable_only=hidden,
                )
            )
            if lang:
                languages.add(lang)
        if not terms:
            continue
        schemes = sorted(graph.objects(node, URIRef(_SKOS + "inScheme")), key=str)
        schemes = schemes or sorted(graph.objects(node, URIRef(_SKOS + "topConceptOf")), key=str)
        concepts.append(
            Concept(
                id=_concept_id(node),
                terms=tuple(terms),
                definition=definition(node),
                subject=scheme_name(schemes[0]) if schemes else None,
            )
        )

    notes = []
    if no_lang:
        notes.append(
            f"{no_lang} labels have no language tag and were read with no language; "
            "set their language with --glossary-lang"
        )
    if unlabeled:
        notes.append(f"{unlabeled} skos:Concept resources have no label and were skipped")
    return Glossary(
        path=path,
        format="skos",
        concepts=tuple(concepts),
        content_hash=content_hash,
        languages=tuple(sorted(languages)),
        dialect="SKOS-XL" if used_xl else None,
        warnings=tuple(notes),
    )
