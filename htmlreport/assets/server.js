// Draws the report's Server metrics part from data.server: what the server's /metrics
// page said over the run, and the client's numbers beside their server twins. Family
// names, label values, the page's URL and failure details are the server's: they go in
// as text (el's text, a text node) or through esc in the HTML tooltips, never as markup.
function omnikServer(ui, axis) {
  "use strict";
  var s = ui.data.server, el = ui.el, fmt = ui.fmt, esc = ui.esc, table = ui.table, tr = ui.tr, panel = ui.panel,
    draw = ui.draw, grid = ui.grid, empty = ui.empty, palette = ui.palette;
  if (!s) return;
  var left = s.left_out || {};
  var more = function (n, what) { return n ? el("p", { "class": "note bad", text: n + " more " + what + " left out: the report shows the first " + s.max_rows + "." }) : null; };

  var failed = s.failed.reduce(function (n, f) { return n + f.count; }, 0);
  var about = [tr(["page", s.url]), tr(["pages read", s.pages]), tr(["pages failed", failed])];
  s.failed.forEach(function (f) { about.push(tr(["failed: " + f.kind + " ×" + f.count, f.detail])); });
  about.push(tr(["window", fmt(s.window_s, "s")]));
  if (s.refused_points) about.push(tr(["points left out (past the series cap)", s.refused_points]));
  var sec = ui.section("server", "Server metrics", [
    el("p", { "class": "note", text: "From the server's own Prometheus page, read before the run, during it and after it. Gauges are judged on the pages read during the run; counters and histograms on their increase from the last page before the scenarios began to the page after the last response (the window)." }),
    table(["", ""], about), more(left.failed, "kinds of failed read")]);

  var add = function (node) { if (node) sec.appendChild(node); };

  // Gauges: one chart per family, its series summed (averaged for shares) and each stage,
  // on the axis of the run's timelines above.
  sec.appendChild(el("h3", { text: "Gauges over the run" }));
  if (s.gauges.length) {
    // A Map: a family may be named __proto__.
    var byFamily = new Map();
    s.gauges.forEach(function (g) {
      if (!byFamily.has(g.family)) byFamily.set(g.family, []);
      byFamily.get(g.family).push(g);
    });
    var g = el("div", { "class": "grid" });
    sec.appendChild(g);
    byFamily.forEach(function (rows, fam) {
      var p = panel(fam, "Each page's value (a point's mean and max once a long run merges pages), s on the run's timeline.");
      g.appendChild(p.node);
      draw(p.chart, gaugeOption(rows));
    });
    sec.appendChild(table(["gauge", "pages", "mean", "max", "min", "last"], s.gauges.map(function (r) {
      return tr([r.name, r.pages, r.mean, r.max, r.min, r.last]);
    })));
  } else sec.appendChild(empty("The page had no gauge."));
  add(more(left.gauges, "gauges"));

  sec.appendChild(el("h3", { text: "Counters (increase over the window, per second)" }));
  sec.appendChild(s.counters.length ? table(["counter", "increase", "per s"], s.counters.map(function (c) {
    return tr([c.name, c.increase, c.rate]);
  })) : empty("The page had no counter."));
  add(more(left.counters, "counters"));

  sec.appendChild(el("h3", { text: "Histograms (observed in the window)" }));
  sec.appendChild(el("p", { "class": "note", text: "Values are in each family's own unit, except families in seconds (names ending _s or _seconds): those are shown in ms, as every client time is. p50 and p99 are interpolated within the histogram's buckets; the mean is exact (sum / count)." }));
  sec.appendChild(s.histograms.length ? table(["histogram", "unit", "count", "mean", "p50", "p99"], s.histograms.map(function (h) {
    return tr([h.name, h.unit || "family's own", h.count, h.mean, h.p50, h.p99]);
  })) : empty("The page had no histogram."));
  add(more(left.histograms, "histograms"));

  // The reconciliation: the n row, then each statistic, as the text block prints it.
  sec.appendChild(el("h3", { text: "Client vs server" }));
  sec.appendChild(el("p", { "class": "note", text: "Diff is client − server: what the network, the frontend and the client's own read added. Server means are exact (sum / count); server percentiles are interpolated within the server bucket shown, their error at most its width." }));
  var twins = [];
  s.reconciliation.forEach(function (t) {
    var label = t.metric + (t.stage ? "[" + t.stage + "]" : "") + (t.unit ? " (" + t.unit + ")" : "");
    twins.push(tr([label, "n", t.client_count, t.server_count, "", ""], "twin"));
    t.stats.forEach(function (st) {
      var b = st.server_bucket ? "(" + fmt(st.server_bucket[0]) + ", " + fmt(st.server_bucket[1]) + "]" : "";
      twins.push(tr([label, st.stat, st.client, st.server, st.diff, b], "twin"));
    });
  });
  sec.appendChild(twins.length ? table(["metric", "stat", "client", "server", "diff", "server bucket"], twins, "twins") :
    empty("The page has none of the server families the client's metrics are compared with (docs/report.md)."));

  function gaugeOption(rows) {
    var series = [];
    rows.forEach(function (r, i) {
      var color = palette[i % palette.length], tl = r.timeline;
      var label = r.selector ? Object.keys(r.selector).sort().map(function (k) { return k + "=" + r.selector[k]; }).join(",") : "all series";
      var pts = function (a) { return tl.t.map(function (t, k) { return [t, a[k]]; }); };
      // A lone page is a point, not a line of no length.
      var one = tl.t.length === 1;
      series.push({ name: label, type: "line", showSymbol: one, data: pts(tl.mean), lineStyle: { width: 2, color: color }, itemStyle: { color: color } });
      if (tl.max.some(function (v, k) { return v !== tl.mean[k]; })) {
        series.push({ name: label + " (max)", type: "line", showSymbol: one, data: pts(tl.max), lineStyle: { width: 1, type: "dashed", color: color }, itemStyle: { color: color } });
      }
    });
    return {
      tooltip: { trigger: "axis", formatter: function (ps) {
        return ps.length ? fmt(ps[0].value[0]) + " s<br>" + ps.map(function (q) { return q.marker + esc(q.seriesName) + " " + fmt(q.value[1]); }).join("<br>") : "";
      } },
      legend: { top: 0, type: "scroll" }, grid: grid(),
      xAxis: { type: "value", name: "s", min: axis.min, max: axis.max },
      yAxis: { type: "value" },
      series: series,
    };
  }
}
