"""FastSVERL: amortised Shapley explanations for RL (library in `fastsverl.py`)."""

from workers.methods.sverl_fastsverl import plugin  # noqa: F401  (registers the methods)
