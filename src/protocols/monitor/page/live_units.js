// The units on the live page (loaded before live.js, which draws the rest):
// the Builder units table, and how a large run (over LARGE BUs) is shown so
// that the page stays usable at 512: the matrix's rows and columns are
// groups of units (/api/state's matrix.group_size), the table shows the BUs
// that need a look (flagged first, then the furthest from the median rate),
// the timeline's per-BU pane their spread (min, median, max) instead of a
// line each, and the rate factors as a summary. docs/MONITORING.md, "Large
// runs".
window.evbUnits = (function () {
  'use strict';
  var LARGE = 64;        // more BUs than this: a large run
  var TABLE_ROWS = 24;   // BUs the table shows of a large run
  var requestsMax = 1;   // scale of the requests bars (largest seen)

  function isLarge(n) { return n > LARGE; }
  function sorted(values) { return values.slice().sort(function (a, b) { return a - b; }); }
  function median(values) {
    var s = sorted(values), n = s.length;
    return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : 0;
  }

  // 'RU 32-63': group `g` of `size` units of `total` ('RU 5' for a group of one).
  function groupLabel(kind, g, size, total) {
    var first = g * size, last = Math.min(first + size, total) - 1;
    return kind + ' ' + (last > first ? first + '-' + last : first);
  }
  // Whether a unit of group `g` is flagged by `pred`.
  function groupAny(units, g, size, pred) {
    for (var i = g * size; i < Math.min((g + 1) * size, units.length); i++) if (pred(units[i] || {})) return true;
    return false;
  }

  // The per-BU pane's series of a large run: the spread of the BUs' rates.
  function spread() {
    function pick(f) { return function (h) { return h.bu_gbps && h.bu_gbps.length ? f(h.bu_gbps) : undefined; }; }
    return [{name: 'BU max', value: pick(function (v) { return Math.max.apply(null, v); }), colour: '#9467bd', width: 1.5},
      {name: 'BU median', value: pick(median), colour: '#1f77b4', width: 2},
      {name: 'BU min', value: pick(function (v) { return Math.min.apply(null, v); }), colour: '#ff7f0e', width: 1.5}];
  }

  function factorsText(f) {
    if (!isLarge(f.length)) return '[' + f.join(', ') + ']';
    var s = sorted(f);
    return f.length + ' entries, ' + (s[0] === s[s.length - 1] ? 'all ' + s[0] : s[0] + ' to ' + s[s.length - 1]);
  }

  // The BUs the table shows: every one, or of a large run the flagged ones
  // first, then the furthest from the median rate, TABLE_ROWS at most.
  function shown(bus) {
    if (!isLarge(bus.length)) return {rows: bus, note: ''};
    var mid = median(bus.map(function (b) { return b.gbps; }));
    function flagged(b) { return b.excluded || b.integrity_errors > 0 || !b.reported || b.rate_carried ? 1 : 0; }
    var rows = bus.slice().sort(function (a, b) {
      return flagged(b) - flagged(a) || Math.abs(b.gbps - mid) - Math.abs(a.gbps - mid) || a.bu - b.bu;
    }).slice(0, TABLE_ROWS);
    return {rows: rows, note: rows.length + ' of ' + bus.length + ' BUs: flagged first, then the furthest from the median rate (' +
      mid.toFixed(2) + ' Gb/s)'};
  }

  function bar(u, value, scale, tickAt, cls, label) {
    var line = u.el('div', 'barline'), b = u.el('div', 'bar'), f = u.el('div', 'fill ' + cls);
    f.style.width = Math.min(100, scale > 0 ? value / scale * 100 : 0) + '%';
    b.appendChild(f);
    if (tickAt !== null) {
      var t = u.el('div', 'tick');
      t.style.left = 'calc(' + Math.min(100, tickAt / scale * 100) + '% - 1px)';
      b.appendChild(t);
    }
    line.appendChild(b);
    line.appendChild(u.el('span', 'num', label));
    return line;
  }
  // The Builder units table: credits and requests as bars, flags. `u`: live.js's helpers.
  function drawBus(state, u) {
    var body = u.$('bus').tBodies[0], p = state.params, alloc = Math.max(p.credits_allocated || 0, p.credits || 0, 1);
    var pick = shown(state.bus || []);
    (state.bus || []).forEach(function (b) { requestsMax = Math.max(requestsMax, b.requests_in_flight); });
    u.$('bus-note').textContent = pick.note;
    body.textContent = '';
    pick.rows.forEach(function (b) {
      var tr = u.el('tr', b.excluded ? 'excluded' : ''), flags = u.el('td');
      tr.appendChild(u.el('td', '', 'BU ' + b.bu));
      var credits = u.el('td');
      credits.appendChild(bar(u, b.events_in_flight, alloc, p.credits, '', b.events_in_flight + ' / ' + p.credits + ' (of ' + alloc + ')'));
      tr.appendChild(credits);
      var req = u.el('td');
      req.appendChild(bar(u, b.requests_in_flight, requestsMax, null, 'requests', String(b.requests_in_flight)));
      tr.appendChild(req);
      tr.appendChild(u.el('td', '', String(b.fu_queue || 0)));
      tr.appendChild(u.el('td', '', u.gbps(b.gbps)));
      tr.appendChild(u.el('td', '', u.duration(b.latency_p50_s) + ' / ' + u.duration(b.latency_p99_s)));
      if (b.excluded) flags.appendChild(u.el('span', 'flag off', 'excluded'));
      if (b.integrity_errors > 0) flags.appendChild(u.el('span', 'flag bad', u.count(b.integrity_errors) + ' integrity errors'));
      if (!b.reported) flags.appendChild(u.el('span', 'flag off', 'not reported yet'));
      if (b.rate_carried) flags.appendChild(u.el('span', 'flag off', 'rate carried forward'));
      if (!flags.childNodes.length) flags.appendChild(u.el('span', 'flag ok', 'ok'));
      tr.appendChild(flags);
      body.appendChild(tr);
    });
  }

  return {isLarge: isLarge, groupLabel: groupLabel, groupAny: groupAny, spread: spread, factorsText: factorsText,
    drawBus: drawBus};
})();
