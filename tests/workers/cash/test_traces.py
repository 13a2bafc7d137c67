"""Real-arm traces: reproducible builds, caching, hashing, search spaces."""

import json

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from workers.benchmarks.cash import traces as traces_mod
from workers.benchmarks.cash.search_spaces import (
    SPACES,
    build_estimator,
    load_dataset,
    sample_config,
)
from workers.benchmarks.cash.traces import TraceCache, TraceKey, dataset_sha256, traces_sha256

KEY = TraceKey("iris", "knn", 4, 0, 0.3, "accuracy")


def test_second_get_hits_the_cache(tmp_path, monkeypatch):
    cache = TraceCache(tmp_path)
    steps = []
    trace, hit = cache.get(KEY, steps.append)
    assert not hit and steps == [1, 2, 3, 4]
    assert cache.path(KEY).is_file()
    assert all(0.0 <= s <= 1.0 for s in trace["scores"]) and len(trace["configs"]) == 4

    def no_build(*args, **kwargs):
        raise AssertionError("cache miss: the trace was rebuilt")

    monkeypatch.setattr(traces_mod, "build_trace", no_build)
    again, hit = TraceCache(tmp_path).get(KEY)
    assert hit and again["scores"] == trace["scores"]


def test_build_is_reproducible_and_scores_match_sklearn():
    from sklearn.model_selection import train_test_split

    a, b = traces_mod.build_trace(KEY), traces_mod.build_trace(KEY)
    assert a["scores"] == b["scores"] and a["configs"] == b["configs"]
    X, y = load_dataset("iris")
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    est = build_estimator("knn", a["configs"][0]).fit(X_tr, y_tr)
    assert a["scores"][0] == pytest.approx(est.score(X_va, y_va))


def test_corrupt_or_mismatched_cache_file_is_rebuilt(tmp_path):
    cache = TraceCache(tmp_path)
    cache.path(KEY).write_text("{not json")
    assert cache.load(KEY) is None
    trace, hit = cache.get(KEY)
    assert not hit and json.loads(cache.path(KEY).read_text())["scores"] == trace["scores"]


def test_trace_hash_changes_with_content():
    trace = traces_mod.build_trace(KEY)
    h = traces_sha256({"knn": trace})
    assert h == traces_sha256({"knn": json.loads(json.dumps(trace))})
    changed = dict(trace, scores=[s + 0.01 for s in trace["scores"]])
    assert traces_sha256({"knn": changed}) != h
    assert len(dataset_sha256("iris")) == 64


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("model", sorted(SPACES))
def test_every_search_space_fits(model):
    X, y = load_dataset("iris")
    config = sample_config(model, np.random.default_rng(0))
    json.dumps(config)  # configs are stored as JSON
    with threadpool_limits(1):  # OpenMP oversubscription on shared CPUs slows boosting ~30x
        est = build_estimator(model, config, seed=0).fit(X, y)
    assert est.predict(X[:3]).shape == (3,)


def test_unknown_names():
    with pytest.raises(ValueError, match="dataset"):
        load_dataset("mnist")
    with pytest.raises(ValueError, match="model"):
        sample_config("xgboost", np.random.default_rng(0))
    with pytest.raises(ValueError, match="scoring"):
        traces_mod.build_trace(TraceKey("iris", "knn", 2, 0, 0.3, "f1"))
