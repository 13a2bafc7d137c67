"""The benchmark end to end on a tiny configuration, through InMemoryRunContext."""

import json

import pytest
import torch

from workers.core import ConfigError, InMemoryRunContext, get_benchmark, get_method
from workers.models.video_diffusion.train import VideoModelConfig, get_or_train

TINY = {
    "model_steps": 4,
    "ae_steps": 4,
    "model_width": 8,
    "judge_steps": 4,
    "n_prompts": 2,
    "denoising_steps": 4,
    "budgets": [2, 4],
    "calibration_prompts": 3,
    "calibration_per_prompt": 3,
    "reference_samplers": ["dlbs-ddim", "dlbs-best-of-n", "dlbs-greedy"],
}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("video_dlbs_data")


def run(data_dir, method, seed=0, method_cfg=None, **over):
    ctx = InMemoryRunContext(seed=seed, data_dir=data_dir)
    bench = get_benchmark("video-dlbs")({**TINY, **over})
    bench.run(ctx, get_method(method)(method_cfg or {}))
    return ctx


def test_budget_experiment_end_to_end(data_dir):
    ctx = run(data_dir, "dlbs-lookahead")
    s = ctx.summary
    for key in (
        "calibrated_reward",
        "oracle_score",
        "text_accuracy",
        "nfe",
        "subject_consistency",
        "motion_smoothness",
        "dynamic_degree",
        "quality",
        "text_consistency",
        "calibrated_pair_accuracy",
        "uncalibrated_pair_accuracy",
    ):
        assert key in s, key
    assert s["nfe"] <= 4 * 4
    assert [x for x, _ in ctx.series("calibrated_reward")] == [2, 4]
    art = ctx.artifacts
    for name in (
        "videos/dlbs-lookahead.gif",
        "videos/dlbs-best-of-n.gif",
        "videos/side_by_side.gif",
    ):
        data, ctype = art[name]
        assert ctype == "image/gif" and data[:6] in (b"GIF89a", b"GIF87a")
    assert art["calibrated_reward_vs_budget.plotly.json"][1] == "application/vnd.plotly+json"
    fig = json.loads(art["calibrated_reward_vs_budget.plotly.json"][0])
    assert {t["name"] for t in fig["data"]} == {
        "dlbs-lookahead",
        "dlbs-ddim",
        "dlbs-best-of-n",
        "dlbs-greedy",
    }
    rows = json.loads(art["videos.json"][0])
    assert all(r["nfe"] <= r["budget"] or r["sampler"] == "dlbs-ddim" for r in rows)
    cal = json.loads(art["calibration.json"][0])
    assert set(cal["report"]["per_metric"]) == set(cal["metrics"])
    assert ctx.progress_updates[-1][0] == 100
    # the second run reuses the cached model, reward networks and calibration
    again = run(data_dir, "dlbs-best-of-n", reference_samplers=[], gifs=False)
    assert any("reusing cached video diffusion model" in line for line in again.logs)
    assert any("reusing cached calibration" in line for line in again.logs)
    assert again.summary["nfe"] == 4 * 4


def test_lookahead_and_steps_experiments(data_dir):
    ctx = run(
        data_dir,
        "dlbs-lookahead",
        experiment="lookahead",
        lookahead_values=[1, 3],
        lookahead_kb=2,
        reference_samplers=["dlbs", "dlbs-greedy"],
        gifs=False,
    )
    assert [x for x, _ in ctx.series("nfe")] == [1, 3]
    assert all(v <= 2 * 4 for _, v in ctx.series("nfe"))
    ctx = run(
        data_dir,
        "dlbs",
        experiment="steps",
        steps_values=[2, 4],
        steps_nfe=8,
        reference_samplers=[],
        gifs=False,
    )
    assert [x for x, _ in ctx.series("calibrated_reward")] == [2, 4]
    with pytest.raises(ValueError, match="lookahead"):
        run(data_dir, "dlbs-greedy", experiment="lookahead")


def test_judgement_file_calibration(data_dir, tmp_path):
    path = tmp_path / "judgements.jsonl"
    metrics = (
        "subject_consistency",
        "motion_smoothness",
        "dynamic_degree",
        "quality",
        "text_consistency",
    )
    g = torch.Generator().manual_seed(0)
    lines = []
    for i in range(40):
        vals = torch.rand(5, generator=g).tolist()
        lines.append(
            json.dumps(
                {
                    "group": str(i // 4),
                    "metrics": dict(zip(metrics, vals, strict=True)),
                    "score": vals[4],
                }
            )
        )
    path.write_text("\n".join(lines))
    ctx = run(
        data_dir,
        "dlbs-ddim",
        judgements_file=str(path),
        reference_samplers=[],
        gifs=False,
        budgets=[2],
    )
    cal = json.loads(ctx.artifacts["calibration.json"][0])
    assert cal["report"]["source"].startswith("judgement file")
    assert max(range(5), key=lambda k: abs(cal["weights"][k])) == 4


def test_config_validation():
    bench = get_benchmark("video-dlbs")
    with pytest.raises(ConfigError):
        bench.validate({"budgets": [0]})
    with pytest.raises(ConfigError):
        bench.validate({"model_width": 12})
    assert bench.validate({"budgets": [8, 2, 2]}).budgets == [2, 8]


def test_model_cache_and_interface(tmp_path):
    cfg = VideoModelConfig(ae_steps=2, steps=2, width=8)
    model, rec = get_or_train(cfg, cache_dir=tmp_path)
    again, rec2 = get_or_train(cfg, cache_dir=tmp_path)
    assert rec == rec2 and (tmp_path / cfg.cache_key() / "model.pt").is_file()
    z = torch.randn(3, *model.latent_shape)
    assert torch.equal(
        model.eps(z, 500, torch.tensor([0, 1, 2, 1])), again.eps(z, 500, torch.tensor([0, 1, 2, 1]))
    )
    assert model.decode(z).shape == (3, 8, 3, 32, 32)
    sched = model.schedule(10)
    assert sched.timesteps[0] == 999 and len(sched) == 10 and sched.alpha_after(9) == 1.0
