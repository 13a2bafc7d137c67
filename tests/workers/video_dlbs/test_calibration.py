import json

import numpy as np
import pytest

from workers.benchmarks.video_dlbs.calibration import (
    Calibration,
    calibrate,
    fit_bradley_terry,
    load_judgements,
    pairs_from_groups,
)

METRICS = ("a", "b", "c", "d", "e")


def test_calibration_recovers_known_weights_from_synthetic_judgements():
    rng = np.random.default_rng(0)
    w_true = np.array([0.4, -0.25, 0.15, 0.15, 0.05])
    X = rng.normal(size=(600, 5)) * np.array([1.0, 2.0, 0.5, 3.0, 1.0]) + 5
    Z = (X - X.mean(0)) / X.std(0)
    utility = Z @ w_true
    groups = np.repeat(np.arange(150), 4)
    ia, ib, pref = pairs_from_groups(groups, utility, rng, temperature=0.05)
    cal = calibrate(X, METRICS, ia, ib, pref, scores=utility)
    cos = cal.weights @ w_true / np.linalg.norm(cal.weights) / np.linalg.norm(w_true)
    assert cos > 0.98
    assert np.abs(cal.weights).sum() == pytest.approx(1.0)
    rep = cal.report
    assert rep["calibrated"]["pair_accuracy"] > rep["uncalibrated"]["pair_accuracy"]
    assert rep["calibrated"]["spearman"] > 0.95
    assert rep["per_metric"]["a"]["spearman"] > 0 > rep["per_metric"]["b"]["spearman"]
    again = Calibration.from_dict(json.loads(json.dumps(cal.as_dict())))
    vals = {m: X[:3, k] for k, m in enumerate(METRICS)}
    assert np.allclose(again.reward(vals).numpy(), cal.reward(vals).numpy())


def test_bradley_terry_on_noiseless_separable_pairs_points_the_right_way():
    rng = np.random.default_rng(1)
    d = rng.normal(size=(200, 2))
    pref = (d @ np.array([1.0, -2.0]) > 0).astype(float)
    w = fit_bradley_terry(d, pref)
    assert w[0] > 0 > w[1] and abs(w[1] / w[0] + 2) < 0.3


def test_judgement_files_pairwise_and_scored(tmp_path):
    rng = np.random.default_rng(2)
    pair = tmp_path / "pairs.jsonl"
    lines = []
    for _ in range(80):
        a, b = rng.normal(size=5), rng.normal(size=5)
        lines.append(
            json.dumps(
                {
                    "a": dict(zip(METRICS, a.tolist(), strict=True)),
                    "b": dict(zip(METRICS, b.tolist(), strict=True)),
                    "preferred": "a" if a[0] > b[0] else "b",
                }
            )
        )
    pair.write_text("\n".join(lines))
    X, ia, ib, pref, scores = load_judgements(pair, METRICS)
    assert X.shape == (160, 5) and len(ia) == 80 and scores is None
    cal = calibrate(X, METRICS, ia, ib, pref)
    assert np.argmax(np.abs(cal.weights)) == 0 and cal.weights[0] > 0

    scored = tmp_path / "scores.jsonl"
    scored.write_text(
        "\n".join(
            json.dumps(
                {
                    "group": f"p{i // 3}",
                    "metrics": dict(zip(METRICS, v.tolist(), strict=True)),
                    "score": float(v[2]),
                }
            )
            for i, v in enumerate(rng.normal(size=(30, 5)))
        )
    )
    X, ia, ib, pref, scores = load_judgements(scored, METRICS)
    assert len(scores) == 30 and len(ia) == 30  # 10 groups x 3 pairs
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"a": {"a": 1}, "b": {"a": 2}, "preferred": "a"}))
    with pytest.raises(ValueError, match="missing"):
        load_judgements(bad, METRICS)
