"""Synthetic captioned clips whose properties are known exactly.

A clip is 1-4 non-overlapping sound events on a faint noise floor. Each event is a tone (sine
with a weak 2nd harmonic), a rising or falling chirp (exponential sweep over one octave) or a
noise burst, with a pitch class, a loudness class and a duration class drawn from fixed bands.
`render` writes the waveform; `caption` describes the clip the way a human captioner would:
lossy on purpose ("several" for 3 or 4, no Hz, no milliseconds), so that questions about exact
properties need the audio and a caption-only model cannot answer everything.

Distribution shift (the paper's out-of-distribution evaluation): in-distribution pitches lie
within +-0.15 octave of each class centre; OOD pitches lie 0.2-0.35 octave away (still closer to
their own centre than to a neighbour's, so labels stay exact), and OOD clips use
(event type, count) combinations that never occur in training.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

EVENT_TYPES = ("tone", "chirp_up", "chirp_down", "noise")
TONAL = ("tone", "chirp_up", "chirp_down")
PITCH_CENTRES = {"low": 200.0, "medium": 400.0, "high": 800.0, "very high": 1600.0}
LEVELS_DB = {"quiet": -32.0, "medium": -22.0, "loud": -12.0}  # event RMS in dBFS
DURATIONS_S = {"short": 0.12, "medium": 0.25, "long": 0.45}
ID_OCTAVES = (0.0, 0.15)  # |offset from the class centre| in octaves
OOD_OCTAVES = (0.2, 0.35)
# (event type, count) pairs of single-type clips held out of training: the OOD combinations
OOD_COMBOS = frozenset({("noise", 4), ("chirp_down", 3), ("tone", 2), ("chirp_up", 1)})
MIN_GAP_S = 0.12
RAMP_S = 0.01
FLOOR_DB = -60.0


@dataclass
class Event:
    type: str
    onset: float  # seconds
    duration: float  # seconds
    duration_class: str
    level_db: float  # RMS of the event in dBFS
    level_class: str
    f0: float | None = None  # start frequency (Hz) for tonal events
    f_end: float | None = None  # end frequency of a chirp
    pitch_class: str | None = None


@dataclass
class ClipSpec:
    clip_id: str
    events: list[Event]
    single_type: bool  # every event shares type, pitch, loudness and duration classes
    rhythm: str | None  # "regular" | "irregular" for 3+ events, else None
    ood: bool
    sample_rate: int = 16000
    seconds: float = 2.5
    caption: str = ""
    noise_seed: int = 0
    meta: dict = field(default_factory=dict)

    @property
    def n_events(self) -> int:
        return len(self.events)

    def labels(self) -> dict:
        return asdict(self)


def _pitch(rng: np.random.Generator, cls: str, ood: bool) -> float:
    lo, hi = OOD_OCTAVES if ood else ID_OCTAVES
    offset = rng.uniform(lo, hi) * rng.choice([-1.0, 1.0])
    return float(PITCH_CENTRES[cls] * 2.0**offset)


def _event(
    rng: np.random.Generator, etype: str, pitch: str, level: str, dur: str, ood: bool
) -> Event:
    duration = float(DURATIONS_S[dur] * rng.uniform(0.9, 1.1))
    level_db = float(LEVELS_DB[level] + rng.uniform(-1.5, 1.5))
    ev = Event(etype, 0.0, duration, dur, level_db, level)
    if etype in TONAL:
        ev.pitch_class = pitch
        ev.f0 = _pitch(rng, pitch, ood)
        ev.f_end = {"tone": ev.f0, "chirp_up": 2 * ev.f0, "chirp_down": ev.f0 / 2}[etype]
    return ev


def _layout(rng: np.random.Generator, events: list[Event], seconds: float, regular: bool) -> bool:
    """Place onsets; False when the events do not fit in the clip."""
    budget = seconds - 0.1
    n = len(events)
    if regular:
        ioi = max(e.duration for e in events) + MIN_GAP_S + rng.uniform(0.0, 0.15)
        t0 = rng.uniform(0.05, 0.25)
        if t0 + (n - 1) * ioi + events[-1].duration > budget:
            return False
        for k, e in enumerate(events):
            e.onset = float(t0 + k * ioi)
        return True
    gaps = rng.uniform(MIN_GAP_S, 0.5, size=max(0, n - 1))
    if n >= 3:  # make "irregular" unambiguous: longest inter-onset interval >= 1.6 x shortest
        gaps[rng.integers(n - 1)] += 0.35
    t = rng.uniform(0.05, 0.25)
    for k, e in enumerate(events):
        e.onset = float(t)
        t += e.duration + (gaps[k] if k < n - 1 else 0.0)
    if t > budget:
        return False
    if n >= 3:
        ioi = np.diff([e.onset for e in events])
        return bool(ioi.max() >= 1.6 * ioi.min())
    return True


def sample_clip(
    rng: np.random.Generator,
    clip_id: str,
    *,
    ood: bool = False,
    sample_rate: int = 16000,
    seconds: float = 2.5,
    max_events: int = 4,
) -> ClipSpec:
    """Draw one clip. In-distribution clips never use an OOD_COMBOS pair; OOD clips that are
    single-type always do, and all OOD pitches come from the held-out bands."""
    for _ in range(1000):
        n = int(rng.integers(1, max_events + 1))
        single = bool(rng.random() < 0.5)
        classes = lambda: (  # noqa: E731 - one draw of the three classes
            str(rng.choice(list(PITCH_CENTRES))),
            str(rng.choice(list(LEVELS_DB))),
            str(rng.choice(list(DURATIONS_S))),
        )
        if single:
            if ood:
                etype, n = sorted(OOD_COMBOS)[int(rng.integers(len(OOD_COMBOS)))]
                n = min(n, max_events)
            else:
                etype = str(rng.choice(EVENT_TYPES))
                if (etype, n) in OOD_COMBOS:
                    continue
            p, lvl, d = classes()
            events = [_event(rng, etype, p, lvl, d, ood) for _ in range(n)]
        else:
            events = [_event(rng, str(rng.choice(EVENT_TYPES)), *classes(), ood) for _ in range(n)]
        regular = n >= 3 and bool(rng.random() < 0.5)
        if not _layout(rng, events, seconds, regular):
            continue
        rhythm = ("regular" if regular else "irregular") if n >= 3 else None
        spec = ClipSpec(
            clip_id,
            events,
            single,
            rhythm,
            ood,
            sample_rate,
            seconds,
            noise_seed=int(rng.integers(2**31)),
        )
        spec.caption = caption(spec)
        return spec
    raise RuntimeError("could not lay out a clip in 1000 tries; clip too short for max_events")


def _envelope(n: int, sr: int) -> np.ndarray:
    ramp = max(1, min(int(RAMP_S * sr), n // 2))
    env = np.ones(n)
    edge = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, ramp))
    env[:ramp], env[n - ramp :] = edge, edge[::-1]
    return env


def render(spec: ClipSpec) -> np.ndarray:
    """The clip's waveform (float32, sample_rate * seconds samples)."""
    sr = spec.sample_rate
    rng = np.random.default_rng(spec.noise_seed)
    n_total = int(round(spec.seconds * sr))
    out = rng.normal(0.0, 10 ** (FLOOR_DB / 20), n_total)
    for ev in spec.events:
        n = int(round(ev.duration * sr))
        t = np.arange(n) / sr
        if ev.type == "noise":
            x = rng.normal(0.0, 1.0, n)
        elif ev.type == "tone":
            x = np.sin(2 * np.pi * ev.f0 * t) + 0.3 * np.sin(4 * np.pi * ev.f0 * t)
        else:  # exponential sweep f0 -> f_end: phase = 2 pi f0 T / ln(k) (k^(t/T) - 1)
            k = ev.f_end / ev.f0
            x = np.sin(2 * np.pi * ev.f0 * ev.duration / np.log(k) * (k ** (t / ev.duration) - 1))
        x = x * _envelope(n, sr)
        x *= 10 ** (ev.level_db / 20) / np.sqrt(np.mean(x**2))  # exact event RMS
        start = int(round(ev.onset * sr))
        out[start : start + n] += x[: n_total - start]
    return np.clip(out, -1.0, 1.0).astype(np.float32)


