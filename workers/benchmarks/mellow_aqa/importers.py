"""Importers for captioned audio datasets in their published layouts (the user downloads them).

AudioCaps (Kim et al. 2019): ``{train,val,test}.csv`` with columns
``audiocap_id,youtube_id,start_time,caption`` (one caption per row; val/test repeat a clip on
five rows) and the audio the user fetched from YouTube, as WAV files named by youtube id
(``<ytid>.wav``, ``Y<ytid>.wav``, ``<ytid>_<start>.wav``) or by audiocap id, in ``audio/<split>/``,
``<split>/`` or ``audio/``.

Clotho (Drossos et al. 2020): ``clotho_captions_{development,validation,evaluation}.csv`` with
``file_name,caption_1..caption_5`` and the WAV files in ``{development,validation,evaluation}/``
(Zenodo layout). Splits are renamed train / val / test.

Rows whose audio file is missing are skipped and counted, since AudioCaps downloads are always
partial (videos disappear from YouTube).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

SPLITS = ("train", "val", "test")
CLOTHO_SPLITS = {"train": "development", "val": "validation", "test": "evaluation"}


@dataclass
class CaptionedAudio:
    clip_id: str
    path: Path
    captions: list[str]
    split: str
    dataset: str


@dataclass
class ImportReport:
    clips: list[CaptionedAudio] = field(default_factory=list)
    missing_audio: int = 0
    rows: int = 0


def _find_audio(root: Path, split: str, names: list[str]) -> Path | None:
    for folder in (root / "audio" / split, root / split, root / "audio", root):
        for name in names:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def import_audiocaps(root: str | Path, split: str) -> ImportReport:
    root = Path(root)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    table = root / f"{split}.csv"
    if not table.is_file():
        raise FileNotFoundError(f"{table}: AudioCaps caption table not found")
    report, by_clip = ImportReport(), {}
    with open(table, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        need = {"audiocap_id", "youtube_id", "start_time", "caption"}
        if not need <= set(reader.fieldnames or ()):
            raise ValueError(f"{table}: expected columns {sorted(need)}, got {reader.fieldnames}")
        for row in reader:
            report.rows += 1
            yt, start = row["youtube_id"].strip(), row["start_time"].strip()
            key = f"{yt}_{start}"
            if key not in by_clip:
                names = [
                    f"{yt}.wav",
                    f"Y{yt}.wav",
                    f"{yt}_{start}.wav",
                    f"{yt}_{start}.000.wav",
                    f"{row['audiocap_id'].strip()}.wav",
                ]
                path = _find_audio(root, split, names)
                if path is None:
                    report.missing_audio += 1
                    by_clip[key] = None
                    continue
                by_clip[key] = CaptionedAudio(f"audiocaps/{key}", path, [], split, "audiocaps")
            if by_clip[key] is not None and row["caption"].strip():
                by_clip[key].captions.append(row["caption"].strip())
    report.clips = [c for c in by_clip.values() if c is not None and c.captions]
    return report


def import_clotho(root: str | Path, split: str) -> ImportReport:
    root = Path(root)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    name = CLOTHO_SPLITS[split]
    table = root / f"clotho_captions_{name}.csv"
    if not table.is_file():
        raise FileNotFoundError(f"{table}: Clotho caption table not found")
    report = ImportReport()
    with open(table, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if "file_name" not in (reader.fieldnames or ()):
            raise ValueError(f"{table}: expected a file_name column, got {reader.fieldnames}")
        caption_cols = [c for c in reader.fieldnames if c.startswith("caption")]
        for row in reader:
            report.rows += 1
            fname = row["file_name"].strip()
            path = _find_audio(root, name, [fname])
            if path is None:
                report.missing_audio += 1
                continue
            captions = [row[c].strip() for c in caption_cols if row.get(c, "").strip()]
            if captions:
                report.clips.append(
                    CaptionedAudio(f"clotho/{fname}", path, captions, split, "clotho")
                )
    return report


IMPORTERS = {"audiocaps": import_audiocaps, "clotho": import_clotho}
