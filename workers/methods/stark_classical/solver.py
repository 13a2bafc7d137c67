"""Dispatch a STARK instance to the matching classical solver and format STARK's answer."""

from __future__ import annotations

import json

import numpy as np

from workers.benchmarks.stark.instance import Instance
from workers.methods.stark_classical import fields, localization, relations, tracking

LOC_SPEED = 5.0  # km/s, STARK's localization TOA prompts ("seismic wave speed (5km/s)")
TRACK_SPEED = 20.0  # km/min, STARK's tracking TOA prompts ("approximately 20 km/min")


def _fmt(values) -> str:
    return (
        "[RESULTS_START] ["
        + ", ".join(f"{float(v):.6f}" for v in np.ravel(values))
        + "] [RESULTS_END]"
    )


def _noise(data: dict) -> tuple[float, float]:
    """(range-or-only noise, bearing noise) from the release folder's noise field."""
    value = (
        json.loads(data["noise"]) if str(data["noise"]).startswith("[") else float(data["noise"])
    )
    return (float(value[0]), float(value[1])) if isinstance(value, list) else (value, value)


def solve_tier1(
    instance: Instance,
    tracking_q: float = 1.0,
    idw_power: float = 1.0,
    temporal_power: float = 2.0,
    ar_order: int = 2,
) -> str:
    task, data = instance.task, instance.data
    if instance.family == "field":
        obs, coords = data["observed"], data["coords"]
        if task == "spatial_impute":
            return _fmt(fields.impute_spatial(obs, coords, idw_power))
        if task == "spatiotemporal_forecast":
            return _fmt(fields.forecast(obs, ar_order))
        return _fmt(fields.impute_temporal(obs, temporal_power))
    s, z = data["sensor_locations"], data["readings"]
    modality = data["modality"]
    noise_r, noise_b = _noise(data)
    if instance.family == "localization":
        if modality == "range":
            return _fmt(localization.multilaterate(s, z))
        if modality == "bearing":
            return _fmt(localization.triangulate(s, z))
        if modality == "range_bearing":
            return _fmt(localization.range_bearing_fix(s, z, noise_r, 360.0 * noise_b))
        if modality == "region":
            return _fmt(localization.region_intersection(s, z, data["radius"]))
        pos, t0 = localization.toa_locate(s, z, LOC_SPEED)
        return _fmt(
            [t0]
            if modality == "event_temp"
            else (pos if modality == "event_spatio" else [*pos, t0])
        )
    # tracking: the event prompts give no clock, so those trackers count in steps
    n_steps = len(instance.steps)
    times = None if modality.startswith("event") else data["timestamps"]
    noise = data["radius"] if modality == "region" else noise_r
    est = tracking.track(
        modality, s, z, times, n_steps, noise=noise, speed=TRACK_SPEED, q=tracking_q
    )
    return "\n".join(_fmt(row) for row in est)


def solve_tier2(
    instance: Instance, tol: float = 2e-4, eps: float = 5e-5, multi_run: str = "any"
) -> str:
    if instance.family == "spatial":
        answer = relations.solve_spatial(instance.prompt, tol)
    elif instance.family == "temporal":
        answer = relations.solve_temporal(instance.prompt, eps)
    else:
        answer = relations.solve_spatiotemporal(instance.prompt, tol, eps, multi_run)[0]
    return f"[RESULTS_START] [{answer}] [RESULTS_END]"
