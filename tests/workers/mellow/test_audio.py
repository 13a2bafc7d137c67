"""WAV I/O, resampling, the mel filterbank and log-mel, and the PNG writer."""

import io

import numpy as np
import pytest
import torch

from workers.benchmarks.mellow_aqa.audio import (
    LogMel,
    fit_length,
    hz_to_mel,
    mel_filterbank,
    mel_to_hz,
    read_wav,
    spectrogram_png,
    write_wav,
)


def sine(f, sr=16000, seconds=1.0, amp=0.5):
    return (amp * np.sin(2 * np.pi * f * np.arange(int(sr * seconds)) / sr)).astype(np.float32)


def test_wav_round_trip_and_resampling(tmp_path):
    x = sine(440.0)
    path = write_wav(tmp_path / "a.wav", x, 16000)
    y, sr = read_wav(path)
    assert sr == 16000 and np.abs(y - x).max() < 1e-4
    z, sr2 = read_wav(path, 8000)
    assert sr2 == 8000 and len(z) == 8000
    spec = np.abs(np.fft.rfft(z))
    assert abs(np.argmax(spec) * 8000 / len(z) - 440) < 2
    stereo = np.stack([x, x], axis=1)
    from scipy.io import wavfile

    wavfile.write(tmp_path / "s.wav", 16000, (stereo * 32767).astype(np.int16))
    mono, _ = read_wav(tmp_path / "s.wav")
    assert mono.ndim == 1 and np.abs(mono - x).max() < 1e-4


def test_fit_length_repeats_short_and_crops_long():
    x = np.arange(5, dtype=np.float32)
    assert fit_length(x, 12).tolist() == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1]
    assert fit_length(np.arange(10, dtype=np.float32), 4).tolist() == [3, 4, 5, 6]


def test_mel_scale_and_filterbank():
    assert mel_to_hz(hz_to_mel(1234.5)) == pytest.approx(1234.5)
    assert hz_to_mel(1000.0) == pytest.approx(1000.0, rel=2e-3)  # the HTK scale's anchor
    fb = mel_filterbank(16000, 512, 32, 50.0, 8000.0)
    assert fb.shape == (32, 257) and (fb >= 0).all()
    freqs = np.linspace(0, 8000, 257)
    centres = freqs[fb.argmax(dim=1).numpy()]
    assert np.all(np.diff(centres) >= 0)  # filters ordered by frequency
    df = freqs[1]
    area = fb.sum(dim=1).numpy() * df
    assert np.allclose(area[4:], 1.0, rtol=0.15)  # Slaney area normalisation (wide enough bands)


def test_log_mel_shape_and_a_sine_lights_the_right_band():
    m = LogMel(16000, n_fft=512, hop=400, n_mels=32)
    x = torch.from_numpy(np.stack([sine(1000.0), sine(250.0)]))
    mel = m(x)
    assert mel.shape == (2, 32, 1 + 16000 // 400)
    assert torch.isfinite(mel).all()
    edges = mel_to_hz(np.linspace(hz_to_mel(50.0), hz_to_mel(8000.0), 34))[1:-1]
    for row, f in zip(mel.mean(dim=2), (1000.0, 250.0), strict=True):
        band = int(row.argmax())
        assert abs(np.log2(edges[band] / f)) < 0.3
    assert (mel.amax(dim=(1, 2)) - mel.amin(dim=(1, 2)) <= 80.0 + 1e-4).all()  # top_db floor
    louder = m(torch.from_numpy(sine(1000.0, amp=0.05)))
    assert float(mel[0].max() - louder[0].max()) == pytest.approx(
        20.0, abs=0.1
    )  # 10x amplitude = 20 dB


def test_spectrogram_png_is_a_valid_image():
    img = np.random.default_rng(0).normal(size=(32, 50))
    data = spectrogram_png(img, scale=2)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    PIL = pytest.importorskip("PIL.Image")
    with PIL.open(io.BytesIO(data)) as im:
        assert im.size == (100, 64) and im.mode == "RGB"
        im.load()
