"""TBX v3 TBX-Basic in DCT style (data categories as elements of the dialect's module namespaces:
`<min:administrativeStatus>`, `<basic:transactionType>`...) read and validated like the same glossary in
DCA style (`<termNote type="administrativeStatus">`, `<transac type="transactionType">`...).

The glossary is our own (pump vocabulary); each test writes it in both styles from one description,
line for line, so the two files differ only in how each data category is spelled."""
from __future__ import annotations

import json

from click.testing import CliRunner

from termqa.cli.main import main
from termqa.formats import read_glossary
from termqa.model import ADMITTED, DEPRECATED, PREFERRED

V3 = "urn:iso:std:iso:30042:ed-2"
MIN = "http://www.tbxinfo.net/ns/min"
BASIC = "http://www.tbxinfo.net/ns/basic"
MIN_CATS = {"administrativeStatus", "partOfSpeech", "subjectField", "customerSubset"}
CLASS = {"transactionType": "transac", "responsibility": "transacNote", "subjectField": "descrip",
         "definition": "descrip", "context": "descrip", "source": "admin", "xGraphic": "xref",
         "administrativeStatus": "termNote", "partOfSpeech": "termNote", "termType": "termNote"}


def dc(style: str, cat: str, value: str, ns: str = "") -> str:
    """One data category in the given style."""
    if style == "dca":
        return f'<{CLASS[cat]} type="{cat}">{value}</{CLASS[cat]}>'
    prefix = ns or ("min" if cat in MIN_CATS else "basic")
    return f"<{prefix}:{cat}>{value}</{prefix}:{cat}>"


def history(style: str) -> list[str]:
    return ["<transacGrp>", dc(style, "transactionType", "origination"), "<date>2024-03-01</date>",
            dc(style, "responsibility", "Terminology team"), "</transacGrp>"]


def term(style: str, text: str, pos: str, status: str, term_type: str = "", context: str = "") -> list[str]:
    lines = ["<termSec>", f"<term>{text}</term>", dc(style, "partOfSpeech", pos),
             dc(style, "administrativeStatus", status)]
    if term_type:
        lines.append(dc(style, "termType", term_type))
    if context:
        lines += ["<descripGrp>", dc(style, "context", context), dc(style, "source", "pump manual"), "</descripGrp>"]
    return lines + ["</termSec>"]


