"""The watermarks inside `transformers` generate() and the wm_detection benchmark end to end."""

import json

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList

from workers.benchmarks.watermark.corpus import load_corpus, sample_prompts
from workers.benchmarks.watermark.lm import CharTokenizer, sequence_nll
from workers.core import ConfigError, InMemoryRunContext, get_benchmark, get_method
from workers.methods.watermark import (
    HeavyWaterLogitsProcessor,
    RedGreenLogitsProcessor,
    SimplexWaterLogitsProcessor,
)

V = 48


@pytest.fixture(scope="module")
def tiny_llama():
    cfg = LlamaConfig(
        vocab_size=V,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
    )
    torch.manual_seed(0)
    return LlamaForCausalLM(cfg).eval()


@pytest.mark.parametrize(
    "make",
    [
        lambda: SimplexWaterLogitsProcessor(V, key=11),
        lambda: HeavyWaterLogitsProcessor(V, key=11, num_side_info=128),
        lambda: RedGreenLogitsProcessor(V, key=11),
    ],
)
def test_generate_with_processor_is_detected(tiny_llama, make):
    proc = make()
    prompt = torch.randint(0, V, (2, 6), generator=torch.Generator().manual_seed(3))
    torch.manual_seed(0)
    out = tiny_llama.generate(
        prompt,
        attention_mask=torch.ones_like(prompt),
        do_sample=True,
        top_k=0,
        top_p=1.0,
        temperature=1.0,
        max_new_tokens=40,
        logits_processor=LogitsProcessorList([proc]),
    )
    det = proc.detector()
    torch.manual_seed(0)
    plain = tiny_llama.generate(
        prompt,
        attention_mask=torch.ones_like(prompt),
        do_sample=True,
        top_k=0,
        top_p=1.0,
        temperature=1.0,
        max_new_tokens=40,
    )
    for row, p_row, u_row in zip(out, prompt, plain, strict=False):
        assert det.detect(row[6:].tolist(), p_row.tolist()).p_value < 0.01
        assert det.detect(u_row[6:].tolist(), p_row.tolist()).p_value > 1e-4


def test_sequence_nll_matches_manual(tiny_llama):
    prompt = torch.tensor([[1, 2, 3]])
    gen = torch.tensor([[4, 5]])
    with torch.no_grad():
        logits = tiny_llama(torch.tensor([[1, 2, 3, 4, 5]])).logits[0].double()
    lp = torch.log_softmax(logits, -1)
    manual = -(lp[2, 4] + lp[3, 5]) / 2
    assert float(sequence_nll(tiny_llama, prompt, gen)[0]) == pytest.approx(float(manual), rel=1e-5)


def test_corpus_and_tokenizer_round_trip():
    code, prose, digest = load_corpus()
    assert len(code) > 10000 and len(prose) > 1000 and len(digest) == 64
    tok = CharTokenizer(code + prose)
    assert tok.decode(tok.encode("def f(x):\n    return x")) == "def f(x):\n    return x"
    import numpy as np

    prompts = sample_prompts(code, 3, 20, np.random.default_rng(0))
    assert len(prompts) == 3 and all(len(p) == 20 for p in prompts)


