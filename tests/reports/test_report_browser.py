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
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from termqa.config import Settings
from termqa.reports import render_html

from tests.browser_pipe import find_chromium
from tests.fixtures_result import build_result

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def _chromium():
    return find_chromium()


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


def _selftest(tmp_path: Path, page: str, name: str, width: int = 1366) -> dict:
    path = tmp_path / name
    path.write_text(page, encoding="utf-8")
    dom = _run(tmp_path, path.as_uri() + "#selftest", "--dump-dom", f"--window-size={width},1000")
    m = re.search(r'<pre id="selftest-out"[^>]*>(.*?)</pre>', dom, flags=re.S)
    assert m and m.group(1), "the report's self-test wrote nothing (script did not run?)"
    return json.loads(html.unescape(m.group(1)))


@pytest.fixture(scope="module")
def result():
    return build_result()


@pytest.fixture(scope="module")
def selftest(result, tmp_path_factory):
    return _selftest(tmp_path_factory.mktemp("browser"), render_html(result), "report.html")


@pytest.fixture(scope="module")
def built(result, tmp_path_factory):
    """The DOM once the page's script made every card, row and table (its self-test opens them all)."""
    tmp = tmp_path_factory.mktemp("built")
    path = tmp / "report.html"
    path.write_text(render_html(result), encoding="utf-8")
    return _run(tmp, path.as_uri() + "#selftest", "--dump-dom", "--window-size=1366,1000")


def test_the_script_makes_every_occurrence(built, result):
    outcomes = Counter(o["outcome"] for o in result["occurrences"])
    assert built.count('<div class="occ b-') == 11 == sum(n for k, n in outcomes.items() if k != "conforming")
    assert built.count('<tr data-occ="" data-k=') == outcomes["conforming"] == 8
    assert 'id="no-script"' not in built
    # the references and renderings tables of every concept, sortable like the page's own tables
    assert built.count("<h4>Source forms and references</h4>") == built.count('<details class="cinfo"') == 6
    assert built.count('<table class="data compact sortable">') == 6


def test_cards_highlight_the_spans_and_escape_the_text(built):
    assert "Tighten the <mark>oil filter</mark> by hand, then use the torque wrench." in built
    assert "Serrez le <mark>filtre d'huile</mark> à la main" in built
    # Characters outside the BMP do not shift the offsets (Python indexes code points, so does the script).
    assert "🚗 Inspect each <mark>brake pad</mark> &amp; the disc." in built
    assert "🚗 Inspectez chaque <mark>garniture</mark> &amp; le disque." in built
    # A missing rendering is said, not highlighted.
    assert "Rangez-la dans son étui. <span class=\"missing\">(term not found in the target)</span>" in built
    # hostile text is text
    assert "Réinitialisez le <mark>boîtier</mark>. &lt;script&gt;alert(1)&lt;/script&gt;" in built
    assert "<img" not in built and "<b>de</b>" not in built and "unité &lt;b&gt;de&lt;/b&gt; commande" in built
    assert '<code class="uid">u9"&gt;&lt;b&gt;x&lt;/b&gt;&amp;amp;</code>' in built  # a hostile unit id verbatim


def test_every_link_to_a_segment_resolves_once_made(built):
    ids = re.findall(r'\bid="([^"]+)"', built)
    assert len(ids) == len(set(ids))
    assert set(re.findall(r'href="#(seg-[^"]+)"', built)) <= set(ids)
    for anchor in ("seg-samples-manual-xlf-u2-s1", "seg-samples-manual-xlf-u1", "seg-samples-manual-xlf-u4"):
        assert f'id="{anchor}"' in built
    assert built.count('href="#seg-samples-manual-xlf-u4"') == 2  # a card and a conforming row, one anchor


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
    assert selftest["doc"] == {"manual.xlf": 9, "service guide (v2).xlf": 7, "legacy.tmx": 3}
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
    assert selftest["docs_by_score_asc"] == ["legacy.tmx", "service guide (v2).xlf", "manual.xlf"]
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
    # every flag and every rendering's count is there; the occurrences' cards and rows, and a concept's
    # references and renderings tables, are made from the page's data by its script: the page says so once
    assert dom.count('<details class="grp') == 11 and dom.count('<details class="fold"') == 6
    assert dom.count('<div class="occ b-') == dom.count("<tr data-occ") == 0
    assert dom.count('id="no-script"') == 1
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
        "report-concepts.png": (_frame(report, 1000, 1500, tmp_path, "concepts").as_uri(), 1366, 1500),
    }
    noscript = tmp_path / "noscript.html"
    noscript.write_text(_without_script(render_html(result)), encoding="utf-8")
    shots["report-noscript.png"] = (_frame(noscript, 1000, 1200, tmp_path, "noscript").as_uri(), 1366, 1200)
    for name, (url, w, h) in shots.items():
        out = ARTIFACTS / name
        out.unlink(missing_ok=True)
        _run(tmp_path, url, f"--window-size={w},{h}", f"--screenshot={out}")
        data = out.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, name


