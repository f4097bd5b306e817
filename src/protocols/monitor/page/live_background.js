// Background traffic on the live page (loaded before live.js): a panel of
// its own, apart from the event builder's figures, shown only when the run
// has `background:` entries (/api/state's background[]). A curve per entry
// over time (history[].background_gbps, the entry's ranks' rates by their
// own clocks, summed) and a row per entry: pattern, ranks sending, Gb/s,
// bytes sent, on or stopped, and a button that stops or starts it
// (POST /control {"background.N.active": false}). docs/MONITORING.md.
window.evbBackground = (function () {
  'use strict';
  var COLOURS = ['#b45309', '#0f766e', '#7c3aed', '#be123c', '#4d7c0f', '#1e40af'];
  var wired = false;

  function colour(e) { return COLOURS[e % COLOURS.length]; }

  // The curves: one per entry, on their own scale and the run's time axis.
  function drawCurves(canvas, state, h) {
    var hist = state.history || [], n = state.background.length;
    var c = h.prepare(canvas), ctx = c.ctx;
    var m = {l: 58, r: 16, t: 8, b: 34}, pw = c.w - m.l - m.r, ph = c.h - m.t - m.b;
    var t1 = Math.max(state.run.t_s, hist.length ? hist[hist.length - 1].t_s : 0, 1);
    var t0 = hist.length ? Math.min(hist[0].t_s, t1 - 1) : 0;
    var ymax = 0.1;
    hist.forEach(function (p) { (p.background_gbps || []).forEach(function (v) { if (v > ymax) ymax = v; }); });
    var yt = h.ticks(0, ymax * 1.05, 3, true);
    ymax = yt[yt.length - 1];
    function x(t) { return m.l + (t - t0) / (t1 - t0) * pw; }
    function y(v) { return m.t + ph - v / ymax * ph; }
    ctx.strokeStyle = '#e5e7eb'; ctx.fillStyle = '#4a5568'; ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
    yt.forEach(function (v) {
      ctx.beginPath(); ctx.moveTo(m.l, y(v)); ctx.lineTo(m.l + pw, y(v)); ctx.stroke();
      ctx.fillText(String(v), m.l - 6, y(v));
    });
    ctx.strokeStyle = '#4a5568'; ctx.strokeRect(m.l, m.t, pw, ph);
    ctx.save(); ctx.translate(14, m.t + ph / 2); ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center'; ctx.fillText('background (Gb/s)', 0, -4); ctx.restore();
    ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    h.ticks(t0, t1, 10, false).forEach(function (v) { ctx.fillText(String(v), x(v), m.t + ph + 6); });
    ctx.fillText('time since t0 (s)', m.l + pw / 2, c.h - 14);
    ctx.save(); ctx.beginPath(); ctx.rect(m.l, m.t, pw, ph); ctx.clip(); ctx.lineJoin = 'round';
    for (var e = 0; e < n; e++) {
      ctx.strokeStyle = colour(e); ctx.lineWidth = 2; ctx.beginPath();
      var started = false;
      hist.forEach(function (p) {
        var v = (p.background_gbps || [])[e];
        if (typeof v !== 'number') return;
        if (!started) ctx.moveTo(x(p.t_s), y(v)); else ctx.lineTo(x(p.t_s), y(v));
        started = true;
      });
      ctx.stroke();
    }
    ctx.restore();
  }

  // The rows: one per entry, with its switch.
  function drawTable(state, h) {
    var body = h.$('background-table').tBodies[0];
    body.textContent = '';
    state.background.forEach(function (b) {
      var tr = h.el('tr', b.active ? '' : 'stopped');
      var name = h.el('td', '', '');
      var sw = h.el('span', 'swatch');
      sw.style.background = colour(b.entry - 1);
      name.appendChild(sw);
      name.appendChild(document.createTextNode(b.entry + ': ' + b.pattern));
      tr.appendChild(name);
      tr.appendChild(h.el('td', '', b.ranks_sending + ' of ' + b.ranks + (b.ranks_reported < b.ranks ? ' (' + b.ranks_reported + ' reported)' : '')));
      tr.appendChild(h.el('td', 'gbps', h.gbps(b.gbps)));
      tr.appendChild(h.el('td', '', h.count(b.bytes / 1e6) + ' MB'));
      var flags = h.el('td');
      flags.appendChild(h.el('span', 'flag ' + (b.active ? 'ok' : 'off'), b.active ? 'on' : 'stopped'));
      if (b.rate_carried) flags.appendChild(h.el('span', 'flag off', 'rate carried forward'));
      tr.appendChild(flags);
      var cell = h.el('td'), button = h.el('button', '', b.active ? 'stop' : 'start');
      button.type = 'button';
      button.setAttribute('data-entry', String(b.entry));
      button.setAttribute('data-active', b.active ? 'false' : 'true');
      button.disabled = !!state.run.finished;
      cell.appendChild(button);
      tr.appendChild(cell);
      body.appendChild(tr);
    });
  }

  // h: the page's helpers ($, el, fixed, count, prepare, ticks, send).
  function draw(state, h) {
    var panel = h.$('background-panel'), has = (state.background || []).length > 0;
    panel.hidden = !has;
    if (!has) return;
    if (!wired) {
      wired = true;
      h.$('background-table').addEventListener('click', function (ev) {
        var entry = ev.target.getAttribute && ev.target.getAttribute('data-entry');
        if (!entry) return;
        var body = {};
        body['background.' + entry + '.active'] = ev.target.getAttribute('data-active') === 'true';
        h.send(body);
      });
    }
    drawCurves(h.$('background-timeline'), state, h);
    drawTable(state, h);
  }

  return {draw: draw};
})();
