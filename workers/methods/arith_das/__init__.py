"""Arith-DAS: differentiable compressor-tree interconnect search (library in `das.py`)."""

from workers.methods.arith_das import plugin  # noqa: F401  (registers the method)
