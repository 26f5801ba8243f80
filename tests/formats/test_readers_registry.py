"""The readers keep one contract: every kind the sniffer tells has a reader in the registry, every reader's
`read` takes the one `Source`, and no reader module is imported before a file of its kind is read."""
from __future__ import annotations

import ast
import inspect
import json
import re
import subprocess
import sys

from termqa import formats
from termqa.formats import readers, sniff
from tests.conftest import SAMPLES as samples
from tests.test_layout import ROOT


def test_every_kind_the_sniffer_tells_has_a_registered_reader():
    told = set(re.findall(r'return "([\w-]+)"', inspect.getsource(sniff)))
    told.add("xlsx")  # told apart before sniffing (a zip), in formats._parse
    assert told == set(readers.READERS)
    assert set(formats.BILINGUAL) | set(formats.GLOSSARY) == set(readers.READERS)
    assert not set(formats.BILINGUAL) & set(formats.GLOSSARY)


def test_every_reader_reads_one_source():
    for reader in readers.READERS.values():
        tree = ast.parse((ROOT / "formats" / f"{reader.module}.py").read_text(encoding="utf-8"))
        (read,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "read"]
        args = read.args
        assert [a.arg for a in args.posonlyargs + args.args] == ["source"], reader.name
        assert not args.kwonlyargs and not args.vararg and not args.kwarg, reader.name
        assert reader.sniff and reader.family in (readers.BILINGUAL_FAMILY, readers.GLOSSARY_FAMILY)


def test_no_reader_is_imported_before_its_kind_is_read():
    modules = sorted({f"termqa.formats.{r.module}" for r in readers.READERS.values()})
    code = ("import sys, termqa.formats as f\n"
            f"mods = {modules!r}\n"
            "before = [m for m in mods if m in sys.modules]\n"
            f"f.read_glossary({str(samples / 'pump-terms.tbx')!r})\n"
            "heavy = [m for m in ('rdflib', 'openpyxl', 'translate') if m in sys.modules]\n"
            "print(json.dumps([before, [m for m in mods if m in sys.modules], heavy]))\n")
    r = subprocess.run([sys.executable, "-c", "import json\n" + code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    before, after, heavy = json.loads(r.stdout)
    assert before == [] and "termqa.formats.tbx" in after and "termqa.formats.skos" not in after
    assert heavy == []
