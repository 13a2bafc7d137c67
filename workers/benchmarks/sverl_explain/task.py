"""What an explanation method receives: states, the explained quantity, experience, and hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from workers.benchmarks.sverl_explain.exact import mask_index

Explainer = Callable[[torch.Tensor], torch.Tensor]  # states (N, d) -> Shapley values (N, d, out)


@dataclass
class ExplanationTask:
    """One FastSVERL problem.

    states: the unique states the agent visits (U, d); buffer_idx: on-policy experience as
    indices into `states` (repeats follow the steady-state distribution); f: the explained
    quantity at each unique state (U, out), i.e. pi(.|s), V(s) or, for outcome, v(F)(s).
    Off-policy experience: off_idx / off_actions / off_logp from a behaviour policy mu, and
    target_logp (U, A) = log pi(a|s) of the explained policy. For outcome explanations the task
    also carries the exact characteristic (`exact_table`, the ground truth; methods may use it
    for the paper's "exact outcome" setting or learn their own from `transitions` + `policy`).
    """

    d: int
    out_dim: int
    explanation: str
    states: np.ndarray
    buffer_idx: np.ndarray
    f: np.ndarray
    off_idx: np.ndarray
    off_actions: np.ndarray
    off_logp: np.ndarray
    target_logp: np.ndarray
    exact_table: np.ndarray | None = None
    # outcome explanations: the agent's policy pi(.|s) and experience transitions
    # (obs, actions, rewards, next_obs, terminated) on- and off-policy, and the discount
    policy: Callable[[torch.Tensor], torch.Tensor] | None = None
    transitions: tuple | None = None
    off_transitions: tuple | None = None
    gamma: float = 0.99
    report: Callable[[int, Explainer, str], None] = lambda step, fn, phase: None
    check_cancelled: Callable[[], None] = lambda: None
    _index: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {
            s.tobytes(): i
            for i, s in enumerate(np.ascontiguousarray(self.states, dtype=np.float32))
        }

    def states_tensor(self, idx: np.ndarray | None = None) -> torch.Tensor:
        s = self.states if idx is None else self.states[idx]
        return torch.as_tensor(s, dtype=torch.float32)

    @property
    def has_exact_characteristic(self) -> bool:
        return self.exact_table is not None

    def characteristic(self, states: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """Exact v(C)(s) for states in `states` (only for outcome explanations)."""
        if self.exact_table is None:
            raise RuntimeError("this task does not expose the exact characteristic; learn one")
        rows = np.ascontiguousarray(states.numpy(), dtype=np.float32)
        idx = np.array([self._index[r.tobytes()] for r in rows])
        return torch.as_tensor(
            self.exact_table[mask_index(masks.numpy()), idx], dtype=torch.float32
        )
