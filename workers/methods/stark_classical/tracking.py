"""Online tracking with an (iterated) extended Kalman filter, one measurement model per modality.

State: position and velocity [x, y, vx, vy] under a constant-velocity model (white-noise
acceleration, spectral density `q`); event (time-of-arrival) tasks add the firing time T0 and
its rate [T0, dT0]. Missing readings (NaN) are skipped, so a step with one sensor still updates
the filter along that sensor's direction. Proximity (region) readings are binary, so for them
the measurement is the centroid of the feasible region, intersected with a gate around the
prediction. Event tasks give no clock in the prompt, so their time unit is one step.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2
from shapely.geometry import Point

from workers.methods.stark_classical.localization import (
    multilaterate,
    range_bearing_fix,
    region_intersection,
    toa_locate,
    triangulate,
    wrap_deg,
)

MODALITIES = (
    "range",
    "bearing",
    "range_bearing",
    "region",
    "event_spatio",
    "event_temp",
    "event_spatio_temp",
)
# Modalities whose snapshot fix is unique once enough sensors report (>= 3 ranges, >= 2
# bearings), so a filter that fails the innovation gate can restart from it (track
# re-initialisation). TOA fixes stay ambiguous with few sensors; range+bearing never diverged.
REINIT_NEED = {"range": 3, "bearing": 2}


class ExtendedKalmanTracker:
    """Track one object from per-step sensor readings; call `step(dt, readings)` once per step.

    modality:  one of MODALITIES. sensors: (n, 2) positions. noise: STARK's noise parameter
    (relative range noise, bearing noise as a fraction of 360 degrees, TOA noise in time units;
    the region radius for "region"). speed: wave speed for event tasks. q: acceleration noise.
    """

    def __init__(
        self,
        modality: str,
        sensors: np.ndarray,
        noise: float = 0.01,
        speed: float = 20.0,
        q: float = 1.0,
        iterations: int = 5,
        x0: np.ndarray | None = None,
        gate: float | None = 1 - 1e-6,
    ) -> None:
        if modality not in MODALITIES:
            raise ValueError(f"modality: expected one of {MODALITIES}, got {modality!r}")
        self.modality = modality
        self.sensors = np.asarray(sensors, dtype=float)
        self.noise = float(noise)
        self.speed = float(speed)
        self.q = float(q)
        self.iterations = iterations
        self.event = modality.startswith("event")
        self.x0 = None if x0 is None else np.asarray(x0, dtype=float)
        self.gate = gate  # chi-square level of the innovation gate; None = never re-initialise
        self.reinits = 0
        self.x: np.ndarray | None = None
        self.P: np.ndarray | None = None
        self.cost = 0.0  # accumulated negative log-likelihood of the innovations

    # -- models ------------------------------------------------------------------------------
    def _F_Q(self, dt: float) -> tuple[np.ndarray, np.ndarray]:
        n = 6 if self.event else 4
        F = np.eye(n)
        F[0, 2] = F[1, 3] = dt
        # constant-velocity process noise for each axis (Bar-Shalom, eq. 6.2.2-12)
        block = self.q * np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
        Q = np.zeros((n, n))
        for i, j in ((0, 2), (1, 3)):
            Q[np.ix_([i, j], [i, j])] = block
        if self.event:
            F[4, 5] = dt
            Q[np.ix_([4, 5], [4, 5])] = 1e-4 * np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
        return F, Q

    def _measure(self, x: np.ndarray, readings: np.ndarray):
        """(innovation z - h(x), Jacobian H, noise covariance R) for the available readings."""
        p = x[:2]
        rows, res, var = [], [], []
        n = len(x)
        for k, s in enumerate(self.sensors):
            value = readings[k]
            if np.isnan(value).any():
                continue
            diff = p - s
            d = max(np.linalg.norm(diff), 1e-6)
            if self.modality in ("range", "range_bearing"):
                r = value[0] if self.modality == "range_bearing" else float(value)
                H = np.zeros(n)
                H[:2] = diff / d
                rows.append(H)
                res.append(r - d)
                var.append((self.noise * max(r, 1e-3)) ** 2 / 3 + 1e-8)  # U(-s, s) relative
            if self.modality in ("bearing", "range_bearing"):
                b = value[1] if self.modality == "range_bearing" else float(value)
                H = np.zeros(n)
                H[:2] = np.degrees(np.array([-diff[1], diff[0]]) / d**2)
                rows.append(H)
                res.append(float(wrap_deg(b - np.degrees(np.arctan2(diff[1], diff[0])))))
                var.append((360.0 * self.noise) ** 2 / 3)  # U(-360 s, 360 s) degrees
            if self.event:
                H = np.zeros(n)
                H[:2] = diff / d / self.speed
                H[4] = 1.0
                rows.append(H)
                res.append(float(value) - (x[4] + d / self.speed))
                var.append(self.noise**2 / 3 + 1e-8)
        return np.array(res), np.array(rows).reshape(len(res), n), np.diag(var)

    # -- filter --------------------------------------------------------------------------------
    def _initialise(self, readings: np.ndarray) -> None:
        n = 6 if self.event else 4
        self.x = np.zeros(n)
        self.P = np.diag([9.0, 9.0, 25.0, 25.0] + ([25.0, 1.0] if self.event else []))
        ok = ~np.isnan(readings).reshape(len(readings), -1).any(axis=1)
        s = self.sensors
        if self.x0 is not None:  # a hypothesis of a filter bank: start there, uncertain
            self.x[:2] = self.x0
            if self.event and ok.any():
                self.x[4] = float(
                    np.mean(readings[ok] - np.linalg.norm(self.x0 - s[ok], axis=1) / self.speed)
                )
        elif self.modality == "range" and ok.sum() >= 3:
            self.x[:2], self.P[0, 0], self.P[1, 1] = multilaterate(s, readings), 0.25, 0.25
        elif self.modality == "bearing" and ok.sum() >= 2:
            self.x[:2], self.P[0, 0], self.P[1, 1] = triangulate(s, readings), 1.0, 1.0
        elif self.modality == "range_bearing" and ok.sum() >= 1:
            self.x[:2], self.P[0, 0], self.P[1, 1] = (
                range_bearing_fix(s, readings, self.noise, 360 * self.noise),
                0.25,
                0.25,
            )
        elif self.event and ok.sum() >= 3:
            pos, t0 = toa_locate(s, readings, self.speed)
            self.x[:2], self.x[4] = pos, t0
            self.P[0, 0] = self.P[1, 1] = 0.25
            self.P[4, 4] = 0.01
        else:
            self.x[:2] = s.mean(axis=0)
            if self.event and ok.any():
                self.x[4] = float(
                    np.nanmean(
                        readings[ok] - np.linalg.norm(self.x[:2] - s[ok], axis=1) / self.speed
                    )
                )
        if self.modality == "region":
            self.x[:2] = region_intersection(s, readings, self.noise)
        if self.event:
            self.x[5] = 1.0  # one step of the shot clock per step, refined by the filter

    def step(self, dt: float, readings: np.ndarray) -> np.ndarray:
        """Predict over `dt`, update with `readings` (n sensors, NaN = missing); return the state."""
        readings = np.asarray(readings, dtype=float)
        if self.x is None:
            self._initialise(readings)
            if self.modality != "region":
                self._update(readings)
            self.x[:2] = np.clip(self.x[:2], 0.0, 10.0)
            return self.x.copy()
        F, Q = self._F_Q(dt)
        self.x = F @ self.x
        self.P = F @ self.P @ F.T + Q
        if self.modality == "region":
            self._update_region(readings)
        else:
            self._update(readings)
        self.x[:2] = np.clip(self.x[:2], 0.0, 10.0)  # the prompts' 10 x 10 area
        return self.x.copy()

    def _misfit(self, position: np.ndarray, readings: np.ndarray) -> tuple[float, int]:
        """(sum of squared measurement residuals / their variances, count) at `position`."""
        trial = self.x.copy()
        trial[:2] = position
        res, _, R = self._measure(trial, readings)
        return float(res @ (res / np.diag(R))) if len(res) else 0.0, len(res)

    def _gate_failed(self, readings: np.ndarray) -> bool:
        """After the update, the readings are still far from what the state predicts: their
        misfit exceeds the chi-square quantile `gate` (a validation gate, Bar-Shalom 5.4.2, on
        the updated state, so that an iterated update that reconciles prior and readings
        passes). Only when enough sensors report for a snapshot fix to restart from."""
        need = REINIT_NEED.get(self.modality)
        ok = ~np.isnan(readings).reshape(len(readings), -1).any(axis=1)
        if self.gate is None or need is None or ok.sum() < need:
            return False
        misfit, m = self._misfit(self.x[:2], readings)
        return misfit > chi2.ppf(self.gate, m)

    def _restart(self, readings: np.ndarray) -> None:
        """The filter is confidently wrong (typically on the mirror branch that one or two early
        ranges allow): restart from this step's snapshot fix. Two fixes are tried, NLLS from its
        own linear start and NLLS from the predicted position; the one that fits the readings
        better wins, and when both fit within the noise (near-collinear sensors leave a mirror
        pair) the one nearer the prediction. The accumulated cost is kept."""
        fix = multilaterate if self.modality == "range" else triangulate
        pred = self.x[:2].copy()
        candidates = [fix(self.sensors, readings), fix(self.sensors, readings, x0=pred)]

        fits = [self._misfit(c, readings)[0] for c in candidates]
        best = int(np.argmin(fits))
        if abs(fits[0] - fits[1]) < len(readings):  # both explain the readings
            best = int(np.argmin([np.linalg.norm(c - pred) for c in candidates]))
        self.x[:2] = candidates[best]
        self.x[2:4] = 0.0
        self.P = np.diag([0.25, 0.25, 25.0, 25.0])
        self.reinits += 1

    def _update(self, readings: np.ndarray) -> None:
        x_prior, P_prior, cost = self.x.copy(), self.P.copy(), self.cost
        self._iterated_update(readings)
        if self._gate_failed(readings):
            self.x, self.P, self.cost = x_prior, P_prior, cost
            self._restart(readings)
            self._iterated_update(readings)

    def _iterated_update(self, readings: np.ndarray) -> None:
        x_pred, P_pred = self.x.copy(), self.P.copy()
        x_i = x_pred.copy()
        for _ in range(self.iterations):  # iterated EKF: Gauss-Newton on the MAP cost
            res, H, R = self._measure(x_i, readings)
            if len(res) == 0:
                return
            S = H @ P_pred @ H.T + R
            K = P_pred @ H.T @ np.linalg.inv(S)
            if _ == 0:
                innov = res - H @ (x_pred - x_i)
                self.cost += 0.5 * float(
                    innov @ np.linalg.solve(S, innov) + np.linalg.slogdet(S)[1]
                )
            x_next = x_pred + K @ (res - H @ (x_pred - x_i))
            if np.linalg.norm(x_next - x_i) < 1e-9:
                x_i = x_next
                break
            x_i = x_next
        self.x = x_i
        self.P = (np.eye(len(x_i)) - K @ H) @ P_pred

    def _update_region(self, readings: np.ndarray) -> None:
        gate = Point(*self.x[:2]).buffer(
            3.0 * float(np.sqrt(max(self.P[0, 0], self.P[1, 1]))) + 0.5
        )
        z = region_intersection(self.sensors, readings, self.noise, prior=gate)
        H = np.zeros((2, 4))
        H[0, 0] = H[1, 1] = 1.0
        R = np.eye(2) * (self.noise / 2) ** 2
        S = H @ self.P @ H.T + R
        K = self.P @ H.T @ np.linalg.inv(S)
        self.x = self.x + K @ (z - H @ self.x)
        self.P = (np.eye(4) - K @ H) @ self.P


def track(
    modality: str,
    sensors: np.ndarray,
    readings: np.ndarray,
    timestamps: np.ndarray | None,
    n_steps: int,
    noise: float = 0.01,
    speed: float = 20.0,
    q: float = 1.0,
    bank: bool = True,
) -> np.ndarray:
    """Run the tracker over the first `n_steps`; return (n_steps, d) estimates in STARK's answer
    layout: [x, y], [T0] (event_temp) or [x, y, T0] (event_spatio_temp).

    With `bank`, a bank of filters starts from a 3 x 3 grid over the area plus the snapshot fix
    (range-only and TOA costs have mirror minima when few sensors report); each step reports the
    filter with the smallest accumulated innovation likelihood - an online choice, no look-ahead.
    """
    starts: list = [None]
    if bank and modality != "region":
        starts += [np.array([x, y]) for x in (1.7, 5.0, 8.3) for y in (1.7, 5.0, 8.3)]
    trackers = [
        ExtendedKalmanTracker(modality, sensors, noise=noise, speed=speed, q=q, x0=x0)
        for x0 in starts
    ]
    out = []
    for t in range(n_steps):
        dt = 1.0 if timestamps is None or t == 0 else float(timestamps[t] - timestamps[t - 1])
        states = [trk.step(dt, readings[t]) for trk in trackers]
        costs = [
            trk.cost if np.all(np.isfinite(x)) else np.inf
            for trk, x in zip(trackers, states, strict=True)
        ]
        x = states[int(np.argmin(costs))]
        if modality == "event_temp":
            out.append([x[4]])
        elif modality == "event_spatio_temp":
            out.append([x[0], x[1], x[4]])
        else:
            out.append([x[0], x[1]])
    return np.array(out)