# ---------------------------------------------------------------------------- first screen, layout, URL

def test_filters_round_trip_through_the_url_hash(selftest):
    trips = selftest["hash_trips"]
    assert trips[0]["hash"] == "#filter?o=unjustified.error" and trips[0]["shown"] == trips[0]["before"] == 6
    assert trips[1]["hash"].startswith("#filter?l=") and trips[1]["shown"] == trips[1]["before"] > 0
    assert trips[2]["hash"] == "#filter?q=REGLEE" and trips[2]["shown"] == trips[2]["before"] == 1
    assert trips[3]["q"] == "é & x=1#?" and trips[3]["outcomes"] == ["error"]  # any text survives the URL
    for t in trips:
        assert t["shown"] == t["before"]


def test_verdict_banner_and_grouped_rows(selftest):
    assert selftest["banner"] == "ERRORS"  # errors found, no gate given (termqa.results.verdict)
    assert selftest["groups"] == 11
    assert selftest["group_open_height"] > 2 * selftest["group_closed_height"]  # folded, and it opens


def _big_result():
    """The fixture with one problem repeated in 40 units: the page must not grow with it."""
    import copy

    r = copy.deepcopy(build_result())
    o = next(o for o in r["occurrences"] if o["outcome"] == "error" and o["target_text"] == "filtre d'huile")
    for i in range(40):
        r["occurrences"].append(dict(o, unit_id=f"rep-{i}-" + "x" * 30, segment_id=None, segment_index=500 + i))
    r["summary"]["outcomes"]["error"] += 40
    r["summary"]["occurrences"] += 40
    # long unbroken strings where layouts break: a path, a hash, a concept id
    r["documents"][0]["original"] = "C:/Very/Long/Folder/" + "Sub" * 30 + "/manual.docx"
    r["signature"]["glossary_hash"] = "f" * 120
    r["warnings"].append("a warning with an unbroken token " + "W" * 150)
    return r


@pytest.mark.parametrize("width", [1440, 800])
def test_nothing_overflows_at_desktop_and_narrow_widths(tmp_path, width):
    out = _selftest(tmp_path, render_html(_big_result(), fail_on=["error"], source_words=3000),
                    f"layout-{width}.html", width=width)
    assert out["errors"] == [] and out["violations"] == []
    assert out["viewport"] == width
    assert out["page_overflow"] == 0
    assert out["overflowing"] == []
    assert out["banner"] == "FAIL"


def _page_height(tmp_path: Path, page: str, name: str) -> int:
    """The rendered height, read through the self-test's DOM (the script writes it)."""
    out = _selftest(tmp_path, page, name)
    return out["page_height"]


def test_page_length_grows_with_problems_not_occurrences(tmp_path):
    small = _page_height(tmp_path, render_html(build_result()), "small.html")
    big = _page_height(tmp_path, render_html(_big_result()), "big.html")
    assert big < small + 400, (small, big)


