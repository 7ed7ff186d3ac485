// agentstat dashboard: draws the charts whose ECharts options sit in
// data-option attributes, follows the colour scheme, sorts tables, and
// searches and filters the list of every run (runs.html).
// No inline script is needed, so the pages keep a strict Content-Security-Policy.
(function () {
  'use strict';
  var scheme = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  var charts = [];
  // Each chart follows its container's size, whatever changes it (window,
  // grid reflow, a scrollbar appearing).
  var observer = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (e) {
      var c = typeof echarts !== 'undefined' && echarts.getInstanceByDom(e.target);
      if (c) { c.resize(); }
    });
  }) : null;

  // A duration in milliseconds as the report writes one (render.Millis): 41m 40s, not 2,500,000.
  function duration(ms) {
    if (typeof ms !== 'number' || !isFinite(ms)) { return ''; }
    var a = Math.abs(ms), sign = ms < 0 ? '-' : '', pad = function (n) { return (n < 10 ? '0' : '') + n; };
    if (a === 0) { return '0 ms'; }
    if (a < 0.995) { return sign + a.toFixed(2) + ' ms'; }
    if (a < 999.5) { return sign + a.toFixed(0) + ' ms'; }
    if (a < 59950) { return sign + (a / 1000).toFixed(1) + ' s'; }
    if (a < 3599500) { var s = Math.round(a / 1000); return sign + Math.floor(s / 60) + 'm ' + pad(s % 60) + 's'; }
    var m = Math.round(a / 60000);
    return sign + Math.floor(m / 60) + 'h ' + pad(m % 60) + 'm';
  }

  // Options name the formatters they want ("agentstat:duration"): a
  // function cannot travel in JSON, and the pages allow no eval.
  function formatters(option) {
    ['xAxis', 'yAxis'].forEach(function (k) {
      [].concat(option[k] || []).forEach(function (axis) {
        if (axis.axisLabel && axis.axisLabel.formatter === 'agentstat:duration') { axis.axisLabel.formatter = duration; }
      });
    });
    if (option.tooltip && option.tooltip.valueFormatter === 'agentstat:duration') { option.tooltip.valueFormatter = duration; }
  }

  function draw() {
    charts.forEach(function (c) { c.dispose(); });
    charts = [];
    if (typeof echarts === 'undefined') { return; }
    var dark = scheme && scheme.matches;
    var nodes = document.querySelectorAll('.chart[data-option]');
    for (var i = 0; i < nodes.length; i++) {
      var option = JSON.parse(nodes[i].getAttribute('data-option'));
      if (dark) { option.backgroundColor = 'transparent'; }
      formatters(option);
      var chart = echarts.init(nodes[i], dark ? 'dark' : null, { renderer: 'canvas' });
      chart.setOption(option);
      charts.push(chart);
      if (observer) { observer.observe(nodes[i]); }
    }
  }

  function cellValue(row, col) {
    var cell = row.cells[col];
    if (!cell) { return ''; }
    var v = cell.getAttribute('data-sort');
    return v !== null ? v : cell.textContent.trim();
  }

  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    if (!body) { return; }
    var asc = th.getAttribute('aria-sort') !== 'ascending';
    var numeric = th.classList.contains('num');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, col), y = cellValue(b, col), d;
      if (numeric) {
        var nx = x === '' ? -Infinity : parseFloat(x), ny = y === '' ? -Infinity : parseFloat(y);
        d = nx - ny;
      } else {
        d = x.localeCompare(y);
      }
      return asc ? d : -d;
    });
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute('aria-sort'); }
    th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
    rows.forEach(function (r) { body.appendChild(r); });
  }

  function sortable() {
    var tables = document.querySelectorAll('table.sortable');
    for (var t = 0; t < tables.length; t++) {
      (function (table) {
        if (!table.tHead) { return; }
        var heads = table.tHead.rows[0].cells;
        for (var i = 0; i < heads.length; i++) {
          (function (th, col) {
            th.setAttribute('data-sortable', '');
            th.tabIndex = 0;
            th.addEventListener('click', function () { sortBy(table, col, th); });
            th.addEventListener('keydown', function (e) {
              if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(table, col, th); }
            });
          })(heads[i], i);
        }
      })(tables[t]);
    }
  }


  // The run list: every run of runs-data.js, searched, filtered and sorted
  // here, a page of rows at a time; the view's state is the URL fragment,
  // so a filtered list is a link. Rows are built with textContent: no text
  // from a log is ever parsed as HTML.
  function runList() {
    var root = document.getElementById('run-list');
    var data = window.agentstatRuns;
    if (!root || !data || !data.rows) { return; }
    var F = { page: 0, title: 1, status: 2, format: 3, project: 4, model: 5, started: 6, startedText: 7, dur: 8, durText: 9,
      calls: 10, errors: 11, cancelled: 12, tokens: 13, cost: 14, costText: 15, source: 16, id: 17, tools: 18, errs: 19, failed: 20 };
    // Column of the table → the field it sorts by, and whether it is a number.
    var cols = [[F.title, false], [F.status, false], [F.format, false], [F.project, false], [F.started, true], [F.dur, true],
      [F.calls, true], [F.errors, true], [F.tokens, true], [F.cost, true], [F.source, false]];
    var rows = data.rows, step = 200, limit = step, hay = null;
    var el = function (id) { return document.getElementById(id); };
    var q = el('rl-q'), sel = { status: el('rl-status'), format: el('rl-format'), project: el('rl-project'), model: el('rl-model') };
    var from = el('rl-from'), until = el('rl-until'), errs = el('rl-errors'), canc = el('rl-cancelled');
    var body = el('rl-table').tBodies[0], count = el('rl-count'), more = el('rl-more');
    var sortCol = 4, desc = true; // newest first, as the data comes
    // Runs that called this tool, where this tool failed, that failed with this message (a dashboard's link sets them).
    var tool = '', failed = '', error = '';
    Object.keys(sel).forEach(function (k) {
      var names = (data[k] || []).map(function (n, i) { return [n, i]; });
      names.sort(function (a, b) { return a[0].localeCompare(b[0]); });
      names.forEach(function (n) {
        if (n[0] === '') { return; }
        var o = document.createElement('option');
        o.value = n[0]; o.textContent = n[0];
        sel[k].appendChild(o);
      });
    });

    function haystack() {
      if (!hay) {
        hay = rows.map(function (r) {
          return [r[F.title], r[F.id], r[F.source], data.project[r[F.project]], data.model[r[F.model]], r[F.tools], r[F.errs]].join('\n').toLowerCase();
        });
      }
      return hay;
    }

    function state() {
      var p = new URLSearchParams();
      if (q.value) { p.set('q', q.value); }
      Object.keys(sel).forEach(function (k) { if (sel[k].value) { p.set(k, sel[k].value); } });
      if (from.value) { p.set('from', from.value); }
      if (until.value) { p.set('until', until.value); }
      if (errs.checked) { p.set('errors', '1'); }
      if (canc.checked) { p.set('cancelled', '1'); }
      if (tool) { p.set('tool', tool); }
      if (failed) { p.set('failed', failed); }
      if (error) { p.set('error', error); }
      if (sortCol !== 4 || !desc) { p.set('sort', String(sortCol)); p.set('dir', desc ? 'desc' : 'asc'); }
      return p.toString();
    }

    function load() {
      var p = new URLSearchParams(location.hash.replace(/^#/, ''));
      q.value = p.get('q') || '';
      Object.keys(sel).forEach(function (k) { sel[k].value = p.get(k) || ''; });
      from.value = p.get('from') || '';
      until.value = p.get('until') || '';
      errs.checked = p.get('errors') === '1';
      canc.checked = p.get('cancelled') === '1';
      tool = p.get('tool') || '';
      failed = p.get('failed') || '';
      error = p.get('error') || '';
      el('rl-tool').textContent = tool;
      el('rl-tool-filter').hidden = !tool;
      el('rl-failed').textContent = failed;
      el('rl-failed-filter').hidden = !failed;
      el('rl-error').textContent = error;
      el('rl-error-filter').hidden = !error;
      var c = parseInt(p.get('sort'), 10);
      sortCol = c >= 0 && c < cols.length ? c : 4;
      desc = p.get('dir') !== 'asc';
    }

    function matches() {
      var words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
      var want = {};
      Object.keys(sel).forEach(function (k) { want[k] = sel[k].value ? data[k].indexOf(sel[k].value) : -1; });
      var h = words.length ? haystack() : null, out = [];
      for (var i = 0; i < rows.length; i++) {
        var r = rows[i], day = r[F.startedText].slice(0, 10);
        if (want.status >= 0 && r[F.status] !== want.status) { continue; }
        if (want.format >= 0 && r[F.format] !== want.format) { continue; }
        if (want.project >= 0 && r[F.project] !== want.project) { continue; }
        if (want.model >= 0 && r[F.model] !== want.model) { continue; }
        if ((from.value || until.value) && r[F.started] === null) { continue; }
        if (from.value && day < from.value) { continue; }
        if (until.value && day > until.value) { continue; }
        if (errs.checked && !r[F.errors]) { continue; }
        if (canc.checked && !r[F.cancelled]) { continue; }
        if (tool && ('\n' + r[F.tools] + '\n').indexOf('\n' + tool + '\n') < 0) { continue; }
        if (failed && ('\n' + r[F.failed] + '\n').indexOf('\n' + failed + '\n') < 0) { continue; }
        if (error && ('\n' + r[F.errs] + '\n').indexOf('\n' + error + '\n') < 0) { continue; }
        var ok = true;
        for (var w = 0; h && w < words.length; w++) {
          if (h[i].indexOf(words[w]) < 0) { ok = false; break; }
        }
        if (ok) { out.push(i); }
      }
      var f = cols[sortCol][0], numeric = cols[sortCol][1];
      var key = function (i) {
        var v = rows[i][f];
        if (f === F.status) { return data.status[v]; }
        if (f === F.format) { return data.format[v]; }
        if (f === F.project) { return data.project[v]; }
        return v;
      };
      out.sort(function (a, b) {
        var x = key(a), y = key(b), d;
        if (numeric) {
          d = (x === null ? -Infinity : x) - (y === null ? -Infinity : y);
        } else {
          d = String(x).localeCompare(String(y));
        }
        return (desc ? -d : d) || a - b;
      });
      return out;
    }

    function cell(tr, text, cls, href) {
      var td = document.createElement('td');
      if (cls) { td.className = cls; }
      if (href) {
        var a = document.createElement('a');
        a.href = href; a.textContent = text;
        td.appendChild(a);
      } else {
        td.textContent = text;
      }
      tr.appendChild(td);
    }

    function render() {
      var found = matches(), shown = found.slice(0, limit);
      var frag = document.createDocumentFragment();
      shown.forEach(function (i) {
        var r = rows[i], tr = document.createElement('tr'), status = data.status[r[F.status]];
        cell(tr, r[F.title], 'text', r[F.page] ? 'runs/' + r[F.page] : '');
        cell(tr, status, 'status status-' + status);
        cell(tr, data.format[r[F.format]]);
        cell(tr, data.project[r[F.project]], 'text');
        cell(tr, r[F.startedText], 'time');
        cell(tr, r[F.durText], 'num');
        cell(tr, r[F.calls].toLocaleString('en-US'), 'num');
        cell(tr, r[F.errors].toLocaleString('en-US'), 'num');
        cell(tr, r[F.tokens].toLocaleString('en-US'), 'num');
        cell(tr, r[F.costText], 'num');
        cell(tr, r[F.source], 'text');
        frag.appendChild(tr);
      });
      body.textContent = '';
      body.appendChild(frag);
      count.textContent = found.length.toLocaleString('en-US') + ' of ' + rows.length.toLocaleString('en-US') + ' runs' +
        (shown.length < found.length ? ', the first ' + shown.length.toLocaleString('en-US') + ' shown' : '');
      more.hidden = shown.length >= found.length;
      var heads = el('rl-table').tHead.rows[0].cells;
      for (var c = 0; c < heads.length; c++) {
        if (c === sortCol) { heads[c].setAttribute('aria-sort', desc ? 'descending' : 'ascending'); } else { heads[c].removeAttribute('aria-sort'); }
      }
    }

    function update() {
      limit = step;
      var s = state();
      if (s !== location.hash.replace(/^#/, '')) { history.replaceState(null, '', s ? '#' + s : location.pathname + location.search); }
      render();
    }

    var pending = null;
    q.addEventListener('input', function () { clearTimeout(pending); pending = setTimeout(update, 120); });
    [sel.status, sel.format, sel.project, sel.model, from, until, errs, canc].forEach(function (c) { c.addEventListener('change', update); });
    el('rl-form').addEventListener('submit', function (e) { e.preventDefault(); update(); });
    more.addEventListener('click', function () { limit += step; render(); });
    el('rl-tool-clear').addEventListener('click', function () { tool = ''; el('rl-tool-filter').hidden = true; update(); });
    el('rl-failed-clear').addEventListener('click', function () { failed = ''; el('rl-failed-filter').hidden = true; update(); });
    el('rl-error-clear').addEventListener('click', function () { error = ''; el('rl-error-filter').hidden = true; update(); });
    var heads = el('rl-table').tHead.rows[0].cells;
    for (var c = 0; c < heads.length; c++) {
      (function (th, col) {
        th.setAttribute('data-sortable', '');
        th.tabIndex = 0;
        var go = function () { desc = col === sortCol ? !desc : cols[col][1]; sortCol = col; update(); };
        th.addEventListener('click', go);
        th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(); } });
      })(heads[c], c);
    }
    window.addEventListener('hashchange', function () { load(); limit = step; render(); });
    load();
    root.hidden = false;
    render();
  }

  draw();
  sortable();
  runList();
  if (scheme && scheme.addEventListener) { scheme.addEventListener('change', draw); }
  var pending = null;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () { charts.forEach(function (c) { c.resize(); }); }, 150);
  });
})();
