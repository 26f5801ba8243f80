"""A counting run imports only what it uses; the commands loaded on demand show the same help as before.

The judge (openai, httpx, its SQLite verdict cache), worker processes, package metadata and the
commands other than check/inspect/rescore/cache are imported when they are used, never by
`termqa check` without a judge model. Their help must not notice: `termqa --help` and every
`termqa CMD --help` are compared with what they printed before the commands were loaded lazily
(tests/golden/cli-help.json, written by `python -m tests.cli.test_lazy_imports`: what termqa owns of each help,
not click's layout of it).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from termqa.cli.main import LAZY_COMMANDS, main
from termqa.lang import installed

from tests.helpers import modules_imported, run_cli_saying_spacy

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
HELP_FILE = Path(__file__).resolve().parents[1] / "golden" / "cli-help.json"

# never loaded by a counting run (a warm one: a cold run imports spaCy, which brings its own modules)
NOT_IN_A_COUNTING_RUN = {"openai", "httpx", "termqa.judge", "multiprocessing", "importlib.metadata",
                         "termqa.reports", "termqa.pipeline.review", "termqa.formats.annotate.place",
                         "termqa.formats.splice", *(m for m, _ in LAZY_COMMANDS.values())}


def test_a_counting_run_imports_neither_the_judge_nor_the_other_commands(tmp_path, monkeypatch):
    for name in [k for k in os.environ if k.startswith("OPENAI_")]:  # OPENAI_MODEL would configure a judge
        monkeypatch.delenv(name)
    cache = tmp_path / "cache"
    args = ["check", str(SAMPLES), "-g", str(SAMPLES / "pump-terms.tbx"), "--lemmatiser", "lookup", "-q"]
    cold = run_cli_saying_spacy(args + ["--json", str(tmp_path / "cold.json")], cache)
    assert cold.returncode in (0, 1), cold.stderr
    loaded = modules_imported(cold.stderr)  # spaCy was imported (its command line brings httpx)
    assert not {m for m in loaded if m.split(".")[0] == "openai" or m.startswith("termqa.judge")}
    assert not loaded & {m for m, _ in LAZY_COMMANDS.values()}

    warm = run_cli_saying_spacy(args + ["--json", str(tmp_path / "warm.json")], cache)
    assert warm.returncode == cold.returncode, warm.stderr
    loaded = modules_imported(warm.stderr)
    assert "termqa.pipeline.check" in loaded and "termqa.lang.lemma" in loaded  # the run itself did happen
    assert not loaded & NOT_IN_A_COUNTING_RUN, sorted(loaded & NOT_IN_A_COUNTING_RUN)
    assert [m for m in loaded if m.startswith("termqa.judge.")] == []
    assert json.loads((tmp_path / "warm.json").read_text(encoding="utf-8"))["summary"] == \
        json.loads((tmp_path / "cold.json").read_text(encoding="utf-8"))["summary"]


def test_a_judged_run_still_loads_the_judge(tmp_path, monkeypatch):
    """`--judge-model` with `--offline` and an empty verdict cache: the judge is loaded and says that a
    question is missing from the cache (no request is made), so the judge path is really taken."""
    for name in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(name)
    args = ["check", str(SAMPLES), "-g", str(SAMPLES / "pump-terms.tbx"), "--lemmatiser", "lookup", "-q",
            "--judge-model", "test-model", "--judge-base-url", "http://127.0.0.1:9/v1", "--offline",
            "--cache", str(tmp_path / "verdicts.sqlite"), "--json", str(tmp_path / "judged.json")]
    r = run_cli_saying_spacy(args, tmp_path / "cache")
    loaded = modules_imported(r.stderr)
    assert "termqa.judge.stages" in loaded and "termqa.judge.llm" in loaded
    assert r.returncode == 2 and "--offline: no cached judgement" in r.stderr, r.stderr


# --- help of the lazy commands -------------------------------------------------------------------------

def _commands(group: click.Group, path: list[str]):
    """Every command path under `group`, as --help lists them (loading each lazy command on the way)."""
    ctx = click.Context(group, info_name=path[-1])
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        yield [*path, name]
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, [*path, name])


def _owned(value):
    """A parameter's default as termqa wrote it: plain values kept, anything computed named by its type."""
    if type(value).__name__ == "Sentinel":  # click >= 8.2 marks "no default given" with its own object
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_owned(v) for v in value]
    return type(value).__name__


def _default(p: click.Parameter):
    """No default given reads the same whatever click's release calls it (None, False for a flag, () for a
    repeatable option, or a sentinel object)."""
    value = _owned(p.default)
    if (value is False and getattr(p, "is_flag", False)) or (value == [] and p.multiple):
        return None
    return value


def describe(cmd: click.Command) -> dict:
    """What termqa owns of a command's help: its texts, each option's flags, help sentence, choices and
    default. Not how click wraps, pads or truncates them (that changes between click releases)."""
    params = []
    for p in cmd.params:
        params.append({
            "kind": "option" if isinstance(p, click.Option) else "argument", "name": p.name, "opts": list(p.opts), "secondary_opts": list(p.secondary_opts),
            "help": getattr(p, "help", None), "required": p.required, "multiple": p.multiple,
            "is_flag": getattr(p, "is_flag", False), "hidden": getattr(p, "hidden", False),
            "metavar": p.metavar, "type": p.type.name,
            "choices": list(p.type.choices) if isinstance(p.type, click.Choice) else None,
            "default": _default(p), "show_default": getattr(p, "show_default", None),
        })
    out = {"help": cmd.help, "short_help": cmd.short_help, "epilog": cmd.epilog, "params": params}
    if isinstance(cmd, click.Group):
        out["commands"] = cmd.list_commands(click.Context(cmd))
    return out


