"""Small hand-built networks on which the definitions of a linear region disagree.

Counts on the box [-3, 3]^2 (derivations in docs/theory.md); each entry names the pair of
definitions it separates.
"""

from __future__ import annotations

import numpy as np

from workers.methods.linregions.network import ReLUNetwork


def opposite_hyperplanes() -> ReLUNetwork:
    """f = relu(x1) + relu(-x1) = |x1|: on the line x1 = 0 both neurons are off, a third,
    lower-dimensional activation region. nonempty 3 vs full-dimensional 2."""
    return ReLUNetwork(
        [np.array([[1.0, 0.0], [-1.0, 0.0]])], [np.zeros(2)], np.array([[1.0, 1.0]]), np.zeros(1)
    )


def cancelling_neurons() -> ReLUNetwork:
    """f = relu(x1) - relu(x1) = 0: two activation regions, one affine function on all of R^2.
    full-dimensional 2 vs connected 1."""
    return ReLUNetwork(
        [np.array([[1.0, 0.0], [1.0, 0.0]])], [np.zeros(2)], np.array([[1.0, -1.0]]), np.zeros(1)
    )


def relu_of_min() -> ReLUNetwork:
    """f = relu(min(x1, x2)) = relu(x1 - relu(x1 - x2)) with x1 = relu(x1) - relu(-x1).
    f = 0 on the non-convex set {min(x1, x2) < 0}: one connected piece, two maximal convex ones.
    full-dimensional 5, convex 4 vs connected 3, distinct 3."""
    W1 = np.array([[1.0, -1.0], [1.0, 0.0], [-1.0, 0.0]])  # relu(x1-x2), relu(x1), relu(-x1)
    W2 = np.array([[-1.0, 1.0, -1.0]])  # relu(x1 - relu(x1 - x2))
    return ReLUNetwork([W1, W2], [np.zeros(3), np.zeros(1)], np.array([[1.0]]), np.zeros(1))


def hat_function() -> ReLUNetwork:
    """f = relu(x1) - 2 relu(x1 - 1) + relu(x1 - 2): zero for x1 < 0 and x1 > 2, two separate
    pieces with the same affine function. connected 4 vs distinct 3."""
    W = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    return ReLUNetwork(
        [W], [np.array([0.0, -1.0, -2.0])], np.array([[1.0, -2.0, 1.0]]), np.zeros(1)
    )


EXAMPLES = {
    "opposite_hyperplanes": opposite_hyperplanes,
    "cancelling_neurons": cancelling_neurons,
    "relu_of_min": relu_of_min,
    "hat_function": hat_function,
}

# expected counts on [-3, 3]^2: (nonempty, full_dim, convex_maximal, convex_min_cover, connected, distinct_affine)
EXPECTED = {
    "opposite_hyperplanes": (3, 2, 2, 2, 2, 2),
    "cancelling_neurons": (2, 2, 1, 1, 1, 1),
    "relu_of_min": (None, 5, 4, 4, 3, 3),
    "hat_function": (4, 4, 4, 4, 4, 3),
}
