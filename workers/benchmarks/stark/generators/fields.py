"""Seeded field-variable instances (imputation, forecasting) in the release's layout.

STARK's field tasks use real sensor records from Los Angeles (PM2.5, traffic speed, temperature),
which cannot be regenerated. These generators draw a synthetic PM2.5-like field instead: sensors
scattered over the same area, a smooth spatial mean plus a per-sensor AR(1) process in time,
and they write the prompt with the sentences of the release's PM2.5 prompts. The spatial task
keeps STARK's stated rule: the target is the inverse-distance-weighted mean (great-circle
distance, power 1) of the given stations.
"""

from __future__ import annotations

import csv
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from workers.methods.stark_classical.fields import haversine

INTRO = "\nHelp me answer a question involving {kind} of sensory data from a sensor network.  "
CONTEXT = (
    "Some more context: this sensory network is deployed at various locations in a city to measure PM2.5 air "
    "quality readings.  These readings have been sampled from January 7th 2025 to January 30th from various "
    "locations around Los Angeles.  During this time, there were a few significant wildfires occuring.  "
    "The readings are taken at a frequency of 1/hour.\n"
)
SINGLE = (
    "\nPlease respond with your output as a single predicted value in the following format: \n\n"
    " [RESULT_START] [prediction] [RESULT_END] \n\t Do not include any text or additional formatting between "
    "the [RESULTS_START] and [RESULTS_END]. \n Example: \n\t [RESULTS_START] [23.5] [RESULTS_END]\n"
)
MULTI = (
    "\nPlease respond with your output as a list of predicted values in the following format: \n\n"
    " [RESULT_START] [predictions] [RESULT_END] \n\t Do not include any text or additional formatting between "
    "the [RESULTS_START] and [RESULTS_END]. \n Example: \n\t [RESULTS_START] [23.5, 35.7, 45.3, 75.2, 24.2] "
    "[RESULTS_END]\n"
)
IDW_RULE = (
    "\nAt any location inside the region, the temperature T follows the rule of taking an inverse\u2011"
    "distance\u2013weighted mean of the temperatures recorded at the surrounding N reference station.  Each "
    "station k contributes proportionally to the reciprocal of the great\u2011circle distance.\n"
)


def _when(t: datetime) -> str:
    return t.strftime("%B %d, %Y at %I:%M:%S %p")


def _sensors(rng: np.random.Generator, n: int) -> np.ndarray:
    centre = np.array([34.05, -118.25]) + rng.normal(0, 0.1, 2)
    return centre + rng.normal(0, 0.05, size=(n, 2))


def _series(rng: np.random.Generator, n_steps: int, n_sensors: int) -> np.ndarray:
    base = rng.uniform(5, 40) + rng.normal(0, 3, n_sensors)
    x = np.zeros((n_steps, n_sensors))
    x[0] = base
    for t in range(1, n_steps):  # AR(1) around each sensor's level
        x[t] = base + 0.8 * (x[t - 1] - base) + rng.normal(0, 1.5, n_sensors)
    return np.round(np.clip(x, 0, None), 1)