def every_help() -> dict[str, dict]:
    """{"termqa CMD ...": {"described": describe(cmd), "rendered": its --help}}, as `termqa` loads them."""
    out = {}
    for path in [["termqa"], *_commands(main, ["termqa"])]:
        cmd = main
        for name in path[1:]:
            cmd = cmd.get_command(click.Context(cmd), name)
        res = CliRunner().invoke(main, [*path[1:], "--help"], prog_name="termqa", terminal_width=80)
        assert res.exit_code == 0, (path, res.output)
        out[" ".join(path)] = {"described": describe(cmd), "rendered": res.output}
    return out


def _words(text: str) -> str:
    """The text without any white space: click wraps lines, and textwrap may break a word at its hyphen."""
    return "".join(text.replace("\b", "").split())


def test_every_help_is_what_it_was_before_the_commands_were_lazy():
    """In a fresh process, as `termqa` runs: click keeps a command's help option once made, so a test
    that ran a command on its own (without the group's -h) would change that command's help here.
    What is compared is what termqa owns (texts, options, choices, defaults, exit-code sections), and the
    rendered --help is checked to show each of them, whatever the click release's line wrapping."""
    before = json.loads(HELP_FILE.read_text(encoding="utf-8"))
    r = subprocess.run([sys.executable, "-m", "tests.cli.test_lazy_imports", "--print"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    now = json.loads(r.stdout)
    assert sorted(now) == sorted(before), "commands added or gone: regenerate with python -m tests.cli.test_lazy_imports"
    for name, described in before.items():
        assert now[name]["described"] == described, name
        shown = _words(now[name]["rendered"])
        for p in described["params"]:
            if p["hidden"] or p["kind"] != "option":
                continue
            assert p["opts"][-1] in shown, (name, p["opts"])
            if p["help"]:
                assert _words(p["help"]) in shown, (name, p["help"])
        for text in (described["help"], described["epilog"]):
            for line in (text or "").splitlines():
                if line.strip() and line.strip() != "\b":
                    assert _words(line) in shown, (name, line)


def test_every_command_says_its_exit_codes():
    """Each command's help ends with the exit codes it can give (a CI gate reads them)."""
    r = subprocess.run([sys.executable, "-m", "tests.cli.test_lazy_imports", "--print"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    now = json.loads(r.stdout)
    for name, entry in now.items():
        if entry["described"].get("commands") is None:  # a command, not a group
            assert "Exit codes" in entry["rendered"] and " 0 " in entry["rendered"], name


def test_the_lazy_commands_are_listed_and_run_from_the_group():
    assert set(LAZY_COMMANDS) <= set(main.list_commands(click.Context(main)))
    res = CliRunner().invoke(main, ["decide", "list", "--decisions", "no-such-file.json"])
    assert "Traceback" not in res.output
    res = CliRunner().invoke(main, ["no-such-command"])
    assert res.exit_code == 2 and "no-such-command" in res.output  # click names the unknown command


# --- installed packages, asked once -----------------------------------------------------------------------

def test_installed_answers_are_kept_until_a_package_is_installed(tmp_path, monkeypatch):
    """The metadata answers come from the index cache while the sys.path folders hold the same
    distributions; adding a *.dist-info (what installing does) asks again."""
    from termqa.store import indexcache

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    asked = []
    real = installed._ask
    monkeypatch.setattr(installed, "_ask", lambda: asked.append(1) or real())
    with indexcache.using(indexcache.IndexCache(tmp_path / "cache")):
        installed.forget()
        first = installed.answers()
        installed.forget()  # a new process
        assert installed.answers() == first and len(asked) == 1
        (site / "something-1.0.dist-info").mkdir()
        installed.forget()
        assert installed.answers() == first and len(asked) == 2  # asked again (same packages that matter)
    installed.forget()
    with indexcache.using(indexcache.IndexCache(None)):  # no cache: asked each process
        installed.answers()
        assert len(asked) == 3
    installed.forget()


def test_installed_answers_are_what_importlib_metadata_says():
    from importlib import metadata

    installed.forget()
    assert installed.spacy_version() == metadata.version("spacy")
    assert installed.lookups_version() == metadata.version("spacy-lookups-data")
    fr = [ep for ep in metadata.entry_points(group="spacy_lookups") if ep.name == "fr"]
    assert installed.lookup_files("fr") == (dict(fr[0].load()) if fr else {})
    assert installed.lookup_files("no-such-language") == {}


def test_the_stamp_leaves_out_folders_without_distributions(tmp_path, monkeypatch):
    empty = tmp_path / "scripts"
    empty.mkdir()
    monkeypatch.setattr(sys, "path", [str(empty), str(tmp_path / "missing"), *sys.path])
    folders = [f for f, _ in installed.distributions_stamp()]
    assert str(empty) not in folders and str(tmp_path / "missing") not in folders
    assert folders  # the site-packages holding termqa's dependencies


if __name__ == "__main__":  # --print: the help of every command; else write the fixture (on purpose only)
    if sys.argv[1:] == ["--print"]:
        print(json.dumps(every_help(), ensure_ascii=False))
    else:
        described = {name: entry["described"] for name, entry in every_help().items()}
        HELP_FILE.write_text(json.dumps(described, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {HELP_FILE}")
