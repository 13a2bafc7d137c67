"""Gymnasium environments for the FastSVERL benchmark: an n^d gridworld and Mastermind.

Both follow the FastSVERL paper's domains (Beechey & Simsek, NeurIPS 2025): the gridworld is
the "hypercube" n^d grid whose state dimension d is the number of features to explain (so it
also drives the scaling experiment); Mastermind observes a board of guesses and clues.
"""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class GridWorld(gym.Env):
    """n^d grid: start anywhere except the goal (n-1, ..., n-1); actions +-1 along one axis.

    Reward -1 per step and n*d on reaching the goal; moves off the grid stay put. Observations
    are the integer coordinates (d features). `transitions()` enumerates the MDP exactly.
    """

    metadata = {"render_modes": []}

    def __init__(self, n: int = 4, d: int = 2, max_steps: int = 50) -> None:
        if n < 2 or d < 1:
            raise ValueError(f"GridWorld needs n >= 2 and d >= 1, got n={n}, d={d}")
        self.n, self.d, self.max_steps = n, d, max_steps
        self.observation_space = spaces.MultiDiscrete([n] * d)
        self.action_space = spaces.Discrete(2 * d)
        self.goal = np.full(d, n - 1)
        self.states = np.array(
            [s for s in itertools.product(range(n), repeat=d) if s != tuple(self.goal)]
        )

    def _move(self, pos: np.ndarray, action: int) -> tuple[np.ndarray, float, bool]:
        nxt = pos.copy()
        axis, sign = divmod(int(action), 2)
        nxt[axis] = np.clip(nxt[axis] + (1 if sign == 0 else -1), 0, self.n - 1)
        if np.array_equal(nxt, self.goal):
            return nxt, float(self.n * self.d), True
        return nxt, -1.0, False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.pos = self.states[self.np_random.integers(len(self.states))].copy()
        self.t = 0
        return self.pos.copy(), {}

    def step(self, action: int):
        self.pos, reward, terminated = self._move(self.pos, action)
        self.t += 1
        return self.pos.copy(), reward, terminated, self.t >= self.max_steps, {}

    def transitions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(states S x d, next index S x A (-1 = terminal), reward S x A, start distribution S)."""
        index = {tuple(s): i for i, s in enumerate(self.states)}
        A = self.action_space.n
        nxt = np.full((len(self.states), A), -1)
        rew = np.zeros((len(self.states), A))
        for i, s in enumerate(self.states):
            for a in range(A):
                ns, r, term = self._move(s, a)
                rew[i, a] = r
                nxt[i, a] = -1 if term else index[tuple(ns)]
        return self.states, nxt, rew, np.full(len(self.states), 1.0 / len(self.states))


class Mastermind(gym.Env):
    """Mastermind with `code_size` pegs of `num_pegs` colours and `num_guesses` guesses.

    The board has one row per guess: [close, peg_1..peg_code_size, exact], -1 while unfilled,
    so d = num_guesses * (code_size + 2) features. Reward -1 per guess, +num_guesses for a win.
    """

    metadata = {"render_modes": []}

    def __init__(self, code_size: int = 2, num_guesses: int = 2, num_pegs: int = 2) -> None:
        if code_size < 1 or num_guesses < 1 or num_pegs < 2:
            raise ValueError("Mastermind needs code_size >= 1, num_guesses >= 1, num_pegs >= 2")
        self.code_size, self.num_guesses, self.num_pegs = code_size, num_guesses, num_pegs
        self.codes = np.array(list(itertools.product(range(1, num_pegs + 1), repeat=code_size)))
        self.action_space = spaces.Discrete(len(self.codes))
        self.observation_space = spaces.Box(
            -1, max(num_pegs, code_size), (num_guesses * (code_size + 2),), np.int64
        )

    @staticmethod
    def clues(guess: np.ndarray, goal: np.ndarray) -> tuple[int, int]:
        exact = int((guess == goal).sum())
        common = sum(
            min(int((guess == c).sum()), int((goal == c).sum())) for c in set(goal.tolist())
        )
        return exact, common - exact

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.board = np.full((self.num_guesses, self.code_size + 2), -1, dtype=np.int64)
        self.goal = self.codes[self.np_random.integers(len(self.codes))]
        self.count = 0
        return self.board.flatten(), {}

    def step(self, action: int):
        guess = self.codes[int(action)]
        exact, close = self.clues(guess, self.goal)
        self.board[self.count] = [close, *guess, exact]
        self.count += 1
        won = exact == self.code_size
        reward = -1.0 + (self.num_guesses if won else 0.0)
        return self.board.flatten(), reward, bool(won or self.count == self.num_guesses), False, {}


def make_env(name: str, **kwargs) -> gym.Env:
    if name == "gridworld":
        return GridWorld(**kwargs)
    if name == "mastermind":
        return Mastermind(**kwargs)
    raise ValueError(f"env must be 'gridworld' or 'mastermind', not {name!r}")
