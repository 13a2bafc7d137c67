"""Read the STARK release layout (`data_final_v5`) into `Instance`s.

Layout (one folder per task, one instance per index `i`):
- `localization_<modality>_<noise>/`, `tracking_<modality>_<noise>/`: `i_sensor_k.csv` (columns
  d, d_noiseless; tracking adds time), `i_sensor_location.csv` (x, y) and the ground truth
  `i_object_location.csv`. The release has no prompt for these: it is rebuilt from STARK's
  templates exactly as its get_data.py does.
- `spatial_impute/` etc.: `i.csv` (query, answer), `i.npy` (observed field), `i_coords.npy`.
- `tier2_v2_*/<task>/i.csv`, `tier3_world_knowledge/<task>/i.csv`: query and answer columns.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from workers.benchmarks.stark.catalogue import (
    FIELD_TASKS,
    TASKS,
    TRACKING_STEPS,
    modality_of,
    parse_sensor_folder,
)
from workers.benchmarks.stark.instance import (
    Instance,
    localization_prompt,
    tracking_prompt,
    tracking_steps,
)
from workers.core.data import safe_extract

csv.field_size_limit(1 << 30)

# The release archive as published in STARK's repository (data_final.tar.gz, 2.5 MB).
RELEASE_URL = "https://github.com/nesl/STARK_Benchmark/raw/main/data_final.tar.gz"
RELEASE_SHA256 = "a1331b9d7cc47b4ba9d5960e1696790b3a745b89d108594dd0a7d930a478a978"
TIER_DIRS = {
    "tier2_v2_spatial": "spatial",
    "tier2_v2_temporal": "temporal",
    "tier2_v2_spatial_temporal": "spatiotemporal",
    "tier3_world_knowledge": "world_knowledge",
}


class ReleaseFormatError(ValueError):
    """A file of the release does not have the expected layout."""


def _rows(path: Path) -> list[dict[str, str]]:
    """`list(csv.DictReader(handle))`, without DictReader's per-row Python overhead (a third
    of the load time of a release): the same dicts, blank lines skipped, a short row's missing
    fields None, a long row's extra fields under the key None."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            return []
        n = len(header)
        out = []
        for row in reader:
            if not row:
                continue
            d = dict(zip(header, row, strict=False))
            if len(row) > n:
                d[None] = row[n:]
            elif len(row) < n:
                d.update(dict.fromkeys(header[len(row) :]))
            out.append(d)
        return out


def _reading(text: str) -> np.ndarray:
    """A sensor cell: a number, empty (missing -> NaN), or a numpy-printed pair "[ r  b]"."""
    return np.array(_reading_values(text))


def _reading_values(text: str) -> list[float]:
    text = text.strip()
    if not text:
        return [np.nan]
    if text.startswith("["):
        return [float(v) for v in text[1:-1].split()]
    return [float(text)]


def _stark_pair(text: str) -> list[float]:
    """How STARK's get_data parses a localization range+bearing cell for the prompt (`[2:-1]`)."""
    return [float(r) for r in text[2:-1].split(" ") if r != ""]


def _index_files(folder: Path, suffix: str) -> list[int]:
    pattern = re.compile(rf"^(\d+){re.escape(suffix)}$")
    return sorted(int(m.group(1)) for p in folder.iterdir() if (m := pattern.match(p.name)))


def _sensor_instance(folder: Path, index: int, task: str, noise: str, n_steps: int) -> Instance:
    loc_path = folder / f"{index}_sensor_location.csv"
    locations = np.array([[float(r["x"]), float(r["y"])] for r in _rows(loc_path)])
    modality = modality_of(task)
    sensors = [_rows(folder / f"{index}_sensor_{k}.csv") for k in range(len(locations))]
    radius = float(noise) if modality == "region" else None
    truth = _rows(folder / f"{index}_object_location.csv")
    iid = f"{folder.name}/{index}"
    data: dict = {"sensor_locations": locations, "noise": noise, "modality": modality}
    if radius is not None:
        data["radius"] = radius
    if task.startswith("loc_"):
        readings = np.array([_reading(s[0]["d"]) for s in sensors])
        readings = readings[:, 0] if readings.shape[1] == 1 else readings
        prompt_readings = (
            np.array([_stark_pair(s[0]["d"]) for s in sensors])
            if modality == "range_bearing"
            else readings
        )
        data["readings"] = readings
        prompt = localization_prompt(task, locations, prompt_readings, radius)
        row = truth[0]
        if task == "loc_event_temp":  # object_location stores t in both columns (get_data uses x)
            answer = np.array([float(row["x"])])
        elif task == "loc_event_spatio_temp":
            answer = np.array([float(row["x"]), float(row["y"]), float(row["t"])])
        else:
            answer = np.array([float(row["x"]), float(row["y"])])
        return Instance(iid, task, prompt, answer, data=data, meta={"index": index})
    # online tracking
    timestamps = np.array([float(r["time"]) for r in sensors[0]])
    width = 2 if modality == "range_bearing" else 1
    readings = np.full((len(timestamps), len(sensors), width), np.nan)
    for k, rows in enumerate(sensors):
        values = [_reading_values(r["d"]) for r in rows]
        if len(values) <= len(timestamps) and all(len(v) <= width for v in values):
            # one assignment per sensor; a short cell (a missing pair) keeps the NaN fill
            padded = [v + [np.nan] * (width - len(v)) for v in values]
            readings[: len(values), k] = np.array(padded).reshape(len(values), width)
            continue
        for t, value in enumerate(values):  # raises as the cell-by-cell fill always did
            readings[t, k, : len(value)] = value
    readings = readings[..., 0] if width == 1 else readings
    data.update(readings=readings, timestamps=timestamps)
    steps = tracking_steps(task, timestamps, readings, n_steps)
    if task == "track_event_temp_online":
        answer = np.array([[float(r["x"])] for r in truth])  # T_0 of each shot (x = y = t)
    elif task == "track_event_spatiotemp_online":
        answer = np.array([[float(r["x"]), float(r["y"]), float(r["event_t"])] for r in truth])
    else:
        answer = np.array([[float(r["x"]), float(r["y"])] for r in truth])
    answer = answer[: len(steps)]
    code_inputs = {"readings": readings, "coordinate": locations, "timestamp": timestamps}
    return Instance(
        iid,
        task,
        tracking_prompt(task, locations, radius),
        answer,
        steps=steps,
        data=data,
        code_inputs=code_inputs,
        meta={"index": index},
    )


