"""Seeded localization and tracking instances in the release's file layout.

Sensor models, as measured on the release (docs/stark.md): sensors and objects uniform in the
10 x 10 area; range d (1 + u), u ~ U(-sigma, sigma); bearing (angle + 360 u) mod 360 degrees;
proximity 1{d <= R} without noise; time of arrival t0 + d / v + U(-sigma, sigma) with v = 5
(localization, km/s) or 20 (tracking, km/min). Tracking: 50 steps over 10 s (20 for proximity,
40 over 20 s for the spatial TOA task); readings go missing at random (50 % for range and
bearing sensors, 12 % for TOA, none for proximity), as in the release.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from workers.benchmarks.stark.catalogue import MODALITIES, sensor_folder

MISSING = {
    "range": 0.5,
    "bearing": 0.5,
    "range_bearing": 0.5,
    "region": 0.0,
    "event_temp": 0.12,
    "event_spatio": 0.12,
    "event_spatio_temp": 0.12,
}


def _write(path: Path, header: list[str], rows: list[list]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def _cell(value) -> str:
    if isinstance(value, np.ndarray):
        return str(value)  # numpy's own printing, as the release stores range+bearing pairs
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    return repr(float(value)) if not isinstance(value, (int, np.integer)) else str(int(value))


def measure(
    modality: str,
    sensors: np.ndarray,
    pos: np.ndarray,
    t0: float,
    noise: float,
    radius: float,
    speed: float,
    rng: np.random.Generator,
) -> list[tuple]:
    """(noisy, noiseless) reading of every sensor for an object/event at `pos` (fired at t0)."""
    out = []
    for s in sensors:
        d = float(np.linalg.norm(pos - s))
        ang = float(np.degrees(np.arctan2(pos[1] - s[1], pos[0] - s[0])) % 360.0)
        if modality == "range":
            out.append((d * (1 + rng.uniform(-noise, noise)), d))
        elif modality == "bearing":
            out.append(((ang + 360.0 * rng.uniform(-noise, noise)) % 360.0, ang))
        elif modality == "range_bearing":
            noisy = np.array(
                [
                    d * (1 + rng.uniform(-noise, noise)),
                    (ang + 360.0 * rng.uniform(-noise, noise)) % 360.0,
                ]
            )
            out.append((noisy, np.array([d, ang])))
        elif modality == "region":
            flag = int(d <= radius)
            out.append((flag, flag))
        else:
            clean = t0 + d / speed
            out.append((clean + rng.uniform(-noise, noise), clean))
    return out


def trajectory(n: int, duration: float, rng: np.random.Generator) -> np.ndarray:
    """A smooth path in the area: random start, speed and slowly varying turn rate, clipped."""
    t = np.linspace(0, duration, n)
    dt = t[1] - t[0]
    pos = rng.uniform(1, 9, size=2)
    heading = rng.uniform(0, 2 * np.pi)
    speed = rng.uniform(0.5, 2.0)
    turn_amp, turn_freq = rng.uniform(0.1, 1.0), rng.uniform(0.1, 0.5)
    path = [pos.copy()]
    for k in range(1, n):
        heading += dt * turn_amp * np.sin(2 * np.pi * turn_freq * t[k])
        pos = np.clip(pos + dt * speed * np.array([np.cos(heading), np.sin(heading)]), 0, 10)
        path.append(pos.copy())
    return np.array(path)


def write_localization(
    folder: Path,
    index: int,
    modality: str,
    noise: float,
    radius: float,
    n_sensors: int,
    rng: np.random.Generator,
) -> None:
    sensors = rng.uniform(0, 10, size=(n_sensors, 2))
    pos = rng.uniform(0, 10, size=2)
    t0 = float(rng.uniform(0, 10))
    readings = measure(modality, sensors, pos, t0, noise, radius, 5.0, rng)
    _write(
        folder / f"{index}_sensor_location.csv",
        ["x", "y"],
        [[_cell(x), _cell(y)] for x, y in sensors],
    )
    for k, (noisy, clean) in enumerate(readings):
        _write(
            folder / f"{index}_sensor_{k}.csv", ["d", "d_noiseless"], [[_cell(noisy), _cell(clean)]]
        )
    if modality == "event_temp":  # the release stores the firing time in both columns
        truth = [["x", "y"], [_cell(t0), _cell(t0)]]
    elif modality == "event_spatio_temp":
        truth = [["x", "y", "t"], [_cell(pos[0]), _cell(pos[1]), _cell(t0)]]
    else:
        truth = [["x", "y"], [_cell(pos[0]), _cell(pos[1])]]
    _write(folder / f"{index}_object_location.csv", truth[0], truth[1:])


def write_tracking(
    folder: Path,
    index: int,
    modality: str,
    noise: float,
    radius: float,
    n_sensors: int,
    rng: np.random.Generator,
) -> None:
    sensors = rng.uniform(0, 10, size=(n_sensors, 2))
    n, duration, start = 50, 10.0, 0.0
    if modality == "region":
        n = 20
    elif modality == "event_spatio":
        n, duration = 40, 20.0
    elif modality in ("event_temp", "event_spatio_temp"):
        start = float(rng.uniform(0, 10))  # the release's shot clocks do not start at 0
    times = start + np.linspace(0, duration, n)
    path = trajectory(n, duration, rng)
    rows: list[list[list[str]]] = [[] for _ in sensors]
    for t, pos in zip(times, path, strict=True):
        for k, (noisy, clean) in enumerate(
            measure(modality, sensors, pos, t, noise, radius, 20.0, rng)
        ):
            shown = None if rng.random() < MISSING[modality] else noisy
            rows[k].append([_cell(t), "" if shown is None else _cell(shown), _cell(clean)])
    _write(
        folder / f"{index}_sensor_location.csv",
        ["x", "y"],
        [[_cell(x), _cell(y)] for x, y in sensors],
    )
    for k in range(len(sensors)):
        _write(folder / f"{index}_sensor_{k}.csv", ["time", "d", "d_noiseless"], rows[k])
    if modality == "event_temp":
        truth = (["t", "x", "y"], [[_cell(t), _cell(t), _cell(t)] for t in times])
    elif modality == "event_spatio_temp":
        truth = (
            ["t", "x", "y", "event_t"],
            [
                [_cell(t), _cell(p[0]), _cell(p[1]), _cell(t)]
                for t, p in zip(times, path, strict=True)
            ],
        )
    else:
        truth = (
            ["t", "x", "y"],
            [[_cell(t), _cell(p[0]), _cell(p[1])] for t, p in zip(times, path, strict=True)],
        )
    _write(folder / f"{index}_object_location.csv", *truth)


def write_sensor_tasks(
    root: Path,
    tasks: list[str],
    per_task: int,
    noise: float,
    radius: float,
    n_sensors: int,
    rng: np.random.Generator,
) -> None:
    for modality, (loc, track) in MODALITIES.items():
        for task, writer in ((loc, write_localization), (track, write_tracking)):
            if task not in tasks:
                continue
            level = (
                f"{radius}"
                if modality == "region"
                else (f"[{noise}, {noise}]" if modality == "range_bearing" else f"{noise}")
            )
            folder = root / sensor_folder(task, level)
            folder.mkdir(parents=True, exist_ok=True)
            for index in range(per_task):
                writer(folder, index, modality, noise, radius, n_sensors, rng)
