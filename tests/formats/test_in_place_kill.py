"""`--in-place` never loses the original (#36): killed with SIGKILL at any moment, the original is in
place or in `FILE.bak`, byte-identical; a later run keeps that backup; a full disk fails before anything
is replaced (a real, nearly full tmpfs where the machine lets the tests mount one, and a file-size limit
everywhere). Real processes are killed (no simulation); the file is big enough (~1.5 MB) that a kill
lands inside the write at some of the timings."""
from __future__ import annotations

import json
import os
import shutil
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


# Run in a mount namespace of its own (`unshare -m`): the tmpfs exists only for this script and goes with
# it, whatever happens to the test. It mounts a small tmpfs, copies the sample in, fills the disk until
# `free` bytes are left, runs the real CLI with --in-place on the file, and says what it finds.
ON_TMPFS = r"""
import hashlib, json, os, subprocess, sys
mnt, src, glossary, free = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", mnt], capture_output=True, text=True)
if m.returncode:
    print(json.dumps({"mount": (m.stderr or m.stdout).strip() or f"mount exited {m.returncode}"}))
    sys.exit(0)
target = os.path.join(mnt, "p.xlf")
with open(src, "rb") as fh, open(target, "wb") as out:
    out.write(fh.read())
def avail():
    st = os.statvfs(mnt)
    return st.f_bavail * st.f_frsize
with open(os.path.join(mnt, "filler"), "wb") as fh:
    fh.write(b"\0" * (avail() - free))
left = avail()
r = subprocess.run([sys.executable, "-m", "termqa", "check", target, "-g", glossary, "--lemmatiser", "lookup",
                    "--no-index-cache", "-q", "--in-place"], capture_output=True, text=True)
files = {n: hashlib.sha256(open(os.path.join(mnt, n), "rb").read()).hexdigest()
         for n in sorted(os.listdir(mnt)) if n != "filler"}
print(json.dumps({"left": left, "rc": r.returncode, "stderr": r.stderr, "files": files}))
"""


def run_on_full_tmpfs(tmp_path, free: int) -> dict:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the file-size-limit test stands in)")
    if not shutil.which("unshare") or not shutil.which("mount"):
        pytest.skip("no unshare/mount on this machine (the file-size-limit test stands in)")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable, "-c", ON_TMPFS, str(mnt),
                        str(ROOT / "samples" / "pump-manual.xlf"), str(ROOT / "samples" / "pump-terms.tbx"),
                        str(free)], capture_output=True, text=True, cwd=str(ROOT), env=env, timeout=300)
    if r.returncode and not r.stdout.strip():  # unshare itself refused: a container without CAP_SYS_ADMIN
        pytest.skip(f"cannot make a mount namespace here: {r.stderr.strip()[-200:]}")
    found = json.loads(r.stdout.strip().splitlines()[-1])
    if "mount" in found:
        pytest.skip(f"this machine does not let the tests mount a tmpfs: {found['mount']}")
    return found


@pytest.mark.parametrize("free, backup", [(4096, False), (20480, True)])
def test_in_place_on_a_nearly_full_tmpfs_fails_before_anything_is_replaced(tmp_path, free, backup):
    """`termqa check --in-place` on a tmpfs with 4 KiB left (the backup does not fit) and with 20 KiB left
    (the backup fits, the annotated file does not): exit 2, one line saying what could not be written and
    that the file is as it was, the input byte-identical, the .bak absent or complete, no temporary file."""
    import hashlib

    original = hashlib.sha256((ROOT / "samples" / "pump-manual.xlf").read_bytes()).hexdigest()
    found = run_on_full_tmpfs(tmp_path, free)
    assert found["left"] <= free, found  # the disk was as full as meant
    lines = found["stderr"].strip().splitlines()
    assert found["rc"] == 2 and len(lines) == 1, found
    assert lines[0].startswith("termqa: error: ") and "No space left on device" in lines[0], lines
    assert ("p.xlf.bak cannot be written" in lines[0] and "p.xlf is untouched" in lines[0]) if not backup else (
        "p.xlf: cannot be written" in lines[0] and "nothing was replaced" in lines[0]), lines
    assert "free some space" in lines[0] and "Traceback" not in found["stderr"]
    expected = {"p.xlf": original, **({"p.xlf.bak": original} if backup else {})}
    assert found["files"] == expected  # the input as it was, the backup whole or absent, no .termqa-tmp
