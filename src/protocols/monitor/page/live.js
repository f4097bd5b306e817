// The live page of a running evbench (served by the run itself, docs/MONITORING.md).
// Polls GET /api/state with the run's token (from ?token= in the page's URL,
// sent as a Bearer header) every report interval and draws it: headline
// figures, the rate timeline, the RU->BU matrix, the BUs, knobs, faults,
// control changes and the resolved configuration. POST /control changes
// knobs. No third-party code: the drawing below is plain canvas.
(function () {
  'use strict';
  var token = new URLSearchParams(location.search).get('token') || '';
  var headers = {Authorization: 'Bearer ' + token};
  var PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];
  var CONTROL_COLOUR = '#2563eb', FAULT_COLOUR = '#d62728', RECOVERED_COLOUR = '#15803d';
  var LABEL_ROWS = 3;  // rows of marker labels above the timeline
  var last = null;  // the last state drawn (kept when the run ends)
  var units = window.evbUnits;  // live_units.js: the BU table, and a large run's groups and spread
  var background = window.evbBackground;  // live_background.js: the congestors' panel

  function $(id) { return document.getElementById(id); }
  function text(id, value) { $(id).textContent = value; }
  function el(tag, cls, content) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    return e;
  }
  function fixed(v, digits) { return typeof v === 'number' && isFinite(v) ? v.toFixed(digits) : '-'; }
  // A rate in Gb/s: two decimals from 1 Gb/s up, three significant digits
  // below (a steady 0.107 Gb/s must not read 0.11 one second and 0.10 the next).
  // `digits` (default 2 decimals / 3 significant) for narrow places: the matrix.
  function gbps(v, digits) {
    if (typeof v !== 'number' || !isFinite(v)) return '-';
    var d = digits || 2;
    return Math.abs(v) >= 1 || v === 0 ? v.toFixed(d) : v.toPrecision(d + 1);
  }
  function count(v) { return typeof v === 'number' ? Math.round(v).toLocaleString('en-US') : '-'; }
  function duration(s) {
    if (typeof s !== 'number') return '-';
    if (s === 0) return '0 s';
    if (s < 1e-3) return (s * 1e6).toPrecision(3) + ' us';
    if (s < 1) return (s * 1e3).toPrecision(3) + ' ms';
    return s.toPrecision(3) + ' s';
  }
  // A control change's value as applied, in a unit where it has one.
  function controlValue(k) {
    var v = Number(k.value);
    return k.key === 'fu.processing_time' && k.value !== '' && isFinite(v) ? duration(v) : k.value;
  }
  function status(message, cls) { var s = $('status'); s.textContent = message; s.className = 'status ' + cls; }

  // ---- polling -------------------------------------------------------------
  // One request. Only a request that gets no answer at all means the run has
  // ended; a refused token, another HTTP error, a body that is not JSON or a
  // state the page cannot draw each say so (and the page keeps asking,
  // except after a 401).
  function poll() {
    fetch('/api/state', {headers: headers, cache: 'no-store'}).then(function (r) {
      if (r.status === 401) {
        status('token missing or wrong: open the URL the run printed (http://127.0.0.1:PORT/?token=...)', 'error');
        return null;  // polling stops: another try would fail the same way
      }
      if (!r.ok) {
        return r.text().then(function (body) {
          status('the run answered HTTP ' + r.status + ': ' + body.trim(), 'error');
          schedule(5);
        });
      }
      return r.json().then(function (state) {
        try {
          draw(state);
        } catch (e) {
          status('cannot draw this state: ' + e.message, 'error');
          console.error(e);
          schedule(5);
          return;
        }
        last = state;
        var done = state.run.finished;
        status(done ? 'run finished (t = ' + fixed(state.run.t_s, 1) + ' s)' : 'live', done ? 'ended' : 'live');
        schedule(state.run.interval_s);
      }, function (e) {
        status('the run sent a state that is not JSON: ' + e.message, 'error');
        schedule(5);
      });
    }, function (e) {
      if (last) status('run ended: no answer since t = ' + fixed(last.run.t_s, 1) + ' s (last picture kept)', 'ended');
      else status('no answer from the run: ' + e.message, 'error');
      schedule(5);
    });
  }
  function schedule(interval_s) { setTimeout(poll, Math.max(0.5, interval_s || 1) * 1000); }

  function draw(state) {
    var run = state.run, p = state.params, t = state.totals;
    text('labels', run.protocol + ' | ' + run.variant + ' | data path ' + run.data_path + ' | ' + run.nodes + ' nodes');
    document.title = 'evbench ' + fixed(t.rate_gbps, 1) + ' Gb/s - ' + run.protocol + ' ' + run.variant;
    text('rate', gbps(t.rate_gbps));
    text('events-per-s', count(t.events_per_s));
    text('events-built', count(t.events_built));
    text('state', run.finished ? 'finished' : (p.paused ? 'paused' : 'running'));
    text('run-time', 't = ' + fixed(run.t_s, 1) + ' s, ' + count(t.events_in_flight) + ' in flight');
    drawTimeline($('timeline'), state);
    drawMatrix($('matrix'), state);
    units.drawBus(state, {$: $, el: el, fixed: fixed, gbps: gbps, count: count, duration: duration});
    background.draw(state, {$: $, el: el, fixed: fixed, gbps: gbps, count: count, prepare: prepare, ticks: ticks, send: send});
    drawParams(state);
    drawEvents(state);
    if ($('config').textContent !== state.config_yaml) text('config', state.config_yaml);
  }
  window.addEventListener('resize', function () { if (last) draw(last); });

  // ---- canvas helpers --------------------------------------------------------
  // Sizes the canvas to its CSS box at the device's pixel ratio; returns a
  // context drawing in CSS pixels and the box's width and height.
  function prepare(canvas) {
    var ratio = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
    var ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = '12px system-ui, sans-serif';
    return {ctx: ctx, w: w, h: h};
  }
  // About `n` round tick values in [lo, hi]; with `cover`, the last one is at
  // or above hi (an axis that must hold every value).
  function ticks(lo, hi, n, cover) {
    var span = Math.max(hi - lo, 1e-9), raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * mag; }).filter(function (s) { return s >= raw; })[0];
    var out = [], v = Math.ceil(lo / step - 1e-9) * step;
    for (; v <= hi + step * 1e-6; v += step) out.push(+v.toPrecision(12));
    if (cover && out[out.length - 1] < hi) out.push(+v.toPrecision(12));
    return out;
  }

  // ---- 1. rate timeline ----------------------------------------------------
  // Two panes on one time axis: the aggregate on top, the BUs below (each
  // with its own scale, so a BU's dip is not flattened by the sum); control
  // changes and faults as vertical markers across both.
  function drawTimeline(canvas, state) {
    var c = prepare(canvas), ctx = c.ctx, hist = state.history || [];
    var m = {l: 58, r: 16, t: 10 + LABEL_ROWS * 14, b: 40, gap: 14}, pw = c.w - m.l - m.r, ph = c.h - m.t - m.b - m.gap;
    var top = {y: m.t, h: Math.round(ph * 0.45)};
    var low = {y: m.t + top.h + m.gap, h: ph - top.h};
    var t1 = Math.max(state.run.t_s, hist.length ? hist[hist.length - 1].t_s : 0, 1);
    var t0 = hist.length ? Math.min(hist[0].t_s, t1 - 1) : 0;
    var nbu = hist.length ? hist[hist.length - 1].bu_gbps.length : 0;
    function x(t) { return m.l + (t - t0) / (t1 - t0) * pw; }

    function pane(box, label, series) {
      var ymax = 0.1;
      series.forEach(function (s) { hist.forEach(function (h) { var v = s.value(h); if (v > ymax) ymax = v; }); });
      var yt = ticks(0, ymax * 1.05, box.h > 150 ? 5 : 3, true);
      ymax = yt[yt.length - 1];
      function y(v) { return box.y + box.h - v / ymax * box.h; }
      ctx.strokeStyle = '#e5e7eb'; ctx.fillStyle = '#4a5568'; ctx.lineWidth = 1;
      ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
      yt.forEach(function (v) {
        ctx.beginPath(); ctx.moveTo(m.l, y(v)); ctx.lineTo(m.l + pw, y(v)); ctx.stroke();
        ctx.fillText(String(v), m.l - 6, y(v));
      });
      ctx.strokeStyle = '#4a5568'; ctx.strokeRect(m.l, box.y, pw, box.h);
      ctx.save(); ctx.translate(14, box.y + box.h / 2); ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'center'; ctx.fillText(label, 0, -4); ctx.restore();
      ctx.save(); ctx.beginPath(); ctx.rect(m.l, box.y, pw, box.h); ctx.clip(); ctx.lineJoin = 'round';
      series.forEach(function (s) {
        ctx.strokeStyle = s.colour; ctx.lineWidth = s.width; ctx.beginPath();
        hist.forEach(function (h, i) {
          var v = s.value(h);
          if (typeof v !== 'number') return;
          if (i === 0) ctx.moveTo(x(h.t_s), y(v)); else ctx.lineTo(x(h.t_s), y(v));
        });
        ctx.stroke();
      });
      ctx.restore();
    }

    // Markers first so the lines stay on top. Control changes at one time
    // share a marker; each label goes to the first of three rows where it
    // does not overlap an earlier label (the top row takes the rest).
    var markers = [];
    (state.control || []).forEach(function (k) {
      var label = k.key + (k.value ? '=' + controlValue(k) : ''), prev = markers[markers.length - 1];
      if (prev && prev.control && Math.abs(prev.t - k.t_s) < 1e-6) prev.label += ', ' + label;
      else markers.push({t: k.t_s, colour: CONTROL_COLOUR, dash: [4, 3], label: label, control: true});
    });
    (state.faults || []).forEach(function (f) {
      markers.push({t: f.lost_at_s, colour: FAULT_COLOUR, dash: [], label: f.unit + ' lost'});
      markers.push({t: f.detected_at_s, colour: FAULT_COLOUR, dash: [2, 2], label: f.unit + ' ' + f.action});
      if (f.recovered_at_s !== null && f.recovered_at_s >= 0)
        markers.push({t: f.recovered_at_s, colour: RECOVERED_COLOUR, dash: [], label: f.unit + ' recovered'});
    });
    markers.sort(function (a, b) { return a.t - b.t; });
    ctx.textAlign = 'left'; ctx.textBaseline = 'bottom';
    var rowEnds = [];
    markers.forEach(function (mk) {
      if (mk.t < t0 || mk.t > t1) return;
      var w = ctx.measureText(mk.label).width, lx = Math.min(x(mk.t) + 3, c.w - w - 2), row = 0;
      while (row < LABEL_ROWS - 1 && rowEnds[row] !== undefined && rowEnds[row] > lx - 8) row++;
      rowEnds[row] = Math.max(rowEnds[row] || 0, lx + w);
      var ly = m.t - 2 - row * 14;
      ctx.save(); ctx.strokeStyle = mk.colour; ctx.setLineDash(mk.dash); ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.moveTo(x(mk.t), ly - 12); ctx.lineTo(x(mk.t), low.y + low.h); ctx.stroke();
      ctx.restore();
      ctx.fillStyle = mk.colour;
      ctx.fillText(mk.label, lx, ly);
    });

    pane(top, 'aggregate (Gb/s)', [{value: function (h) { return h.rate_gbps; }, colour: '#111827', width: 2.5}]);
    var per = units.isLarge(nbu) ? units.spread() : [];  // each BU's rate by its own clock, or their spread
    for (var b = 0; b < nbu && !units.isLarge(nbu); b++)
      per.push({value: (function (k) { return function (h) { return h.bu_gbps[k]; }; })(b), colour: PALETTE[b % PALETTE.length], width: 1.5});
    pane(low, 'per BU (Gb/s)', per);

    ctx.fillStyle = '#4a5568'; ctx.strokeStyle = '#4a5568'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    var xb = low.y + low.h;
    ticks(t0, t1, 10, false).forEach(function (v) {
      ctx.beginPath(); ctx.moveTo(x(v), xb); ctx.lineTo(x(v), xb + 4); ctx.stroke();
      ctx.fillText(String(v), x(v), xb + 6);
    });
    ctx.fillText('time since t0 (s)', m.l + pw / 2, c.h - 16);
    if (!hist.length) {
      ctx.fillStyle = '#6b7280'; ctx.textBaseline = 'middle';
      ctx.fillText('no interval reported yet', m.l + pw / 2, top.y + top.h / 2);
    }
    legend(state, per);
  }

  function legend(state, per) {
    var box = $('timeline-legend'), entries = [['aggregate', '#111827', '']];
    for (var b = 0; b < per.length; b++) entries.push([per[b].name || 'BU ' + b, per[b].colour, '']);
    entries.push(['control change', CONTROL_COLOUR, ' marker'], ['fault (lost, then detected)', FAULT_COLOUR, ' marker']);
    if ((state.faults || []).some(function (f) { return f.recovered_at_s !== null && f.recovered_at_s >= 0; }))
      entries.push(['recovered', RECOVERED_COLOUR, ' marker']);
    box.textContent = '';
    entries.forEach(function (e) {
      var item = el('span'), sw = el('span', 'swatch' + e[2]);
      sw.style.background = e[1];
      item.appendChild(sw);
      item.appendChild(document.createTextNode(e[0]));
      box.appendChild(item);
    });
  }

  // ---- 2. RU->BU heat map --------------------------------------------------
  // Sequential colour scale: pale yellow (0) to dark purple (the largest cell).
  var STOPS = [[255, 250, 205], [253, 174, 97], [215, 48, 39], [120, 28, 109], [45, 10, 70]];
  function colour(f) {
    f = Math.min(Math.max(f, 0), 1) * (STOPS.length - 1);
    var i = Math.min(Math.floor(f), STOPS.length - 2), u = f - i, a = STOPS[i], b = STOPS[i + 1];
    var rgb = [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * u); });
    return {css: 'rgb(' + rgb.join(',') + ')', dark: rgb[0] * 0.3 + rgb[1] * 0.59 + rgb[2] * 0.11 < 128};
  }

  function drawMatrix(canvas, state) {
    var c = prepare(canvas), ctx = c.ctx, g = (state.matrix && state.matrix.gbps) || [];
    var bytes = (state.matrix && state.matrix.bytes) || [], rows = g.length, cols = rows ? g[0].length : 0, vmax = 0, flowing = Infinity;
    var size = (state.matrix && state.matrix.group_size) || 1, n = state.run.nodes;  // units a row or column holds
    g.forEach(function (row) { row.forEach(function (v) { vmax = Math.max(vmax, v); }); });
    var m = {l: 92, r: 86, t: 40, b: 10};
    var cell = Math.max(4, Math.min((c.w - m.l - m.r) / Math.max(cols, 1), (c.h - m.t - m.b) / Math.max(rows, 1)));
    canvas.dataset.rows = rows;
    canvas.dataset.cols = cols;
    canvas.dataset.groupSize = size;
    ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    var rus = state.rus || [], bus = state.bus || [];
    for (var r = 0; r < rows; r++) {
      for (var b = 0; b < cols; b++) {
        var v = g[r][b], col = colour(vmax > 0 ? v / vmax : 0);
        if (bytes[r] && bytes[r][b] > 0) flowing = Math.min(flowing, v);  // a cell traffic went through
        ctx.fillStyle = col.css;
        ctx.fillRect(m.l + b * cell, m.t + r * cell, cell - 1, cell - 1);
        if (cell >= 34) {
          ctx.fillStyle = col.dark ? '#fff' : '#111827';
          ctx.fillText(gbps(v, cell >= 48 ? 2 : 1), m.l + (b + 0.5) * cell, m.t + (r + 0.5) * cell);
        }
      }
      var lost = units.groupAny(rus, r, size, function (u) { return u.lost; }), note = lost ? ' lost' : '';
      if (!lost && units.groupAny(rus, r, size, function (u) { return u.masked; })) note = ' masked';
      ctx.fillStyle = note ? FAULT_COLOUR : '#1d2330'; ctx.textAlign = 'right';
      if (cell >= 10 || r % Math.ceil(10 / cell) === 0) ctx.fillText(units.groupLabel('RU', r, size, n) + note, m.l - 6, m.t + (r + 0.5) * cell);
      ctx.textAlign = 'center';
    }
    for (b = 0; b < cols; b++) {
      var excluded = units.groupAny(bus, b, size, function (u) { return u.excluded; }), label = units.groupLabel('BU', b, size, n);
      var room = size > 1 ? ctx.measureText(units.groupLabel('BU', cols - 1, size, n)).width + 12 : 30;  // a label's pixels
      ctx.fillStyle = excluded ? FAULT_COLOUR : '#1d2330';
      if (cell >= room || b % Math.ceil(room / cell) === 0)
        ctx.fillText(label + (excluded && cell >= 60 ? ' excl.' : ''), m.l + (b + 0.5) * cell, m.t - 10);
    }
    canvas.dataset.minFlowingGbps = isFinite(flowing) ? flowing : '';  // the palest cell that carried traffic
    ctx.fillStyle = '#4a5568'; ctx.textAlign = 'left';
    ctx.fillText('to BU \u2192', m.l, m.t - 28);
    ctx.fillText('from RU \u2193', 4, m.t - 10);
    // The colour bar with its unit.
    var bx = m.l + cols * cell + 18, bh = Math.max(rows * cell, 60), steps = 40;
    for (var i = 0; i < steps; i++) {
      ctx.fillStyle = colour(1 - i / steps).css;
      ctx.fillRect(bx, m.t + i * bh / steps, 14, bh / steps + 1);
    }
    ctx.strokeStyle = '#4a5568'; ctx.strokeRect(bx, m.t, 14, bh);
    ctx.fillStyle = '#1d2330'; ctx.textBaseline = 'middle';
    ctx.fillText(gbps(vmax), bx + 18, m.t);
    ctx.fillText('0', bx + 18, m.t + bh);
    ctx.fillText('Gb/s', bx + 18, m.t + bh / 2);
    if (!rows) { ctx.textAlign = 'center'; ctx.fillText('no traffic reported yet', c.w / 2, c.h / 2); }
  }

  // ---- 5. knobs and the control form ---------------------------------------
  function drawParams(state) {
    var p = state.params, dl = $('params'), lost = (state.rus || []).filter(function (r) { return r.lost || r.masked; });
    var items = [['parallel', p.parallel + ' (1..' + state.run.nodes + ')'],
      ['credits', p.credits + ' of ' + p.credits_allocated + ' allocated'],
      ['fu.processing_time', duration(p['fu.processing_time'])],
      ['ru_rate_factors', units.factorsText(p.ru_rate_factors || [])],
      ['paused', p.paused ? 'yes' : 'no'],
      ['RUs lost or masked', lost.length ? lost.map(function (r) { return 'RU ' + r.ru; }).join(', ') : 'none']];
    dl.textContent = '';
    items.forEach(function (kv) { dl.appendChild(el('dt', '', kv[0])); dl.appendChild(el('dd', '', kv[1])); });
    $('in-parallel').placeholder = p.parallel;
    $('in-credits').placeholder = p.credits;
  }

  function send(body) {
    var answer = $('control-answer');
    answer.className = 'answer';
    answer.textContent = 'sending ' + JSON.stringify(body) + ' ...';
    fetch('/control', {method: 'POST', body: JSON.stringify(body), cache: 'no-store',
      headers: {Authorization: headers.Authorization, 'Content-Type': 'application/json'}}).then(function (r) {
      return r.text().then(function (t) {
        answer.className = 'answer ' + (r.status === 202 ? 'ok' : 'error');
        t = t.trim().replace(new RegExp('^' + r.status + ':?\\s*'), '');  // no status twice
        answer.textContent = 'HTTP ' + r.status + ': ' + (r.status === 401 ? 'token missing or wrong' : t);
      });
    }).catch(function (e) {
      answer.className = 'answer error';
      answer.textContent = 'no answer from the run: ' + e.message;
    });
  }
  $('control').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var body = {};
    [['in-parallel', 'parallel', Number], ['in-credits', 'credits', Number], ['in-processing-time', 'fu.processing_time', String]]
      .forEach(function (f) { var v = $(f[0]).value.trim(); if (v !== '') body[f[1]] = f[2](v); });
    if (!Object.keys(body).length) { $('control-answer').textContent = 'nothing to change: fill a field first'; return; }
    send(body);
  });
  $('pause').addEventListener('click', function () { send({pause: true}); });
  $('resume').addEventListener('click', function () { send({resume: true}); });

  // ---- faults and control changes, as a table ------------------------------
  function drawEvents(state) {
    var rows = [];
    (state.control || []).forEach(function (k) {
      rows.push([k.t_s, 'control', k.key + (k.value ? ' = ' + controlValue(k) : '') + ' from event ' + count(k.from_event) + ' (' + k.source + ')', '']);
    });
    (state.faults || []).forEach(function (f) {
      var rec = f.recovered_at_s !== null && f.recovered_at_s >= 0 ? 'recovered at ' + fixed(f.recovered_at_s, 2) + ' s' : 'not recovered';
      rows.push([f.lost_at_s, 'fault', f.unit + ': ' + f.cause + ', detected at ' + fixed(f.detected_at_s, 2) + ' s, ' +
        f.action + ' (' + count(f.reassigned) + ' events reassigned), ' + rec, 'fault']);
    });
    rows.sort(function (a, b) { return b[0] - a[0]; });
    var body = $('events').tBodies[0];
    body.textContent = '';
    if (!rows.length) rows.push([null, '-', 'none yet', '']);
    rows.forEach(function (r) {
      var tr = el('tr', r[3]);
      [r[0] === null ? '' : fixed(r[0], 2), r[1], r[2]].forEach(function (v) { tr.appendChild(el('td', '', v)); });
      body.appendChild(tr);
    });
  }

  poll();
})();
