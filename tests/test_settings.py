"""The run's settings: one typed record, each default defined once, built from config file + environment +
flags, refused when a value is outside its closed set."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from termqa.config import (
    DEFAULT_JUDGE_TIMEOUT, DEFAULT_LEMMATISER, DEFAULT_VARIANTS, KEYS, AnnotateLevel, LemmatiserMode, Settings,
    VariantLevel,
)
from termqa.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [p for folder in ("termqa", "formats", "reports") for p in sorted((ROOT / folder).rglob("*.py"))]


def _lines_matching(pattern: str) -> list[str]:
    rx = re.compile(pattern)
    return [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in SOURCES
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if rx.search(line)]


@pytest.mark.parametrize("what, pattern", [
    # a parameter, field or constant whose default (`name: type = value`, `name=value`; not an assignment) is spelled as a literal instead of the one constant
    ("variant level", r"""(?<![`\w])(variants|level)(\s*:\s*[\w\[\], .]+=\s*|=)["'](none|static|dynamic)["']"""),
    ("variant level", r"""DEFAULT_\w*\s*=\s*["'](none|static|dynamic)["']"""),
    ("lemmatiser mode", r"""(?<![`\w])(lemmatiser|mode)(\s*:\s*[\w\[\], .]+=\s*|=)["'](auto|lookup|trained)["']"""),
    ("lemmatiser mode", r"""DEFAULT_\w*\s*=\s*["'](auto|lookup|trained)["']"""),
    # a typed parameter or field (a call's own timeout, e.g. SQLite's, is no default of the judge's)
    ("judge timeout", r"""(?<![\w.])(judge_)?timeout\s*:\s*[\w\[\], .]+=\s*\d"""),
    ("judge timeout", r"""DEFAULT_\w*TIMEOUT\w*\s*="""),
])
def test_each_default_is_defined_once(what, pattern):
    found = [hit for hit in _lines_matching(pattern) if not hit.startswith("termqa/config.py:")]
    assert found == [], f"a second definition of the default {what}: {found}"


def test_no_default_is_restated_below_the_settings():
    """A parameter or field defaulting to a DEFAULT_ constant restates the run's default below it, where a
    caller that forgets the value silently gets the default instead of the run's setting: below config.py a
    value is taken from the record (or is required), and a convenience default names the record's field
    (`Settings.variants`), never a constant of its own."""
    found = [hit for hit in _lines_matching(r"\s=\s+DEFAULT_") if not hit.startswith("termqa/config.py:")]
    assert found == [], f"a default restated outside termqa/config.py: {found}"
    assert re.search(r"\s=\s+DEFAULT_", "def f(x, variants: VariantLevel = DEFAULT_VARIANTS):")


# environment variables that are no run setting: the CLI's traceback switch, and machinery the library's
# own rooms read (the index cache's folder, the CJK segmenter), each documented where it is read
MACHINERY_ENV = {"termqa/cli/common.py": "TERMQA_DEBUG", "termqa/store/indexcache.py": "ENV_DIR",
                 "termqa/lang/segment.py": "ENV"}


def test_the_environment_is_read_once_by_the_cli():
    """OPENAI_MODEL and OPENAI_BASE_URL come through click's envvar= on their options, OPENAI_API_KEY from
    one function of the CLI layer (termqa.cli.common.environment): the library reads no environment."""
    reads = _lines_matching(r"os\.environ\b(?!\))|getenv\(")
    readers = [hit for hit in reads if not hit.split(":")[0] in MACHINERY_ENV and "ENV_API_KEY" not in hit
               and "os.environ`" not in hit]
    assert readers == [], f"the environment read outside termqa.cli.common.environment: {readers}"
    key = [hit for hit in reads if "ENV_API_KEY" in hit]
    assert len(key) == 1 and key[0].startswith("termqa/cli/common.py:"), key
    for path, name in MACHINERY_ENV.items():
        assert any(hit.startswith(path + ":") and name in hit for hit in reads), (path, name)
    from termqa.cli.check import check_command
    from termqa.config import ENV_BASE_URL, ENV_MODEL

    envvars = {p.name: p.envvar for p in check_command.params if getattr(p, "envvar", None)}
    assert envvars == {"judge_model": ENV_MODEL, "judge_base_url": ENV_BASE_URL}