def test_screenshots_at_two_widths(tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    report = tmp_path / "report.html"
    report.write_text(render_html(_big_result(), fail_on=["error>3"], source_words=3000), encoding="utf-8")
    for w, h in ((1440, 1800), (800, 2400)):
        out = ARTIFACTS / f"report-first-screen-{w}.png"
        out.unlink(missing_ok=True)
        _run(tmp_path, report.as_uri(), f"--window-size={w},{h}", f"--screenshot={out}")
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------- the comparison report

_LAYOUT_PROBE = """<pre id="selftest-out"></pre><script>
(function () {
  var vw = document.documentElement.clientWidth, bad = [];
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  document.querySelectorAll('main *, header *').forEach(function (el) {
    if (el.closest('.scroll') && !el.classList.contains('scroll')) { return; }
    var r = el.getBoundingClientRect();
    if (r.width && r.right > vw + 1) { bad.push(el.tagName + '.' + el.className + ' ' + Math.round(r.right - vw)); }
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible') {
      bad.push(el.tagName + '.' + el.className + ' content ' + (el.scrollWidth - el.clientWidth));
    }
  });
  document.getElementById('selftest-out').textContent = JSON.stringify({
    viewport: vw, page_overflow: document.documentElement.scrollWidth - vw, overflowing: bad.slice(0, 20),
    scripts_in_data: window.__pwned || null});
}());
</script>"""


@pytest.fixture(scope="module")
def compare_data(tmp_path_factory):
    from termqa.evaluate import compare as cmp

    from tests.evaluate.test_compare import EDITS_B, GLOSS, edited

    d = tmp_path_factory.mktemp("cmpb")
    files = [edited(d / f"system-with-a-long-name-{i:02d}.xlf", EDITS_B if i % 2 else ()) for i in range(10)]
    return cmp.compare(files, [GLOSS], Settings(lemmatiser="lookup")).to_dict()


@pytest.mark.parametrize("width", [1440, 800])
def test_compare_report_fits_and_runs_no_script(tmp_path, compare_data, width):
    from termqa.reports.compare_html import render_compare_html

    page = render_compare_html(compare_data)
    assert "<script" not in page
    # the page itself has no script; a probe is added to this copy only, with the CSP taken away
    probe = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace("</body>", _LAYOUT_PROBE + "</body>")
    path = tmp_path / f"compare-{width}.html"
    path.write_text(probe, encoding="utf-8")
    dom = _run(tmp_path, path.as_uri(), "--dump-dom", f"--window-size={width},1000")
    m = re.search(r'<pre id="selftest-out">(.*?)</pre>', dom, flags=re.S)
    out = json.loads(html.unescape(m.group(1)))
    assert out["viewport"] == width and out["page_overflow"] == 0 and out["overflowing"] == []
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"compare-{width}.png"
    shot.write_bytes(b"")
    page_path = tmp_path / f"compare-plain-{width}.html"
    page_path.write_text(page, encoding="utf-8")
    _run(tmp_path, page_path.as_uri(), f"--window-size={width},1800", f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------- folded occurrences, clicked open

def test_folded_occurrences_open_on_a_click(result, tmp_path):
    """Conforming occurrences are counts per rendering and a flag's occurrences are folded under it: a
    click makes them, from the page's data, as a reader sees them; a link to a segment opens its fold."""
    from tests.browser_pipe import Browser

    report = tmp_path / "report.html"
    report.write_text(render_html(result), encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    with Browser(CHROMIUM, tmp_path / "profile", width=1366, height=900) as b:
        b.open(report.as_uri())
        assert b.eval("document.querySelectorAll('[data-occ]').length") == 0  # nothing made yet
        # the oil filter's three conforming occurrences: one rendering, "×3", opened in two clicks
        b.eval("""(() => { const f = [...document.querySelectorAll('details.fold')]
                  .find((x) => x.querySelector('summary').textContent.includes('filtre à huile'));
                  f.dataset.test = 'fold'; f.closest('details.conf').dataset.test = 'conf'; })()""")
        assert "×3" in b.eval("document.querySelector('[data-test=fold] > summary').textContent")
        b.click("[data-test=conf] > summary")
        b.click("[data-test=fold] > summary")
        b.wait_for("[data-test=fold] tr[data-occ]")
        rows = b.eval("""[...document.querySelectorAll('[data-test=fold] tr[data-occ]')].map((r) =>
                         [...r.cells].map((c) => c.textContent.replace(/\\s+/g, ' ').trim()))""")
        assert len(rows) == 3 and all(r[2] == "filtre à huile" for r in rows)
        assert rows[0][0].startswith("manual.xlf · unit") and rows[0][0].endswith("#")
        assert b.eval("document.querySelectorAll('[data-test=fold] .d-open').length") == 3  # Decide… on each
        b.eval("document.querySelector('[data-test=fold]').scrollIntoView({block: 'center'})")
        b.screenshot(ARTIFACTS / "report-folded-rows.png")
        # a flag: its cards are made when it is opened, each segment with the term marked
        b.eval("""(() => { const g = [...document.querySelectorAll('details[data-group]')]
                  .find((x) => x.querySelector('.gtext').textContent.includes('garniture'));
                  g.dataset.test = 'grp'; })()""")
        assert b.eval("document.querySelectorAll('[data-test=grp] .occ').length") == 0
        b.click("[data-test=grp] > summary")
        b.wait_for("[data-test=grp] .occ mark")
        assert b.eval("[...document.querySelectorAll('[data-test=grp] .occ mark')].map((m) => m.textContent)") == \
            ["brake pad", "garniture"]
        assert b.eval("document.querySelectorAll('[data-test=grp] .occ .decide').length") == 1
        b.screenshot(ARTIFACTS / "report-flag-cards.png")
        # a link to a segment whose only occurrence is a folded conforming row, opened: the row is made, shown
        linked = tmp_path / "linked.html"
        linked.write_text(report.read_text(encoding="utf-8"), encoding="utf-8")
        b.open(linked.as_uri() + "#seg-samples-manual-xlf-u1")
        b.wait_for("#seg-samples-manual-xlf-u1")
        shown = b.eval("""(() => { const r = document.getElementById('seg-samples-manual-xlf-u1');
                          return [r.tagName, r.closest('details.fold').open, r.closest('details.conf').open,
                                  r.getBoundingClientRect().height > 0]; })()""")
        assert shown == ["TR", True, True, True]
        # and followed inside the page (a permalink clicked): a flag's card this time
        b.eval("location.hash = '#seg-samples-manual-xlf-u2-s1'")
        b.wait_for("#seg-samples-manual-xlf-u2-s1")
        assert b.eval("""(() => { const c = document.getElementById('seg-samples-manual-xlf-u2-s1');
                          return [c.className.split(' ')[0], c.closest('details[data-group]').open]; })()""") == ["occ", True]
        assert b.eval("document.getElementById('selftest-out').textContent") == ""  # the script never failed
