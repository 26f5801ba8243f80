"""The HTML report in a real headless Chromium, with no extra Python dependency.

Chromium is driven from the command line only: `--dump-dom` returns the DOM after the page's
script ran, and the report's own self-test mode (`#selftest`) applies each filter and writes the
visible counts, caught errors and CSP violations into `<pre id="selftest-out">`. Screenshots go
to tests/artifacts/ for a person to look at. Skips when no Chromium is installed
(`apt-get install chromium`, or set TERMQA_CHROMIUM to a Chrome/Chromium binary).
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from termqa.reports import render_html

from .fixtures_result import build_result

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def _chromium():
    env = os.environ.get("TERMQA_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium/Chrome binary found")


def _run(tmp_path: Path, url: str, *extra: str, timeout: float = 90) -> str:
    """Run headless Chromium once (own profile dir, own process group) and return stdout."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-extensions", "--mute-audio", "--hide-scrollbars",
           f"--user-data-dir={profile}", "--virtual-time-budget=2000", *extra, url]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the browser and its helper processes, only ours
        proc.communicate()
        pytest.fail(f"Chromium did not finish within {timeout} s")
    return out.decode("utf-8", "replace")


def _selftest(tmp_path: Path, page: str, name: str) -> dict:
    path = tmp_path / name
    path.write_text(page, encoding="utf-8")
    dom = _run(tmp_path, path.as_uri() + "#selftest", "--dump-dom")
    m = re.search(r'<pre id="selftest-out"[^>]*>(.*?)</pre>', dom, flags=re.S)
    assert m and m.group(1), "the report's self-test wrote nothing (script did not run?)"
    return json.loads(html.unescape(m.group(1)))


@pytest.fixture(scope="module")
def result():
    return build_result()


@pytest.fixture(scope="module")
def selftest(result, tmp_path_factory):
    return _selftest(tmp_path_factory.mktemp("browser"), render_html(result), "report.html")


def test_page_runs_without_errors(selftest):
    assert "fatal" not in selftest
    assert selftest["errors"] == []
    assert selftest["violations"] == []  # nothing tried to load or run against the CSP
    assert selftest["controls_visible"] is True
    assert selftest["total"] == selftest["initial"] == 19


def test_filters_change_the_visible_rows(selftest, result):
    occs = result["occurrences"]
    assert selftest["outcome"] == {k: n for k, n in Counter(o["outcome"] for o in occs).items()}
    assert selftest["outcome"]["error"] == 5
    assert selftest["label"] == result["summary"]["labels"]
    assert selftest["doc"] == {"samples/manual.xlf": 9, "samples/service guide (v2).xlf": 7,
                               "memories/legacy.tmx": 3}
    assert selftest["concept"] == dict(Counter(o["concept_id"] for o in occs))
    # Concepts without any error are hidden when only errors are shown.
    assert selftest["blocks_visible_error_only"] == len({o["concept_id"] for o in occs if o["outcome"] == "error"})
    assert selftest["search"] == {
        "garniture": 1,                      # inside a flagged segment pair
        "REGLEE": 1,                         # case- and accent-insensitive ("réglée")
        "<script>alert(1)</script>": 1,     # hostile text is searchable text
        'u9"><b>': 1,                        # a unit id as the CAT tool shows it
        "zzz-nothing": 0,
    }
    assert selftest["none_message_shown"] is True


def test_tables_sort(selftest):
    assert selftest["docs_by_score_asc"] == ["memories/legacy.tmx", "samples/service guide (v2).xlf",
                                             "samples/manual.xlf"]
    assert selftest["docs_by_score_desc"] == list(reversed(selftest["docs_by_score_asc"]))
    assert selftest["sort_buttons"] > 10


def test_no_injected_markup_runs(selftest):
    assert selftest["scripts"] == 2 and selftest["imgs"] == 0 and selftest["bold"] == []
    assert selftest["pwned"] is None
    assert selftest["hostile_text"] == [True, True, True]


def test_escaping_holds_without_the_csp(result, tmp_path):
    # The CSP would block an injected script anyway; take it away to test the escaping alone.
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", render_html(result))
    assert "Content-Security-Policy" not in page
    out = _selftest(tmp_path, page, "nocsp.html")
    assert out["pwned"] is None and out["imgs"] == 0 and out["scripts"] == 2
    assert out["errors"] == []


def _without_script(page: str) -> str:
    """The page with its CSP forbidding every script: what a reader with JavaScript off gets.
    (Headless --dump-dom needs scripting itself, so switching JavaScript off is not an option.)"""
    out = re.sub(r"script-src &#39;sha256-[^&]+&#39;", "script-src &#39;none&#39;", page)
    assert out != page
    return out


def test_javascript_disabled_shows_everything(result, tmp_path):
    path = tmp_path / "report.html"
    path.write_text(_without_script(render_html(result)), encoding="utf-8")
    dom = _run(tmp_path, path.as_uri(), "--dump-dom")
    assert re.search(r'<form class="filters js-only" id="filters" hidden', dom)
    assert dom.count('<div class="occ b-') == 11
    assert dom.count("<tr data-occ") == 8
    assert not re.search(r'class="[^"]*filtered-out', dom)
    assert re.search(r'<pre id="selftest-out" hidden[^>]*></pre>', dom)


def _frame(report: Path, top: int, height: int, tmp_path: Path, name: str) -> Path:
    """A page showing the report from `top` px down: Chromium's CLI cannot scroll."""
    wrapper = tmp_path / f"frame-{name}.html"
    wrapper.write_text(
        '<!DOCTYPE html><html><body style="margin:0;overflow:hidden">'
        f'<iframe src="{report.as_uri()}" style="position:absolute;left:0;top:-{top}px;'
        f'width:1366px;height:{top + height + 100}px;border:0"></iframe></body></html>',
        encoding="utf-8")
    return wrapper


def test_screenshots(result, tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    report = tmp_path / "report.html"
    report.write_text(render_html(result), encoding="utf-8")
    shots = {
        "report-overview.png": (_frame(report, 0, 1700, tmp_path, "overview").as_uri(), 1366, 1700),
        "report-concepts.png": (_frame(report, 2750, 1500, tmp_path, "concepts").as_uri(), 1366, 1500),
    }
    noscript = tmp_path / "noscript.html"
    noscript.write_text(_without_script(render_html(result)), encoding="utf-8")
    shots["report-noscript.png"] = (_frame(noscript, 2750, 1200, tmp_path, "noscript").as_uri(), 1366, 1200)
    for name, (url, w, h) in shots.items():
        out = ARTIFACTS / name
        out.unlink(missing_ok=True)
        _run(tmp_path, url, f"--window-size={w},{h}", f"--screenshot={out}")
        data = out.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, name
