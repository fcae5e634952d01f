#include "tide/cli/status_page_assets.h"

namespace tide::cli {

const std::string_view kStatusPageHtml = R"tide(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tide sync</title>
<style>
  :root { --fg: #1d2733; --muted: #6b7785; --line: #e3e7ec; --accent: #1f6feb; --ok: #1a7f37; --bad: #cf222e; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: #f6f8fa; }
  header { display: flex; align-items: baseline; gap: 12px; padding: 14px 24px; background: #fff; border-bottom: 1px solid var(--line); }
  header h1 { font-size: 18px; margin: 0; }
  header .muted { color: var(--muted); }
  .badge { padding: 1px 8px; border-radius: 10px; font-size: 12px; color: #fff; background: var(--ok); }
  .badge.bad { background: var(--bad); }
  main { padding: 16px 24px; display: grid; gap: 16px; max-width: 1200px; }
  section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; }
  h2 { font-size: 14px; margin: 0 0 8px; color: var(--muted); font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
  .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px 16px; }
  .figures div span { display: block; color: var(--muted); font-size: 12px; }
  .figures div b { font-size: 16px; font-variant-numeric: tabular-nums; }
  table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
  th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
  th { color: var(--muted); font-weight: 600; font-size: 12px; }
  td.num, th.num { text-align: right; }
  .bar { position: relative; width: 160px; height: 8px; background: var(--line); border-radius: 4px; overflow: hidden; display: inline-block; vertical-align: middle; margin-right: 6px; }
  .bar i { position: absolute; left: 0; top: 0; bottom: 0; background: var(--accent); }
  .phase-streaming { color: var(--ok); } .phase-copying { color: var(--accent); } .phase-waiting { color: var(--muted); }
  .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
  .chart svg { width: 100%; height: 120px; display: block; }
  .chart .title { display: flex; justify-content: space-between; color: var(--muted); font-size: 12px; }
  #error { color: var(--bad); white-space: pre-wrap; font-family: ui-monospace, monospace; margin: 0; }
  .empty, #error.empty { color: var(--muted); }
</style>
</head>
<body>
<header>
  <h1>Tide sync</h1>
  <span id="state" class="badge">connecting</span>
  <span class="muted">slot <b id="slot"></b>, publication <b id="publication"></b></span>
  <span class="muted" id="updated"></span>
</header>
<main>
  <section>
    <h2>Overall</h2>
    <div class="figures">
      <div><span>transactions</span><b id="transactions">-</b></div>
      <div><span>changes streamed</span><b id="changes-streamed">-</b></div>
      <div><span>commits</span><b id="commits">-</b></div>
      <div><span>lag</span><b id="lag-seconds">-</b></div>
      <div><span>replication lag</span><b id="lag-bytes">-</b></div>
      <div><span>freshness (last commit)</span><b id="freshness">-</b></div>
      <div><span>received LSN</span><b id="received-lsn">-</b></div>
      <div><span>acknowledged LSN</span><b id="acknowledged-lsn">-</b></div>
    </div>
  </section>
  <section>
    <h2>Tables</h2>
    <table id="tables">
      <thead><tr><th>source</th><th>lake table</th><th>state</th><th>copy</th><th class="num">rows copied</th>
        <th class="num">changes streamed</th><th class="num">commits</th><th>committed LSN</th><th>last commit</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section class="charts">
    <div class="chart"><div class="title"><span>lag (seconds)</span><span id="lag-seconds-max"></span></div><svg id="chart-lag-seconds" viewBox="0 0 400 120" preserveAspectRatio="none"></svg></div>
    <div class="chart"><div class="title"><span>freshness of commits (seconds)</span><span id="freshness-max"></span></div><svg id="chart-freshness" viewBox="0 0 400 120" preserveAspectRatio="none"></svg></div>
    <div class="chart"><div class="title"><span>replication lag (bytes)</span><span id="lag-bytes-max"></span></div><svg id="chart-lag-bytes" viewBox="0 0 400 120" preserveAspectRatio="none"></svg></div>
  </section>
  <section>
    <h2>Recent commits</h2>
    <table id="commits-list">
      <thead><tr><th>time</th><th>lake table</th><th class="num">snapshot</th><th>source LSN</th><th class="num">took</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section>
    <h2>Last error</h2>
    <pre id="error" class="empty">none</pre>
  </section>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const int = (n) => Number(n).toLocaleString("en-US");
function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; ++i; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}
const secs = (s) => s < 0 ? "-" : s < 1 ? Math.round(s * 1000) + " ms" : s.toFixed(s < 10 ? 2 : 0) + " s";
const time = (ms) => ms > 0 ? new Date(ms).toLocaleTimeString() : "-";
function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}
function progressCell(tr, t) {
  const td = cell(tr, "", "copy");
  if (t.rows_estimate > 0 && (t.phase === "copying" || t.rows_copied > 0)) {
    const frac = Math.min(1, t.rows_copied / t.rows_estimate);
    const bar = document.createElement("span");
    bar.className = "bar";
    const fill = document.createElement("i");
    fill.style.width = (frac * 100).toFixed(1) + "%";
    bar.appendChild(fill);
    td.appendChild(bar);
    td.appendChild(document.createTextNode(Math.round(frac * 100) + "% of ~" + int(t.rows_estimate)));
  } else {
    td.textContent = t.phase === "copying" ? "no estimate" : t.phase === "streaming" ? "done" : "-";
  }
}
function drawChart(svg, points, maxLabel, format) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const ns = "http://www.w3.org/2000/svg";
  const W = 400, H = 120;
  if (points.length < 2) { maxLabel.textContent = "collecting"; return; }
  const t0 = points[0][0], t1 = points[points.length - 1][0];
  const max = Math.max(...points.map((p) => p[1]), 1e-9);
  const x = (t) => (t1 === t0 ? 0 : (t - t0) / (t1 - t0)) * W;
  const y = (v) => H - 4 - (v / max) * (H - 8);
  const line = points.map((p, i) => (i ? "L" : "M") + x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1)).join(" ");
  const area = document.createElementNS(ns, "path");
  area.setAttribute("d", line + " L" + W + "," + H + " L0," + H + " Z");
  area.setAttribute("fill", "rgba(31,111,235,0.12)");
  svg.appendChild(area);
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", line);
  path.setAttribute("fill", "none");
  path.setAttribute("stroke", "#1f6feb");
  path.setAttribute("stroke-width", "1.5");
  path.setAttribute("vector-effect", "non-scaling-stroke");
  svg.appendChild(path);
  maxLabel.textContent = "max " + format(max) + " over " + Math.round((t1 - t0) / 60000) + " min";
}
function render(s) {
  const state = $("state");
  state.textContent = s.up ? "running" : "stopped";
  state.className = s.up ? "badge" : "badge bad";
  $("slot").textContent = s.slot;
  $("publication").textContent = s.publication;
  $("updated").textContent = "as of " + time(s.now_ms);
  $("transactions").textContent = int(s.transactions);
  $("changes-streamed").textContent = int(s.changes_streamed);
  $("commits").textContent = int(s.commits);
  $("lag-seconds").textContent = secs(s.lag_seconds);
  $("lag-bytes").textContent = bytes(s.lag_bytes);
  $("freshness").textContent = secs(s.last_freshness_seconds);
  $("received-lsn").textContent = s.received_lsn || "-";
  $("acknowledged-lsn").textContent = s.acknowledged_lsn || "-";
  const body = document.querySelector("#tables tbody");
  body.replaceChildren();
  for (const t of s.tables) {
    const tr = document.createElement("tr");
    tr.dataset.table = t.source;
    cell(tr, t.source, "source");
    cell(tr, t.target, "target");
    cell(tr, t.phase, "phase phase-" + t.phase);
    progressCell(tr, t);
    cell(tr, int(t.rows_copied), "num rows-copied");
    cell(tr, int(t.changes_streamed), "num changes-streamed");
    cell(tr, int(t.commits), "num commits");
    cell(tr, t.committed_lsn || "-", "committed-lsn");
    cell(tr, time(t.last_commit_ms), "last-commit");
    body.appendChild(tr);
  }
  if (!s.tables.length) { const tr = document.createElement("tr"); cell(tr, "no tables yet", "empty"); body.appendChild(tr); }
  const commits = document.querySelector("#commits-list tbody");
  commits.replaceChildren();
  for (const c of s.recent_commits) {
    const tr = document.createElement("tr");
    cell(tr, time(c.ms));
    cell(tr, c.target);
    cell(tr, c.snapshot_id >= 0 ? String(c.snapshot_id) : "-", "num");
    cell(tr, c.lsn || "-");
    cell(tr, secs(c.duration_ms / 1000), "num");
    commits.appendChild(tr);
  }
  const h = s.history;
  drawChart($("chart-lag-seconds"), h.map((p) => [p.ms, p.lag_seconds]), $("lag-seconds-max"), secs);
  drawChart($("chart-freshness"), h.filter((p) => p.freshness_seconds >= 0).map((p) => [p.ms, p.freshness_seconds]),
            $("freshness-max"), secs);
  drawChart($("chart-lag-bytes"), h.map((p) => [p.ms, p.lag_bytes]), $("lag-bytes-max"), bytes);
  const error = $("error");
  error.textContent = s.last_error ? s.last_error : "none";
  error.className = s.last_error ? "" : "empty";
}
async function poll() {
  try {
    const response = await fetch("/api/status", { cache: "no-store" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    render(await response.json());
    document.body.dataset.loaded = "true";
  } catch (e) {
    $("state").textContent = "unreachable";
    $("state").className = "badge bad";
  }
  setTimeout(poll, 2000);
}
poll();
</script>
</body>
</html>
)tide";

}  // namespace tide::cli
