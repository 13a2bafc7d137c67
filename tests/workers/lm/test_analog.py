import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from workers.core import InMemoryRunContext, get_benchmark, get_method
from workers.methods.analog.distill import distillation_loss
from workers.methods.analog.fidelity import next_token_fidelity, spearman
from workers.methods.analog.probes import char_concepts, probe_accuracies
from workers.models.tiny_llama import load_tiny_llama


def test_distillation_loss_is_scaled_kl_plus_ce():
    g = torch.Generator().manual_seed(0)
    s, t = torch.randn(2, 5, 11, generator=g), torch.randn(2, 5, 11, generator=g)
    y = torch.randint(0, 11, (2, 5), generator=g)
    T = 2.0
    p_t = F.softmax(t / T, -1)
    kl = (p_t * (p_t.log() - F.log_softmax(s / T, -1))).sum(-1).mean()
    ce = F.cross_entropy(s.reshape(-1, 11), y.reshape(-1))
    got = distillation_loss(s, t, y, temperature=T, alpha=0.25)
    assert got.item() == pytest.approx((0.25 * T**2 * kl + 0.75 * ce).item(), rel=1e-5)
    with pytest.raises(ValueError, match="tokenizer"):
        distillation_loss(s, t[..., :10], y)


def test_fidelity_of_a_model_with_itself_and_a_perturbed_copy(tiny_model_dir):
    model, tok = load_tiny_llama(tiny_model_dir)
    stream = torch.randint(0, len(tok), (4 * 16 + 1,))
    same = next_token_fidelity(model, model, stream, seq_len=16)
    assert same["agreement"] == 1.0 and same["kl"] == pytest.approx(0.0, abs=1e-6)
    noisy = copy.deepcopy(model)
    with torch.no_grad():
        noisy.lm_head.weight.add_(torch.randn_like(noisy.lm_head.weight))
    other = next_token_fidelity(model, noisy, stream, seq_len=16)
    assert other["agreement"] < 1.0 and other["kl"] > 0.01


def test_char_concepts_follow_python_tokenize():
    src = 'x = 1  # note\nif x:\n        y = "s"\n'
    c = char_concepts(src)
    assert c["number"][src.index("1")] and c["comment"][src.index("note")]
    assert (
        c["keyword"][src.index("if")]
        and c["name"][src.index("y")]
        and not c["name"][src.index("if")]
    )
    assert c["string"][src.index('"s"') + 1] and c["deep_indent"][src.index("y")]
    assert not c["deep_indent"][0]


def test_probe_accuracy_high_for_linear_concept_and_chance_for_noise():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    acc = probe_accuracies(
        X, {"linear": X[:, 0] + 0.1 * X[:, 1] > 0, "noise": rng.random(600) > 0.5}
    )
    assert acc["linear"] > 0.9 and abs(acc["noise"] - 0.5) < 0.12
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


@pytest.mark.slow
def test_analog_benchmark_end_to_end(tiny_model_dir, tmp_path):
    import json

    max_chars = json.loads((tiny_model_dir / "training.json").read_text())["config"]["max_chars"]
    user_task = tmp_path / "quiz.jsonl"
    user_task.write_text('{"context": "import", "choices": [" os", " )("], "gold": 0}\n' * 3)
    bench = get_benchmark("analog_fidelity")(
        dict(
            teacher_path=str(tiny_model_dir),
            max_chars=max_chars,
            student_widths=(16,),
            student_layers=1,
            steps=3,
            batch_size=2,
            seq_len=16,
            eval_windows=2,
            mc_items=4,
            task_buckets=1,
            probe_tokens=200,
            task_files=str(user_task),
        )
    )
    ctx = InMemoryRunContext(data_dir=tmp_path)
    bench.run(ctx, get_method("analog_distill")())
    assert 0.0 <= ctx.summary["agreement"] <= 1.0 and ctx.summary["kl"] >= 0
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1]
    assert ctx.series("agreement")[0][0] == 16
    art = json.loads(ctx.artifacts["fidelity_vs_size"][0])
    assert "file:quiz" in art["teacher_tasks"]  # the user's JSONL task joins the suite
    assert [r["width"] for r in json.loads(ctx.artifacts["fidelity_rows"][0])] == [16]
    assert ctx.artifacts["fidelity_figure"][1] == "application/vnd.plotly+json"
