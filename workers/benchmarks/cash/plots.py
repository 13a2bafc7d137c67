"""Plotly figure of one run: the regret curve and how often each arm was pulled."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def run_figure(
    regret: np.ndarray,
    counts: np.ndarray,
    names: tuple[str, ...],
    best_arms: np.ndarray,
    title: str,
) -> go.Figure:
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.6, 0.4],
        subplot_titles=("Normalised regret of the best score found", "Pulls per arm"),
    )
    steps = np.arange(1, len(regret) + 1)
    fig.add_trace(go.Scatter(x=steps, y=regret, mode="lines", name="regret"), row=1, col=1)
    colors = ["#d62728" if i in set(best_arms.tolist()) else "#1f77b4" for i in range(len(names))]
    fig.add_trace(
        go.Bar(
            x=list(names),
            y=counts.tolist(),
            marker_color=colors,
            name="pulls",
            hovertext=["holds y*" if c == "#d62728" else "" for c in colors],
        ),
        row=1,
        col=2,
    )
    fig.update_xaxes(title_text="iteration t", row=1, col=1)
    fig.update_yaxes(title_text="regret", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="pulls", row=1, col=2)
    fig.update_layout(title=title, showlegend=False, template="plotly_white")
    return fig
