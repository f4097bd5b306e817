"""Open an HTML file in headless Chromium (Debian's `chromium`) and report what a reader would see.

render(html_path, png_path=None) -> dict
    Copies the page into a private temporary directory with a small script
    injected first in <head> (plus a <base> pointing at the page's own
    directory, so relative image paths still resolve).  The script records
    uncaught errors, unhandled promise rejections, console.error calls and
    resources that failed to load; after the load event it writes its verdict
    as JSON into <script type="application/json" id="evbench-render-verdict">,
    which `chromium --dump-dom` prints.  Returns
      {"ok": bool, "images": [{"src", "loaded", "width", "height"}],
       "broken": [src of every <img> with naturalWidth == 0],
       "errors": [script errors and console.error messages],
       "resource_errors": [other resources (scripts, styles, ...) that failed],
       "screenshot": png_path or None, "returncode": int (None: killed at the timeout),
       "workdir": the run's temporary directory (already removed)}
    and with png_path also a screenshot at 1200 x 2400.

assert_renders(html_path, screenshot=None) -> the render() dict
    Fails the calling test naming every broken image and every error; skips
    it when chromium is missing (fails instead when EVBENCH_TESTS_STRICT is set).

Chromium runs as root with --no-sandbox, with a throw-away profile, and with
every host name resolving to nothing, so a report that reaches for the
network shows it as a failed resource instead of fetching anything.  Each run
is its own process group, killed in a `finally` (hard limit 60 s), so no
browser process outlives the call.  Limits: an image counts as loaded when
its naturalWidth > 0, so a PNG truncated after its header passes; images with
loading="lazy" below the 2400-pixel window may be reported broken.
"""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile

TIMEOUT_S = 60
WINDOW = "1200,2400"
VERDICT_ID = "evbench-render-verdict"

# Runs before anything else on the page; keep it ES5-plain so it cannot be the error itself.
PROBE = """<script>(function () {
  var errors = [], resources = [], loaded = false;
  function text(v) { try { return String(v && v.stack ? v.stack : v); } catch (e) { return '?'; } }
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && t.tagName) {
      if (t.tagName !== 'IMG') resources.push(t.tagName.toLowerCase() + ' ' + (t.currentSrc || t.src || t.href || ''));
    } else {
      errors.push('uncaught: ' + e.message + ' at ' + e.filename + ':' + e.lineno + ':' + e.colno);
    }
    if (loaded) write();
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    errors.push('unhandled rejection: ' + text(e.reason));
    if (loaded) write();
  });
  var original = console.error;
  console.error = function () {
    var parts = [];
    for (var i = 0; i < arguments.length; i++) parts.push(text(arguments[i]));
    errors.push('console.error: ' + parts.join(' '));
    if (loaded) write();
    return original.apply(console, arguments);
  };
  function write() {
    var images = [];
    for (var i = 0; i < document.images.length; i++) {
      var im = document.images[i];
      images.push({src: im.currentSrc || im.src || '', loaded: im.complete && im.naturalWidth > 0,
                   width: im.naturalWidth, height: im.naturalHeight});
    }
    var el = document.getElementById('%(id)s');
    if (!el) {
      el = document.createElement('script');
      el.type = 'application/json';
      el.id = '%(id)s';
      (document.body || document.documentElement).appendChild(el);
    }
    el.textContent = JSON.stringify({errors: errors, resources: resources, images: images})
      .replace(/</g, '\\u003c');
  }
  window.addEventListener('load', function () { setTimeout(function () { loaded = true; write(); }, 0); });
})();</script>""" % {"id": VERDICT_ID}


def chromium():
    """Path of the chromium binary (EVBENCH_CHROMIUM overrides), or None."""
    return os.environ.get("EVBENCH_CHROMIUM") or shutil.which("chromium")


def require_chromium():
    """The chromium path, or skip the test (fail it when EVBENCH_TESTS_STRICT is set)."""
    import pytest
    path = chromium()
    if path and os.access(path, os.X_OK):
        return path
    reason = "chromium not installed (Debian package chromium) - the report is not looked at in a browser"
    if os.environ.get("EVBENCH_TESTS_STRICT"):
        pytest.fail(reason)
    pytest.skip(reason)