def test_benchmark_end_to_end_tiny(tmp_path):
    bench = get_benchmark("wm_detection")(
        {
            "n_prompts": 2,
            "prompt_tokens": 8,
            "new_tokens": 16,
            "lm_train_steps": 3,
            "lm_hidden": 32,
            "lm_layers": 1,
            "attack_rates": [0.2],
            "sweep": True,
        }
    )
    ctx = InMemoryRunContext(seed=0, data_dir=tmp_path)
    bench.run(ctx, get_method("wm_simplexwater")())
    assert bench.primary_metric().name == "tpr_at_1fpr"
    assert 0.0 <= ctx.summary["tpr_at_1fpr"] <= 1.0
    for key in (
        "fpr",
        "tokens_to_p02",
        "kl_distortion",
        "perplexity",
        "tpr_code",
        "tpr_text",
        "tpr_sub_0.2",
        "tpr_del_0.2",
    ):
        assert key in ctx.summary
    done, total, _ = ctx.progress_updates[-1]
    assert done == total
    points = json.loads(ctx.artifacts["tradeoff_points"][0])
    assert [p["tilt_delta"] for p in points] == [0.0, 0.3, 0.6]
    # tilting trades distortion for detection: KL grows with the tilt
    assert points[-1]["kl"] > points[0]["kl"]
    assert ctx.artifacts["robustness"][1] == "application/vnd.plotly+json"
    assert "python-stdlib-text" in ctx.datasets
    # a temperature below 1 is applied before the watermark: the law it sees has lower entropy
    cold = InMemoryRunContext(seed=0, data_dir=tmp_path)
    small = {"sweep": False, "attack_rates": [], "null_keys": 1, "temperature": 0.4}
    get_benchmark("wm_detection")({**bench.config.model_dump(), **small}).run(
        cold, get_method("wm_simplexwater")()
    )
    for regime in ("code", "text"):
        assert cold.summary[f"entropy_{regime}"] < ctx.summary[f"entropy_{regime}"]
    # without a sweep the single trade-off point carries the configured knob value
    assert json.loads(cold.artifacts["tradeoff_points"][0]) == [
        {**json.loads(cold.artifacts["tradeoff_points"][0])[0], "tilt_delta": 0.0}
    ]
    red = InMemoryRunContext(seed=0, data_dir=tmp_path)
    get_benchmark("wm_detection")({**bench.config.model_dump(), **small}).run(
        red, get_method("wm_redgreen")({"delta": 3.0})
    )
    assert json.loads(red.artifacts["tradeoff_points"][0])[0]["delta"] == 3.0


def test_benchmark_config_errors_name_the_field():
    with pytest.raises(ConfigError, match="n_prompts"):
        get_benchmark("wm_detection").validate({"n_prompts": 0})
    with pytest.raises(ConfigError, match="attack_rates"):
        get_benchmark("wm_detection").validate({"attack_rates": [0.95]})
    with pytest.raises(ConfigError, match="temperature"):
        get_benchmark("wm_detection").validate({"temperature": 0.0})
    with pytest.raises(ConfigError, match="p_value"):
        get_method("wm_heavywater").validate({"p_value": "exact"})


def test_benchmark_generates_with_a_local_hf_directory(tmp_path):
    """`model_path`: any local Hugging Face causal LM (here a random Llama with a BPE tokenizer)."""
    from workers.models.lm.tokenizer import train_bpe_tokenizer
    from workers.models.tiny_llama import build_llama, tiny_test_config

    code, prose, _ = load_corpus()
    tok = train_bpe_tokenizer([code[:20000], prose[:20000]], vocab_size=300)
    cfg = tiny_test_config(hidden_size=32, num_layers=1, num_heads=2, intermediate_size=64)
    model = build_llama(
        cfg, len(tok), bos_id=tok.bos_token_id, eos_id=tok.eos_token_id, pad_id=tok.pad_token_id
    )
    model.save_pretrained(tmp_path / "hf")
    tok.save_pretrained(tmp_path / "hf")
    small = {"n_prompts": 1, "prompt_tokens": 6, "new_tokens": 12, "attack_rates": []}
    bench = get_benchmark("wm_detection")(
        {**small, "sweep": False, "null_keys": 2, "model_path": str(tmp_path / "hf")}
    )
    ctx = InMemoryRunContext(seed=0, data_dir=tmp_path)
    bench.run(ctx, get_method("wm_redgreen")({"delta": 8.0}))
    assert any("local model" in line for line in ctx.logs)
    assert ctx.summary["tpr_at_1fpr"] == 1.0  # delta 8 on a random model: every text detected
    with pytest.raises(ValueError, match="model_path"):
        get_benchmark("wm_detection")({**small, "model_path": str(tmp_path / "none")}).run(
            InMemoryRunContext(seed=0, data_dir=tmp_path), get_method("wm_redgreen")()
        )
