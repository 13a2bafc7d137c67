"""The mellow_aqa benchmark end to end through InMemoryRunContext for every method, its metrics,
run-page artifacts, configuration errors and cancellation."""

import json

import pytest

from tests.workers.mellow.conftest import TINY_BENCH, TINY_ENC, TINY_LM, TINY_TRAIN
from workers.benchmarks.mellow_aqa import MellowAQABenchmark
from workers.benchmarks.mellow_aqa.evaluation import accuracy_rows, wilson
from workers.core import ConfigError, InMemoryRunContext, RunCancelled, registry
from workers.methods.mellow import AudioClassifierMethod, CaptionOnlyMethod, MellowMethod

METHODS = {
    "mellow": (MellowMethod, {**TINY_ENC, **TINY_TRAIN}),
    "caption_only_lm": (CaptionOnlyMethod, TINY_TRAIN),
    "audio_classifier": (AudioClassifierMethod, {**TINY_ENC, **TINY_TRAIN}),
}


def run(method, mellow_data_dir, seed=0, bench=None, decoder=None, **kw):
    cls, cfg = METHODS[method]
    if cls is not AudioClassifierMethod:
        cfg = {**cfg, **(decoder or {})}
    ctx = InMemoryRunContext(seed=seed, data_dir=mellow_data_dir, **kw)
    MellowAQABenchmark({**TINY_BENCH, **(bench or {})}).run(ctx, cls(cfg))
    return ctx


def test_registration_paper_and_documented_configs():
    assert registry._BENCHMARKS["mellow_aqa"] is MellowAQABenchmark
    for name, (cls, _) in METHODS.items():
        assert registry._METHODS[name] is cls and cls.benchmarks == ("mellow_aqa",)
    paper = MellowAQABenchmark.paper
    assert paper.claim_method == "mellow" and paper.claim_baseline in METHODS
    assert MellowAQABenchmark.primary_metric().name == "accuracy" == paper.claim_metric
    for cls in [MellowAQABenchmark] + [c for c, _ in METHODS.values()]:
        for field, prop in cls.config_schema()["properties"].items():
            assert prop.get("description") and "default" in prop, (cls.name, field)


@pytest.mark.parametrize("method", list(METHODS))
def test_synthetic_run_end_to_end(method, mellow_data_dir, tiny_hf_dir):
    ctx = run(
        method,
        mellow_data_dir,
        decoder={"decoder_source": "hf_dir", "decoder_path": str(tiny_hf_dir)},
    )
    s = ctx.summary
    for key in (
        "accuracy",
        "accuracy_id",
        "accuracy_ood",
        "accuracy_understanding",
        "accuracy_deductive",
        "accuracy_comparative",
        "chance_accuracy",
    ):
        assert 0.0 <= s[key] <= 1.0, key
    assert s["accuracy_ci_low"] <= s["accuracy"] <= s["accuracy_ci_high"]
    assert 0.25 < s["chance_accuracy"] < 0.5
    kinds = {name: kind for name, (_, kind) in ctx.artifacts.items()}
    assert kinds["accuracy_by_family"] == "application/vnd.plotly+json"
    assert kinds["examples/0_a.wav"] == "audio/x-wav" or kinds["examples/0_a.wav"].startswith(
        "audio"
    )
    assert kinds["examples/1_mel.png"] == "image/png"
    examples = json.loads(ctx.artifacts["examples.json"][0])
    assert len(examples) == 2 and {"question", "options", "model_answer", "reference"} <= set(
        examples[0]
    )
    table = json.loads(ctx.artifacts["accuracy_table"][0])
    assert {r["name"] for r in table if r["group"] == "split"} == {"id", "ood"}
    preds = json.loads(ctx.artifacts["test_predictions"][0])
    assert len(preds) == s["n_questions"]
    assert sum(p["correct"] for p in preds) == round(s["accuracy"] * s["n_questions"])
    assert "mellow-synthetic" in ctx.datasets
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1]
    assert ctx.series(next(k for k in ctx.metrics[0].values))  # a training-loss curve


@pytest.mark.slow
@pytest.mark.parametrize("method", ["mellow", "caption_only_lm"])
def test_run_with_the_tiny_decoder_pretrained_here(method, mellow_data_dir):
    ctx = run(method, mellow_data_dir, decoder=TINY_LM)
    assert 0 <= ctx.summary["accuracy"] <= 1
    assert any("corpus-stdlib_docstrings" in d for d in ctx.datasets) or any(
        "tiny llama" in line for line in ctx.logs
    )


def test_same_seed_same_data_for_every_run(tmp_path):
    def data(seed):
        ctx = InMemoryRunContext(seed=seed, data_dir=tmp_path)
        split = MellowAQABenchmark(TINY_BENCH).build_split(ctx)
        return ctx.datasets["mellow-synthetic"], [it.question for it in split.test]

    assert data(4) == data(4)
    assert data(4)[0] != data(5)[0]


def test_wilson_interval_and_accuracy_rows():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0


def test_accuracy_rows_count_correct_predictions():
    from workers.benchmarks.mellow_aqa.items import AQAItem

    items = [
        AQAItem(
            f"q{i}",
            "a",
            "a",
            "q",
            "x",
            "fam",
            options=["x", "y"],
            answer_index=0,
            split="id" if i < 2 else "ood",
        )
        for i in range(4)
    ]
    rows = {(r["group"], r["name"]): r for r in accuracy_rows(items, [0, 1, 0, 0])}
    assert rows["overall", "all"]["accuracy"] == 0.75
    assert rows["split", "id"]["accuracy"] == 0.5 and rows["split", "ood"]["accuracy"] == 1.0


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"source": "esc50"}, "source"),
        ({"source": "clotho"}, "data_root"),
        ({"ood_source": "clotho"}, "ood_root"),
        ({"synthetic_share": 1.5}, "synthetic_share"),
        ({"n_train_clips": 1}, "n_train_clips"),
        ({"seconds": 1.0}, "seconds"),
        ({"n_tests": 3}, "n_tests"),
    ],
)
def test_benchmark_config_errors_name_the_field(bad, field):
    with pytest.raises(ConfigError) as err:
        MellowAQABenchmark(bad)
    assert any(field in key or field in " ".join(v) for key, v in err.value.errors.items())


@pytest.mark.parametrize(
    "cls, bad, field",
    [
        (MellowMethod, {"projection": "qformer"}, "projection"),
        (MellowMethod, {"decoder_source": "hf_dir"}, "decoder_path"),
        (MellowMethod, {"lm_hidden": 30, "lm_heads": 4}, "lm_heads"),
        (MellowMethod, {"n_mels": 40}, "n_mels"),
        (CaptionOnlyMethod, {"captions": "gold"}, "captions"),
        (AudioClassifierMethod, {"steps": 0}, "steps"),
    ],
)
def test_method_config_errors_name_the_field(cls, bad, field):
    with pytest.raises(ConfigError) as err:
        cls(bad)
    assert any(field in key or field in " ".join(v) for key, v in err.value.errors.items())


def test_cancellation_stops_training(mellow_data_dir):
    with pytest.raises(RunCancelled):
        run("audio_classifier", mellow_data_dir, cancel_after=0)
