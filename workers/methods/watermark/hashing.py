"""Side information from the context: hash the previous token(s) with a secret key.

All watermarks here share this seeding scheme (the HeavyWater/SimplexWater repository's
"markov_1" scheme generalised to a window of `context_width` tokens): the seed of the RNG that
produces the side information s at position t is a keyed hash of tokens t-h..t-1. The detector
recomputes the same seeds from the text alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_MASK = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    # SplitMix64 finaliser: a fast, well-mixed 64-bit integer hash (Steele et al. 2014).
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def context_seed(key: int, context: Sequence[int], context_width: int = 1) -> int:
    """Keyed 64-bit hash of the last `context_width` tokens of `context`.

    With an empty context (generation from nothing) only the key is hashed.
    """
    if context_width < 1:
        raise ValueError(f"context_width must be >= 1, got {context_width}")
    h = _splitmix64(int(key) & _MASK)
    for token in list(context)[-context_width:]:
        h = _splitmix64(h ^ (int(token) & _MASK))
    return h


def context_rng(key: int, context: Sequence[int], context_width: int = 1) -> np.random.Generator:
    """A NumPy generator seeded by the keyed context hash (the "seeded RNG" of the papers)."""
    return np.random.Generator(np.random.PCG64(context_seed(key, context, context_width)))


def check_vocab(vocab_size: int) -> int:
    if not isinstance(vocab_size, (int, np.integer)) or vocab_size < 2:
        raise ValueError(f"vocab_size must be an integer >= 2, got {vocab_size!r}")
    return int(vocab_size)
