"""Meta-RFFT on a Hugging Face causal LM: a tiny local model directory, never a download."""

import json

import numpy as np
import pytest
import torch

from workers.benchmarks.metarfft.task import all_tasks
from workers.core import ConfigError, InMemoryRunContext, get_benchmark, get_method
from workers.methods.metarfft import RULE_FOLLOWING
from workers.methods.metarfft.hf import HFCausalLM, from_context_model
from workers.models.hf_local import HFLocalChatModel
from workers.models.lm.tokenizer import train_bpe_tokenizer
from workers.models.tiny_llama import build_llama, tiny_test_config

CFG = {
    "held_out_tasks": ["sub", "caesar"],
    "train_tasks": ["add", "duplicate_chars"],
    "train_max_length": 2,
    "eval_max_length": 3,
    "eval_per_length": 1,
    "pretrain_steps": 3,
    "batch_size": 2,
    "adapt_examples": 2,
    "adapt_steps": 1,
    "model_lr": 1e-2,
}


@pytest.fixture(scope="module")
def tiny_hf_dir(tmp_path_factory):
    """A randomly initialised Llama and a byte-level BPE tokenizer, saved in HF format."""
    rng = np.random.default_rng(0)
    tasks = all_tasks()
    texts = [
        RULE_FOLLOWING.prompt(t, x) + RULE_FOLLOWING.target(t, x)
        for t in tasks.values()
        for x in (t.instance(n, rng) for n in (1, 2, 3))
    ]
    tok = train_bpe_tokenizer(texts, vocab_size=300)
    cfg = tiny_test_config(hidden_size=32, num_layers=1, num_heads=2, intermediate_size=64)
    model = build_llama(
        cfg, len(tok), bos_id=tok.bos_token_id, eos_id=tok.eos_token_id, pad_id=tok.pad_token_id
    )
    path = tmp_path_factory.mktemp("tiny_hf")
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def _weights(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_batches_tokenise_with_the_models_tokenizer_and_mask_the_prompt(tiny_hf_dir):
    lm = HFCausalLM.from_pretrained(tiny_hf_dir)
    add, x = all_tasks()["add"], {"a": "12", "b": "34"}
    pairs = [(RULE_FOLLOWING.prompt(add, x), RULE_FOLLOWING.target(add, x)), ("Q:ab\nA:", ">ba\n")]
    ids, labels, mask = lm.make_batch(pairs)
    for row, (p, t) in enumerate(pairs):
        np_, nt = len(lm.encode_prompt(p)), len(lm.encode_target(t))
        assert mask[row].sum() == np_ + nt
        assert (labels[row, :np_] == -100).all() and (labels[row, np_ + nt :] == -100).all()
        assert lm.tokenizer.decode(labels[row, np_ : np_ + nt]) == t  # loss on the target only
        assert lm.tokenizer.decode(ids[row, :np_], skip_special_tokens=True) == p
    assert lm.n_tokens(pairs[0][0]) < len(pairs[0][0])  # BPE tokens, not characters


def test_hf_model_fits_pairs_and_completes_up_to_newline(tiny_hf_dir):
    lm = HFCausalLM.from_pretrained(tiny_hf_dir)
    before = _weights(lm.model)
    pairs = [("Q:ab\nA:", ">ba\n"), ("Q:cd\nA:", ">dc\n")]
    losses = []
    lm.train(
        lambda r, k: pairs,
        steps=60,
        batch=2,
        lr=1e-2,
        rng=np.random.default_rng(0),
        on_step=lambda s, loss: losses.append(loss),
    )
    assert losses[-1] < 0.2 * losses[0]
    assert any(not torch.equal(before[k], v) for k, v in lm.model.state_dict().items())
    assert lm.complete(["Q:ab\nA:", "Q:cd\nA:"], max_new=6) == [">ba", ">dc"]
    state = lm.snapshot()
    lm.train(
        lambda r, k: [("Q:ab\nA:", ">zz\n")],
        steps=3,
        batch=1,
        lr=1e-2,
        rng=np.random.default_rng(1),
    )
    lm.restore(state)
    assert all(torch.equal(state[k], v) for k, v in lm.model.state_dict().items())


def test_model_path_must_be_a_local_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="model_path"):
        HFCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
    with pytest.raises(FileNotFoundError, match="model_path"):
        get_benchmark("metarfft_lengthgen")({**CFG, "model_path": str(tmp_path)}).run(
            InMemoryRunContext(seed=0), get_method("metarfft")()
        )
    with pytest.raises(ConfigError, match="model_dtype"):
        get_benchmark("metarfft_lengthgen").validate({"model_dtype": "float8"})
    with pytest.raises(TypeError, match="ctx.model"):
        from_context_model(object())


@pytest.mark.parametrize("adaptation", ["finetune", "icl"])
def test_benchmark_end_to_end_from_model_path(tiny_hf_dir, adaptation):
    ctx = InMemoryRunContext(seed=0)
    get_benchmark("metarfft_lengthgen")(
        {**CFG, "model_path": str(tiny_hf_dir), "adaptation": adaptation}
    ).run(ctx, get_method("metarfft")())
    assert any("fine-tuning Hugging Face model" in line for line in ctx.logs)
    assert {"heldout_acc", "heldout_acc_long", "heldout_acc_short", "acc_sub", "acc_caesar"} <= set(
        ctx.summary
    )
    assert 0.0 <= ctx.summary["heldout_acc"] <= 1.0
    per_length = [r for r in ctx.metrics if "heldout_acc_at_length" in r.values]
    assert [r.step for r in per_length] == [1, 2, 3]
    table = json.loads(ctx.artifacts["accuracy_table"][0])
    assert set(table["curves"]) == {"sub", "caesar"} and len(table["curves"]["sub"]) == 3
    done, total, _ = ctx.progress_updates[-1]
    assert done == total


def test_benchmark_fine_tunes_the_runs_model(tiny_hf_dir):
    """The platform's hf_local adapter (.model/.tokenizer) passed as ctx.model is trained in place."""
    platform_model = HFLocalChatModel(tiny_hf_dir, device="cpu", dtype="float32")
    before = _weights(platform_model.model)
    ctx = InMemoryRunContext(seed=0, model=platform_model)
    get_benchmark("metarfft_lengthgen")(CFG).run(ctx, get_method("metarfft_direct")())
    after = platform_model.model.state_dict()
    delta = sum(float((after[k] - v).norm()) for k, v in before.items())
    assert delta > 0  # pre-training changed the weights (adaptation is undone per task)
    assert "heldout_acc" in ctx.summary and "pretrain_loss" in ctx.summary
    assert np.isfinite(ctx.summary["pretrain_loss"])
