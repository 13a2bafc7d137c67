"""AudioCaps and Clotho importers on tiny folders in the published layouts."""

import csv

import numpy as np
import pytest

from workers.benchmarks.mellow_aqa.audio import write_wav
from workers.benchmarks.mellow_aqa.dataset import load_real_clips
from workers.benchmarks.mellow_aqa.importers import import_audiocaps, import_clotho


def tone(f=440.0, sr=44100, seconds=1.0):
    return 0.3 * np.sin(2 * np.pi * f * np.arange(int(sr * seconds)) / sr)


def make_audiocaps(root, split="test", missing=True):
    rows = [
        ("1", "abcDEF12345", "30", "A dog barks twice"),
        ("2", "abcDEF12345", "30", "Barking of a dog"),
        ("3", "zzzYYY00000", "0", "Rain falls on a roof"),
    ]
    if missing:
        rows.append(("4", "gone0000000", "10", "A video that was deleted"))
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{split}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["audiocap_id", "youtube_id", "start_time", "caption"])
        w.writerows(rows)
    write_wav(root / "audio" / split / "abcDEF12345.wav", tone(), 44100)
    write_wav(root / "audio" / split / "Yzzzyyy00000.wav", tone(), 44100)  # wrong case: not found
    write_wav(root / split / "3.wav", tone(880.0, 22050, 0.5), 22050)  # by audiocap id
    return root


def make_clotho(root, split_name="evaluation"):
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"clotho_captions_{split_name}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file_name"] + [f"caption_{i}" for i in range(1, 6)])
        w.writerow(["birds.wav"] + [f"birds sing {i}" for i in range(5)])
        w.writerow(["missing.wav"] + ["x"] * 5)
    write_wav(root / split_name / "birds.wav", tone(2000.0), 44100)
    return root


def test_audiocaps_groups_captions_per_clip_and_counts_missing_audio(tmp_path):
    rep = import_audiocaps(make_audiocaps(tmp_path / "ac"), "test")
    assert rep.rows == 4 and rep.missing_audio == 1
    by_id = {c.clip_id: c for c in rep.clips}
    assert by_id["audiocaps/abcDEF12345_30"].captions == ["A dog barks twice", "Barking of a dog"]
    assert by_id["audiocaps/zzzYYY00000_0"].path.name == "3.wav"
    clips = load_real_clips(rep.clips, 16000, 2.0)
    assert all(c.wav.shape == (32000,) and c.sample_rate == 16000 for c in clips)
    assert abs(np.abs(clips[0].wav).max() - 0.3) < 0.02  # resampled 44.1 kHz, repeat-padded


def test_clotho_reads_five_captions_and_renames_splits(tmp_path):
    rep = import_clotho(make_clotho(tmp_path / "clotho"), "test")
    assert rep.missing_audio == 1 and len(rep.clips) == 1
    clip = rep.clips[0]
    assert clip.split == "test" and clip.dataset == "clotho" and len(clip.captions) == 5


def test_importers_fail_clearly_on_wrong_layouts(tmp_path):
    with pytest.raises(FileNotFoundError, match="train.csv"):
        import_audiocaps(tmp_path, "train")
    with pytest.raises(ValueError, match="split"):
        import_clotho(tmp_path, "dev")
    (tmp_path / "val.csv").write_text("id,text\n1,hello\n")
    with pytest.raises(ValueError, match="expected columns"):
        import_audiocaps(tmp_path, "val")
