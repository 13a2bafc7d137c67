"""ZEN: zero-parameter hypergraph neural network. Library: workers.methods.zen.zen.ZEN."""

from workers.methods.zen import plugin  # noqa: F401  (registers the methods)
from workers.methods.zen.zen import ZEN, simplex_grid, zen_logits, zen_propagate

__all__ = ["ZEN", "simplex_grid", "zen_logits", "zen_propagate"]
