"""DP best-subset selection (Prastakos, Behdin & Mazumder): exponential mechanism, top-R and
mistakes samplers over an outer-approximation MIP (HiGHS), MCMC and DP-Lasso baselines.

Library use: `objective` (L(S), sensitivity, clipping), `mip.SupportMIP`, `samplers`.
"""

from workers.methods.dpbss import plugin  # noqa: F401  (registers the methods)