def _save(
    folder: Path,
    index: int,
    query: str,
    answer: np.ndarray,
    observed: np.ndarray,
    coords: np.ndarray,
    line_mode: bool,
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    answer_text = "[" + ", ".join(repr(float(v)) for v in np.ravel(answer)) + "]"
    if line_mode:  # the release's spatio-temporal files: unquoted answer after the quoted query
        (folder / f"{index}.csv").write_text(
            'query,answer\n"' + query + '",' + answer_text + "\n", encoding="utf-8"
        )
    else:
        with open(folder / f"{index}.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["query", "answer"])
            writer.writerow([query, answer_text])
    np.save(folder / f"{index}.npy", observed)
    np.save(folder / f"{index}_coords.npy", coords)
    np.save(folder / f"{index}_gt.npy", np.asarray(answer, dtype=float))


def spatial_impute(rng: np.random.Generator) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    n = int(rng.integers(2, 6))
    coords = _sensors(rng, n + 1)
    values = rng.uniform(20, 35) + rng.normal(0, 0.5, n)
    d = haversine(coords[:n, 0], coords[:n, 1], coords[n, 0], coords[n, 1])
    target = float((values / d).sum() / (1 / d).sum())  # STARK's stated IDW rule
    lines = "".join(
        f"Sensor located at Lat: {la}, Long: {lo} has value: {v}\n"
        for (la, lo), v in zip(coords[:n], values, strict=True)
    )
    query = (
        INTRO.format(kind="imputation")
        + "You will be given a set of sensory readings at an instant in time from a "
        "group of nearby sensors.  Your objective is to predict the value of another sensor at that time belonging "
        "to the same group.\n"
        + CONTEXT
        + "\n"
        + lines
        + f"What is the value of a nearby sensor located at [{coords[n, 0]}, {coords[n, 1]}]\n"
        + IDW_RULE
        + SINGLE
    )
    return query, np.array([target]), np.r_[values, np.nan], coords


def _stamp_lines(series: np.ndarray, coords: np.ndarray, t0: datetime, offsets: list[int]) -> str:
    text = ""
    for row, k in zip(series, offsets, strict=True):
        text += f"\nSensor readings taken from time t{k:+d} (real world time is {_when(t0 + timedelta(hours=k))}):\n"
        text += "".join(
            f"Sensor located at Lat: {la}, Long: {lo} has value: {v}\n"
            for (la, lo), v in zip(coords, row, strict=True)
        )
    return text


def temporal_impute(rng: np.random.Generator, n_sensors: int = 1, before: int = 3, after: int = 3):
    coords = _sensors(rng, n_sensors)
    x = _series(rng, before + after + 1, n_sensors)
    t0 = datetime(2025, 1, 7) + timedelta(hours=int(rng.integers(0, 500)), seconds=2)
    observed = x.copy()
    observed[before] = np.nan
    if n_sensors == 1:

        def line(v, k):
            return (
                f"Sensor located at Lat: {coords[0, 0]}, Long: {coords[0, 1]} has value: {v} at time t{k:+d}.  "
                f"The real world time is {_when(t0 + timedelta(hours=k))}.\n"
            )

        prev = "".join(line(x[before + k, 0], k) for k in range(-before, 0))
        nxt = "".join(line(x[before + k, 0], k) for k in range(1, after + 1))
        query = (
            INTRO.format(kind="imputation")
            + "You will be given a sequence of sensor readings from a single sensor "
            "device, where each reading is taken at consecutive time steps.  Your objective is to predict the value "
            "of a reading taken in between the given readings.\n"
            + CONTEXT
            + "\nSensor values from previous time "
            "steps :\n"
            + prev
            + "\nSensor values from future time steps:\n"
            + nxt
            + "\nWhat is the value of the "
            f"sensor reading at time t? (real world time is {_when(t0)})\n" + SINGLE
        )
        return query, x[before], observed[:, 0], coords
    prev = _stamp_lines(x[:before], coords, t0, list(range(-before, 0)))
    nxt = _stamp_lines(x[before + 1 :], coords, t0, list(range(1, after + 1)))
    query = (
        INTRO.format(kind="imputation")
        + "You will be given a sequence of sensor readings from a group of sensor "
        "devices which are located in proximity to each other, and where each reading is taken at consecutive time "
        "steps.  Your objective is to predict the value of readings taken in between the given readings.\n"
        + CONTEXT
        + "Sensor values from previous time steps :\n\n"
        + prev
        + "\nSensor values from future time steps :\n"
        + nxt
        + f"What is the value of the group's sensor reading at time t (real world time is {_when(t0)})? Note "
        "that you will need to provide several values (for each sensor in the group)\n" + MULTI
    )
    return query, x[before], observed, coords


def forecast(rng: np.random.Generator, n_sensors: int = 3, history: int = 7):
    coords = _sensors(rng, n_sensors)
    x = _series(rng, history + 1, n_sensors)
    t0 = datetime(2025, 1, 7) + timedelta(hours=int(rng.integers(0, 500)), seconds=2)
    observed = x.copy()
    observed[history] = np.nan
    prev = _stamp_lines(x[:history], coords, t0, list(range(-history, 0)))
    query = (
        INTRO.format(kind="forecasting")
        + "You will be given a sequence of sensor readings from a group of sensor "
        "devices which are located in proximity to each other, and where each reading is taken at consecutive time "
        "steps.  Your objective is to predict the next value for all sensors at the next time step.\n"
        + CONTEXT
        + "Sensor values from previous time steps :\n"
        + prev
        + "What is the value of the group's sensor reading at "
        f"time t (real world time is {_when(t0)})? Note that you will need to provide several values (for each "
        "sensor in the group)\n" + MULTI
    )
    return query, x[history], observed, coords


def write_field_tasks(
    root: Path, tasks: list[str], per_task: int, rng: np.random.Generator
) -> None:
    for task in tasks:
        for index in range(per_task):
            if task == "spatial_impute":
                made, line_mode = spatial_impute(rng), False
            elif task == "temporal_impute":
                made, line_mode = (
                    temporal_impute(rng, 1, int(rng.integers(2, 5)), int(rng.integers(2, 5))),
                    False,
                )
            elif task == "spatiotemporal_impute":
                made, line_mode = (
                    temporal_impute(rng, int(rng.integers(3, 6)), 3, int(rng.integers(2, 5))),
                    True,
                )
            elif task == "spatiotemporal_forecast":
                made, line_mode = (
                    forecast(rng, int(rng.integers(3, 6)), int(rng.integers(4, 8))),
                    True,
                )
            else:
                continue
            query, answer, observed, coords = made
            _save(root / task, index, query, answer, observed, coords, line_mode)
