"""STARK on the platform: hidden-test prediction uploads, sharded evaluation merged into one
result, and per-task leaderboard columns. Reads the shared STARK sample."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.runs.models import Artifact, Run
from workers.core.data import shared_data_dir

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        shared_data_dir() is None or not (shared_data_dir() / "stark-sample").is_dir(),
        reason="../shared/data/stark-sample is not available",
    ),
]

TIER2 = {"tier": 2, "families": "temporal"}


def _truths(split: str) -> dict[str, str]:
    """Ground-truth answers of the temporal tier-2 sample instances, read as the importer does."""
    from workers.benchmarks.stark.importer import load_release
    from workers.benchmarks.stark.plugin import split_of

    instances = load_release(
        shared_data_dir() / "stark-sample", tiers=[2], families=["temporal"], limit_per_task=1
    )
    return {i.id: i for i in instances if split == "all" or split_of(i.id) == split}


def test_plain_submission_of_upload_method_is_refused(api):
    response = api.post(
        "/api/runs/", {"benchmark": "stark", "method": "stark_predictions"}, format="json"
    )
    assert (
        response.status_code == 400
        and "predictions upload" in response.json()["errors"]["method"][0]
    )


def test_hidden_test_upload_is_scored_without_revealing_truth(api, eager):
    truths = _truths("test")
    assert truths, "the sample's temporal tasks have test-split instances"
    marker = "PLANTED-MARKER-7731"
    lines = [
        json.dumps({"id": iid, "answer": f"[RESULTS_START] {marker} [RESULTS_END]"})
        for iid in truths
    ]
    upload = SimpleUploadedFile("preds.jsonl", "\n".join(lines).encode())
    with eager(execute=True):
        response = api.post(
            "/api/benchmarks/stark/predictions/",
            {"file": upload, "benchmark_config": json.dumps(TIER2), "name": "all wrong"},
            format="multipart",
        )
    assert response.status_code == 201, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    assert run.status == "succeeded", run.error
    assert run.visibility == "team" and run.benchmark_config["split"] == "test"
    assert run.summary["success_rate"] == 0.0 and run.summary["n_instances"] == len(truths)
    # Nothing a user can read carries the ground truth.
    public = [a.name for a in Artifact.objects.filter(run=run, private=False)]
    assert "scores.json" not in public and "instances.json" in public
    instances = json.loads(api.get(f"/api/runs/{run.pk}/artifacts/instances.json/").getvalue())
    assert instances["hidden_ground_truth"] is True
    assert all("ground_truth" not in row and "success" not in row for row in instances["instances"])
    assert api.get(f"/api/runs/{run.pk}/artifacts/scores.json/").status_code == 404
    body = json.dumps(api.get(f"/api/runs/{run.pk}/").json()) + json.dumps(
        api.get(f"/api/runs/{run.pk}/events/").json()
    )
    for inst in truths.values():
        label = str(inst.answer.tolist() if hasattr(inst.answer, "tolist") else inst.answer)
        assert f'"ground_truth": {json.dumps(label)}' not in body


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"not json\n", "line 1: not JSON"),
        (b'{"id": "x", "answer": 3}\n', "'answer' must be a string"),
        (b'{"id": "x", "answer": "a"}\n{"id": "x", "answer": "b"}\n', "duplicate id"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"", "empty"),
    ],
)
def test_bad_prediction_files_name_the_reason(api, content, reason):
    response = api.post(
        "/api/benchmarks/stark/predictions/",
        {"file": SimpleUploadedFile("p.jsonl", content)},
        format="multipart",
    )
    assert response.status_code == 400
    assert reason in json.dumps(response.json()["errors"]), response.json()
    assert Run.objects.count() == 0


def test_sharded_evaluation_merges_to_the_unsharded_result(api, eager):
    with eager(execute=True):
        whole = api.post(
            "/api/runs/",
            {"benchmark": "stark", "method": "stark_classical", "benchmark_config": {"tier": 2}},
            format="json",
        ).json()
        sweep = api.post(
            "/api/sweeps/",
            {
                "benchmark": "stark",
                "method": "stark_classical",
                "benchmark_config": {"tier": 2},
                "shards": 3,
            },
            format="json",
        ).json()
    assert len(sweep["runs"]) == 3
    chunks = Run.objects.filter(sweep_id=sweep["id"], is_chunk=True)
    assert sorted(r.benchmark_config["chunk_index"] for r in chunks) == [0, 1, 2]
    merged = Run.objects.get(merged_from_id=sweep["id"])
    reference = Run.objects.get(pk=whole["id"])
    assert (
        merged.summary["n_instances"]
        == reference.summary["n_instances"]
        == sum(r.summary["n_instances"] for r in chunks)
    )
    assert merged.summary["success_rate"] == pytest.approx(reference.summary["success_rate"])
    board = api.get("/api/leaderboards/stark/").json()
    assert board["rows"][0]["seeds"] == 2, (
        "the whole run and the merged run; chunk runs are not rows"
    )
    assert (
        api.post(
            "/api/sweeps/", {"benchmark": "cash", "method": "maxucb", "shards": 2}, format="json"
        ).status_code
        == 400
    )


def test_per_task_columns(api, eager):
    with eager(execute=True):
        api.post(
            "/api/runs/",
            {"benchmark": "stark", "method": "stark_classical", "benchmark_config": TIER2},
            format="json",
        )
    board = api.get("/api/leaderboards/stark/?columns=all").json()
    names = [m["name"] for m in board["metrics"]]
    assert names[0] == "success_rate" and any(n.startswith("accuracy__") for n in names)
    task = next(n for n in names if n.startswith("accuracy__"))
    assert api.get(f"/api/leaderboards/stark/?columns=all&sort={task}").status_code == 200


def test_runs_record_each_task_as_a_dataset_version(api, eager):
    with eager(execute=True):
        run_id = api.post(
            "/api/runs/",
            {"benchmark": "stark", "method": "stark_classical", "benchmark_config": TIER2},
            format="json",
        ).json()["id"]
    run = Run.objects.get(pk=run_id)
    names = {v.dataset.name for v in run.dataset_versions.all()}
    assert any(n.startswith("stark-tier2_v2_temporal") for n in names) and "stark-sample" in names
    assert all(len(v.content_hash) == 64 for v in run.dataset_versions.all())
    with eager(execute=True):
        again = api.post(
            "/api/runs/",
            {
                "benchmark": "stark",
                "method": "stark_classical",
                "benchmark_config": TIER2,
                "seed": 1,
            },
            format="json",
        ).json()["id"]
    assert set(Run.objects.get(pk=again).dataset_versions.all()) == set(run.dataset_versions.all())


def test_leaderboard_page_upload_form_scores_a_file(client, user, synced, eager):
    """The UI path: the benchmark page shows the upload form; posting a file creates a scored
    run on the hidden split and leads to its page, which shows no ground truth."""
    truths = _truths("test")
    client.force_login(user)
    page = client.get("/benchmarks/stark/")
    assert page.status_code == 200 and b"predictions-card" in page.content
    first = next(iter(truths))
    upload = SimpleUploadedFile(
        "preds.jsonl",
        json.dumps({"id": first, "answer": "[RESULTS_START] [1] [RESULTS_END]"}).encode(),
    )
    with eager(execute=True):
        response = client.post(
            "/benchmarks/stark/predictions/",
            {"file": upload, "split": "test", "name": "one answer"},
        )
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"/{run.pk}/")
    assert run.status == "succeeded" and run.benchmark_config["split"] == "test"
    # every test-split instance is scored; the ones without a prediction are failures
    assert run.summary["n_missing"] == run.summary["n_instances"] - 1
    detail = client.get(response["Location"]).content.decode()
    assert "ground_truth" not in detail
    bad = client.post(
        "/benchmarks/stark/predictions/",
        {"file": SimpleUploadedFile("p.jsonl", b"not json\n"), "split": "test"},
    )
    assert bad.status_code == 302 and Run.objects.count() == 1