def instrument(html, directory):
    """The page with <meta charset>, <base href=its directory> and the probe first in <head>."""
    base = pathlib.Path(os.path.abspath(directory)).as_uri().rstrip("/") + "/"
    inject = '<meta charset="utf-8"><base href="%s">%s' % (base.replace('"', "%22"), PROBE)
    for pattern in (r"<head\b[^>]*>", r"<html\b[^>]*>"):
        m = re.search(pattern, html, re.I)
        if m:
            if pattern.startswith("<html"):
                inject = "<head>%s</head>" % inject
            return html[:m.end()] + inject + html[m.end():]
    return inject + html


def _run(args, timeout):
    """Run chromium in its own process group; kill the whole group whatever happens."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "chromium did not finish in %d s" % timeout
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if proc.returncode is None:
            proc.communicate()


def _args(binary, profile, url, mode):
    return [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
            "--disable-background-networking", "--disable-component-update", "--disable-breakpad",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + profile,
            "--virtual-time-budget=5000", "--window-size=" + WINDOW, "--hide-scrollbars", mode, url]


def render(html_path, png_path=None, timeout=TIMEOUT_S):
    """Load html_path in headless chromium; see the module docstring for the result."""
    binary = chromium()
    if not binary:
        raise FileNotFoundError("chromium not installed")
    with open(html_path, encoding="utf-8", errors="replace") as f:
        html = f.read()
    tmp = tempfile.mkdtemp(prefix="evbench-render-")
    try:
        page = os.path.join(tmp, "page.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(instrument(html, os.path.dirname(os.path.abspath(html_path))))
        url = pathlib.Path(page).as_uri()
        code, out, err = _run(_args(binary, os.path.join(tmp, "profile"), url, "--dump-dom"), timeout)
        result = _verdict(out, code, err)
        result["workdir"] = tmp            # removed on return; names this run's processes
        if png_path:
            png_path = os.path.abspath(png_path)
            if os.path.exists(png_path):
                os.unlink(png_path)
            scode, _, serr = _run(_args(binary, os.path.join(tmp, "profile"), url, "--screenshot=" + png_path),
                                  timeout)
            if not os.path.isfile(png_path):
                result["ok"] = False
                result["errors"].append("no screenshot written (exit %s): %s" % (scode, serr.strip()[-300:]))
            result["screenshot"] = png_path
        return result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _verdict(dom, code, stderr):
    result = {"ok": False, "images": [], "broken": [], "errors": [], "resource_errors": [],
              "screenshot": None, "returncode": code}
    m = re.search(r'<script type="application/json" id="%s">(.*?)</script>' % VERDICT_ID, dom, re.S)
    if code is None:
        result["errors"].append(stderr)
    elif not m:
        result["errors"].append("no verdict in the page: it never finished loading, or chromium failed "
                                "(exit %s): %s" % (code, stderr.strip()[-500:]))
    else:
        found = json.loads(m.group(1))
        result["images"] = found["images"]
        result["broken"] = [_short(i["src"]) for i in found["images"] if not i["loaded"]]
        result["errors"] = found["errors"]
        result["resource_errors"] = [_short(r) for r in found["resources"]]
    result["ok"] = bool(m) and code is not None and not (result["broken"] or result["errors"]
                                                         or result["resource_errors"])
    return result


def _short(src):
    return src[:60] + "..." if src.startswith("data:") and len(src) > 60 else src


def assert_renders(html_path, screenshot=None):
    """Fail the test unless every image loads and no script error occurs in chromium."""
    require_chromium()
    result = render(html_path, screenshot)
    problems = (["broken image: %s" % s for s in result["broken"]]
                + ["error: %s" % e for e in result["errors"]]
                + ["failed resource: %s" % r for r in result["resource_errors"]])
    assert result["ok"] and not problems, "%s in chromium:\n  %s" % (html_path, "\n  ".join(problems))
    if screenshot:
        with open(screenshot, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", "screenshot %s is not a PNG" % screenshot
    return result
