"""The README and docs/ stay one set of facts: a short README for a newcomer, the reference in docs/.

The README stays within 250 lines and keeps the two set-up commands `.ci/run` takes from it; every
page of docs/ is linked from it; every relative link and anchor resolves; every command and option the
CLI has (loaded from the CLI itself, lazy commands included), every config key, every environment
variable termqa reads, every CSV column, every variant rule, the penalty table and the verdict words are
written on the page that documents them, so that a new flag or key without documentation fails here.
"""
from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from termqa.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
SOURCE_ROOTS = [ROOT / "termqa", ROOT / "formats", ROOT / "reports"]


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _without_code_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercased, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.*)$", _without_code_blocks(_text(path)), flags=re.M)
    return {_slug(h) for h in headings}


def _links(path: Path) -> list[str]:
    """The targets of the Markdown links and images of a page, outside code blocks."""
    return re.findall(r"\]\(([^)\s]+)\)", _without_code_blocks(_text(path)))


def _token(text: str, word: str) -> bool:
    """`word` stands in `text` on its own (`--json` is not found inside `--json-lines`)."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


# --- the README ---------------------------------------------------------------------------------------

def test_readme_is_short():
    lines = _text(README).splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move reference text into docs/"


def test_readme_keeps_the_two_set_up_commands():
    """.ci/run runs the first README line that starts with `pip install -e`, and the README's test command."""
    lines = _text(README).splitlines()
    install = next((line for line in lines if line.startswith("pip install -e")), None)
    assert install is not None
    assert 'pip install -e ".[test]"' in install
    assert "termqa check samples/ --glossary samples/pump-terms.tbx --json result.json" in install
    assert "python -m pytest -q" in lines


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(README.parent / link.split("#")[0]).resolve() for link in _links(README)
              if not link.startswith(("http:", "https:", "mailto:", "#"))}
    unlinked = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert unlinked == []


# --- links ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for link in _links(page):
        if link.startswith(("http:", "https:", "mailto:")):
            continue
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            broken.append(f"{link}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{link}: no heading with that anchor in {path.name}")
    assert broken == []


# --- the CLI reference ----------------------------------------------------------------------------------

def _commands(group: click.Group, path: tuple[str, ...] = ("termqa",)):
    """Every command under `group` as (words, command), loading the lazy ones."""
    ctx = click.Context(group, info_name=path[-1])
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        yield (*path, name), cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, (*path, name))


COMMANDS = sorted([(("termqa",), main), *_commands(main)], key=lambda c: c[0])


def test_the_cli_has_the_commands_this_test_walks():
    names = {" ".join(words) for words, _ in COMMANDS}
    assert {"termqa check", "termqa compare", "termqa decide add", "termqa judge ingest"} <= names


def _section(text: str, words: tuple[str, ...]) -> str | None:
    """The first `## ` section of docs/cli.md whose heading names the command, up to the next `## `
    heading (the section of `termqa` itself comes first, so the group's own options are looked for there)."""
    name = " ".join(words)
    for section in re.split(r"^(?=## )", text, flags=re.M):
        if section.startswith("## ") and _token(section.splitlines()[0].replace("`", " "), name):
            return section
    return None


@pytest.mark.parametrize("words,cmd", COMMANDS, ids=[" ".join(w) for w, _ in COMMANDS])
def test_every_command_and_option_is_in_docs_cli(words, cmd):
    section = _section(_text(DOCS / "cli.md"), words)
    assert section is not None, f"no heading of docs/cli.md names `{' '.join(words)}`"
    missing = [opt for param in cmd.params if isinstance(param, click.Option)
               for opt in (*param.opts, *param.secondary_opts) if not _token(section, opt)]
    assert missing == [], f"{' '.join(words)}: options not in its section of docs/cli.md"


# --- configuration and environment ----------------------------------------------------------------------

def test_every_config_key_is_in_docs_configuration():
    from termqa import config
    keys = getattr(config, "KEYS", None) or {f.name for f in config.fields(config.Settings) if f.metadata.get("kind")}
    assert len(keys) > 20
    text = _text(DOCS / "configuration.md")
    assert sorted(k for k in keys if f"`{k}`" not in text) == []


def _environment_variables() -> set[str]:
    """The TERMQA_* / OPENAI_* names written as strings in the code (the variables it reads), and in tests."""
    found = set()
    for root in [*SOURCE_ROOTS, ROOT / "tests"]:
        for path in root.rglob("*.py"):
            found |= set(re.findall(r"[\"']((?:TERMQA|OPENAI)_[A-Z_]+)[\"']", _text(path)))
    return found - {"TERMQA_NS"}  # a Python name the annotators export, no variable


def test_every_environment_variable_is_in_docs_configuration():
    names = _environment_variables()
    assert {"OPENAI_API_KEY", "TERMQA_CACHE_DIR", "TERMQA_SHARED"} <= names
    text = _text(DOCS / "configuration.md")
    assert sorted(n for n in names if f"`{n}`" not in text) == []


# --- facts stated once, checked against the code ------------------------------------------------------------

def test_the_penalty_table_is_the_codes():
    from termqa.labels import DEFAULT_PENALTIES
    text = " ".join(_text(DOCS / "scores.md").split())
    m = re.search(r"Penalties \(TermJudge Table 1\): (.*?)\. Document score", text)
    assert m, "docs/scores.md: the penalty sentence moved"
    written = {k: float(v) for k, v in (item.rsplit(" ", 1) for item in m.group(1).split(", "))}
    assert written == dict(DEFAULT_PENALTIES)


def test_the_verdict_words_are_the_codes():
    from termqa.results.verdict import STATES
    rows = re.findall(r"^\| `([A-Z ]+)` \|", _text(README), flags=re.M)
    assert rows == [word for word, _ in sorted(STATES.values(), key=lambda v: -v[1])]


def test_the_exit_codes_are_the_clis():
    """The README's exit-code table lists the codes `termqa --help` names."""
    said = set(re.findall(r"^\s+(\d+) ", main.epilog or "", flags=re.M))
    table = set(re.findall(r"^\| (\d+) \|", _text(README), flags=re.M))
    assert said and table == said


def test_every_csv_column_is_in_docs_outputs():
    from termqa.reports import CSV_COLUMNS
    text = _text(DOCS / "outputs.md")
    assert sorted(c for c in CSV_COLUMNS if not _token(text, c)) == []


def test_every_variant_rule_is_in_the_variants_table():
    from termqa.pipeline.variants import RULES
    text = _text(DOCS / "matching.md")
    rows = set(re.findall(r"^\| `(\w+)`", text, flags=re.M))
    assert sorted(set(RULES) - rows) == []