# -- captions ------------------------------------------------------------------------------
_NOUN = {
    "tone": "tone",
    "chirp_up": "rising chirp",
    "chirp_down": "falling chirp",
    "noise": "burst of noise",
}
_PLURAL = {
    "tone": "tones",
    "chirp_up": "rising chirps",
    "chirp_down": "falling chirps",
    "noise": "bursts of noise",
}
_PITCH_WORD = {"low": "low", "medium": "", "high": "high-pitched", "very high": "shrill"}
_LEVEL_WORD = {"quiet": "faint", "medium": "", "loud": "loud"}
_COUNT_WORD = {1: "a", 2: "two", 3: "several", 4: "several"}


def _phrase(ev: Event, plural: bool = False) -> str:
    noun = (_PLURAL if plural else _NOUN)[ev.type]
    if ev.type == "tone" and ev.duration_class == "short":
        noun = "beeps" if plural else "beep"
    words = [_LEVEL_WORD[ev.level_class]]
    if ev.type == "tone":
        words.append(_PITCH_WORD[ev.pitch_class])
    return " ".join(w for w in [*words, noun] if w)


def caption(spec: ClipSpec) -> str:
    ev = spec.events
    if spec.single_type:
        text = f"{_COUNT_WORD[len(ev)]} {_phrase(ev[0], plural=len(ev) > 1)}"
        if spec.rhythm == "regular":
            text += " in a steady rhythm"
    else:
        parts = ["a " + _phrase(e) for e in ev]  # no phrase starts with a vowel
        if len(parts) <= 2:
            text = " followed by ".join(parts)
        else:
            text = ", then ".join(parts[:-1]) + " and finally " + parts[-1]
    text = text.strip()
    return text[0].upper() + text[1:] + " over a quiet background."
