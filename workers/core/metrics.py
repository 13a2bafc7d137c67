"""Metric declarations: name, direction, unit, and which one ranks the leaderboard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Goal = Literal["max", "min"]


@dataclass(frozen=True)
class MetricSpec:
    name: str
    goal: Goal = "max"
    unit: str = ""
    primary: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        if self.goal not in ("max", "min"):
            raise ValueError(
                f"metric {self.name!r}: goal must be 'max' or 'min', not {self.goal!r}"
            )

    def better(self, a: float, b: float) -> bool:
        """True when value `a` is strictly better than `b` in this metric's direction."""
        return a > b if self.goal == "max" else a < b

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "goal": self.goal,
            "unit": self.unit,
            "primary": self.primary,
            "description": self.description,
        }
