"""Trados SDLXLIFF tracked changes (#37): a deleted revision is not target text, an inserted one is (with
a warning that it is not accepted yet), and write-back keeps the revision markup byte for byte.

No licensed public SDLXLIFF with tracked changes at hand: the file is written here, in the shape Trados
Studio writes (revision definitions in the header's doc-info, `mrk mtype="x-sdl-deleted"`/`"x-sdl-added"`
with an `sdl:revid`, a deletion that holds an inline code, an empty deletion marker)."""
from __future__ import annotations

import re

from termqa.formats import read_bilingual
from termqa.formats.annotate import Annotation, annotate_bytes
from termqa.formats.unitstate import withhold
from termqa.inspect import inspect_file

REV_DEFS = ('<doc-info xmlns="http://sdl.com/FileTypes/SdlXliff/1.0"><rev-defs>'
            '<rev-def id="r1" type="Delete" author="REVIEWER" date="03/11/2025 09:15:00"/>'
            '<rev-def id="r2" author="REVIEWER" date="03/11/2025 09:15:02"/>'
            '<rev-def id="r3" type="Delete" author="REVIEWER" date="03/11/2025 09:16:00"/>'
            '<rev-def id="r4" type="Delete" author="REVIEWER" date="03/11/2025 09:17:00"/>'
            '</rev-defs></doc-info>')


def _tu(n, source, target, conf="Translated"):
    return (f'<trans-unit id="tu{n}"><source>{source}</source><seg-source><mrk mtype="seg" mid="{n}">{source}</mrk>'
            f'</seg-source><target><mrk mtype="seg" mid="{n}">{target}</mrk></target>'
            f'<sdl:seg-defs><sdl:seg id="{n}" conf="{conf}"/></sdl:seg-defs></trans-unit>')


# 1: a word replaced; 2: a copy of the source deleted and a translation inserted; 3: everything deleted;
# 4: a deletion holding an inline code and an empty deletion marker; 5: no change
DELETED_1 = '<mrk mtype="x-sdl-deleted" sdl:revid="r1">air</mrk>'
DELETED_2 = '<mrk mtype="x-sdl-deleted" sdl:revid="r3">Check the pump</mrk>'
DELETED_4 = '<mrk mtype="x-sdl-deleted" sdl:revid="r4">joint <g id="3" sdl:start="false"/></mrk>'
EMPTY_DEL = '<mrk mtype="x-sdl-deleted" sdl:revid="r4"/>'
UNITS = [
    ("Oil filter", f'Filtre à {DELETED_1}<mrk mtype="x-sdl-added" sdl:revid="r2">huile</mrk>'),
    ("Check the pump", f'{DELETED_2}<mrk mtype="x-sdl-added" sdl:revid="r2">Vérifiez la pompe</mrk>'),
    ("Drain", '<mrk mtype="x-sdl-deleted" sdl:revid="r1">Vidanger</mrk>'),
    ("Replace the seal", f'Remplacez le {DELETED_4}joint{EMPTY_DEL}.'),
    ("Seal kit", "Kit de joints"),
]
DOC = ('\ufeff<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" '
       'xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2" sdl:version="1.0">' + REV_DEFS +
       '<file original="a.docx" datatype="x-sdlfilterframework2" source-language="en-US" target-language="fr-FR">'
       '<body>' + "".join(_tu(n, s, t) for n, (s, t) in enumerate(UNITS, 1)) + '</body></file></xliff>')
# the revision definitions, every deleted revision whole, and the opening tag of every inserted one (a
# comment may go inside an insertion: it is target text)
REVISION_MARKUP = re.compile(r'<rev-defs>.*?</rev-defs>|<mrk mtype="x-sdl-deleted"[^>]*?(?:/>|>.*?</mrk>)'
                             r'|<mrk mtype="x-sdl-added"[^>]*>')


def _write(tmp_path, text=DOC):
    p = tmp_path / "a.docx.sdlxliff"
    p.write_bytes(text.encode("utf-8"))
    return str(p)


def test_deleted_revisions_are_not_target_text_inserted_ones_are(tmp_path):
    f = read_bilingual(_write(tmp_path))
    assert [s.target for s in f.segments] == [
        "Filtre à huile", "Vérifiez la pompe", "", "Remplacez le joint.", "Kit de joints"]
    # a copy deleted and replaced no longer looks like a copy; a segment whose text is all deleted is empty
    assert not any(s.target == s.source for s in f.segments)
    tracked = [w for w in f.warnings if "tracked changes not accepted yet" in w]
    assert len(tracked) == 4 and "x-sdl-added, x-sdl-deleted" in tracked[0]


def test_inspect_counts_what_the_file_holds_once_its_changes_are_accepted(tmp_path):
    path = _write(tmp_path)
    seg = inspect_file(path)["segments"]
    assert (seg["total"], seg["translated"], seg["empty"]) == (5, 4, 1)
    _docs, w = withhold(read_bilingual(path).documents)
    assert w.units == 0


def _ann(seg, span, text):
    return Annotation("a.docx.sdlxliff", f"tu{seg}", str(seg), "error", "A1", 4.0, text, "wrong", 100.0, span, None)


def test_write_back_keeps_revision_markup_byte_for_byte(tmp_path):
    data = DOC.encode("utf-8")
    f = read_bilingual(_write(tmp_path))
    t1, t4 = f.segments[0].target, f.segments[3].target
    anns = [_ann(1, (t1.index("huile"), t1.index("huile") + 5), "error A1: huile"),
            _ann(4, (t4.index("joint"), t4.index("joint") + 5), "error A1: joint"),
            _ann(2, (0, 8), "error A1: Vérifiez")]
    out, rep = annotate_bytes(data, anns)
    assert rep.spans_marked == 3, rep
    text = out.decode("utf-8")
    assert REVISION_MARKUP.findall(text) == REVISION_MARKUP.findall(DOC)  # every revision kept as written
    assert DELETED_1 in text and DELETED_2 in text and DELETED_4 in text and EMPTY_DEL in text
    # nothing of ours sits inside a deleted revision, and the text read back is the same
    for deleted in re.findall(r'<mrk mtype="x-sdl-deleted"[^>]*>(.*?)</mrk>', text):
        assert "x-sdl-comment" not in deleted
    back = tmp_path / "out.sdlxliff"
    back.write_bytes(out)
    assert [s.target for s in read_bilingual(str(back)).segments] == [s.target for s in f.segments]
    assert annotate_bytes(out, anns)[0] == out  # idempotent
    assert annotate_bytes(out, [])[0] == data  # and removable, leaving the file as it was
