// What the single-file HTML report inlines: uPlot (JS and CSS, read from node_modules/uplot/dist),
// the page's stylesheet and the small script that draws every chart from the inlined data.
// Nothing is fetched when the page is opened.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { QbenchError } from '../../errors.js';

let cached: { js: string; css: string } | undefined;

/** uPlot's minified IIFE build and stylesheet, safe to inline in <script>/<style>. */
export function uplotAssets(): { js: string; css: string } {
  if (cached) return cached;
  try {
    const require = createRequire(import.meta.url);
    const dist = path.dirname(require.resolve('uplot'));
    const js = readFileSync(path.join(dist, 'uPlot.iife.min.js'), 'utf8').replace(/<\/(script)/gi, '<\\/$1');
    const css = readFileSync(path.join(dist, 'uPlot.min.css'), 'utf8').replace(/<\/(style)/gi, '<\\/$1');
    cached = { js, css };
    return cached;
  } catch (e) {
    throw new QbenchError('QB_ERR_INTERNAL', `cannot read uPlot from node_modules/uplot/dist (is the uplot package installed?): ${e instanceof Error ? e.message : String(e)}`);
  }
}

export const PAGE_CSS = `
:root { --fg:#1d2433; --muted:#5b6477; --line:#e3e6ee; --bg:#f6f7fb; --card:#fff;
  --pass:#1e8e3e; --pass-bg:#e6f4ea; --fail:#c5221f; --fail-bg:#fce8e6; --warn:#a05a00; --warn-bg:#fef7e0;
  --skip:#5f6368; --skip-bg:#f1f3f4; --info:#1967d2; --info-bg:#e8f0fe; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif; color:var(--fg); background:var(--bg); }
main { max-width: 1240px; margin: 0 auto; padding: 24px 20px 60px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 2px solid var(--line); }
h3 { font-size: 16px; margin: 0; } h4 { font-size: 14px; margin: 18px 0 6px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
code, pre, .mono { font-family: ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size: 12.5px; }
pre { background:#0f1420; color:#e6e9ef; padding:10px 12px; border-radius:6px; overflow:auto; max-height: 360px; white-space: pre-wrap; word-break: break-all; margin: 6px 0; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12.5px; background: #fafbfd; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.muted { color: var(--muted); } .small { font-size: 12.5px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; margin: 14px 0; }
.verdict { border-radius: 12px; padding: 18px 22px; margin: 16px 0 8px; border: 2px solid; }
.verdict .big { font-size: 30px; font-weight: 800; letter-spacing: .02em; }
.verdict.pass { background: var(--pass-bg); border-color: var(--pass); color: var(--pass); }
.verdict.fail, .verdict.error { background: var(--fail-bg); border-color: var(--fail); color: var(--fail); }
.verdict.invalid { background: var(--warn-bg); border-color: var(--warn); color: var(--warn); }
.verdict ul { color: var(--fg); margin: 8px 0 0; padding-left: 20px; }
.badge { display:inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 700; text-transform: uppercase; white-space: nowrap; }
.b-pass { background: var(--pass-bg); color: var(--pass); } .b-fail, .b-error { background: var(--fail-bg); color: var(--fail); }
.b-invalid, .b-warn, .b-inconclusive { background: var(--warn-bg); color: var(--warn); } .b-skip { background: var(--skip-bg); color: var(--skip); }
.b-info, .b-compat { background: var(--info-bg); color: var(--info); }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; font-size: 13px; margin: 0; }
.meta dt { color: var(--muted); } .meta dd { margin: 0; overflow-wrap: anywhere; }
tr.group-start td { border-top: 2px solid #cfd4df; }
nav.toc { display: flex; flex-wrap: wrap; gap: 8px; margin: 10px 0 0; }
nav.toc a { text-decoration: none; color: var(--info); background: var(--card); border: 1px solid var(--line); padding: 3px 10px; border-radius: 14px; font-size: 13px; }
.tiles { display: flex; gap: 3px; flex-wrap: wrap; }
.tile { width: 14px; height: 14px; border-radius: 3px; display: inline-block; }
.t-pass { background: var(--pass); } .t-fail, .t-error { background: var(--fail); } .t-skip { background: #bdc1c6; } .t-inconclusive { background: var(--warn); } .t-compat { background: var(--info); }
details.fail { border-left: 4px solid var(--fail); background: #fffafa; padding: 4px 12px; margin: 8px 0; border-radius: 4px; }
details > summary { cursor: pointer; padding: 4px 0; }
.evidence { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 6px 0; }
.evidence dt { color: var(--muted); font-weight: 600; } .evidence dd { margin: 0; }
.warnings { background: var(--warn-bg); border: 1px solid #f3d58a; border-radius: 8px; padding: 8px 14px; margin: 10px 0; }
.warnings li { margin: 2px 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 14px; margin-top: 10px; }
.chart-card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; min-width: 0; }
.chart-card .note { font-size: 12px; color: var(--muted); margin: 2px 0 6px; }
.chart { width: 100%; min-height: 280px; }
.bar { height: 12px; border-radius: 3px; display: inline-block; vertical-align: middle; }
.scenario-head { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; flex-wrap: wrap; }
pre.curl { position: relative; padding-right: 72px; }
.copy { position: absolute; top: 8px; right: 8px; font-size: 11px; border: 1px solid #3c4456; background: #1c2333; color: #e6e9ef; border-radius: 4px; cursor: pointer; padding: 1px 8px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
@media (max-width: 700px) { .charts { grid-template-columns: 1fr; } }
`;

