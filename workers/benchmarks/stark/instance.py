"""One STARK challenge, and the text formatting STARK uses to turn sensor data into prompts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workers.benchmarks.stark import prompts_tier1 as P
from workers.benchmarks.stark.catalogue import TaskInfo, task_info


@dataclass
class Instance:
    """A challenge: what a method sees (prompt, steps, data) and the hidden ground truth.

    id:      the release path without extension, e.g. "localization_range_0.01/3" or
             "tier2_v2_temporal/meets/0"; stable across the importer and the generators.
    prompt:  STARK's user prompt. For online tracking it is the first message; `steps` holds the
             per-step messages STARK sends afterwards (main.execute_llm_solver_online).
    data:    numeric inputs for the classical solvers (never the ground truth).
    code_inputs: arrays a code-mode program may read (STARK passes `readings`, `coordinate` and
             `timestamp` to tracking solvers); nothing here reveals the answer.
    answer:  ground truth as a float array (None for a hidden split); never log it.
    """

    id: str
    task: str
    prompt: str
    answer: np.ndarray | None = None
    steps: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    code_inputs: dict[str, np.ndarray] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def info(self) -> TaskInfo:
        return task_info(self.task)

    @property
    def tier(self) -> int:
        return self.info.tier

    @property
    def family(self) -> str:
        return self.info.family

    def without_answer(self) -> Instance:
        """A copy safe to hand to a method: ground truth and answer-bearing metadata removed."""
        meta = {k: v for k, v in self.meta.items() if k not in ("i1",)}
        return Instance(
            self.id,
            self.task,
            self.prompt,
            None,
            list(self.steps),
            dict(self.data),
            dict(self.code_inputs),
            meta,
        )


# ---- STARK's text formatting (get_data.py) ------------------------------------------------------

_WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def sensor_locations_text(locations: np.ndarray) -> str:
    """get_data.read_sensor_location (2 decimals); generated instances may have 3-8 sensors."""
    locations = np.asarray(locations, dtype=float)
    if locations.ndim != 2 or locations.shape[1] != 2 or not 3 <= len(locations) <= 8:
        raise ValueError(
            f"sensor_locations: expected 3-8 sensors x 2 coordinates, got {locations.shape}"
        )
    if len(locations) == 4:
        return P.SENSOR_LOCATIONS.format(*locations.ravel().tolist())
    lines = [f"\n        - Sensor A: [{locations[0, 0]:.2f}, {locations[0, 1]:.2f}]"]
    lines += [
        f"\t    - Sensor {chr(65 + k)}: [{x:.2f}, {y:.2f}]"
        for k, (x, y) in enumerate(locations[1:], 1)
    ]
    return "\n".join(lines) + "\n    "


def _for_count(template: str, n: int) -> str:
    """STARK's templates say "four sensors"; say the real count for generated instances."""
    if n == 4:
        return template
    return template.replace("four sensors", f"{_WORDS[n]} sensors").replace(
        "up to four", f"up to {_WORDS[n]}"
    )


def readings_text(readings: list[Any]) -> str:
    """get_data.list2array: 4 decimals, or numpy's own str() when a reading is an array."""
    if any(isinstance(r, np.ndarray) for r in readings):
        return ", ".join(f"{r}" for r in readings)
    return ", ".join(f"{float(r):.4f}" for r in readings)


def localization_prompt(
    task: str, locations: np.ndarray, readings: np.ndarray, radius: float | None = None
) -> str:
    """The prompt of a localization task, as get_data.load_st_dataset builds it."""
    loc_str = sensor_locations_text(locations)
    readings = np.asarray(readings, dtype=float)
    if task == "loc_range_bearing":
        x_str = ", ".join(f"[{readings_text(list(row))}]" for row in readings)
    else:  # region flags too: STARK formats the stored 0/1 with "{:.4f}" like any reading
        x_str = readings_text(list(readings))
    template = _for_count(P.LOCALIZATION[task], len(locations))
    if task == "loc_region":
        return template.format(X_str=x_str, radius=f"{radius}", sensor_loc_str=loc_str)
    return template.format(X_str=x_str, sensor_loc_str=loc_str)


def tracking_prompt(task: str, locations: np.ndarray, radius: float | None = None) -> str:
    loc_str = sensor_locations_text(locations)
    template = _for_count(P.TRACKING[task], len(locations))
    if task == "track_region_online":
        return template.format(sensor_loc_str=loc_str, radius=radius)
    return template.format(sensor_loc_str=loc_str)


def tracking_steps(
    task: str, timestamps: np.ndarray, readings: np.ndarray, n_steps: int
) -> list[str]:
    """Per-step user messages of main.execute_llm_solver_online (event tasks omit the time)."""
    messages = []
    for t in range(min(n_steps, len(timestamps))):
        row = readings[t]
        if task == "track_range_bearing_online":
            items: list[Any] = [
                np.nan if np.isnan(r).any() else np.asarray(r, dtype=float) for r in row
            ]
        else:
            items = [float(r) for r in row]
        text = readings_text(items)
        if task in (
            "track_event_spatio_online",
            "track_event_temp_online",
            "track_event_spatiotemp_online",
        ):
            messages.append(
                f"Step {t} | The corresponding sensor readings are {text}. "
                "Return your estimation only for the current step."
            )
        else:
            messages.append(
                f"Step {t} | At time {timestamps[t]:.4f}, the sensor readings are {text}. "
                "Return your estimation only for the current step."
            )
    return messages
