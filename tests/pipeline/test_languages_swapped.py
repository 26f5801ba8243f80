"""Swapped languages: a file read the wrong way round gives a made-up error list, so it is refused (exit 2,
"swapped" on the first line, the fix named) unless --force-languages; a text merely in another language
keeps its alerts and the run goes on."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from termqa.config import Settings
from termqa.cli import main
from termqa.errors import LanguageError
from termqa.pipeline.check import check
from tests.helpers import write_csv, write_xliff
from tests.pipeline.test_sanity import FRENCH, GERMAN

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
MANUAL = str(SAMPLES / "pump-manual.xlf")
GLOSSARY = str(SAMPLES / "pump-terms.tbx")


def _run(args, tmp_path):
    return CliRunner().invoke(main, [*args, "--lemmatiser", "lookup", "--no-index-cache", "--json",
                                     str(tmp_path / "r.json")])


def test_swapped_options_are_refused_with_the_fix(tmp_path):
    r = _run(["check", MANUAL, "-g", GLOSSARY, "--src-lang", "fr", "--tgt-lang", "en"], tmp_path)
    assert r.exit_code == 2
    first = r.output.strip().splitlines()[0]
    assert first.startswith("termqa: error: ") and "swapped" in first
    assert "--src-lang en --tgt-lang fr" in first and "--force-languages" in first
    assert str(SAMPLES) not in r.output  # the file is named, not where it sits
    assert not (tmp_path / "r.json").exists()  # no made-up result was written


def test_a_file_whose_attributes_are_swapped_is_refused(tmp_path):
    text = Path(MANUAL).read_text(encoding="utf-8")
    swapped = tmp_path / "manual.xlf"
    swapped.write_text(text.replace('source-language="en" target-language="fr"',
                                    'source-language="fr" target-language="en"'), encoding="utf-8")
    with pytest.raises(LanguageError, match="swapped") as exc:
        check([str(swapped)], [GLOSSARY], Settings(lemmatiser="lookup", index_cache=False))
    assert "--src-lang en --tgt-lang fr" in str(exc.value)
    r = _run(["check", str(swapped), "-g", GLOSSARY], tmp_path)
    assert r.exit_code == 2 and "swapped" in r.output.splitlines()[0]


def test_force_languages_checks_as_declared_and_says_so(tmp_path):
    r = check([MANUAL], [GLOSSARY],
              Settings(lemmatiser="lookup",
                       src_lang="fr", tgt_lang="en", force_languages=True, index_cache=False)).to_dict()
    assert "swapped" in r["alerts"][0] and "--force-languages" in r["alerts"][0]
    assert r["warnings"][: len(r["alerts"])] == r["alerts"]
    cli = _run(["check", MANUAL, "-g", GLOSSARY, "--src-lang", "fr", "--tgt-lang", "en", "--force-languages", "-q"],
               tmp_path)
    assert cli.exit_code == 0, cli.output
    assert "swapped" in cli.output.splitlines()[0]


def test_force_languages_is_a_config_key(tmp_path):
    (tmp_path / "termqa.toml").write_text("force_languages = true\n", encoding="utf-8")
    r = _run(["check", MANUAL, "-g", GLOSSARY, "--src-lang", "fr", "--tgt-lang", "en",
              "--config", str(tmp_path / "termqa.toml")], tmp_path)
    assert r.exit_code == 0, r.output


def test_a_target_in_another_language_is_not_swapped_and_keeps_its_alerts(tmp_path):
    # declared en -> fr, the target is German: wrong, not swapped; the run goes on and says so first
    x = write_xliff(tmp_path / "doc.xlf", [(FRENCH.replace("pompe", "pump"), GERMAN)] * 2, "fr", "de")
    g = write_csv(tmp_path / "g.csv", ["id", "fr", "en"], [["c1", "pump", "pump"]])
    r = check([x], [g], Settings(lemmatiser="lookup", tgt_lang="en", index_cache=False)).to_dict()
    assert any("the target text looks like German, not English (given with --tgt-lang)" in a for a in r["alerts"])
    assert not any("swapped" in a for a in r["alerts"])
    # the sample read with a German target: the text is French, so the alert, no refusal
    r = check([MANUAL], [GLOSSARY],
              Settings(lemmatiser="lookup", tgt_lang="de", source_only_glossary=True, index_cache=False)).to_dict()
    assert any("the target text looks like French, not German" in a for a in r["alerts"])
    assert not any("swapped" in a for a in r["alerts"])


def test_a_right_way_round_file_is_not_flagged():
    r = check([MANUAL], [GLOSSARY], Settings(lemmatiser="lookup", index_cache=False)).to_dict()
    assert r["alerts"] == []
