"""Plotly figure of one run: accuracy per question family with 95% Wilson intervals, ID vs OOD."""

from __future__ import annotations

import plotly.graph_objects as go


def family_figure(rows: list[dict], chance: float, title: str) -> go.Figure:
    fig = go.Figure()
    by_split = [r for r in rows if r["group"] == "family_split"]
    for split, color in (("id", "#1f77b4"), ("ood", "#ff7f0e")):
        sel = [r for r in by_split if r["name"].endswith(f"/{split}")]
        if not sel:
            continue
        fig.add_trace(
            go.Bar(
                name="in-distribution" if split == "id" else "out-of-distribution",
                x=[r["name"].rsplit("/", 1)[0] for r in sel],
                y=[r["accuracy"] for r in sel],
                marker_color=color,
                error_y=dict(
                    type="data",
                    symmetric=False,
                    array=[r["ci_high"] - r["accuracy"] for r in sel],
                    arrayminus=[r["accuracy"] - r["ci_low"] for r in sel],
                ),
                hovertext=[f"n={r['n']}" for r in sel],
            )
        )
    fig.add_hline(y=chance, line_dash="dot", annotation_text="chance", line_color="gray")
    fig.update_layout(
        title=title,
        barmode="group",
        template="plotly_white",
        yaxis=dict(title="accuracy", range=[0, 1]),
        xaxis=dict(title="question family"),
    )
    return fig
