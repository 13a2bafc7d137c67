from __future__ import annotations

import numpy as np
import pytest

from workers.benchmarks.stark.catalogue import TASKS
from workers.benchmarks.stark.generators import write_release
from workers.benchmarks.stark.importer import load_release
from workers.benchmarks.stark.scoring import score_instance
from workers.core.data import sha256_tree
from workers.methods.stark_classical import allen, geometry
from workers.methods.stark_classical.solver import solve_tier1, solve_tier2


def test_every_tier1_and_tier2_task_round_trips(generated):
    instances = load_release(generated)
    tasks = {i.task for i in instances}
    expected = {t for t, info in TASKS.items() if info.tier < 3}
    assert expected - tasks == set()
    for i in instances:
        assert i.answer is not None and np.isfinite(i.answer).all()
        assert "[RESULTS_START]" in i.prompt
        if i.family == "tracking":
            assert len(i.steps) == 10 and i.answer.shape[0] == 10
        # every instance can be answered and scored through the same path as the release
        text = solve_tier2(i) if i.tier == 2 else solve_tier1(i)
        assert score_instance(i, text).parsed


def test_generated_sensor_readings_follow_the_stated_noise_model(generated):
    for i in load_release(generated, families=["localization"]):
        s, z, truth = i.data["sensor_locations"], i.data["readings"], i.answer
        if i.task == "loc_range":
            d = np.linalg.norm(truth - s, axis=1)
            assert np.all(np.abs(z / d - 1) <= 0.01 + 1e-12)
        if i.task == "loc_region":
            np.testing.assert_array_equal(
                z, (np.linalg.norm(truth - s, axis=1) <= 4.0).astype(float)
            )
        if i.task == "loc_event_spatio_temp":
            t = truth[2] + np.linalg.norm(truth[:2] - s, axis=1) / 5.0
            assert np.all(np.abs(z - t) <= 0.01 + 1e-12)


def test_generated_tier2_labels_are_the_exact_relations(generated):
    for i in load_release(generated, families=["temporal", "spatial"]):
        if i.family == "temporal":
            iv1, name, iv2 = geometry.parse_temporal(i.prompt)
            # the printed intervals are rounded; the label was computed before rounding
            assert allen.holds(name, iv1, iv2, eps=1e-4) == bool(i.answer[0])
        else:
            k1, c1, pred, k2, c2 = geometry.parse_spatial(i.prompt)
            assert geometry.spatial_holds(pred, k1, c1, k2, c2, tol=1e-4) == bool(i.answer[0]), i.id


def test_seeded_and_parameterised(tmp_path):
    a = write_release(tmp_path / "a", seed=3, per_task=1, tasks=["loc_range", "meets"])
    b = write_release(tmp_path / "b", seed=3, per_task=1, tasks=["loc_range", "meets"])
    c = write_release(tmp_path / "c", seed=4, per_task=1, tasks=["loc_range", "meets"])
    assert sha256_tree(a) == sha256_tree(b) != sha256_tree(c)
    five = write_release(
        tmp_path / "d", seed=1, per_task=1, noise=0.1, n_sensors=5, tasks=["loc_range"]
    )
    (inst,) = load_release(five)
    assert inst.id == "localization_range_0.1/0" and inst.data["sensor_locations"].shape == (5, 2)
    assert "There are five sensors" in inst.prompt and "- Sensor E:" in inst.prompt
    with pytest.raises(ValueError, match="tier-3"):
        write_release(tmp_path / "e", tasks=["poi_pred"])
    with pytest.raises(ValueError, match="noise"):
        write_release(tmp_path / "f", noise=2.0)
