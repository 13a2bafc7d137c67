// Leaderboard: sortable table, method filter, Plotly chart with CIs, live refresh on run finish.
(function () {
  const bench = window.CRUCIBLE_BENCH;
  let board = JSON.parse(document.getElementById("board").textContent);
  const fmt = (v) => (v === null || v === undefined || Number.isNaN(v)) ? "—" : Number(v).toPrecision(4);
  function selectedMethods() { return [...document.querySelectorAll(".method-filter:checked")].map((c) => c.value); }
  function render() {
    const metrics = board.metrics;
    const root = document.getElementById("leaderboard");
    let html = '<table class="table" id="leaderboard-table"><thead><tr><th>#</th><th>Method</th><th>Model</th><th>Seeds</th>';
    for (const m of metrics) {
      const arrow = m.goal === "max" ? "↑" : (m.goal === "min" ? "↓" : "");
      const active = board.sort === m.name ? (board.descending ? " ▼" : " ▲") : "";
      html += `<th class="sortable" data-metric="${m.name}" title="${m.description || ""}">${m.name} ${arrow}${m.primary ? " ★" : ""}${active}</th>`;
    }
    html += "</tr></thead><tbody>";
    for (const row of board.rows) {
      html += `<tr class="${row.is_baseline ? "baseline" : ""}" data-method="${row.method}"><td>${row.rank}</td><td>${row.method}${row.is_baseline ? ' <span class="muted">(baseline)</span>' : ""}</td><td>${row.model || "—"}</td><td>${row.seeds}</td>`;
      for (const m of metrics) {
        const v = row.metrics[m.name] || {};
        html += `<td>${fmt(v.mean)}${v.ci95 != null ? ' <span class="muted">± ' + fmt(v.ci95) + "</span>" : ""}</td>`;
      }
      html += "</tr>";
    }
    if (!board.rows.length) html += `<tr><td colspan="${4 + metrics.length}" class="muted">No finished runs yet.</td></tr>`;
    html += "</tbody></table>";
    // Boards are paged on the server: show how many rows there are and fetch more on demand.
    const total = board.total_rows ?? board.rows.length;
    if (total > board.rows.length) {
      html += `<p class="muted" id="lb-pager">Showing the top ${board.rows.length} of ${total} rows · <a href="#" id="lb-more">show ${Math.min(100, total - board.rows.length)} more</a> · <a href="#" id="lb-all">show all</a></p>`;
    }
    root.innerHTML = html;
    const more = document.getElementById("lb-more"), all = document.getElementById("lb-all");
    if (more) more.addEventListener("click", (e) => { e.preventDefault(); load({limit: Math.min(board.rows.length + 100, 10000)}); });
    if (all) all.addEventListener("click", (e) => { e.preventDefault(); load({limit: Math.min(total, 10000)}); });
    root.querySelectorAll("th.sortable").forEach((th) => th.addEventListener("click", () => {
      const name = th.dataset.metric;
      const desc = board.sort === name ? !board.descending : (metrics.find((m) => m.name === name).goal !== "min");
      load({sort: name, order: desc ? "desc" : "asc"});
    }));
    plot();
  }
  function plot() {
    if (!window.Plotly || !board.rows.length) return;
    const m = board.metrics.find((x) => x.name === board.sort) || board.metrics[0];
    const labels = board.rows.map((r) => r.method + (r.model ? " / " + r.model : "") + (board.rows.filter((o) => o.method === r.method).length > 1 ? " [" + r.config_hash.slice(0, 6) + "]" : ""));
    const trace = {type: "bar", x: labels, y: board.rows.map((r) => (r.metrics[m.name] || {}).mean),
      error_y: {type: "data", array: board.rows.map((r) => (r.metrics[m.name] || {}).ci95 || 0), visible: true},
      marker: {color: board.rows.map((r) => r.is_baseline ? "#adb5bd" : "#3b5bdb")}};
    Plotly.react("leaderboard-plot", [trace], {height: 320, margin: {t: 30, b: 80, l: 60, r: 10},
      title: {text: `${m.name}${m.goal ? " (" + (m.goal === "max" ? "higher" : "lower") + " is better)" : ""}, mean ± 95% CI`, font: {size: 13}}},
      {displaylogo: false, responsive: true});
  }
  let current = {sort: board.sort, order: board.descending ? "desc" : "asc", columns: board.all_columns ? "all" : "declared"};
  function load(params) {
    current = Object.assign(current, params || {});
    const q = new URLSearchParams({sort: current.sort || "", order: current.order || "", columns: current.columns});
    if (current.limit) q.set("limit", current.limit);
    const methods = selectedMethods(); if (methods.length) q.set("method", methods.join(","));
    const models = [...document.querySelectorAll(".model-filter:checked")].map((c) => c.value);
    if (models.length) q.set("model", models.join(","));
    return fetch(`/api/leaderboards/${bench}/?${q}`, {credentials: "same-origin"}).then((r) => r.json())
      .then((b) => { board = b; render(); document.getElementById("leaderboard").dataset.version = b.version; });
  }
  document.querySelectorAll(".method-filter, .model-filter").forEach((c) => c.addEventListener("change", () => load()));
  const allCols = document.getElementById("all-columns");
  if (allCols) allCols.addEventListener("change", () => load({columns: allCols.checked ? "all" : "declared"}));
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/leaderboards/${bench}/`);
    ws.onopen = () => { document.getElementById("lb-live").textContent = "live"; };
    ws.onmessage = (msg) => { const ev = JSON.parse(msg.data); if (ev.type === "leaderboard.changed" || (ev.type === "leaderboard.version" && ev.version !== board.version)) load(); };
    ws.onclose = () => { document.getElementById("lb-live").textContent = "reconnecting…"; setTimeout(connect, 2000); };
  }
  render();
  document.getElementById("leaderboard").dataset.version = board.version;
  // The benchmark's own comparison figure (e.g. error per task family), drawn on the server.
  const comparison = document.getElementById("comparison-figure");
  if (comparison && window.Plotly) {
    const fig = JSON.parse(comparison.textContent);
    Plotly.react("comparison-plot", fig.data || [], Object.assign({height: 420}, fig.layout || {}), {responsive: true, displaylogo: false});
  }
  connect();
})();