/**
 * The page's own script (plain ES5-style JS in a string: it runs in the browser, not in Node).
 * It reads the inlined JSON, draws each chart with uPlot, and marks each drawn chart with
 * data-drawn="true" (the browser test waits on it).
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('qbench-data').textContent);
  var dpr = window.devicePixelRatio || 1;
  var made = [];

  function trim(n, d) { return String(Number(n.toFixed(d))); }
  function fmtNum(v) {
    if (v == null || !isFinite(v)) return '';
    var a = Math.abs(v);
    if (a >= 1e6) return trim(v / 1e6, 2) + 'M';
    if (a >= 1e4) return trim(v / 1e3, 1) + 'k';
    if (a >= 100) return String(Math.round(v));
    if (a >= 10) return trim(v, 1);
    if (a >= 1) return trim(v, 2);
    return trim(v, 3);
  }
  function ninesLabel(v) {
    if (v == null) return '';
    var p = 100 * (1 - Math.pow(10, -v));
    if (p >= 100) return '100%';
    var digits = Math.max(0, Math.ceil(v) - 2);
    return trim(p, Math.min(6, digits + (Number.isInteger(v) ? 0 : 1))) + '%';
  }
  function xValue(c) {
    if (c.xKind === 'nines') return function (u, v) { return ninesLabel(v); };
    if (c.xKind === 'category') return function (u, v) { return v == null ? '' : (c.categories && c.categories[v] != null ? c.categories[v] : String(v)); };
    if (c.xKind === 'time') return function (u, v) { return v == null ? '' : trim(v, 1) + ' s'; };
    return function (u, v) { return fmtNum(v); };
  }
  var NICE = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400];
  function integerSplits(u, axisIdx, min, max) {
    var span = max - min, step = NICE[NICE.length - 1];
    for (var i = 0; i < NICE.length; i++) if (span / NICE[i] <= 10) { step = NICE[i]; break; }
    var out = [];
    for (var v = Math.ceil(min / step) * step; v <= max + 1e-9; v += step) out.push(v);
    return out;
  }
  function logSplits(u, axisIdx, min, max) {
    var out = [], decades = Math.log10(max / min), mult = decades > 4 ? [1] : decades > 2 ? [1, 3] : [1, 2, 5];
    for (var e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      mult.forEach(function (m) { var v = m * Math.pow(10, e); if (v >= min * 0.999 && v <= max * 1.001) out.push(v); });
    }
    return out;
  }
  function refPlugin(refs) {
    return { hooks: { draw: [function (u) {
      if (!refs.length) return;
      var ctx = u.ctx; ctx.save();
      refs.forEach(function (r) {
        var y = Math.round(u.valToPos(r.y, 'y', true));
        if (y < u.bbox.top - 1 || y > u.bbox.top + u.bbox.height + 1) return;
        ctx.strokeStyle = '#c5221f'; ctx.lineWidth = 1.5 * dpr; ctx.setLineDash([7 * dpr, 5 * dpr]);
        ctx.beginPath(); ctx.moveTo(u.bbox.left, y); ctx.lineTo(u.bbox.left + u.bbox.width, y); ctx.stroke();
        ctx.setLineDash([]); ctx.fillStyle = '#c5221f'; ctx.font = (11 * dpr) + 'px system-ui, sans-serif';
        ctx.textAlign = 'right'; ctx.textBaseline = 'bottom';
        ctx.fillText(r.label + ' (' + fmtNum(r.y) + ')', u.bbox.left + u.bbox.width - 4 * dpr, y - 3 * dpr);
      });
      ctx.restore();
    }] } };
  }
  function yRange(c) {
    return function (u, min, max) {
      if (min == null || max == null) { min = 0; max = 1; }
      c.refs.forEach(function (r) { min = Math.min(min, r.y); max = Math.max(max, r.y); });
      if (c.logY) {
        min = Math.max(min, 1e-3);
        if (max <= min) max = min * 10;
        return uPlot.rangeLog(min, max, 10, true);
      }
      var lo = Math.min(0, min), hi = max > lo ? max : lo + 1;
      return [lo, hi + (hi - lo) * (c.refs.length ? 0.16 : 0.08)];
    };
  }
  function make(c) {
    var el = document.getElementById(c.id);
    if (!el) return;
    var width = Math.max(320, el.clientWidth || 560);
    var bars = c.xKind === 'category';
    var series = [{ label: c.xLabel, value: xValue(c) }];
    c.series.forEach(function (s) {
      var o = { label: s.name, stroke: s.color, width: 2, spanGaps: true, value: function (u, v) { return fmtNum(v); } };
      if (s.dash) o.dash = s.dash;
      if (bars) { o.fill = s.color + '99'; o.paths = uPlot.paths.bars({ size: [0.6, 80] }); o.points = { show: false }; }
      else o.points = { show: c.data[0].length <= 30, size: 5 };
      if (s.pointsOnly) { o.paths = function () { return null; }; o.points = { show: true, size: 6, fill: s.color }; }
      series.push(o);
    });
    var xScale = { time: false };
    if (bars) xScale.range = function (u, min, max) { return [min - 0.5, max + 0.5]; };
    if (c.xKind === 'nines') xScale.range = function (u, min, max) { return [0, Math.max(1, Math.ceil(max))]; };
    if (c.logX) { xScale.distr = 3; xScale.log = 10; }
    var opts = {
      width: width, height: 280,
      scales: { x: xScale, y: { distr: c.logY ? 3 : 1, log: 10, range: yRange(c) } },
      axes: [
        { label: c.xLabel, values: function (u, vals) { var f = xValue(c); return vals.map(function (v) { return f(u, v); }); },
          splits: (c.xKind === 'nines' || c.xKind === 'time' || bars) ? integerSplits : c.logX ? logSplits : undefined, stroke: '#5b6477', grid: { stroke: '#eceef3' } },
        { label: c.yLabel, size: 64, values: function (u, vals) { return vals.map(fmtNum); }, splits: c.logY ? logSplits : undefined, filter: c.logY ? function (u, splits) { return splits; } : undefined, stroke: '#5b6477', grid: { stroke: '#eceef3' } }
      ],
      series: series,
      legend: { live: false },
      cursor: { drag: { x: true, y: false } },
      plugins: [refPlugin(c.refs)]
    };
    var u = new uPlot(opts, c.data, el);
    made.push({ u: u, el: el });
    el.setAttribute('data-drawn', 'true');
  }
  data.charts.forEach(function (c) {
    try { make(c); } catch (e) {
      var el = document.getElementById(c.id);
      if (el) { el.textContent = 'chart could not be drawn: ' + e.message; el.setAttribute('data-drawn', 'error'); }
      throw e;
    }
  });
  var pending = 0;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      made.forEach(function (m) { m.u.setSize({ width: Math.max(320, m.el.clientWidth), height: 280 }); });
    }, 100);
  });
  document.querySelectorAll('button.copy').forEach(function (b) {
    b.addEventListener('click', function () {
      var pre = b.parentElement && b.parentElement.querySelector('code');
      if (pre && navigator.clipboard) navigator.clipboard.writeText(pre.textContent).then(function () { b.textContent = 'copied'; }, function () { b.textContent = 'select and copy'; });
    });
  });
  // a link into a folded section (the matrix's section links, the table of contents) unfolds it
  function reveal(id) {
    var el = id && document.getElementById(id);
    for (var p = el; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
    if (el) el.scrollIntoView();
  }
  document.querySelectorAll('a[href^="#"]').forEach(function (a) {
    a.addEventListener('click', function (ev) { ev.preventDefault(); reveal(decodeURIComponent(a.getAttribute('href').slice(1)));
      try { history.replaceState(null, '', a.getAttribute('href')); } catch (e) { /* some browsers refuse it on file:// */ }
    });
  });
  if (location.hash) reveal(decodeURIComponent(location.hash.slice(1)));
  window.__qbenchChartsDrawn = made.length;
})();
`;
