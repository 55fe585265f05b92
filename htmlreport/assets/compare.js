// Draws the omnik compare page: the gates, the warnings, every statistic of both runs with
// its change, and both runs' distributions overlaid.
(function () {
  "use strict";
  var ui = omnikUI, data = ui.data, el = ui.el, fmt = ui.fmt, section = ui.section, empty = ui.empty,
    table = ui.table, tr = ui.tr, panel = ui.panel, draw = ui.draw, cdfOption = ui.cdfOption;
  var cmp = data.comparison, base = data.base, next = data.new;

  document.getElementById("title").textContent = "BASE " + base.title + " → NEW " + next.title;
  document.getElementById("meta").textContent = "BASE " + base.path + " (" + cmp.base.format + ") · NEW " + next.path + " (" + cmp.new.format + ")";

  var crossed = cmp.gates.filter(function (g) { return g.crossed; }).length;
  section("gates", "Gates", [cmp.gates.length ? table(["", "gate", "observed", "limit"], cmp.gates.map(function (g) {
    return tr([el("span", { "class": g.crossed ? "bad" : "ok", text: g.crossed ? "✗ crossed" : "✓ held" }), g.expr,
      g.no_data ? "no data" : g.observed, g.limit]);
  })) : empty("No --fail-on gate."), crossed ? el("p", { "class": "bad", text: crossed + " gate(s) crossed: omnik compare exits 99." }) : null]);

  section("warnings", "Do the runs compare?", [cmp.warnings.length ? el("ul", {}, cmp.warnings.map(function (w) {
    return el("li", { "class": w.info ? "" : "bad", text: (w.info ? "note: " : "warning: ") + w.text });
  })) : empty("Same script, load and model.")]);

  var groups = [], byGroup = {};
  cmp.rows.forEach(function (r) {
    if (!byGroup[r.group]) { byGroup[r.group] = []; groups.push(r.group); }
    byGroup[r.group].push(r);
  });
  var change = function (r) {
    if (r.change === null || r.change === undefined) return "—";
    var pct = typeof r.change_pct === "string" ? r.change_pct + "%" : (r.change_pct >= 0 ? "+" : "") + fmt(r.change_pct) + "%";
    return (r.change >= 0 ? "+" : "") + fmt(r.change) + " (" + pct + ")";
  };
  var rows = [];
  groups.forEach(function (g) {
    rows.push(el("tr", { "class": "section" }, [el("td", { colspan: "5", text: g })]));
    byGroup[g].forEach(function (r) {
      var cls = r.verdict === "improved" ? "ok" : r.verdict === "regressed" ? "bad" : "";
      rows.push(tr([el("code", { text: r.key }), r.base === null ? "—" : r.base, r.new === null ? "—" : r.new,
        el("span", { "class": cls, text: change(r) }), r.better + (r.unit ? ", " + r.unit : "")]));
    });
  });
  section("rows", "Statistics", [rows.length ? table(["key (as --fail-on names it)", "BASE", "NEW", "change", "better"], rows) : empty("No statistic.")]);

  // Overlaid CDFs: the measures both runs have.
  var dsec = section("distributions", "Distributions, BASE and NEW overlaid", []);
  if (base.coarse || next.coarse) dsec.appendChild(el("p", { "class": "note", text: "A summary export holds only a few percentiles: its curve goes through them (min, median, p90, p95, p99, max), not through every value." }));
  var grid = el("div", { "class": "grid" });
  dsec.appendChild(grid);
  var key = function (d) { return d.measure + " " + d.group; };
  var theirs = {};
  next.distributions.forEach(function (d) { theirs[key(d)] = d; });
  var drawn = 0;
  base.distributions.forEach(function (d) {
    var n = theirs[key(d)];
    if (!n) return;
    var title = d.measure.toUpperCase() + (d.group !== "all" ? " (" + d.group + ")" : "") + (d.unit ? " (" + d.unit + ")" : "");
    var about = function (side, x) { return side + (x.count ? " n=" + x.count + "," : "") + " p50 " + fmt(x.stats.p50) + ", p99 " + fmt(x.stats.p99); };
    var p = panel(title, about("BASE", d) + " · " + about("NEW", n));
    grid.appendChild(p.node);
    draw(p.chart, cdfOption([{ name: "BASE", points: d.cdf }, { name: "NEW", points: n.cdf }], d.unit));
    drawn++;
  });
  if (!drawn) dsec.appendChild(empty("The runs have no distribution in common."));
  ui.ready();
})();
