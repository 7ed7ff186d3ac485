// agentstat dashboard: draws the charts whose ECharts options sit in
// data-option attributes, follows the colour scheme, and sorts tables.
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

  function draw() {
    charts.forEach(function (c) { c.dispose(); });
    charts = [];
    if (typeof echarts === 'undefined') { return; }
    var dark = scheme && scheme.matches;
    var nodes = document.querySelectorAll('.chart[data-option]');
    for (var i = 0; i < nodes.length; i++) {
      var option = JSON.parse(nodes[i].getAttribute('data-option'));
      if (dark) { option.backgroundColor = 'transparent'; }
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

  draw();
  sortable();
  if (scheme && scheme.addEventListener) { scheme.addEventListener('change', draw); }
  var pending = null;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () { charts.forEach(function (c) { c.resize(); }); }, 150);
  });
})();
