from __future__ import annotations

import csv
from collections import Counter

import numpy as np
import pytest

from workers.benchmarks.stark.catalogue import SPATIAL_TASKS, TASKS, TEMPORAL_TASKS
from workers.benchmarks.stark.importer import ReleaseFormatError, load_release


def test_sample_has_every_family_and_four_instances_per_folder(sample):
    families = Counter(i.family for i in sample)
    assert families == {
        "localization": 28,
        "tracking": 28,
        "field": 16,
        "spatial": 148,
        "temporal": 52,
        "spatiotemporal": 284,
        "world_knowledge": 28,
    }
    per_task = Counter(i.task for i in sample)
    assert set(per_task.values()) == {4}
    assert {t for t in SPATIAL_TASKS} <= set(per_task) and set(TEMPORAL_TASKS) <= set(per_task)
    assert len({i.id for i in sample}) == len(sample)


def test_localization_prompt_is_rebuilt_like_stark(sample, sample_dir):
    inst = next(i for i in sample if i.id == "localization_range_0.01/0")
    locs = np.loadtxt(
        sample_dir / "localization_range_0.01/0_sensor_location.csv", delimiter=",", skiprows=1
    )
    assert f"- Sensor A: [{locs[0, 0]:.2f}, {locs[0, 1]:.2f}]" in inst.prompt
    reading = np.loadtxt(
        sample_dir / "localization_range_0.01/0_sensor_0.csv", delimiter=",", skiprows=1
    )[0]
    assert f"The sensor readings are: {reading:.4f}, " in inst.prompt
    assert "[RESULTS_START] [x, y] [RESULTS_END]" in inst.prompt
    truth = np.loadtxt(
        sample_dir / "localization_range_0.01/0_object_location.csv", delimiter=",", skiprows=1
    )
    np.testing.assert_allclose(inst.answer, truth)
    # no ground truth or noiseless reading may appear in what the method sees
    assert f"{truth[0]:.4f}" not in inst.prompt


def test_tracking_instance_has_online_steps_and_ts_len_truth(sample):
    inst = next(i for i in sample if i.id == "tracking_range_bearing_[0.01, 0.01]/0")
    assert len(inst.steps) == 10 and inst.answer.shape == (10, 2)
    assert inst.steps[0].startswith("Step 0 | At time 0.0000, the sensor readings are [")
    assert "nan" in " ".join(inst.steps)  # missing readings are shown as STARK shows them
    assert inst.data["readings"].shape[1:] == (4, 2)
    event = next(i for i in sample if i.task == "track_event_temp_online")
    assert "At time" not in event.steps[0]  # event prompts carry no clock (it is the answer)
    assert event.answer.shape == (10, 1)


def test_field_answers_match_ground_truth_arrays(sample, sample_dir):
    for inst in (i for i in sample if i.family == "field"):
        folder, index = inst.id.split("/")
        gt = np.atleast_1d(np.load(sample_dir / folder / f"{index}_gt.npy"))
        np.testing.assert_allclose(inst.answer, gt, rtol=1e-9)
        assert "[RESULTS_START]" in inst.prompt and "RESULT_START" not in inst.prompt


def test_tier2_answers_and_intervals(sample, sample_dir):
    inst = next(
        i
        for i in sample
        if i.id == "tier2_v2_spatial_temporal/Linestring_Linestring_contains-during/0"
    )
    assert inst.meta["i1"] == (2.1225, 3.1429) and inst.meta["i2"] == (1.1378, 4.1099)
    with open(sample_dir / "tier2_v2_temporal/during/0.csv", newline="") as handle:
        row = next(csv.DictReader(handle))
    during = next(i for i in sample if i.id == "tier2_v2_temporal/during/0")
    assert during.prompt == row["query"] and during.answer.tolist() == [float(row["answer"])]
    assert "i1" not in during.without_answer().meta and during.without_answer().answer is None


def test_filters_and_errors(sample_dir, tmp_path):
    only = load_release(sample_dir, tiers=[1], limit_per_task=2)
    assert {i.tier for i in only} == {1} and max(Counter(i.task for i in only).values()) == 2
    assert {i.task for i in load_release(sample_dir, tasks=["meets"])} == {"meets"}
    with pytest.raises(ValueError, match="unknown STARK task"):
        load_release(sample_dir, tasks=["no_such_task"])
    with pytest.raises(ReleaseFormatError, match="not a directory"):
        load_release(tmp_path / "missing")
    broken = tmp_path / "localization_range_0.01"
    broken.mkdir()
    (broken / "0_sensor_location.csv").write_text("x,y\n1,2\n3,4\n5,6\n7,8\n")
    with pytest.raises(ReleaseFormatError, match="localization_range_0.01/0"):
        load_release(tmp_path)
    assert all(t in TASKS for t in {i.task for i in only})


def test_release_archive_download_and_unpack(tmp_path, generated):
    """The user path: archive URL + SHA-256 -> data cache -> unpacked -> instances (file:// here)."""
    import tarfile

    from workers.benchmarks.stark.importer import unpack_release
    from workers.benchmarks.stark.plugin import StarkBenchmark
    from workers.core import InMemoryRunContext
    from workers.core.data import ChecksumMismatch, fetch_url, sha256_file
    from workers.methods.stark_classical.plugin import StarkClassical

    archive = tmp_path / "data_final.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(
            generated / "localization_range_0.01", arcname="data_final_v5/localization_range_0.01"
        )
        tar.add(generated / "tier2_v2_temporal", arcname="data_final_v5/tier2_v2_temporal")
    digest = sha256_file(archive)
    got = fetch_url(archive.as_uri(), digest, tmp_path / "cache" / "a.tar.gz")
    root = unpack_release(got, tmp_path / "cache" / "release")
    assert root.name == "data_final_v5" and len(load_release(root)) == 14
    with pytest.raises(ChecksumMismatch):
        fetch_url(archive.as_uri(), "0" * 64, tmp_path / "cache" / "b.tar.gz")
    ctx = InMemoryRunContext(seed=0, data_dir=tmp_path / "data")
    StarkBenchmark(
        {"source": "release", "release_url": archive.as_uri(), "release_sha256": digest}
    ).run(ctx, StarkClassical({}))
    assert ctx.summary["n_instances"] == 14 and ctx.datasets["stark-release"] == digest