def test_the_environment_comes_below_the_config_file_and_flags(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from termqa.cli import check as cli_check

    seen = []
    monkeypatch.setattr(cli_check.run, "check", lambda inputs, gl, s, **kw: seen.append(s) or _stop())
    (tmp_path / "termqa.toml").write_text('judge_base_url = "http://127.0.0.1:9/from-file"\n', encoding="utf-8")
    (tmp_path / "a.xlf").write_text("<xliff/>", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    env = {"OPENAI_MODEL": "env-model", "OPENAI_BASE_URL": "http://127.0.0.1:9/env", "OPENAI_API_KEY": " sk-env "}
    CliRunner().invoke(cli_check.check_command, ["a.xlf", "-g", "g.csv"], env=env)
    CliRunner().invoke(cli_check.check_command, ["a.xlf", "-g", "g.csv", "--judge-model", "flag-model"], env=env)
    assert [(s.judge_model, s.judge_base_url, s.api_key) for s in seen] == [
        ("env-model", "http://127.0.0.1:9/from-file", "sk-env"), ("flag-model", "http://127.0.0.1:9/from-file", "sk-env")]


class _Stopped(Exception):
    pass


def _stop():
    raise _Stopped()


def test_each_option_is_made_from_its_field():
    """Help text, flags and bounds sit on the field (termqa.config.Option, Bounds); the CLI's options of the
    settings are made from them, so the help a user reads is the field's."""
    from dataclasses import fields

    from termqa.cli.check import check_command
    from termqa.cli.compare import compare_command

    declared = {(f.metadata["option"].param or f.name): f for f in fields(Settings) if "option" in f.metadata}
    for command in (check_command, compare_command):
        made = {p.name: p for p in command.params if p.name in declared}
        assert len(made) >= 30 if command is check_command else len(made) >= 28, sorted(made)
        for name, param in made.items():
            if command is compare_command and name == "tgt_lang":
                continue  # compare's own: one per system (repeatable)
            option = declared[name].metadata["option"]
            assert (param.help, param.opts[0]) == (option.help, option.flags[0].split("/")[0]), name
    jobs = next(p for p in check_command.params if p.name == "jobs")
    assert jobs.type.min == declared["jobs"].metadata["bounds"].min == 1
    assert "help=" not in (ROOT / "termqa" / "cli" / "options.py").read_text(encoding="utf-8").replace('"help": ', "")


def test_the_greps_see_a_second_definition():
    rx = re.compile(r"""(?<![`\w])(variants|level)(\s*:\s*[\w\[\], .]+=\s*|=)["'](none|static|dynamic)["']""")
    assert rx.search('def f(x, variants: str = "dynamic"):')
    assert re.search(r"""(?<![\w.])(judge_)?timeout\s*:\s*[\w\[\], .]+=\s*\d""", "    timeout: float = 60.0  # s")


def test_the_defaults():
    s = Settings()
    assert s.variants is DEFAULT_VARIANTS is VariantLevel.DYNAMIC
    assert s.lemmatiser is DEFAULT_LEMMATISER is LemmatiserMode.AUTO
    assert s.annotate_level is AnnotateLevel.FLAGGED
    from termqa.judge.settings import JudgeSettings

    assert JudgeSettings(model="m").judge_timeout == DEFAULT_JUDGE_TIMEOUT


def test_strings_become_members_and_bad_values_are_refused():
    s = Settings(variants="static", lemmatiser="lookup", annotate_level="all", glossary="g.tbx")
    assert (s.variants, s.lemmatiser, s.annotate_level, s.glossary) == (
        VariantLevel.STATIC, LemmatiserMode.LOOKUP, AnnotateLevel.ALL, ("g.tbx",))
    with pytest.raises(UsageError, match="unknown variant level 'some'") as exc:
        Settings(variants="some")
    assert "none, static, dynamic" in exc.value.fix
    with pytest.raises(UsageError, match="lemmatiser mode"):
        Settings(lemmatiser="neural")


def test_a_member_is_its_value():
    assert VariantLevel.NONE == "none" and f"{VariantLevel.STATIC}" == "static" and str(LemmatiserMode.AUTO) == "auto"
    assert {"dynamic": 1}[VariantLevel.DYNAMIC] == 1  # same dict key as the string


def test_flags_override_the_config_file_which_overrides_the_environment(tmp_path):
    (tmp_path / "termqa.toml").write_text('variants = "static"\njudge_model = "from-file"\nglossary = "g.tbx"\n'
                                          'judge-timeout = 4\n')
    env = {"OPENAI_MODEL": "from-env"}
    s = Settings.build(cwd=tmp_path, environ=env)
    assert (s.variants, s.judge_model, s.judge_timeout) == (VariantLevel.STATIC, "from-file", 4.0)
    assert s.glossary == (str(tmp_path / "g.tbx"),) and s.config == str(tmp_path / "termqa.toml")
    s = Settings.build(cwd=tmp_path, environ=env, variants="none", judge_model=None, glossary=())
    assert (s.variants, s.judge_model) == (VariantLevel.NONE, "from-file")  # None and () are "not given"
    assert Settings.build(cwd=tmp_path / "nowhere", environ=env).judge_model == "from-env"
    assert Settings.build(cwd=tmp_path / "nowhere", environ={"OPENAI_MODEL": " "}).judge_model is None


def test_the_config_keys_are_the_fields_of_the_record():
    from dataclasses import fields

    assert set(KEYS) <= {f.name for f in fields(Settings)}
    assert {"variants", "lemmatiser", "judge_timeout", "judge_base_url", "cache", "annotate_level"} <= set(KEYS)
    with pytest.raises(TypeError, match="unknown settings: colour"):
        Settings.build(colour="red")


def test_the_cli_takes_its_choices_from_the_enums():
    from termqa.cli.check import check_command

    choices = {p.name: list(p.type.choices) for p in check_command.params if hasattr(p.type, "choices")}
    assert choices["variants"] == VariantLevel.choices()
    assert choices["lemmatiser"] == LemmatiserMode.choices()
    assert choices["annotate_level"] == AnnotateLevel.choices()


def test_the_judge_gets_the_records_options():
    s = Settings(judge_model="m", judge_base_url="http://127.0.0.1:9/v1", judge_timeout=7.5, cache="c.db",
                 price=("m=1,2",))
    from termqa.judge.settings import judge_settings

    j = judge_settings(s)
    assert (j.model, j.judge_base_url, j.judge_timeout, j.cache, j.prices["m"]) == ("m", "http://127.0.0.1:9/v1", 7.5,
                                                                               "c.db", (1.0, 2.0, None))
    assert judge_settings(Settings()) is None
