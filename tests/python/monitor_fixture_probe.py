"""The script the monitor fixture (monitor_fixture.py) serves at /probe.js, loaded before live.js."""

# Loaded before live.js (fixture only): what goes wrong on the page - script
# errors, rejected promises, console.error, resources that fail, anything the
# CSP refuses - as a JSON list in <pre id="page-errors" hidden>, which
# `chromium --dump-dom` shows.
PROBE_JS = r"""(function () {
  var errors = [];
  function show() {
    var el = document.getElementById('page-errors');
    if (!el) {
      if (!document.body) return;
      el = document.createElement('pre');
      el.id = 'page-errors';
      el.hidden = true;
      document.body.appendChild(el);
    }
    el.textContent = JSON.stringify(errors).replace(/</g, '\\u003c');
  }
  window.addEventListener('error', function (e) {
    var t = e.target;
    errors.push(t && t !== window && t.tagName ? 'failed to load ' + (t.src || t.href)
                : 'uncaught: ' + e.message + ' at ' + e.filename + ':' + e.lineno);
    show();
  }, true);
  window.addEventListener('unhandledrejection', function (e) { errors.push('unhandled rejection: ' + e.reason); show(); });
  document.addEventListener('securitypolicyviolation', function (e) {
    errors.push('CSP refused (' + e.violatedDirective + '): ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
    show();
  });
  var original = console.error;
  console.error = function () {
    errors.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
    show();
    return original.apply(console, arguments);
  };
  document.addEventListener('DOMContentLoaded', show);
})();
"""
