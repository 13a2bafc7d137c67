"""Audio I/O and features: WAV read/write (scipy), resampling, log-mel spectrograms (torch), and
a dependency-free PNG of a spectrogram for the run page.

The log-mel follows the usual recipe (Slaney-style triangular filters on an HTK mel scale over
|STFT|^2, then 10 log10 with a floor), which is what HTSAT / CLAP-style encoders consume.
"""

from __future__ import annotations

import math
import struct
import zlib
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch
from scipy.io import wavfile
from scipy.signal import resample_poly


def write_wav(path: str | Path, wav: np.ndarray, sample_rate: int) -> Path:
    """16-bit PCM mono WAV (values clipped to [-1, 1])."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = np.clip(np.asarray(wav, dtype=np.float64), -1.0, 1.0)
    wavfile.write(path, int(sample_rate), (pcm * 32767.0).round().astype(np.int16))
    return path


def wav_bytes(wav: np.ndarray, sample_rate: int) -> bytes:
    import io

    buf = io.BytesIO()
    pcm = np.clip(np.asarray(wav, dtype=np.float64), -1.0, 1.0)
    wavfile.write(buf, int(sample_rate), (pcm * 32767.0).round().astype(np.int16))
    return buf.getvalue()


def read_wav(path: str | Path, sample_rate: int | None = None) -> tuple[np.ndarray, int]:
    """Mono float32 in [-1, 1]; resampled to `sample_rate` when given (polyphase filter)."""
    sr, data = wavfile.read(Path(path))
    if data.dtype.kind == "i":
        data = data.astype(np.float64) / float(np.iinfo(data.dtype).max)
    elif data.dtype.kind == "u":  # 8-bit WAV is unsigned with a 128 offset
        data = (data.astype(np.float64) - 128.0) / 128.0
    else:
        data = data.astype(np.float64)
    if data.ndim == 2:  # average the channels: the models are mono
        data = data.mean(axis=1)
    if sample_rate is not None and sr != sample_rate:
        data, sr = resample(data, sr, sample_rate), sample_rate
    return data.astype(np.float32), int(sr)


def resample(wav: np.ndarray, sr_in: int, sr_out: int) -> np.ndarray:
    ratio = Fraction(sr_out, sr_in).limit_denominator(1000)
    return resample_poly(wav, ratio.numerator, ratio.denominator)


def fit_length(wav: np.ndarray, n: int) -> np.ndarray:
    """Repeat-pad short clips and centre-crop long ones to exactly n samples (as Mellow's loader
    repeats short audio to the segment length)."""
    wav = np.asarray(wav, dtype=np.float32)
    if wav.size == 0:
        return np.zeros(n, dtype=np.float32)
    if wav.size < n:
        wav = np.tile(wav, math.ceil(n / wav.size))
        return wav[:n]
    start = (wav.size - n) // 2
    return wav[start : start + n]


def hz_to_mel(f: np.ndarray | float) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + np.asarray(f, dtype=np.float64) / 700.0)


def mel_to_hz(m: np.ndarray | float) -> np.ndarray:
    return 700.0 * (10.0 ** (np.asarray(m, dtype=np.float64) / 2595.0) - 1.0)


def mel_filterbank(
    sample_rate: int, n_fft: int, n_mels: int, f_min: float = 0.0, f_max: float | None = None
) -> torch.Tensor:
    """(n_mels, n_fft // 2 + 1) triangular filters, equally spaced on the mel scale, each
    normalised to unit area (Slaney) so loudness does not depend on the band's width."""
    f_max = sample_rate / 2 if f_max is None else f_max
    if not 0 <= f_min < f_max <= sample_rate / 2:
        raise ValueError(f"need 0 <= f_min < f_max <= sample_rate/2, got {f_min}, {f_max}")
    freqs = np.linspace(0.0, sample_rate / 2, n_fft // 2 + 1)
    edges = mel_to_hz(np.linspace(hz_to_mel(f_min), hz_to_mel(f_max), n_mels + 2))
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    up = (freqs[None, :] - lower) / (centre - lower)
    down = (upper - freqs[None, :]) / (upper - centre)
    fb = np.maximum(0.0, np.minimum(up, down))
    fb *= 2.0 / (upper - lower)  # Slaney area normalisation
    return torch.tensor(fb, dtype=torch.float32)


class LogMel(torch.nn.Module):
    """Waveform (B, T) -> log-mel (B, n_mels, frames) in dB, frames = 1 + T // hop."""

    def __init__(
        self,
        sample_rate: int = 16000,
        n_fft: int = 512,
        hop: int = 320,
        n_mels: int = 64,
        f_min: float = 50.0,
        f_max: float | None = None,
        top_db: float = 80.0,
    ) -> None:
        super().__init__()
        self.sample_rate, self.n_fft, self.hop, self.top_db = sample_rate, n_fft, hop, top_db
        self.register_buffer("window", torch.hann_window(n_fft), persistent=False)
        self.register_buffer(
            "fb", mel_filterbank(sample_rate, n_fft, n_mels, f_min, f_max), persistent=False
        )

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        if wav.dim() == 1:
            wav = wav[None]
        spec = torch.stft(
            wav, self.n_fft, self.hop, window=self.window, center=True, return_complex=True
        )
        power = spec.abs().pow(2)  # (B, F, frames)
        mel = torch.matmul(self.fb, power)
        db = 10.0 * torch.log10(mel.clamp_min(1e-10))
        # dynamic-range floor relative to each clip's peak, as librosa's power_to_db(top_db=80)
        return torch.maximum(db, db.amax(dim=(-2, -1), keepdim=True) - self.top_db)


def spectrogram_png(mel_db: np.ndarray, scale: int = 3) -> bytes:
    """An 8-bit RGB PNG of a (n_mels, frames) dB image, low frequencies at the bottom, written
    with zlib + struct so the run page needs no plotting library."""
    img = np.asarray(mel_db, dtype=np.float64)[::-1]
    lo, hi = float(img.min()), float(img.max())
    x = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
    # a small perceptual colormap (dark blue -> magenta -> yellow), interpolated per pixel
    stops = np.array([[0, 0, 40], [80, 20, 130], [200, 50, 120], [250, 150, 40], [250, 250, 160]])
    pos = x * (len(stops) - 1)
    i = np.clip(pos.astype(int), 0, len(stops) - 2)
    frac = (pos - i)[..., None]
    rgb = (stops[i] * (1 - frac) + stops[i + 1] * frac).astype(np.uint8)
    rgb = rgb.repeat(scale, axis=0).repeat(scale, axis=1)
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[r].tobytes() for r in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )
