"""The browser check (tests/python/browser.py) proven on pages that must pass and must fail.

A report test calls browser.assert_renders(html); these tests show that it
passes a page whose image loads and fails one with a broken image or a script
error, so a green report test means the report really renders.
"""
import base64
import os
import subprocess
import time

import pytest

import browser
from evbench_scan.report import plots

pytestmark = pytest.mark.timeout(150)


@pytest.fixture(scope="module")
def png_bytes(tmp_path_factory):
    """A real figure from plots.py, as bytes."""
    path = str(tmp_path_factory.mktemp("fig") / "bars.png")
    plots.grouped_bars(["tcp", "ucx/sm write"], {"bw": {"tcp": ("tcp", 40.0, 38.0, 43.0, 3),
                                                        "ucx/sm write": ("ucx/sm write", 55.0, 50.0, 57.0, 3)}},
                       path, "Bandwidth per node by variant", "variant", "Gb/s per node")
    with open(path, "rb") as f:
        return f.read()


def page(tmp_path, body, name="report.html"):
    path = tmp_path / name
    path.write_text("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>report</title>"
                    "</head><body><h1>Campaign report \u2013 drivers</h1>%s</body></html>\n" % body,
                    encoding="utf-8")
    return str(path)


def live_browsers(result):
    """chromium processes (not zombies) of this render still running after it returned (waits up to 3 s)."""
    for _ in range(30):
        out = subprocess.run(["ps", "-eo", "stat=,args="], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
        live = [line for line in out.splitlines()
                if result["workdir"] in line and not line.lstrip().startswith("Z")]
        if not live:
            return []
        time.sleep(0.1)
    return live


def test_a_page_whose_image_loads_renders(tmp_path, png_bytes):
    browser.require_chromium()
    uri = "data:image/png;base64," + base64.b64encode(png_bytes).decode("ascii")
    html = page(tmp_path, '<p>The figure:</p><img alt="bandwidth" src="%s">' % uri)
    shot = str(tmp_path / "shot.png")
    result = browser.assert_renders(html, screenshot=shot)
    assert result["ok"] and result["broken"] == [] and result["errors"] == []
    assert len(result["images"]) == 1 and result["images"][0]["loaded"]
    assert result["images"][0]["width"] > 300
    assert result["screenshot"] == shot
    with open(shot, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and os.path.getsize(shot) > 5000
    assert int.from_bytes(head[16:20], "big") == 1200 and int.from_bytes(head[20:24], "big") == 2400
    assert live_browsers(result) == []


def test_relative_images_resolve_from_the_reports_directory(tmp_path, png_bytes):
    browser.require_chromium()
    report = tmp_path / "my report"
    (report / "figures").mkdir(parents=True)
    (report / "figures" / "bars.png").write_bytes(png_bytes)
    result = browser.assert_renders(page(report, '<img alt="bars" src="figures/bars.png">'))
    assert [i["loaded"] for i in result["images"]] == [True]


def test_a_broken_image_is_reported(tmp_path, png_bytes):
    browser.require_chromium()
    (tmp_path / "good.png").write_bytes(png_bytes)
    (tmp_path / "not-a.png").write_text("<html>404 Not Found</html>")
    html = page(tmp_path, '<img alt="a" src="good.png"><img alt="b" src="not-a.png">'
                          '<img alt="c" src="missing.png">')
    result = browser.render(html)
    assert not result["ok"]
    assert sorted(os.path.basename(s) for s in result["broken"]) == ["missing.png", "not-a.png"]
    assert result["errors"] == []
    with pytest.raises(AssertionError, match="broken image: .*not-a.png"):
        browser.assert_renders(html)


def test_a_script_error_is_reported(tmp_path):
    browser.require_chromium()
    html = page(tmp_path, "<p>table</p><script>document.getElementById('no-such-table').rows;</script>")
    result = browser.render(html)
    assert not result["ok"] and result["broken"] == []
    assert len(result["errors"]) == 1 and "TypeError" in result["errors"][0]
    with pytest.raises(AssertionError, match="error: uncaught"):
        browser.assert_renders(html)


def test_console_errors_late_errors_and_failed_scripts_are_reported(tmp_path):
    browser.require_chromium()
    html = page(tmp_path, "<script src=\"missing.js\"></script>"
                          "<script>console.error('table sort failed');"
                          "Promise.reject(new Error('async boom'));"
                          "window.addEventListener('load', function () {"
                          " setTimeout(function () { null.x; }, 50); });</script>")
    result = browser.render(html)
    joined = "\n".join(result["errors"])
    assert "console.error: table sort failed" in joined
    assert "unhandled rejection" in joined and "async boom" in joined
    assert "TypeError" in joined                                # thrown after the load event
    assert [os.path.basename(r) for r in result["resource_errors"]] == ["missing.js"]
    assert not result["ok"]


def test_a_page_that_never_finishes_is_killed(tmp_path):
    browser.require_chromium()
    html = page(tmp_path, "<script>while (true) {}</script>")
    result = browser.render(html, timeout=5)
    assert not result["ok"] and result["returncode"] is None
    assert "did not finish in 5 s" in result["errors"][0]
    assert live_browsers(result) == []


def test_missing_chromium_skips_or_fails_in_strict_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("EVBENCH_CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.delenv("EVBENCH_TESTS_STRICT", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium not installed"):
        browser.require_chromium()
    monkeypatch.setenv("EVBENCH_TESTS_STRICT", "1")
    with pytest.raises(pytest.fail.Exception, match="chromium not installed"):
        browser.require_chromium()
