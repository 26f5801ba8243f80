"""TBX-Basic / TBX-Min / TBX-Core v3 as LTAC's dialect definitions state them (formats/tbxdialect.py):
which data categories each meta element may name, picklists; problems make `inspect` exit 2."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from termqa.cli.main import main
from termqa.formats import read_glossary

from tests.conftest import corpus_files

# Files their publishers call valid (LTAC's dialect examples, test files and converter output, and
# the other real TBX files): none may have a problem.
VALID = [p for p in corpus_files("formats/tbx", "*.tbx")
         if not any(w in p.name for w in ("bad", "poorly_formed"))]


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_no_valid_file_becomes_invalid(path):
    assert read_glossary(path).problems == ()
    r = CliRunner().invoke(main, ["inspect", str(path)])
    assert r.exit_code == 0, r.output


def _tbx(tmp_path, dialect, entry, style="dca"):
    p = tmp_path / f"{dialect}.tbx"
    p.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<tbx type="{dialect}" style="{style}" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">'
        '<tbxHeader><fileDesc><sourceDesc><p>test</p></sourceDesc></fileDesc></tbxHeader>'
        f'<text><body><conceptEntry id="c1">{entry}'
        '<langSec xml:lang="fr"><termSec><term>pompe</term></termSec></langSec>'
        '</conceptEntry></body></text></tbx>', encoding="utf-8")
    return p


def _problems(path):
    return [p.split(": ", 1)[1] for p in read_glossary(path).problems]


def test_tbx_min_refuses_what_ltacs_negative_min_file_holds(tmp_path):
    # the three violations of LTAC's TBX_test_files min_bad.tbx, in a file of our own
    p = _tbx(tmp_path, "TBX-Min",
             '<admin type="source">from TBX-Basic</admin>'
             '<langSec xml:lang="en"><termSec><term>pump</term>'
             '<termNote type="usageStatus">not an allowed value</termNote>'
             '<xref type="error" target="https://example.com">x</xref></termSec></langSec>')
    assert _problems(p) == [
        "<admin type='source'>: not a TBX-Min data category (allowed: customerSubset)",
        "usageStatus value 'not an allowed value' is not in the TBX-Min picklist "
        "(preferred, admitted, deprecated, superseded)",
        "<xref type='error'>: not a TBX-Min data category (allowed: externalCrossReference)",
    ]
    r = CliRunner().invoke(main, ["inspect", str(p)])
    assert r.exit_code == 2 and "invalid tbx-v3" in r.output


def test_tbx_min_picklists(tmp_path):
    p = _tbx(tmp_path, "TBX-Min",
             '<langSec xml:lang="en"><termSec><term>pump</term>'
             '<termNote type="administrativeStatus">preferred</termNote>'
             '<termNote type="partOfSpeech">properNoun</termNote>'
             '<termNote type="termType">acronym</termNote></termSec></langSec>')
    assert _problems(p) == [
        "administrativeStatus value 'preferred' is not in the TBX-Min picklist (preferredTerm-admn-sts, "
        "admittedTerm-admn-sts, deprecatedTerm-admn-sts, supersededTerm-admn-sts)",
        "<termNote type='termType'>: not a TBX-Min data category (allowed: administrativeStatus, partOfSpeech)",
    ]
    # properNoun: TBX-Basic 2008's value, carried into v3 by LTAC's converter: a warning, not a problem
    assert any("properNoun" in w for w in read_glossary(p).warnings)


def test_tbx_basic_picklists_and_types(tmp_path):
    p = _tbx(tmp_path, "TBX-Basic",
             '<descrip type="subjectField">pumps</descrip>'
             '<transacGrp><transac type="transactionType">deletion</transac></transacGrp>'
             '<langSec xml:lang="en"><termSec><term>pump</term>'
             '<termNote type="termLocation">button</termNote>'
             '<termNote type="grammaticalGender">common</termNote>'
             '<termNote type="usageNote">careful</termNote></termSec></langSec>')
    assert _problems(p) == [
        "transactionType value 'deletion' is not in the TBX-Basic picklist (origination, modification)",
        "termLocation value 'button' is not in the TBX-Basic picklist (checkBox, comboBox, comboBoxElement, "
        "dialogBox, groupBox, informativeMessage, interactiveMessage, menuItem, progressBar, pushButton, "
        "radioButton, slider, spinBox, tab, tableText, textBox, toolTip, user-definedType)",
        "grammaticalGender value 'common' is not in the TBX-Basic picklist (masculine, feminine, neuter, other)",
        "<termNote type='usageNote'>: not a TBX-Basic data category (allowed: administrativeStatus, "
        "geographicalUsage, grammaticalGender, partOfSpeech, termLocation, termType)",
    ]


def test_tbx_core_has_no_data_categories(tmp_path):
    p = _tbx(tmp_path, "TBX-Core", '<descrip type="definition">a machine</descrip>')
    assert _problems(p) == ["<descrip type='definition'>: TBX-Core has no data categories"]


def test_ltac_valid_test_files_words_are_warnings(corpus):
    g = read_glossary(corpus / "formats/tbx/ltac_basic_good_v3.tbx")
    assert g.problems == ()
    assert any("usageStatus" in w for w in g.warnings) and any("'creation'" in w for w in g.warnings)


def test_tbx_2008_basic_keeps_its_own_picklists(corpus):
    # martif type="TBX-Basic": properNoun is in the 2008 picklist, and no v3 data-category lists apply
    g = read_glossary(corpus / "formats/tbx/ltac_converter_Good-Basic2_v2.tbx")
    assert g.problems == () and not any("properNoun" in w for w in g.warnings)


def test_ltac_negative_files_stay_refused(corpus):
    for name in ("ltac_basic_bad_v3.tbx", "ltac_core_structure_bad_v3.tbx"):
        r = CliRunner().invoke(main, ["inspect", str(corpus / "formats/tbx" / name)])
        assert r.exit_code == 2, name
