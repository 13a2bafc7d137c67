"""The generator's labels agree with measurements of the waveform it writes."""

import numpy as np
import pytest

from tests.workers.mellow.signal_measures import (
    active_segments,
    fft_peak_hz,
    nearest_class,
    rms_db,
)
from workers.benchmarks.mellow_aqa.synth import (
    DURATIONS_S,
    ID_OCTAVES,
    LEVELS_DB,
    OOD_COMBOS,
    OOD_OCTAVES,
    PITCH_CENTRES,
    render,
    sample_clip,
)


def clips(n, ood=False, seed=0):
    rng = np.random.default_rng(seed)
    return [sample_clip(rng, f"c{i}", ood=ood) for i in range(n)]


def body(wav, sr, ev, trim=0.015):
    a, b = int((ev.onset + trim) * sr), int((ev.onset + ev.duration - trim) * sr)
    return wav[a:b]


@pytest.mark.parametrize("ood", [False, True])
def test_event_counts_onsets_and_durations_match_onset_detection(ood):
    for spec in clips(40, ood=ood, seed=1 + ood):
        wav = render(spec)
        segs = active_segments(wav, spec.sample_rate)
        assert len(segs) == spec.n_events, (spec.caption, segs)
        for (start, end), ev in zip(segs, spec.events, strict=True):
            assert abs(start - ev.onset) < 0.015
            measured = end - start
            assert abs(measured - ev.duration) < 0.03, (measured, ev.duration)
            assert nearest_class(measured, DURATIONS_S) == ev.duration_class


def test_tone_pitch_matches_fft_peak_and_class():
    checked = 0
    for spec in clips(60, seed=3) + clips(30, ood=True, seed=4):
        wav = render(spec)
        for ev in spec.events:
            if ev.type != "tone":
                continue
            peak = fft_peak_hz(body(wav, spec.sample_rate, ev), spec.sample_rate)
            assert abs(peak / ev.f0 - 1) < 0.03, (peak, ev.f0)
            assert nearest_class(peak, PITCH_CENTRES, log=True) == ev.pitch_class
            octaves = abs(np.log2(ev.f0 / PITCH_CENTRES[ev.pitch_class]))
            lo, hi = OOD_OCTAVES if spec.ood else ID_OCTAVES
            assert lo - 1e-9 <= octaves <= hi + 1e-9
            checked += 1
    assert checked > 20


def test_chirp_direction_matches_fft_of_first_and_last_quarter():
    checked = 0
    for spec in clips(80, seed=5):
        wav = render(spec)
        for ev in spec.events:
            if not ev.type.startswith("chirp"):
                continue
            x = body(wav, spec.sample_rate, ev)
            q = len(x) // 4
            first, last = (
                fft_peak_hz(x[:q], spec.sample_rate),
                fft_peak_hz(x[-q:], spec.sample_rate),
            )
            assert (last > first) == (ev.type == "chirp_up"), (ev.type, first, last)
            checked += 1
    assert checked > 20


def test_event_loudness_matches_rms():
    for spec in clips(40, seed=6):
        wav = render(spec)
        for ev in spec.events:
            measured = rms_db(
                wav[
                    int(ev.onset * spec.sample_rate) : int(
                        (ev.onset + ev.duration) * spec.sample_rate
                    )
                ]
            )
            assert abs(measured - ev.level_db) < 0.6, (measured, ev.level_db)
            assert nearest_class(measured, LEVELS_DB) == ev.level_class


def test_rhythm_labels_match_inter_onset_intervals():
    seen = set()
    for spec in clips(80, seed=7):
        if spec.rhythm is None:
            assert spec.n_events < 3
            continue
        onsets = [s for s, _ in active_segments(render(spec), spec.sample_rate)]
        ioi = np.diff(onsets)
        ratio = ioi.max() / ioi.min()
        assert ratio < 1.1 if spec.rhythm == "regular" else ratio > 1.4, (spec.rhythm, ioi)
        seen.add(spec.rhythm)
    assert seen == {"regular", "irregular"}


def test_ood_clips_use_held_out_combinations_and_id_clips_never_do():
    for spec in clips(200, seed=8):
        if spec.single_type:
            assert (spec.events[0].type, spec.n_events) not in OOD_COMBOS
    ood_single = [s for s in clips(100, ood=True, seed=9) if s.single_type]
    assert ood_single and all((s.events[0].type, s.n_events) in OOD_COMBOS for s in ood_single)


def test_same_seed_same_clip_and_caption_describes_it():
    a, b = clips(5, seed=10), clips(5, seed=10)
    assert [x.caption for x in a] == [x.caption for x in b]
    assert np.array_equal(render(a[0]), render(b[0]))
    words = {
        "tone": ("tone", "beep"),
        "chirp_up": ("rising",),
        "chirp_down": ("falling",),
        "noise": ("noise",),
    }
    for spec in clips(30, seed=11):
        for ev in spec.events:
            assert any(w in spec.caption.lower() for w in words[ev.type]), spec.caption