def glossary(style: str, *, wear_ring_status: str = "preferredTerm-admn-sts", impeller_pos: str = "noun",
             extra_entry: tuple = ()) -> str:
    """The same two-concept EN/FR glossary, written in DCA or DCT style."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<tbx type="TBX-Basic" style="{style}" xml:lang="en" xmlns="{V3}"'
             + (f' xmlns:min="{MIN}" xmlns:basic="{BASIC}"' if style == "dct" else "") + ">",
             "<tbxHeader><fileDesc><sourceDesc><p>Written for termqa's tests.</p></sourceDesc></fileDesc></tbxHeader>",
             "<text>", "<body>",
             '<conceptEntry id="impeller">', *history(style), dc(style, "subjectField", "centrifugal pumps"),
             '<langSec xml:lang="en">', "<descripGrp>",
             dc(style, "definition", "Rotating part that gives the liquid its energy."), "</descripGrp>",
             *term(style, "impeller", impeller_pos, "preferredTerm-admn-sts", "fullForm",
                   "The impeller turns inside the volute."),
             "</langSec>", '<langSec xml:lang="fr">',
             *term(style, "roue", "noun", "preferredTerm-admn-sts"),
             *term(style, "hélice", "noun", "deprecatedTerm-admn-sts"),
             "</langSec>", "</conceptEntry>",
             '<conceptEntry id="wear-ring">', *history(style), dc(style, "subjectField", "centrifugal pumps"),
             '<langSec xml:lang="en">', *term(style, "wear ring", "noun", wear_ring_status),
             *term(style, "WR", "noun", "admittedTerm-admn-sts", "abbreviation"), "</langSec>",
             '<langSec xml:lang="fr">', *term(style, "bague d'usure", "noun", "preferredTerm-admn-sts"), "</langSec>",
             "</conceptEntry>", *extra_entry,
             "</body>", "</text>", "</tbx>"]
    return "\n".join(lines) + "\n"


def write(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def both(tmp_path, **kw):
    return (read_glossary(write(tmp_path, "g-dca.tbx", glossary("dca", **kw))),
            read_glossary(write(tmp_path, "g-dct.tbx", glossary("dct", **kw))))


def test_dct_and_dca_read_to_the_same_glossary(tmp_path):
    dca, dct = both(tmp_path)
    assert (dca.format, dca.dialect, dca.problems) == ("tbx-v3", "TBX-Basic DCA", ())
    assert (dct.format, dct.dialect, dct.problems) == ("tbx-v3", "TBX-Basic DCT", ())
    assert dct.concepts == dca.concepts and dct.languages == dca.languages == ("en", "fr")
    impeller, ring = dct.concepts
    assert [(t.text, t.lang, t.status, t.term_type) for t in impeller.terms] == [
        ("impeller", "en", PREFERRED, "fullForm"), ("roue", "fr", PREFERRED, None), ("hélice", "fr", DEPRECATED, None)]
    assert impeller.definition == "Rotating part that gives the liquid its energy."
    assert impeller.subject == "centrifugal pumps"
    assert [(t.text, t.status, t.term_type) for t in ring.terms] == [
        ("wear ring", PREFERRED, None), ("WR", ADMITTED, "abbreviation"), ("bague d'usure", PREFERRED, None)]


def test_dct_picklist_violations_are_refused_like_dca_ones(tmp_path):
    dca, dct = both(tmp_path, wear_ring_status="preferred", impeller_pos="nominal")
    assert dca.problems == dct.problems
    assert [p.split(": ", 1)[1] for p in dct.problems] == [
        "partOfSpeech value 'nominal' is not in the TBX-Basic picklist (noun, verb, adjective, adverb, other)",
        "administrativeStatus value 'preferred' is not in the TBX-Basic picklist (preferredTerm-admn-sts, "
        "admittedTerm-admn-sts, deprecatedTerm-admn-sts, supersededTerm-admn-sts)",
    ]
    # still read in full: the value is kept as the raw status
    assert dct.concepts == dca.concepts
    assert dct.concepts[1].terms[0].raw_status == "preferred"


def test_dct_groups_and_levels_are_checked_like_dca(tmp_path):
    def entry(style):
        return ['<conceptEntry id="seal">',
                "<transacGrp>", "<date>2024-03-02</date>", dc(style, "transactionType", "modification"), "</transacGrp>",
                '<langSec xml:lang="en">', dc(style, "termType", "fullForm"),
                "<descripGrp>", dc(style, "source", "catalogue"), dc(style, "definition", "A ring that stops leaks."),
                "</descripGrp>",
                "<termSec>", "<term>mechanical seal</term>", dc(style, "definition", "Not here."), "</termSec>",
                "</langSec>", "</conceptEntry>"]

    dca = read_glossary(write(tmp_path, "a.tbx", glossary("dca", extra_entry=entry("dca"))))
    dct = read_glossary(write(tmp_path, "t.tbx", glossary("dct", extra_entry=entry("dct"))))
    assert dca.problems == (
        "line 70: <transacGrp> must start with <transac>",
        "line 76: <descripGrp> must start with <descrip>",
        "line 75: termType is a term-level data category but stands at lang level",
        "line 82: definition may only appear at concept or language level",
    )
    assert dct.problems == (
        "line 70: <transacGrp> must start with a transac data category (<basic:transactionType>)",
        "line 76: <descripGrp> must start with a descrip data category "
        "(<min:subjectField>, <basic:context>, <basic:definition>)",
        *dca.problems[2:],
    )
    assert [c.id for c in dct.concepts] == [c.id for c in dca.concepts] == ["impeller", "wear-ring", "seal"]


def test_dct_namespaces_and_mixed_styles(tmp_path):
    bad = ['<conceptEntry id="volute">', '<langSec xml:lang="en">', "<termSec>", "<term>volute</term>",
           # TBX-Basic puts administrativeStatus in the TBX-Min module, not its own
           dc("dct", "administrativeStatus", "admittedTerm-admn-sts", ns="basic"),
           '<x:rating xmlns:x="urn:example:own">5</x:rating>',
           '<termNote type="termType">fullForm</termNote>',
           "</termSec>", "</langSec>", "</conceptEntry>"]
    g = read_glossary(write(tmp_path, "n.tbx", glossary("dct", extra_entry=bad)))
    assert g.problems == (
        "line 75: DCA-style element <termNote type='termType'> in a file declared style=\"dct\"",
        f"line 73: <administrativeStatus> belongs in the TBX-Min module namespace ({MIN}), not {BASIC}",
        "line 74: <rating> is in namespace urn:example:own, which is not a TBX-Basic module namespace",
    )
    # read all the same: the status counts whatever its namespace
    assert g.concepts[-1].terms[0].status == ADMITTED
    # and a DCT element in a DCA file stays a problem
    dca = read_glossary(write(tmp_path, "m.tbx", glossary("dca").replace(
        "<tbx ", f'<tbx xmlns:min="{MIN}" ').replace(
        '<termNote type="partOfSpeech">noun</termNote>', "<min:partOfSpeech>noun</min:partOfSpeech>", 1)))
    assert dca.problems == ('line 19: DCT-style element <partOfSpeech> in a file declared style="dca"',)


def test_tbx_min_dct_uses_only_the_min_module(tmp_path):
    text = glossary("dct").replace('type="TBX-Basic"', 'type="TBX-Min"')
    g = read_glossary(write(tmp_path, "min.tbx", text))
    assert g.dialect == "TBX-Min DCT"
    assert all("TBX-Basic module namespace" in p or p.startswith("...") for p in g.problems)
    assert "<transactionType> is in the TBX-Basic module namespace" in g.problems[0]


def test_inspect_accepts_a_dct_file(tmp_path):
    p = write(tmp_path, "g.tbx", glossary("dct"))
    r = CliRunner().invoke(main, ["inspect", str(p), "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["problems"] == [] and info["dialect"] == "TBX-Basic DCT"
    bad = write(tmp_path, "b.tbx", glossary("dct", wear_ring_status="preferred"))
    r = CliRunner().invoke(main, ["inspect", str(bad)])
    assert r.exit_code == 2 and "administrativeStatus value 'preferred'" in r.output
