"""`--in-place` never loses the original (#36): killed with SIGKILL at any moment, the original is in
place or in `FILE.bak`, byte-identical; a later run keeps that backup; a full disk fails before anything
is replaced. Real processes are killed (no simulation); the file is big enough (~1.5 MB) that a kill
lands inside the write at some of the timings."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

UNIT = """      <trans-unit id="{n}">
        <source>Replace the oil filter and the seal of pump {n}.</source>
        <target>Remplacez le filtre à huile et le joint de la pompe {n}.</target>
      </trans-unit>
"""


def original_bytes(units: int = 6000) -> bytes:
    body = "".join(UNIT.format(n=n) for n in range(1, units + 1))
    return ("""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="a" source-language="en" target-language="fr" datatype="plaintext">
    <body>
""" + body + """    </body>
  </file>
</xliff>
""").encode()


# The child annotates the file in place again and again (each run on what the last one left, as a
# re-run or a resume does), saying "ready" once its imports are done.
CHILD = """
import sys
from termqa.formats.annotate import Annotation, annotate
path, units = sys.argv[1], int(sys.argv[2])
print("ready", flush=True)
n = 0
while True:
    n += 1
    anns = [Annotation("a", str(u), "", "error", "A4", 4.0, f"error A4: run {n}", "untranslated", 100.0,
                       (0, 9), None) for u in range(1, units + 1, 7)]
    annotate(path, anns, in_place=True)
"""


def spawn(path: Path, units: int, extra: str = "") -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", extra + CHILD, str(path), str(units)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(ROOT), env=env)


def original_survives(path: Path, original: bytes) -> bool:
    bak = Path(str(path) + ".bak")
    if bak.exists() and bak.read_bytes() != original:
        return False  # a backup is never partial, and never termqa's own output
    return path.read_bytes() == original or (bak.exists() and bak.read_bytes() == original)


# In the child, each fsync and rename says what it touches and then takes a little longer (0.2 s), so
# that the parent can kill it inside a chosen window. Nothing is simulated: the real writes happen.
WINDOWS = """
import os, time
_fsync, _replace = os.fsync, os.replace
def fsync(fd):
    print("fsync", os.path.basename(os.readlink(f"/proc/self/fd/{fd}")), flush=True)
    time.sleep(0.2)
    _fsync(fd)
def replace(a, b):
    _replace(a, b)
    print("replaced", os.path.basename(b), flush=True)
    time.sleep(0.2)
os.fsync, os.replace = fsync, replace
"""

BAK_TMP = lambda line: line.startswith("fsync .p.xlf.bak.") and line.endswith(".termqa-tmp")  # noqa: E731
INPUT_TMP = lambda line: (line.startswith("fsync .p.xlf.") and not line.startswith("fsync .p.xlf.bak")  # noqa: E731
                          and line.endswith(".termqa-tmp"))
# (where to kill, which time it happens in that child, what the files must look like then)
TIMINGS = [
    (lambda line: line == "ready", 1, "original"),  # before anything is written
    (BAK_TMP, 1, "original"),  # the backup half written, in its temporary file
    (lambda line: line == "replaced p.xlf.bak", 1, "original+bak"),  # backed up, input not yet replaced
    (INPUT_TMP, 1, "original+bak"),  # the new content half written
    (lambda line: line == "replaced p.xlf", 1, "annotated+bak"),  # the input replaced
    (INPUT_TMP, 2, "annotated+bak"),  # a re-run (the first backup kept) writing again
    (lambda line: line == "replaced p.xlf", 2, "annotated+bak"),
    (lambda line: line == "fsync tmp" or line.startswith("fsync ") and "." not in line[6:], 3,
     "annotated+bak"),  # the folder being synced after a rename
]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to name the files being synced")
def test_kill_9_during_in_place_never_loses_the_original(tmp_path):
    """Eight kills, one per window of an in-place write, each run resuming after the last was killed."""
    units = 300
    original = original_bytes(units)
    src = tmp_path / "p.xlf"
    src.write_bytes(original)
    bak = Path(str(src) + ".bak")
    stale = 0
    for n, (where, nth, state) in enumerate(TIMINGS):
        child = spawn(src, units, extra=WINDOWS)
        seen = 0
        for raw in child.stdout:
            line = raw.decode().strip()
            if where(line):
                seen += 1
                if seen == nth:
                    break
        else:
            pytest.fail(f"timing {n}: the child ended first: {child.stderr.read().decode()[-800:]}")
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert original_survives(src, original), f"timing {n}"
        now = ("original" if src.read_bytes() == original else "annotated") + ("+bak" if bak.exists() else "")
        assert now == state, f"timing {n}: {now}"  # the kill landed in the window meant
        stale += len(list(tmp_path.glob(".*.termqa-tmp")))
    assert stale >= 3  # killed runs left temporary files (each next run removed them first)...
    from termqa.formats.annotate import annotate

    annotate(src, [], in_place=True)
    assert bak.read_bytes() == original
    assert not list(tmp_path.glob(".*.termqa-tmp"))  # ...the next run removed them


def test_a_second_in_place_run_keeps_the_first_backup(tmp_path):
    from termqa.formats.annotate import Annotation, annotate

    src = tmp_path / "p.xlf"
    original = original_bytes(3)
    src.write_bytes(original)
    ann = Annotation("a", "1", "", "error", "A4", 4.0, "error A4: x", "untranslated", 100.0, (0, 9), None)
    assert annotate(src, [ann], in_place=True).backup == str(src) + ".bak"
    first = src.read_bytes()
    assert annotate(src, [ann], in_place=True).backup == str(src) + ".bak"
    assert Path(str(src) + ".bak").read_bytes() == original and src.read_bytes() != original
    assert first != original


def test_a_full_disk_fails_before_anything_is_replaced(tmp_path):
    """A file-size limit (RLIMIT_FSIZE, the same EFBIG/ENOSPC path as a full disk) below the file's size:
    the backup cannot be written, so the input is not touched, and nothing partial is left."""
    resource = pytest.importorskip("resource")
    units = 200
    original = original_bytes(units)
    src = tmp_path / "p.xlf"
    src.write_bytes(original)
    limit = f"""
import resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, ({len(original) // 3}, {len(original) // 3}))
"""
    child = spawn(src, units, extra=limit)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 1 and (b"File too large" in err or b"No space" in err), err.decode()[-500:]
    assert src.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.xlf"]  # no .bak, no temporary file
