"""Counting linear regions of ReLU networks under the non-equivalent definitions catalogued by
Stargalla, Hertrich & Reichman: exact LP-based counters (HiGHS), a grid-sampling estimate and
hand-built networks on which the definitions disagree.

Library use: `network.ReLUNetwork`, `regions.count_linear_regions`, `examples.EXAMPLES`.
"""

from workers.methods.linregions import plugin  # noqa: F401  (registers the methods)
