"""Plotly figures of the watermark benchmark (trade-off curves and robustness)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go


def tradeoff_figures(
    name: str, knob: str, curve: list[tuple[float, dict[str, Any]]], fpr_level: float, alpha: float
) -> tuple[go.Figure, go.Figure]:
    """TPR vs KL distortion, and tokens-to-detection vs perplexity, one point per knob value."""
    labels = [f"{knob}={s}" for s, _ in curve]
    tpr_kl = go.Figure(
        go.Scatter(
            x=[r["kl"] for _, r in curve],
            y=[r["tpr"] for _, r in curve],
            mode="lines+markers+text",
            text=labels,
            textposition="top center",
        )
    )
    tpr_kl.update_layout(
        title=f"{name}: detection vs distortion (sweep of {knob})",
        xaxis_title="KL(E_key Q || P) per token (nats)",
        yaxis_title=f"TPR at FPR {fpr_level}",
    )
    tok_ppl = go.Figure(
        go.Scatter(
            x=[r["ppl"] for _, r in curve],
            y=[r["tokens"] for _, r in curve],
            mode="lines+markers+text",
            text=labels,
            textposition="top center",
        )
    )
    tok_ppl.update_layout(
        title=f"{name}: tokens to p <= {alpha} vs perplexity",
        xaxis_title="perplexity under the original model",
        yaxis_title="tokens needed",
    )
    return tpr_kl, tok_ppl


def robustness_figure(
    name: str, rates: tuple[float, ...], tpr_clean: float, robust: dict[str, float]
) -> go.Figure:
    fig = go.Figure()
    for kind, label in (("sub", "substitution"), ("del", "deletion")):
        y = [tpr_clean] + [robust[f"tpr_{kind}_{r:g}"] for r in rates]
        fig.add_trace(go.Scatter(x=[0.0, *rates], y=y, mode="lines+markers", name=label))
    fig.update_layout(title=f"{name}: robustness", xaxis_title="attack rate", yaxis_title="TPR")
    return fig
