"""Escaped tags and CDATA markup in HTML/XML datatypes are never words on either side (issue 35): the tag
name "table" in "Ouvrez la grille &lt;table&gt; des résultats" is not the source term left untranslated,
and a CDATA <bold> tag name is never a rendering."""
import pytest

from termqa.config import Settings
from termqa.pipeline.check import check
from tests.helpers import write_csv

_UNITS = {
    "escaped": "<source>Open the results table grid</source>"
               "<target>Ouvrez la grille &lt;table&gt; des résultats</target>",
    "escaped twice": "<source>Open the results table grid</source>"
                     "<target>Ouvrez la grille &amp;lt;table&amp;gt; des résultats</target>",
    "cdata": "<source>Open the results table grid</source>"
             "<target><![CDATA[Ouvrez la grille <table/> des résultats]]></target>",
    "cdata bold": "<source>Make it bold</source><target><![CDATA[Mettez-le en <bold>]]></target>",
}


def _check(tmp_path, unit: str):
    x = tmp_path / "doc.xlf"
    x.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                 '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
                 '<file original="t.html" datatype="html" source-language="en" target-language="fr"><body>'
                 f'<trans-unit id="u1">{unit}</trans-unit></body></file></xliff>', encoding="utf-8")
    g = write_csv(tmp_path / "g.csv", ["concept_id", "en", "fr"], [["t", "table", "tableau"], ["b", "bold", "gras"]])
    return check([str(x)], [g], Settings(lemmatiser="lookup")).to_dict()["occurrences"]


@pytest.mark.parametrize("case", sorted(_UNITS))
def test_a_tag_name_is_never_a_rendering(tmp_path, case):
    [o] = _check(tmp_path, _UNITS[case])
    assert o["outcome"] == "unjudged" and o["label"] is None
    assert o["target_text"] is None


def test_words_between_tags_are_still_renderings(tmp_path):
    [o] = _check(tmp_path, "<source><![CDATA[Use the <bold>table</bold> view]]></source>"
                           "<target><![CDATA[Utilisez la vue <bold>tableau</bold>]]></target>")
    assert (o["target_text"], o["outcome"]) == ("tableau", "conforming")
