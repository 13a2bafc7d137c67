"""The fast paths of STARK parsing and loading give exactly what the plain code gives."""

from __future__ import annotations

import ast
import csv
import re

import numpy as np
import pytest

from workers.benchmarks.stark.generators import write_release
from workers.benchmarks.stark.importer import ReleaseFormatError, _rows, load_release
from workers.benchmarks.stark.scoring import stark_parse


def _parse_reference(text):
    """distance.string_to_np_array as stark_parse implements it, always through literal_eval."""
    match = re.search(r"\[RESULTS_START\](.*?)\[RESULTS_END\]", text, re.DOTALL)
    if not match:
        return None
    s = match.group(1).strip()
    s = re.sub(r"\s+", ",", s)
    s = re.sub(r",+", ",", s)
    s = re.sub(r"\[,", "[", s)
    s = re.sub(r",\]", "]", s)
    s = re.sub(r"[^\d\.\[\]\,]", "", s)
    try:
        array = np.array(ast.literal_eval(s), dtype=float)
    except Exception:
        return None
    if array.size == 0 or np.isnan(array).any():
        return None
    return array


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


CONTENTS = [
    "[3.4033, 8.9561]",
    "[3.4033 8.9561]",
    "3.4033, 8.9561",
    "3.4033, 8.9561,",
    "(3.4033, 8.9561)",
    "1",
    "0",
    "[1]",
    "1,",
    " [ 1 ] ",
    "[]",
    "",
    "00",
    "007",
    "01.5",
    "1.",
    ".5",
    ".",
    "1.2.3",
    "1..2",
    "[1,2",
    "1,2]",
    "[[1, 2], [3, 4]]",
    "[[1, 2], [3]]",
    "1[2]",
    "x = -3.5e2, y = 4",
    "123456789012345",
    "1234567890123456",
    "98765432109876543210",
    "1" * 5000,
    "1" * 400 + ".0",
    "\u0663.5",  # an Arabic-Indic digit: kept by the filter, not a Python number
    "[1.5, \u0663]",
    "1,,2",
    ",1",
    "[,1]",
    "0.0, 0.00, 000.000",
]


@pytest.mark.parametrize("content", CONTENTS)
def test_stark_parse_matches_literal_eval_on_edge_cases(content):
    for text in (
        f"[RESULTS_START]{content}[RESULTS_END]",
        f"a\n[RESULTS_START]\n{content}\n[RESULTS_END]",
    ):
        assert _same(stark_parse(text), _parse_reference(text)), content


def test_stark_parse_matches_literal_eval_on_random_text():
    rng = np.random.default_rng(0)
    alphabet = list("0123456789" * 3 + ".,[] " * 2 + "-e\n\t") + ["\u0663", "nan"]
    fast = 0
    for _ in range(4000):
        body = "".join(rng.choice(alphabet, size=int(rng.integers(0, 14))))
        text = f"[RESULTS_START]{body}[RESULTS_END]"
        ref = _parse_reference(text)
        assert _same(stark_parse(text), ref), repr(body)
        fast += ref is not None
    assert fast > 300  # many random strings are readable numbers, not only failures
    for _ in range(1000):  # well-formed flat answers, as models print them
        values = rng.random(int(rng.integers(1, 8))) * 10.0 ** rng.integers(-3, 6)
        sep = [", ", " ", ",", "\n"][int(rng.integers(4))]
        body = sep.join(f"{v:.{int(rng.integers(0, 6))}f}" for v in values)
        for content in (body, f"[{body}]", f"{body},"):
            text = f"[RESULTS_START]{content}[RESULTS_END]"
            assert _same(stark_parse(text), _parse_reference(text)), content


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a,b\n",
        "a,b\n1,2\n",
        "a,b\n1,2\n\n3,4\n",
        "a,b,c\n1\n1,2,3,4,5\n",
        "\na,b\n1,2\n",
        'query,answer\n"multi\nline, with comma",[1 0]\n',
        "a,a,b\n1,2\n1,2,3\n",
    ],
)
def test_rows_are_csv_dictreader_rows(tmp_path, text):
    path = tmp_path / "f.csv"
    path.write_text(text, encoding="utf-8")
    with open(path, newline="", encoding="utf-8") as handle:
        expected = list(csv.DictReader(handle))
    assert _rows(path) == expected


def _readings_reference(folder, index, width, n_times):
    """The cell-by-cell fill of the tracking readings (one numpy assignment per cell)."""
    k_files = sorted(
        folder.glob(f"{index}_sensor_[0-9]*.csv"), key=lambda p: int(p.stem.split("_")[-1])
    )
    out = np.full((n_times, len(k_files), width), np.nan)
    for k, path in enumerate(k_files):
        with open(path, newline="", encoding="utf-8") as handle:
            for t, row in enumerate(csv.DictReader(handle)):
                cell = row["d"].strip()
                if not cell:
                    value = np.array([np.nan])
                elif cell.startswith("["):
                    value = np.array([float(v) for v in cell[1:-1].split()])
                else:
                    value = np.array([float(cell)])
                out[t, k, : value.size] = value
    return out[..., 0] if width == 1 else out


def _check_tracking_readings(root):
    checked = 0
    for inst in load_release(root, families=["tracking"]):
        folder = root / inst.id.split("/")[0]
        width = 2 if inst.data["modality"] == "range_bearing" else 1
        ref = _readings_reference(folder, inst.meta["index"], width, len(inst.data["timestamps"]))
        assert np.array_equal(inst.data["readings"], ref, equal_nan=True), inst.id
        checked += 1
    return checked


def test_tracking_readings_match_cell_by_cell_fill(tmp_path, sample_dir):
    assert _check_tracking_readings(sample_dir) == 28
    root = write_release(
        tmp_path / "gen",
        seed=3,
        per_task=2,
        tasks=["track_range_bearing_online", "track_bearing_online"],
    )
    # a missing range+bearing pair, and a missing bearing: NaN where the cell is empty
    rb = next(root.glob("tracking_range_bearing_*"))
    path = rb / "0_sensor_1.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    cols = lines[3].split(",")
    lines[3] = ",".join([cols[0], "", *cols[2:]])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _check_tracking_readings(root) == 4
    inst = next(
        i
        for i in load_release(rb.parent, tasks=["track_range_bearing_online"])
        if i.meta["index"] == 0
    )
    assert np.isnan(inst.data["readings"][2, 1]).all()
    # a cell wider than the modality is still a format error
    lines[3] = ",".join([cols[0], "[ 1.0 2.0 3.0]", *cols[2:]])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReleaseFormatError, match="0_sensor|/0"):
        load_release(root, tasks=["track_range_bearing_online"])
