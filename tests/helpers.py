"""Small builders for stage tests: an XLIFF 1.2 file and a CSV glossary written to tmp_path."""
from __future__ import annotations

from xml.sax.saxutils import escape


def write_xliff(path, pairs, src="en", tgt="fr"):
    """pairs: list of (source, target) or (id, source, target)."""
    units = []
    for n, p in enumerate(pairs, 1):
        uid, s, t = p if len(p) == 3 else (f"u{n}", *p)
        tgt_el = "" if t is None else f"<target>{escape(t)}</target>"
        units.append(f'<trans-unit id="{uid}"><source>{escape(s)}</source>{tgt_el}</trans-unit>')
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        f'<file original="t.txt" datatype="plaintext" source-language="{src}" target-language="{tgt}">'
        f'<body>{"".join(units)}</body></file></xliff>', encoding="utf-8")
    return str(path)


def write_csv(path, header, rows):
    path.write_text("\n".join([",".join(header)] + [",".join(r) for r in rows]) + "\n", encoding="utf-8")
    return str(path)


def run(tmp_path, pairs, gloss_header, gloss_rows, **kw):
    from termqa.config import Settings
    from termqa.pipeline.check import check

    x = write_xliff(tmp_path / "doc.xlf", pairs, kw.pop("src", "en"), kw.pop("tgt", "fr"))
    g = write_csv(tmp_path / "g.csv", gloss_header, gloss_rows)
    kw.setdefault("lemmatiser", "lookup")
    rest = {k: kw.pop(k) for k in ("judge", "decisions", "progress") if k in kw}  # not settings
    return check([x], [g], Settings(**kw), **rest).to_dict()


def outcomes(result, concept=None):
    return [(o["source_text"], o["target_text"], o["outcome"], o["label"]) for o in result["occurrences"]
            if concept is None or o["concept_id"] == concept]


_RUN_AND_SAY_SPACY = (
    "import json, sys\n"
    "from termqa.cli.main import main\n"
    "try:\n"
    "    main(sys.argv[1:], standalone_mode=False)\n"
    "finally:\n"
    "    print('spacy imported' if 'spacy' in sys.modules else 'spacy not imported', file=sys.stderr)\n"
    "    print('modules imported: ' + json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
)

_MODULES_LINE = "modules imported: "


def run_cli_saying_spacy(args, cache):
    """`termqa ARGS` in a fresh Python process with `cache` as its index cache; its stderr ends with
    "spacy imported" or "spacy not imported", then the line `modules_imported` reads."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "TERMQA_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", _RUN_AND_SAY_SPACY, *args], env=env, capture_output=True,
                          text=True, timeout=600)


def modules_imported(stderr: str) -> set:
    """The names in sys.modules when the process of `run_cli_saying_spacy` ended (from its stderr)."""
    import json

    lines = [ln for ln in stderr.splitlines() if ln.startswith(_MODULES_LINE)]
    assert lines, f"no list of modules in stderr:\n{stderr}"
    return set(json.loads(lines[-1][len(_MODULES_LINE):]))


def read_streamed_and_compared(monkeypatch) -> None:
    """From now on every big-file read streams (STREAM_MIN_BYTES = 0) and is checked against the tree
    reader: the same record, or the same InputError message, for every file a test reads."""
    from termqa import formats
    from termqa.errors import InputError

    streaming = formats._read_streaming

    def outcome(read):
        try:
            return read()
        except InputError as exc:
            return exc

    def compared(path, **kw):
        streamed = outcome(lambda: streaming(path, **kw))
        if streamed is None:  # not a file that streams
            return None
        langs = {k: v for k, v in kw.items() if k != "sink"}  # the tree reader keeps records
        tree = outcome(lambda: formats._dispatch(path, *formats._parse(path), **langs))
        if isinstance(streamed, InputError):
            assert isinstance(tree, InputError) and str(streamed) == str(tree), (path, streamed, tree)
            assert type(streamed) is type(tree)
            raise streamed
        assert streamed == tree, path
        return streamed

    monkeypatch.setattr(formats, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(formats, "_read_streaming", compared)


def fast_judge(server, tmp_path, *, environ=None, cache="cache.db", **overrides):
    """Judge settings against the scripted server of a test: its own cache file, short backoffs and timeout
    (the real openai client still talks HTTP to it). `environ`: as settings_from_env (None reads the process's)."""
    from termqa.judge.llm import settings_from_env

    options = dict(model="scripted-judge", judge_base_url=server.url, cache=str(tmp_path / cache),
                   backoff_base=0.01, backoff_max=0.05, judge_timeout=2.0)
    options.update(overrides)
    return settings_from_env(environ, **options)
