"""Plotly figures for a STARK run."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from workers.benchmarks.stark.catalogue import FAMILIES
from workers.benchmarks.stark.scoring import InstanceScore


def error_by_family(scores: Sequence[InstanceScore]) -> go.Figure:
    """Left: failure rate (1 - success) per task family. Right: tier-1 normalised error per task."""
    fam: dict[str, list[float]] = defaultdict(list)
    nerr: dict[str, list[float]] = defaultdict(list)
    for s in scores:
        if not s.applicable:
            continue
        fam[s.family].append(0.0 if s.success else 1.0)
        if s.tier == 1 and s.normalised_error is not None:
            nerr[s.task].append(s.normalised_error)
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=("Failure rate per family", "Tier-1 normalised error")
    )
    names = [f for f in FAMILIES if f in fam]
    fig.add_trace(
        go.Bar(
            x=names,
            y=[float(np.mean(fam[f])) for f in names],
            name="failure rate",
            text=[f"n={len(fam[f])}" for f in names],
        ),
        row=1,
        col=1,
    )
    tasks = sorted(nerr)
    fig.add_trace(
        go.Box(
            x=[t for t in tasks for _ in nerr[t]],
            y=[v for t in tasks for v in nerr[t]],
            name="normalised error",
            boxpoints="all",
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_layout(showlegend=False, height=450)
    return fig


def _mean_ci(value) -> tuple[float | None, float]:
    """A summary value (float) or a leaderboard cell ({"mean", "ci95"}) as (mean, CI half-width)."""
    if isinstance(value, dict):
        mean, ci = value.get("mean"), value.get("ci95")
        return (None if mean is None else float(mean)), float(ci or 0.0)
    return (None if value is None else float(value)), 0.0


def entries_from_leaderboard(board: dict) -> dict[str, dict]:
    """Leaderboard JSON (`/api/leaderboards/stark/?columns=all`, or the page's JSON export) ->
    {"method / model": metrics}; rows of the same method and model under different configs get
    their config hash appended so that no row hides another."""
    rows = board.get("rows", [])
    labels = [f"{r['method']} / {r.get('model') or '-'}" for r in rows]
    out = {}
    for label, row in zip(labels, rows, strict=True):
        if labels.count(label) > 1:
            label = f"{label} ({str(row.get('config_hash', ''))[:6]})"
        out[label] = row.get("metrics", {})
    return out


def compare_by_family(entries: dict[str, dict]) -> go.Figure:
    """Error per task family for each method/model, side by side.

    entries: label -> summary (key -> float, as a run logs it) or leaderboard metrics
    (key -> {"mean", "ci95"}). Left: failure rate 1 - success__<family> per family (with the
    leaderboard's 95% CI over seeds as error bars). Right: mean normalised error nerr__<task>
    per tier-1 task (1 = STARK's centre guess), log scale.
    """
    if not entries:
        raise ValueError("entries: nothing to compare (no runs)")
    families = [f for f in FAMILIES if any(f"success__{f}" in m for m in entries.values())]
    tasks = sorted(
        {k[len("nerr__") :] for m in entries.values() for k in m if k.startswith("nerr__")}
    )
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("Failure rate per family", "Tier-1 normalised error per task"),
        column_widths=[0.4, 0.6],
    )
    for k, (label, metrics) in enumerate(entries.items()):
        fail, fail_ci = [], []
        for f in families:
            mean, ci = _mean_ci(metrics.get(f"success__{f}"))
            fail.append(None if mean is None else 1.0 - mean)
            fail_ci.append(ci)
        nerr = [_mean_ci(metrics.get(f"nerr__{t}")) for t in tasks]
        color = _PALETTE[k % len(_PALETTE)]
        fig.add_trace(
            go.Bar(
                x=families,
                y=fail,
                error_y={"type": "data", "array": fail_ci, "visible": any(fail_ci)},
                name=label,
                legendgroup=label,
                marker_color=color,
            ),
            row=1,
            col=1,
        )
        if tasks:
            fig.add_trace(
                go.Bar(
                    x=tasks,
                    y=[m for m, _ in nerr],
                    error_y={
                        "type": "data",
                        "array": [c for _, c in nerr],
                        "visible": any(c for _, c in nerr),
                    },
                    name=label,
                    legendgroup=label,
                    showlegend=False,
                    marker_color=color,
                ),
                row=1,
                col=2,
            )
    fig.update_yaxes(range=[0, 1], title_text="1 - success", row=1, col=1)
    fig.update_yaxes(type="log", title_text="normalised error", row=1, col=2)
    fig.update_layout(barmode="group", height=480, legend={"orientation": "h", "y": -0.35})
    return fig


_PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d")
