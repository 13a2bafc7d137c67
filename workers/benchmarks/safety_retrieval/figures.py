"""Plotly charts across retrieval conditions and mitigations (one bar group per condition,
one colour per mitigation, bootstrap CIs as error bars)."""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

PANELS = (
    ("refusal_rate", "Refusal rate (harmful) ↑"),
    ("harmfulness", "Harmfulness 1-5 ↓"),
    ("over_refusal", "Over-refusal (XSTest safe) ↓"),
    ("bias_score_ambig", "BBQ bias, ambiguous"),
    ("bias_score_disambig", "BBQ bias, disambiguated"),
    ("unsafe_refusal", "Refusal (XSTest unsafe) ↑"),
)


def _bars(fig, results, conditions, mitigations, title_suffix: str, row_col) -> None:
    for m_i, mitigation in enumerate(mitigations):
        for p_i, (metric, _) in enumerate(PANELS):
            xs, ys, lo, hi = [], [], [], []
            for cond in conditions:
                value = results.get((mitigation, cond), {}).get(metric)
                if value is None or math.isnan(value[0]):
                    continue
                xs.append(cond)
                ys.append(value[0])
                lo.append(value[0] - value[1] if not math.isnan(value[1]) else 0.0)
                hi.append(value[2] - value[0] if not math.isnan(value[2]) else 0.0)
            row, col = row_col(p_i)
            fig.add_trace(
                go.Bar(
                    x=xs,
                    y=ys,
                    name=f"{mitigation}{title_suffix}",
                    legendgroup=mitigation,
                    showlegend=p_i == 0,
                    marker_color=_COLOURS[m_i % len(_COLOURS)],
                    error_y={"type": "data", "symmetric": False, "array": hi, "arrayminus": lo},
                ),
                row=row,
                col=col,
            )


_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


def _figure(results, conditions, mitigations, title: str) -> go.Figure:
    fig = make_subplots(rows=2, cols=3, subplot_titles=[t for _, t in PANELS])
    _bars(fig, results, conditions, mitigations, "", lambda i: (i // 3 + 1, i % 3 + 1))
    fig.update_layout(title=title, barmode="group", height=650, legend_title="mitigation")
    return fig


def conditions_figure(
    results: dict, conditions: list[str], mitigations: list[str], model_name: str
) -> go.Figure:
    """results[(mitigation, condition)][metric] = (estimate, low, high)."""
    return _figure(
        results,
        conditions,
        mitigations,
        f"Safety by retrieval condition ({model_name}; 95% bootstrap CI)",
    )


def degradation_figure(
    deltas: dict, conditions: list[str], mitigations: list[str], model_name: str
) -> go.Figure:
    """deltas[(mitigation, condition)][metric] = (condition - none, low, high)."""
    fig = _figure(
        deltas,
        [c for c in conditions if c != "none"],
        mitigations,
        f"Change relative to no retrieval ({model_name}; paired bootstrap CI)",
    )
    fig.add_hline(y=0, line_dash="dot", line_color="grey")
    return fig


def _cell(metrics: dict, key: str) -> float | None:
    """A run summary value (float) or a leaderboard cell ({"mean": ...}); None when absent/NaN."""
    value = metrics.get(key)
    if isinstance(value, dict):
        value = value.get("mean")
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def models_figure(
    entries: dict[str, dict], conditions: list[str], mitigations: list[str]
) -> go.Figure:
    """Across models (or methods): one colour per entry, x = (mitigation, condition).

    entries: label -> run summary or leaderboard metrics with the benchmark's per-cell keys
    `<metric>__<mitigation>__<condition>` and their `__ci_low` / `__ci_high` bootstrap bounds
    (on a leaderboard: means over seeds). Cells an entry did not run are left out.
    """
    if not entries:
        raise ValueError("entries: nothing to compare (no runs)")
    fig = make_subplots(rows=2, cols=3, subplot_titles=[t for _, t in PANELS])
    for e_i, (label, metrics) in enumerate(entries.items()):
        for p_i, (metric, _) in enumerate(PANELS):
            level1, level2, ys, lo, hi = [], [], [], [], []
            for mitigation in mitigations:
                for cond in conditions:
                    key = f"{metric}__{mitigation}__{cond}"
                    est = _cell(metrics, key)
                    if est is None:
                        continue
                    low = _cell(metrics, f"{key}__ci_low")
                    high = _cell(metrics, f"{key}__ci_high")
                    level1.append(mitigation)
                    level2.append(cond)
                    ys.append(est)
                    lo.append(0.0 if low is None else est - low)
                    hi.append(0.0 if high is None else high - est)
            fig.add_trace(
                go.Bar(
                    x=[level1, level2],
                    y=ys,
                    name=label,
                    legendgroup=label,
                    showlegend=p_i == 0,
                    marker_color=_COLOURS[e_i % len(_COLOURS)],
                    error_y={"type": "data", "symmetric": False, "array": hi, "arrayminus": lo},
                ),
                row=p_i // 3 + 1,
                col=p_i % 3 + 1,
            )
    fig.update_layout(
        title="Safety by model, mitigation and retrieval condition (95% bootstrap CI)",
        barmode="group",
        height=700,
        legend_title="model / method",
    )
    return fig


def entries_from_leaderboard(board: dict) -> dict[str, dict]:
    """Leaderboard JSON (`/api/leaderboards/safety_retrieval/?columns=all`) -> label -> metrics."""
    out = {}
    for row in board.get("rows", []):
        label = f"{row.get('model') or '-'} · {row['method']}"
        if label in out:
            label = f"{label} ({str(row.get('config_hash', ''))[:6]})"
        out[label] = row.get("metrics", {})
    return out


def leaderboard_comparison(board: dict) -> go.Figure:
    """Models x mitigations x conditions from a leaderboard with every column; ValueError when
    its rows carry no per-cell columns."""
    from workers.benchmarks.safety_retrieval.conditions import BREADTH
    from workers.benchmarks.safety_retrieval.protocol import MITIGATIONS

    entries = entries_from_leaderboard(board)
    keys = {k for m in entries.values() for k in m if k.startswith("refusal_rate__")}
    cells = [k.split("__")[1:3] for k in keys if len(k.split("__")) == 3]
    if not cells:
        raise ValueError("board: no per-cell columns (export it with all columns)")
    mitigations = [m for m in MITIGATIONS if any(c[0] == m for c in cells)]
    conditions = sorted({c[1] for c in cells}, key=lambda c: BREADTH.get(c, 99))
    return models_figure(entries, conditions, mitigations)
