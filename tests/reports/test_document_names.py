"""Documents are named by their file when their `original` is missing or shared by several files
(issue #34: three files of one campaign read "wmt25-track1 (1)/(2)/(3)" 6,006 times in a report)."""
from __future__ import annotations

from termqa.reports.issues import display_names


def _doc(path, k=None, original=None):
    return {"doc_id": f"{path}#{k}" if k else path, "path": path, "original": original}


def test_an_original_shared_by_several_files_gives_way_to_the_file_names():
    docs = [_doc(f"/w/en-{lang}.xlf", original="wmt25-track1") for lang in ("de", "ru", "ja")]
    assert list(display_names(docs).values()) == ["en-de.xlf", "en-ru.xlf", "en-ja.xlf"]


def test_the_originals_of_one_file_stay_its_documents_names():
    docs = [_doc("/w/book.xlf", 1, "ch1.docx"), _doc("/w/book.xlf", 2, "ch2.docx")]
    assert list(display_names(docs).values()) == ["ch1.docx", "ch2.docx"]


def test_an_original_two_files_share_keeps_with_its_file_where_a_file_holds_several():
    docs = [_doc("/w/a.xlf", 1, "x.docx"), _doc("/w/a.xlf", 2, "y.docx"), _doc("/w/b.xlf", 1, "x.docx"),
            _doc("/w/b.xlf", 2, "z.docx")]
    assert list(display_names(docs).values()) == ["x.docx (a.xlf)", "y.docx", "x.docx (b.xlf)", "z.docx"]


def test_files_of_one_name_are_told_apart_by_their_folder():
    docs = [_doc(f"/home/someone/proj/{lang}/strings.xlf", original="strings.resx") for lang in ("de", "fr")]
    assert list(display_names(docs).values()) == ["de/strings.xlf", "fr/strings.xlf"]


def test_documents_without_an_original_go_by_file_and_their_place_in_it():
    docs = [_doc("all.tmx", lang) for lang in ("de", "ru")] + [_doc("/w/one.tmx")]
    assert list(display_names(docs).values()) == ["all.tmx #de", "all.tmx #ru", "one.tmx"]
    # an id an occurrence names without a document record: its file's name
    assert display_names([], ["/w/x.xlf#3"]) == {"/w/x.xlf#3": "x.xlf"}


def test_what_still_reads_alike_is_numbered():
    docs = [_doc("/w/a.xlf", 1, "same.docx"), _doc("/w/a.xlf", 2, "same.docx")]
    assert list(display_names(docs).values()) == ["same.docx (1)", "same.docx (2)"]
