"""Neural Block Linearization: library (linear_fit, modules, calibrate) and platform methods."""

from workers.methods.nbl import plugin  # noqa: F401  (registers the methods)
