// Live run page: one websocket, events applied in seq order, each exactly once.
(function () {
  const runId = window.CRUCIBLE_RUN.id;
  const specs = JSON.parse(document.getElementById("metric-specs").textContent || "[]");
  const $ = (id) => document.getElementById(id);
  const series = {};           // key -> {x: [], y: []}
  let lastSeq = 0, plotted = false, pending = false, socket = null, retryDelay = 500, terminal = false;
  let attempt = null;          // curves are per attempt: a requeued run redraws them from scratch

  function setStatus(status, reason) {
    const el = $("run-status");
    el.textContent = status; el.className = "status status-" + status;
    if (reason !== undefined) $("run-reason").textContent = reason || "";
    terminal = ["succeeded", "failed", "cancelled"].includes(status);
    if ($("cancel-form")) $("cancel-form").hidden = terminal;
    if ($("retry-form")) $("retry-form").hidden = !terminal;
    if (status === "succeeded") setProgress(1, 1, "");
  }
  function setProgress(done, total, note) {
    const pct = total > 0 ? Math.min(100, Math.round(1000 * done / total) / 10) : 0;
    $("progress-bar").firstElementChild.style.width = pct + "%";
    $("progress-bar").setAttribute("aria-valuenow", pct);
    $("progress-text").textContent = pct + "%";
    if (note !== undefined) $("progress-note").textContent = note;
  }
  function addPoints(points) {
    for (const [step, values] of points) {
      for (const [k, v] of Object.entries(values)) {
        (series[k] = series[k] || {x: [], y: []});
        series[k].x.push(step); series[k].y.push(v);
      }
    }
    schedulePlot();
  }
  function resetCurves() {
    for (const k of Object.keys(series)) delete series[k];
    $("curves").querySelectorAll("[data-key]").forEach((div) => div.remove());
  }
  function schedulePlot() {
    if (pending) return; pending = true;
    requestAnimationFrame(() => { pending = false; drawCurves(); });
  }
  // One small plot per metric key: curves on different scales never share an axis.
  function drawCurves() {
    const keys = Object.keys(series).sort();
    if (!keys.length || !window.Plotly) return;
    const none = $("no-curves"); if (none) none.remove();
    const root = $("curves"); root.classList.add("curve-grid");
    for (const k of keys) {
      let div = root.querySelector(`[data-key="${CSS.escape(k)}"]`);
      if (!div) { div = document.createElement("div"); div.dataset.key = k; root.appendChild(div); }
      const spec = specs.find((s) => s.name === k);
      const title = k + (spec ? (spec.goal === "max" ? " ↑" : " ↓") : "");
      Plotly.react(div, [{x: series[k].x, y: series[k].y, name: k, mode: "lines", type: "scattergl"}],
        {title: {text: title, font: {size: 13}}, margin: {t: 32, r: 10, b: 32, l: 50}, height: 240, xaxis: {title: "step"}},
        {responsive: true, displaylogo: false});
    }
    root.dataset.points = String(keys.reduce((n, k) => n + series[k].x.length, 0));
  }
  // The record card (worker, device, versions, times) changes with the status: re-read it.
  function refreshRecord() {
    fetch(`/api/runs/${runId}/`, {credentials: "same-origin"}).then((r) => r.json()).then((r) => {
      const set = (id, v) => { const el = $(id); if (el) el.textContent = (v === null || v === undefined || v === "") ? "—" : v; };
      set("rec-worker", `${r.worker_name || "—"} / ${r.device || "—"}`);
      set("rec-attempt", r.attempt);
      set("rec-code", r.code_version);
      set("rec-packages", Object.entries(r.package_versions || {}).map(([k, v]) => `${k} ${v}`).join(", "));
      set("rec-datasets", Object.entries(r.datasets_used || {}).map(([k, v]) => `${k} ${v.slice(0, 12)}`).join(", "));
      const t = (v) => v ? new Date(v).toLocaleTimeString() : "—";
      set("rec-times", `${t(r.created_at)} / ${t(r.started_at)} / ${t(r.finished_at)}`);
      if (r.traceback) $("run-traceback").textContent = r.traceback;
    }).catch(() => {});
  }
  function appendLog(lines) {
    const log = $("log");
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.textContent += lines.join("\n") + "\n";
    if (atBottom) log.scrollTop = log.scrollHeight;
  }
  function setSummary(values) {
    const body = $("summary-table").tBodies[0]; body.innerHTML = "";
    for (const [k, v] of Object.entries(values)) {
      const spec = specs.find((s) => s.name === k);
      const arrow = spec ? (spec.goal === "max" ? " ↑" : " ↓") : "";
      const row = body.insertRow(); row.insertCell().outerHTML = "<th>" + k + arrow + "</th>"; row.insertCell().textContent = v;
    }
  }
  function addArtifact(data) {
    const list = $("artifacts");
    if (![...list.querySelectorAll("a")].some((a) => a.textContent === data.name)) {
      const li = document.createElement("li");
      li.innerHTML = `<a href="/api/runs/${runId}/artifacts/${encodeURIComponent(data.name)}/"></a> <span class="muted"></span>`;
      li.firstChild.textContent = data.name; li.lastChild.textContent = data.content_type;
      list.appendChild(li);
    }
    if (data.content_type === "application/vnd.plotly+json") showFigure(data.name);
    else if (data.content_type === "application/json") showTable(data.name);
    else if (/^(image|audio|video)\//.test(data.content_type || "")) showMedia(data.name, data.content_type);
  }
  // Images (spectrograms, animated GIF videos), audio clips and videos are shown inline, in a
  // gallery in the order they were saved, each captioned with its artifact name.
  function showMedia(name, contentType) {
    if (document.querySelector(`[data-media="${CSS.escape(name)}"]`)) return;
    let gallery = $("artifact-media");
    if (!gallery) { gallery = document.createElement("div"); gallery.id = "artifact-media"; gallery.className = "media-gallery"; $("artifact-plots").before(gallery); }
    const kind = contentType.split("/")[0];
    const fig = document.createElement("figure"); fig.dataset.media = name; fig.className = "media";
    const el = document.createElement(kind === "image" ? "img" : kind);
    el.src = `/api/runs/${runId}/artifacts/${encodeURIComponent(name).replace(/%2F/g, "/")}/`;
    if (kind === "image") { el.alt = name; el.loading = "lazy"; }
    else { el.controls = true; el.preload = "metadata"; if (kind === "video") { el.loop = true; el.muted = true; } }
    const cap = document.createElement("figcaption"); cap.textContent = name;
    fig.append(el, cap); gallery.appendChild(fig);
  }
  // Per-instance drill-down: a JSON artifact holding a list of objects (or {instances: [...]})
  // becomes a filterable table whose rows expand to every field.
  function showTable(name) {
    fetch(`/api/runs/${runId}/artifacts/${encodeURIComponent(name)}/`, {credentials: "same-origin"})
      .then((r) => r.json()).then((payload) => {
        const rows = Array.isArray(payload) ? payload : (payload && Array.isArray(payload.instances) ? payload.instances : (payload && Array.isArray(payload.items) ? payload.items : null));
        if (!rows || !rows.length || typeof rows[0] !== "object") return;
        let box = document.querySelector(`[data-table="${CSS.escape(name)}"]`);
        if (box) return;
        box = document.createElement("details"); box.dataset.table = name; box.className = "drill";
        const cols = Object.keys(rows[0]).filter((k) => typeof rows[0][k] !== "object" || rows[0][k] === null).slice(0, 8);
        box.innerHTML = `<summary>${name}: ${rows.length} rows</summary><input type="search" placeholder="filter rows"><table class="table small"><thead><tr>${cols.map((c) => `<th>${c}</th>`).join("")}</tr></thead><tbody></tbody></table>`;
        const body = box.querySelector("tbody");
        const short = (v) => { const t = typeof v === "string" ? v : JSON.stringify(v); return t && t.length > 80 ? t.slice(0, 80) + "…" : t; };
        function fill(filter) {
          body.innerHTML = "";
          rows.filter((r) => !filter || JSON.stringify(r).toLowerCase().includes(filter)).slice(0, 500).forEach((r) => {
            const tr = body.insertRow(); tr.className = "drill-row";
            cols.forEach((c) => { tr.insertCell().textContent = short(r[c]); });
            tr.addEventListener("click", () => {
              if (tr.nextSibling && tr.nextSibling.classList && tr.nextSibling.classList.contains("drill-detail")) { tr.nextSibling.remove(); return; }
              const d = document.createElement("tr"); d.className = "drill-detail";
              const cell = d.insertCell(); cell.colSpan = cols.length;
              const pre = document.createElement("pre"); pre.textContent = JSON.stringify(r, null, 1); cell.appendChild(pre);
              tr.after(d);
            });
          });
        }
        box.querySelector("input").addEventListener("input", (e) => fill(e.target.value.toLowerCase()));
        fill("");
        $("artifact-plots").appendChild(box);
      }).catch(() => {});
  }
  function showFigure(name) {
    fetch(`/api/runs/${runId}/artifacts/${encodeURIComponent(name)}/`, {credentials: "same-origin"})
      .then((r) => r.json()).then((fig) => {
        let div = document.querySelector(`[data-artifact="${CSS.escape(name)}"]`);
        if (!div) { div = document.createElement("div"); div.dataset.artifact = name; div.className = "plot"; $("artifact-plots").appendChild(div); }
        Plotly.react(div, fig.data || [], Object.assign({height: 360}, fig.layout || {}), {responsive: true, displaylogo: false});
      }).catch(() => {});
  }
  function apply(ev) {
    if (ev.seq !== undefined) { if (ev.seq <= lastSeq) return; lastSeq = ev.seq; }
    const d = ev.data || {};
    switch (ev.kind) {
      case "status":
        if (d.attempt !== undefined) {
          if (attempt !== null && d.attempt !== attempt) resetCurves();
          attempt = d.attempt;
        }
        setStatus(d.status, d.reason);
        if (d.error) { $("error-card").hidden = false; $("run-error").textContent = d.error; }
        refreshRecord();
        break;
      case "progress": setProgress(d.done, d.total, d.note); break;
      case "metrics": addPoints(d.points); break;
      case "log": appendLog(d.lines); break;
      case "summary": setSummary(d.values); break;
      case "artifact": addArtifact(d); break;
    }
  }
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${proto}://${location.host}/ws/runs/${runId}/?after=${lastSeq}`);
    socket.onopen = () => { $("live-state").textContent = "live"; retryDelay = 500; };
    socket.onmessage = (msg) => apply(JSON.parse(msg.data));
    socket.onclose = () => {
      $("live-state").textContent = terminal ? "finished" : "reconnecting…";
      setTimeout(connect, retryDelay); retryDelay = Math.min(retryDelay * 2, 10000);
    };
  }
  window.CRUCIBLE_RUN.lastSeq = () => lastSeq;
  connect();
})();
