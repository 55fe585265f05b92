// What the report and the comparison page share: the data section, DOM helpers, number
// formatting, chart panels drawn with the embedded ECharts, the CDF chart, and the ready
// flag tests and screenshots wait for.
var omnikUI = (function () {
  "use strict";
  var data = JSON.parse(document.getElementById("omnik-data").textContent);
  var app = document.getElementById("app");
  var charts = [];
  var palette = ["#2f6fdb", "#e8590c", "#2b8a3e", "#9c36b5", "#c92a2a", "#0b7285", "#e67700", "#5c940d", "#862e9c", "#495057"];

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k];
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }
  function txt(s) { return document.createTextNode(s); }
  // esc makes text safe in the HTML ECharts tooltip formatters return.
  function esc(s) { return echarts.format.encodeHTML(String(s)); }
  function fmt(v, unit) {
    if (v === null || v === undefined || isNaN(v)) return "—";
    var a = Math.abs(v), s;
    if (a !== 0 && (a < 0.01 || a >= 1e7)) s = v.toExponential(2);
    else if (Number.isInteger(v)) s = String(v);
    else s = v.toFixed(a < 10 ? 3 : 2);
    return unit ? s + " " + unit : s;
  }
  function section(id, title, nodes) {
    var s = el("section", { id: id }, [el("h2", { text: title })].concat(nodes));
    app.appendChild(s);
    return s;
  }
  function empty(msg) { return el("p", { "class": "empty", text: msg }); }
  function table(head, rows, cls) {
    var t = el("table", cls ? { "class": cls } : {});
    if (head) t.appendChild(el("tr", {}, head.map(function (h) { return el("th", { text: h }); })));
    rows.forEach(function (r) { t.appendChild(r); });
    return t;
  }
  function tr(cells, cls) {
    return el("tr", cls ? { "class": cls } : {}, cells.map(function (c) {
      if (c instanceof Node) return el("td", {}, [c]);
      var num = typeof c === "number";
      return el("td", num ? { "class": "num", text: fmt(c) } : { text: c === undefined || c === null ? "" : String(c) });
    }));
  }
  function panel(title, note, tall) {
    var div = el("div", { "class": "chart" + (tall ? " tall" : "") });
    var p = el("div", { "class": "panel" }, [el("h3", { text: title }), div]);
    if (note) p.appendChild(el("p", { "class": "note", text: note }));
    return { node: p, chart: div };
  }
  function draw(div, option) {
    option.animation = false;
    option.color = option.color || palette;
    var c = echarts.init(div, null, { renderer: "canvas" });
    c.setOption(option);
    charts.push(c);
    return c;
  }
  function grid() { return { left: 60, right: 24, top: 36, bottom: 40 }; }
  function cdfOption(series, unit) {
    var lo = Infinity, hi = -Infinity;
    series.forEach(function (s) { s.points.forEach(function (p) { if (p[0] > 0) lo = Math.min(lo, p[0]); hi = Math.max(hi, p[0]); }); });
    var log = lo > 0 && hi / lo > 20;
    return {
      tooltip: { trigger: "axis", valueFormatter: function (v) { return fmt(v); } }, legend: { top: 0, type: "scroll" }, grid: grid(),
      xAxis: { type: log ? "log" : "value", name: unit || "", min: log ? lo : undefined, scale: !log },
      yAxis: { type: "value", name: "quantile", min: 0, max: 1 },
      series: series.map(function (s) {
        return { name: s.name, type: "line", step: "end", showSymbol: false, data: s.points.filter(function (p) { return !log || p[0] > 0; }) };
      }),
    };
  }

  // Every chart has been drawn once when the flag is set.
  function ready() {
    window.addEventListener("resize", function () { charts.forEach(function (c) { c.resize(); }); });
    window.omnikCharts = charts.length;
    requestAnimationFrame(function () { requestAnimationFrame(function () { window.omnikReportReady = true; }); });
  }
  return { data: data, app: app, palette: palette, el: el, txt: txt, esc: esc, fmt: fmt, section: section, empty: empty, table: table, tr: tr,
    panel: panel, draw: draw, grid: grid, cdfOption: cdfOption, ready: ready };
})();