def _field_instance(folder: Path, index: int, task: str) -> Instance:
    path = folder / f"{index}.csv"
    if task in ("spatiotemporal_forecast", "spatiotemporal_impute"):
        # These files are not valid CSV (the answer list is unquoted); STARK reads them by line
        # (get_data.read_csv_line_by_line): the query is lines 2..-1, the answer the last line.
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        query = "".join(lines[2:-1])
        answer_text = lines[-1].replace('",', "")
        answer = np.fromstring(answer_text.replace("[", "").replace("]", ""), sep=",")
    else:
        row = _rows(path)[0]
        query = row["query"]
        answer = np.fromstring(str(row["answer"]).replace("[", "").replace("]", ""), sep=" ")
    query = query.replace("RESULT_", "RESULTS_")  # get_data: the field prompts say RESULT_START
    observed = np.load(folder / f"{index}.npy", allow_pickle=False)
    coords = np.load(folder / f"{index}_coords.npy", allow_pickle=False)
    data = {"observed": observed, "coords": coords}
    return Instance(
        f"{folder.name}/{index}",
        task,
        query,
        answer,
        data=data,
        code_inputs={"observed": observed, "coords": coords},
        meta={"index": index},
    )


def _qa_instance(folder: Path, index: int, task: str) -> Instance:
    row = _rows(folder / f"{index}.csv")[0]
    answer = np.fromstring(str(row["answer"]).replace("[", "").replace("]", ""), sep=" ")
    meta: dict = {"index": index}
    for key in ("i1", "i2"):
        if row.get(key):
            meta[key] = tuple(float(v) for v in row[key].strip("()").split(","))
    return Instance(f"{folder.parent.name}/{task}/{index}", task, row["query"], answer, meta=meta)


def _folders(root: Path) -> Iterable[tuple[Path, str, str | None]]:
    """(folder, task, noise) for every task folder present under `root`."""
    for entry in sorted(root.iterdir()):
        if not entry.is_dir():
            continue
        parsed = parse_sensor_folder(entry.name)
        if parsed:
            yield entry, parsed[0], parsed[2]
        elif entry.name in FIELD_TASKS:
            yield entry, entry.name, None
        elif entry.name in TIER_DIRS:
            for sub in sorted(p for p in entry.iterdir() if p.is_dir()):
                if sub.name not in TASKS:
                    raise ReleaseFormatError(f"{sub}: unknown STARK task folder {sub.name!r}")
                yield sub, sub.name, None


def load_release(
    root: str | Path,
    *,
    tasks: Iterable[str] | None = None,
    families: Iterable[str] | None = None,
    tiers: Iterable[int] | None = None,
    limit_per_task: int | None = None,
    tracking_steps: int = TRACKING_STEPS,
) -> list[Instance]:
    """Load every instance under `root` (the unpacked release or a generated copy).

    Filters: `tasks` (STARK task ids), `families`, `tiers`; `limit_per_task` keeps the first
    indices of each task folder. Missing or malformed files raise ReleaseFormatError naming them.
    """
    root = Path(root)
    if not root.is_dir():
        raise ReleaseFormatError(f"root: {root} is not a directory")
    wanted = set(tasks) if tasks is not None else None
    if wanted is not None and (unknown := wanted - set(TASKS)):
        raise ValueError(f"tasks: unknown STARK task(s) {sorted(unknown)}")
    fams = set(families) if families is not None else None
    tier_set = set(tiers) if tiers is not None else None
    out: list[Instance] = []
    for folder, task, noise in _folders(root):
        info = TASKS[task]
        if (
            (wanted is not None and task not in wanted)
            or (fams is not None and info.family not in fams)
            or (tier_set is not None and info.tier not in tier_set)
        ):
            continue
        suffix = "_sensor_location.csv" if noise is not None else ".csv"
        indices = _index_files(folder, suffix)
        if limit_per_task is not None:
            indices = indices[:limit_per_task]
        for index in indices:
            try:
                if noise is not None:
                    out.append(_sensor_instance(folder, index, task, noise, tracking_steps))
                elif task in FIELD_TASKS:
                    out.append(_field_instance(folder, index, task))
                else:
                    out.append(_qa_instance(folder, index, task))
            except (KeyError, IndexError, ValueError, OSError) as exc:
                raise ReleaseFormatError(f"{folder}/{index}: cannot read instance ({exc})") from exc
    return out


def unpack_release(archive: str | Path, dest: str | Path) -> Path:
    """Extract the release archive into `dest` once; return the folder holding the task folders."""
    dest = Path(dest)
    marker = dest / ".unpacked"
    if not marker.exists():
        safe_extract(archive, dest)  # no traversal, links or decompression bombs
        marker.write_text(str(archive))
    for candidate in [dest, *sorted(p for p in dest.iterdir() if p.is_dir())]:
        if any((candidate / name).is_dir() for name in TIER_DIRS):
            return candidate
    raise ReleaseFormatError(f"{archive}: no STARK task folders found after unpacking")
