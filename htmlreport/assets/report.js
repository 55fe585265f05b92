// Draws the omnik report from the data section (#omnik-data) with the embedded ECharts.
// Everything is built from the data: no request leaves the page.
(function () {
  "use strict";
  var ui = omnikUI, data = ui.data, el = ui.el, txt = ui.txt, fmt = ui.fmt, esc = ui.esc, section = ui.section, empty = ui.empty,
    table = ui.table, tr = ui.tr, panel = ui.panel, draw = ui.draw, grid = ui.grid, cdfOption = ui.cdfOption, palette = ui.palette;
  var run = data.run || {};
  var env = run.env || {};

  // Header
  document.getElementById("title").textContent = data.title;
  var meta = ["started " + data.started.replace("T", " ").replace(/\..*Z$/, "Z"), "duration " + fmt(data.duration_s) + " s",
    data.records + " requests", "omnik " + (env.omnik_version || "?")];
  if (env.target) meta.push("target " + env.target + (env.simulated ? " (simulated)" : ""));
  if (env.model) meta.push("model " + env.model);
  document.getElementById("meta").textContent = meta.join(" · ");

  // Overview
  var tl = data.timeline, sum = function (a) { return a.reduce(function (x, y) { return x + y; }, 0); };
  var failedThresholds = data.thresholds.filter(function (t) { return !t.ok; }).length;
  function card(v, k, cls) { return el("div", { "class": "card" }, [el("div", { "class": "v" + (cls ? " " + cls : ""), text: v }), el("div", { "class": "k", text: k })]); }
  section("overview", "Overview", [el("div", { "class": "cards" }, [
    card(String(sum(tl.finished)), "successful requests"),
    card(String(sum(tl.failed)), "failed requests", sum(tl.failed) ? "bad" : ""),
    card(String(sum(tl.interrupted)), "interrupted by the run"),
    card(data.thresholds.length ? (failedThresholds ? failedThresholds + " failed" : "all passed") : "none", "thresholds (" + data.thresholds.length + ")", failedThresholds ? "bad" : "ok"),
    card(fmt(data.duration_s) + " s", "duration"),
  ])]);

  // Thresholds and checks
  var thRows = data.thresholds.map(function (t) {
    return tr([el("span", { "class": t.ok ? "ok" : "bad", text: t.ok ? "✓ pass" : "✗ fail" }), t.metric, t.expression, t.no_data ? "no data" : t.observed]);
  });
  var ckRows = data.checks.map(function (c) {
    var n = c.passes + c.fails;
    return tr([el("span", { "class": c.fails ? "bad" : "ok", text: c.fails ? "✗" : "✓" }), c.name, c.path || "", c.passes, c.fails, n ? fmt(100 * c.passes / n) + " %" : "—"]);
  });
  section("thresholds", "Thresholds and checks", [
    thRows.length ? table(["", "metric", "threshold", "observed"], thRows) : empty("No thresholds."),
    el("h3", { text: "Checks" }),
    ckRows.length ? table(["", "check", "group", "passes", "fails", "rate"], ckRows) : empty("No checks."),
  ]);

  // Failures
  function reasons(list) {
    return list.map(function (f) {
      var samples = el("div", {}, f.samples.map(function (m) { return el("div", {}, [el("code", { text: m.count + "× " }), txt(m.message)]); }));
      if (f.other) samples.appendChild(el("div", { "class": "empty", text: f.other + " more with other messages" }));
      return tr([f.kind, f.count, fmt(f.first_s) + " s", fmt(f.last_s) + " s", samples]);
    });
  }
  var heads = ["reason", "count", "first", "last", "messages (most frequent first)"];
  var fl = reasons(data.failures), an = reasons(data.anomalies);
  section("failures", "Failures by reason", [fl.length ? table(heads, fl) : empty("No request failed."),
    el("h3", { text: "Anomalies" }),
    el("p", { "class": "note", text: "Requests that succeeded with something wrong, or with something omnik cut (docs/scripting.md)." }),
    an.length ? table(heads, an) : empty("No anomaly.")]);

  // Over time
  var overTime = section("time", "Over time", [el("p", { "class": "note", text: "Per " + fmt(tl.bucket_s) + " s of the run. Latencies are those of the requests that started in the bucket." +
    (tl.outside ? " " + tl.outside + " request starts and ends fall more than 5 s after the run's end (records claiming so) and are not drawn." : "") })]);
  var g = el("div", { "class": "grid" });
  overTime.appendChild(g);
  var x = tl.t;
  // One axis for the run's timelines and the server's gauges, whose pages start before
  // the first request and end after the last.
  var axis = { min: 0, max: x.length ? x[x.length - 1] + tl.bucket_s : 1 };
  (data.server ? data.server.gauges : []).forEach(function (sg) {
    sg.timeline.t.forEach(function (t) { if (t !== null) { axis.min = Math.min(axis.min, t); axis.max = Math.max(axis.max, t); } });
  });
  function timeChart(title, series, yName, note) {
    var p = panel(title, note);
    g.appendChild(p.node);
    draw(p.chart, {
      tooltip: { trigger: "axis" }, legend: { top: 0 }, grid: grid(),
      xAxis: { type: "value", name: "s", min: axis.min, max: axis.max },
      yAxis: { type: "value", name: yName },
      series: series.map(function (s) {
        // A count holds for its whole bucket (a step to the bucket's end); a rate is drawn
        // at the bucket's middle.
        var pts = s.step ? x.map(function (t, i) { return [t, s.data[i]]; }) : x.map(function (t, i) { return [t + tl.bucket_s / 2, s.data[i]]; });
        if (s.step && pts.length) pts.push([x[x.length - 1] + tl.bucket_s, s.data[s.data.length - 1]]);
        return { name: s.name, type: s.type || "line", showSymbol: false, step: s.step ? "end" : false, data: pts, areaStyle: s.area, lineStyle: s.lineStyle, connectNulls: false };
      }),
    });
  }
  var requests = [
    { name: "started", data: tl.started, step: true },
    { name: "finished", data: tl.finished, step: true },
    { name: "failed", data: tl.failed, step: true },
  ];
  if (sum(tl.interrupted)) requests.push({ name: "interrupted", data: tl.interrupted, step: true });
  timeChart("Requests", requests, "per bucket");
  timeChart("Concurrency", [{ name: "requests in flight (mean)", data: tl.concurrency, area: { opacity: 0.15 } }], "requests");
  timeChart("Output tokens", [{ name: "output tokens/s", data: tl.output_tokens_per_s }], "tok/s", "Tokens where they arrived: one at the first text chunk, then one per inter-token gap (a chunk of k tokens counts k), as vllm bench serve counts its peak output throughput.");
  timeChart("Audio", [{ name: "audio seconds/s", data: tl.audio_s_per_s }], "s/s");
  // Bands: p50 to p90 and p90 to p99 as stacked areas over an invisible p50 base, with
  // the three quantiles drawn as lines; the tooltip shows only the lines.
  Object.keys(tl.latency).forEach(function (m) {
    var b = tl.latency[m];
    if (!b.p50.some(function (v) { return v !== null; })) return;
    var diff = function (hi, lo) { return hi.map(function (v, i) { return v === null || lo[i] === null ? null : v - lo[i]; }); };
    var pts = function (a) { return x.map(function (t, i) { return [t + tl.bucket_s / 2, a[i]]; }); };
    var band = function (name, d, opacity) {
      return { name: name, type: "line", stack: "band", data: pts(d), showSymbol: false, silent: true, lineStyle: { opacity: 0 }, areaStyle: opacity ? { opacity: opacity, color: "#2f6fdb" } : { opacity: 0 }, tooltip: { show: false } };
    };
    var line = function (name, d, color, width) { return { name: name, type: "line", data: pts(d), showSymbol: false, lineStyle: { width: width, color: color }, itemStyle: { color: color } }; };
    var p = panel(m.toUpperCase() + " over time", "p50, p90 and p99 of the requests started in each bucket; the shaded bands lie between them.");
    g.appendChild(p.node);
    draw(p.chart, {
      tooltip: { trigger: "axis", formatter: function (ps) {
        var shown = ps.filter(function (q) { return q.seriesName.indexOf("band") < 0; });
        return shown.length ? fmt(shown[0].value[0]) + " s<br>" + shown.map(function (q) { return q.marker + esc(q.seriesName) + " " + fmt(q.value[1], "ms"); }).join("<br>") : "";
      } },
      legend: { top: 0, data: ["p50", "p90", "p99"] }, grid: grid(),
      xAxis: { type: "value", name: "s", min: axis.min, max: axis.max },
      yAxis: { type: "value", name: "ms" },
      series: [band("band base", b.p50, 0), band("band p50-p90", diff(b.p90, b.p50), 0.25), band("band p90-p99", diff(b.p99, b.p90), 0.12),
        line("p50", b.p50, "#1c4f9c", 2), line("p90", b.p90, "#e8590c", 1), line("p99", b.p99, "#c92a2a", 1)],
    });
  });

  // Server metrics (server.js), when the run read the server's page.
  omnikServer(ui, axis);

  // Distributions
  var byMeasure = {};
  data.distributions.forEach(function (d) {
    if (d.group.indexOf("stage:") === 0) return;
    (byMeasure[d.measure] = byMeasure[d.measure] || []).push(d);
  });
  var dsec = section("distributions", "Distributions", [el("p", { "class": "note", text: "CDF of each per-request measure of the successful requests: the whole run, each scenario, each modality the requests produced. The value axis is logarithmic where the values span more than 20×." })]);
  var dg = el("div", { "class": "grid" });
  dsec.appendChild(dg);
  Object.keys(byMeasure).sort().forEach(function (m) {
    var list = byMeasure[m];
    var all = list[0];
    var note = list.map(function (d) { return d.group + ": n=" + d.count + ", p50 " + fmt(d.stats.p50) + ", p99 " + fmt(d.stats.p99) + (d.approximate ? " (HDR)" : ""); }).join(" · ");
    var p = panel(m.toUpperCase() + (all.unit ? " (" + all.unit + ")" : ""), note);
    dg.appendChild(p.node);
    draw(p.chart, cdfOption(list.map(function (d) { return { name: d.group, points: d.cdf }; }), all.unit));
  });
  if (!Object.keys(byMeasure).length) dsec.appendChild(empty("No successful request."));

  // Stages
  var ssec = section("stages", "Server stages", [el("p", { "class": "note", text: "From the server's stage metrics: each stage's generation time beside its Serving time to first output (TTFT for a text stage, TTFP for audio, TTFC for an internal stream)." })]);
  if (data.stages.length) {
    var names = data.stages.map(function (s) { return s.name + " (" + s.kind + ")"; });
    var pick = function (k, stat) { return data.stages.map(function (s) { return s[k] ? s[k][stat] : null; }); };
    var sp = panel("Stage time side by side", "");
    ssec.appendChild(sp.node);
    draw(sp.chart, {
      tooltip: { trigger: "axis" }, legend: { top: 0 }, grid: grid(),
      xAxis: { type: "category", data: names }, yAxis: { type: "value", name: "ms" },
      series: [
        { name: "stage_gen_time mean", type: "bar", data: pick("gen_ms", "mean") },
        { name: "stage_gen_time p99", type: "bar", data: pick("gen_ms", "p99") },
        { name: "Serving TTFT/TTFP/TTFC mean", type: "bar", data: pick("serving_ttfo_ms", "mean") },
        { name: "Serving TTFT/TTFP/TTFC p99", type: "bar", data: pick("serving_ttfo_ms", "p99") },
      ],
    });
    var st = function (s) { return s ? [s.mean, s.p50, s.p90, s.p99] : ["—", "—", "—", "—"]; };
    ssec.appendChild(table(["stage", "kind", "first output", "gen mean", "gen p50", "gen p90", "gen p99", "first output mean", "p50", "p90", "p99", "postprocess mean", "p99"],
      data.stages.map(function (s) { return tr([s.name, s.kind, s.first_output].concat(st(s.gen_ms), st(s.serving_ttfo_ms), s.postprocess_ms ? [s.postprocess_ms.mean, s.postprocess_ms.p99] : ["—", "—"])); })));
  } else ssec.appendChild(empty("The server sent no stage metrics."));

  // Waterfalls
  var wsec = section("waterfalls", "Request waterfalls", [el("p", { "class": "note", text: "The slowest requests and a sample, each on its own time axis (ms from when it was sent): what the client received, and what the server said each stage took. The server reports a stage's generation time and its first output, not when it was submitted: a stage's start is estimated as the later of the previous stage's first output and its first output minus its generation time." })]);
  var wg = el("div", { "class": "grid" });
  wsec.appendChild(wg);
  data.waterfalls.forEach(function (w) {
    var counts = Object.keys(w.counts).map(function (k) { return w.counts[k] + " " + k; }).join(", ");
    var p = panel((w.why === "slowest" ? "Slowest: " : "Sample: ") + w.endpoint + (w.scenario ? " in " + w.scenario : "") + ", " + fmt(w.e2el_ms) + " ms",
      "started at " + fmt(w.start_s) + " s" + (w.request_id ? " · " + w.request_id : "") + (counts ? " · " + counts : ""), true);
    wg.appendChild(p.node);
    draw(p.chart, waterfallOption(w));
  });
  if (!data.waterfalls.length) wsec.appendChild(empty("No successful request."));

  // Serving and Stage blocks
  var bsec = section("blocks", "Serving and Stage Benchmark Result", []);
  var holder = el("div", { "class": "blocks" }), cur = null;
  data.blocks.forEach(function (r) {
    if (r.kind === "title" || !cur) { cur = table(null, []); holder.appendChild(cur); }
    if (r.kind === "title" || r.kind === "section") cur.appendChild(el("tr", { "class": r.kind }, [el("td", { colspan: "2", text: r.label })]));
    else if (r.kind === "heading") cur.appendChild(el("tr", { "class": "heading" }, [el("td", { colspan: "2", text: r.label })]));
    else if (r.kind === "note") cur.appendChild(el("tr", {}, [el("td", { colspan: "2", "class": "empty", text: r.label })]));
    else cur.appendChild(el("tr", {}, [el("td", { text: r.label }), el("td", { "class": "num", text: r.value })]));
  });
  bsec.appendChild(data.blocks.length ? holder : empty("No omni request."));

  // METRICS
  section("metrics", "Metrics", [table(["metric", "type", "values"], data.metrics.map(function (m) {
    var unit = m.contains === "time" ? "ms" : "";
    var vals = Object.keys(m.values).map(function (k) { return k + "=" + fmt(m.values[k], m.type === "trend" ? unit : ""); }).join("  ");
    return tr([m.name, m.type + (m.approximate ? " (HDR)" : ""), el("code", { text: vals })]);
  }))]);

  // Run and environment
  var envRows = [["script", run.script], ["script sha256", run.script_sha256], ["options sha256", run.options_sha256], ["run id", run.run_id],
    ["omnik", env.omnik_version], ["Go", env.go_version], ["platform", env.platform], ["target", env.target], ["simulated", env.simulated ? "yes" : "no"],
    ["model", env.model || "the server's first model"]].filter(function (r) { return r[1]; }).map(function (r) { return tr(r); });
  var scRows = (env.scenarios || []).map(function (s) { return tr([s.name, s.executor, s.vus, s.max_vus, el("code", { text: JSON.stringify(s.config || {}) })]); });
  section("run", "Run and environment", [table(["", ""], envRows), el("h3", { text: "Scenarios" }),
    scRows.length ? table(["scenario", "executor", "VUs", "max VUs", "options"], scRows) : empty("Not recorded.")]);

  function waterfallOption(w) {
    var rows = ["client"], items = [], marks = [];
    ["text", "audio", "image"].forEach(function (k) { if (w.chunks[k]) rows.push(k + " chunks"); });
    var stageRow = function (s) { return "stage " + s.id + " " + s.name + " (" + s.kind + ")"; };
    w.stages.forEach(function (s) { rows.push(stageRow(s)); });
    items.push({ value: [0, 0, w.e2el_ms], name: "request", itemStyle: { color: "#adb5bd" } });
    w.stages.forEach(function (s) {
      var row = rows.indexOf(stageRow(s));
      items.push({ value: [row, s.start_ms, s.start_ms + s.gen_ms], name: s.name + " gen " + fmt(s.gen_ms) + " ms (start estimated)", itemStyle: { color: palette[(s.id + 1) % palette.length] } });
      if (s.postprocess_ms) items.push({ value: [row, s.start_ms + s.gen_ms, s.start_ms + s.gen_ms + s.postprocess_ms], name: s.name + " postprocess", itemStyle: { color: "#868e96" } });
      if (s.first_output_ms) marks.push({ value: [s.first_output_ms, row], name: s.name + " first output (server)", symbol: "diamond", symbolSize: 11, itemStyle: { color: "#212529" } });
    });
    var chunkSeries = [];
    ["text", "audio", "image"].forEach(function (k, i) {
      if (!w.chunks[k]) return;
      var row = rows.indexOf(k + " chunks");
      chunkSeries.push({ name: k + " chunks", type: "scatter", symbol: "rect", symbolSize: [2, 14], data: w.chunks[k].map(function (t) { return [t, row]; }), itemStyle: { color: palette[i] } });
    });
    Object.keys(w.marks).forEach(function (k) {
      marks.push({ value: [w.marks[k], 0], name: k.replace("_", " "), symbol: k === "sent" || k === "end" ? "triangle" : "circle", symbolSize: 10 });
    });
    return {
      // The names hold the server's stage names: escaped, as the tooltip is HTML.
      tooltip: { trigger: "item", formatter: function (p) { return p.name ? esc(p.name) + (p.value && p.value.length === 2 ? " at " + fmt(p.value[0]) + " ms" : "") : ""; } },
      legend: { top: 0, type: "scroll" }, grid: { left: 140, right: 24, top: 36, bottom: 40 },
      xAxis: { type: "value", name: "ms", min: 0 },
      yAxis: { type: "category", data: rows, inverse: true },
      series: [{
        name: "spans", type: "custom", encode: { x: [1, 2], y: 0 }, data: items,
        renderItem: function (params, api) {
          var y = api.value(0), a = api.coord([api.value(1), y]), b = api.coord([api.value(2), y]);
          var h = api.size([0, 1])[1] * 0.5;
          return { type: "rect", shape: { x: a[0], y: a[1] - h / 2, width: Math.max(b[0] - a[0], 1), height: h }, style: api.style() };
        },
      }].concat(chunkSeries, [{ name: "events", type: "scatter", data: marks, z: 5, itemStyle: { color: "#212529" } }]),
    };
  }

  ui.ready();
})();
