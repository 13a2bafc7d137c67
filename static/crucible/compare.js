// Overlay every metric curve of the selected runs: one subplot per metric key.
(function () {
  const el = document.getElementById("series"); if (!el || !window.Plotly) return;
  const series = JSON.parse(el.textContent), labels = JSON.parse(document.getElementById("labels").textContent);
  const keys = [...new Set(Object.values(series).flatMap((s) => Object.keys(s)))].sort();
  const root = document.getElementById("compare-curves");
  if (!keys.length) { root.innerHTML = '<p class="muted">These runs logged no curves.</p>'; return; }
  for (const key of keys) {
    const div = document.createElement("div"); div.className = "plot"; root.appendChild(div);
    const traces = Object.entries(series).filter(([, s]) => s[key]).map(([id, s]) => ({x: s[key].steps, y: s[key].values, name: labels[id], mode: "lines"}));
    Plotly.newPlot(div, traces, {title: {text: key, font: {size: 13}}, height: 300, margin: {t: 40, b: 40, l: 50, r: 10}}, {displaylogo: false, responsive: true});
  }
})();
