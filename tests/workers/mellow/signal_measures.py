"""Independent measurements of a waveform (FFT peak, RMS, energy-envelope onsets), used to check
the synthetic generator's labels against the signal it actually wrote."""

from __future__ import annotations

import numpy as np

FRAME_S = 0.005


def fft_peak_hz(x: np.ndarray, sr: int) -> float:
    """Frequency of the largest magnitude bin (Hann window, 8x zero padding)."""
    n = 8 * len(x)
    spec = np.abs(np.fft.rfft(x * np.hanning(len(x)), n))
    return float(np.fft.rfftfreq(n, 1 / sr)[int(np.argmax(spec))])


def rms_db(x: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(np.asarray(x, dtype=np.float64) ** 2)) + 1e-12))


def active_segments(wav: np.ndarray, sr: int, threshold_db: float = -46.0, min_gap_s: float = 0.04):
    """(start_s, end_s) of runs of 5 ms frames whose RMS exceeds threshold_db, merging gaps
    shorter than min_gap_s (onset detection by an energy envelope)."""
    hop = int(FRAME_S * sr)
    frames = len(wav) // hop
    env = np.sqrt(np.mean(wav[: frames * hop].reshape(frames, hop).astype(np.float64) ** 2, axis=1))
    active = 20 * np.log10(env + 1e-12) > threshold_db
    segments, start = [], None
    for i, a in enumerate(np.append(active, False)):
        if a and start is None:
            start = i
        elif not a and start is not None:
            segments.append([start * FRAME_S, i * FRAME_S])
            start = None
    merged = []
    for seg in segments:
        if merged and seg[0] - merged[-1][1] < min_gap_s:
            merged[-1][1] = seg[1]
        else:
            merged.append(seg)
    return [tuple(s) for s in merged]


def nearest_class(value: float, centres: dict[str, float], log: bool = False) -> str:
    f = np.log if log else (lambda v: v)
    return min(centres, key=lambda k: abs(f(value) - f(centres[k])))
