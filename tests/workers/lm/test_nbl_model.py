import copy

import pytest
import torch

from workers.core import InMemoryRunContext, get_benchmark, get_method
from workers.methods.nbl.calibrate import collect_layer_stats
from workers.methods.nbl.linear_fit import cca_bound, fit_lmmse, lmmse_mse, stats_from_samples
from workers.methods.nbl.modules import drop_attention_layers, linearize_layers
from workers.methods.nbl.speed import measure_generation
from workers.models.tiny_llama import load_tiny_llama


@pytest.fixture(scope="module")
def model_tok(tiny_model_dir):
    return load_tiny_llama(tiny_model_dir)


def _random_fit(d, seed):
    g = torch.Generator().manual_seed(seed)
    return 0.1 * torch.randn(d, d, generator=g), 0.1 * torch.randn(d, generator=g)


def test_fully_linearised_model_matches_manual_computation(model_tok):
    model, _ = model_tok
    d, L = model.config.hidden_size, model.config.num_hidden_layers
    fits = {i: _random_fit(d, i) for i in range(L)}
    lin = linearize_layers(copy.deepcopy(model), fits)
    ids = torch.randint(0, model.config.vocab_size, (2, 12))
    with torch.no_grad():
        h = model.model.embed_tokens(ids)
        for i, layer in enumerate(model.model.layers):
            W, b = fits[i]
            h = h + h @ W.T + b  # h <- h + W h + b replaces norm + attention
            h = h + layer.mlp(layer.post_attention_layernorm(h))
        expected = model.lm_head(model.model.norm(h))
        got = lin(input_ids=ids, use_cache=False).logits
    assert torch.allclose(got, expected, atol=1e-5)


def test_one_linearised_layer_given_its_input(model_tok):
    model, _ = model_tok
    W, b = _random_fit(model.config.hidden_size, 7)
    lin = linearize_layers(copy.deepcopy(model), {1: (W, b)})
    ids = torch.randint(0, model.config.vocab_size, (1, 10))
    with torch.no_grad():
        hs = lin(input_ids=ids, output_hidden_states=True, use_cache=False).hidden_states
        layer = lin.model.layers[1]
        h = hs[1] + hs[1] @ W.T + b
        expected = h + layer.mlp(layer.post_attention_layernorm(h))
        # layers before the replaced one are untouched
        ref = model(input_ids=ids, output_hidden_states=True, use_cache=False).hidden_states
    assert torch.allclose(hs[2], expected, atol=1e-5)
    assert torch.allclose(hs[1], ref[1], atol=1e-6)


def test_calibration_hooks_capture_the_residual_stream_and_attention_output(model_tok):
    """X = residual stream entering block i, Y = self_attn output (after o_proj), checked by
    recomputing each block by hand; on these real activations the LMMSE error is below the CCA
    MSE bound and below dropping the block (predicting Y = 0)."""
    model, _ = model_tok
    ids = torch.randint(
        0, model.config.vocab_size, (2, 12), generator=torch.Generator().manual_seed(5)
    )
    stats = collect_layer_stats(model, [ids])
    layers = model.model.layers
    with torch.no_grad():
        hs = model(input_ids=ids, output_hidden_states=True, use_cache=False).hidden_states
        pos = torch.arange(ids.shape[1])[None].expand(ids.shape[0], -1)
        for i, layer in enumerate(layers):
            X = hs[i]
            Y = layer.self_attn(
                hidden_states=layer.input_layernorm(X),
                position_embeddings=model.model.rotary_emb(X, pos),
                attention_mask=None,
            )[0]
            if i + 1 < len(layers):  # the hand-computed Y reproduces the next hidden state
                Z = X + Y
                assert torch.allclose(
                    Z + layer.mlp(layer.post_attention_layernorm(Z)), hs[i + 1], atol=1e-5
                )
            ref = stats_from_samples(X, Y)
            assert stats[i].n == ref.n
            for name in ("sum_x", "sum_y", "sxx", "syx", "syy"):
                assert torch.allclose(getattr(stats[i], name), getattr(ref, name), atol=1e-6)
            W, b = fit_lmmse(stats[i], ridge=0.0)
            mse = lmmse_mse(stats[i], W, b)
            drop = lmmse_mse(stats[i], torch.zeros_like(W), torch.zeros_like(b))
            assert mse <= cca_bound(stats[i]).mse_bound and mse < drop


def test_replaced_layers_keep_no_kv_cache_and_decoding_stays_exact(model_tok):
    model, _ = model_tok
    L = model.config.num_hidden_layers
    stats = collect_layer_stats(model, [torch.randint(0, model.config.vocab_size, (4, 16))])
    assert set(stats) == set(range(L)) and all(s.n == 64 for s in stats.values())
    lin = linearize_layers(copy.deepcopy(model), {0: _random_fit(model.config.hidden_size, 1)})
    drop_attention_layers(lin, [2])
    prompt = torch.randint(0, model.config.vocab_size, (1, 8))
    base = measure_generation(model, prompt, decode_tokens=3, repeats=1)
    small = measure_generation(lin, prompt, decode_tokens=3, repeats=1)
    assert small["kv_cache_bytes"] == base["kv_cache_bytes"] * (L - 2) / L
    # cached greedy decoding equals argmax of full recomputation
    out = lin.generate(prompt, max_new_tokens=4, do_sample=False)
    with torch.no_grad():
        full = lin(input_ids=out, use_cache=False).logits[0, 7:-1].argmax(-1)
    assert torch.equal(full, out[0, 8:])


def test_nbl_benchmark_end_to_end(tiny_model_dir, tmp_path):
    import json

    from workers.models.tiny_llama import TinyLlamaConfig

    # Point the benchmark at the session's tiny model so no second model is trained.
    cfg = TinyLlamaConfig(**json.loads((tiny_model_dir / "training.json").read_text())["config"])
    user_task = tmp_path / "mine.jsonl"
    user_task.write_text(
        '{"context": "def f(x):\\n    return", "choices": [" x", " ]]"], "gold": 0}\n'
        '{"context": "import", "choices": [" os", " )("], "gold": 0}\n'
    )
    common = dict(
        model_path=str(tiny_model_dir),
        tiny_max_chars=cfg.max_chars,
        seq_len=32,
        calib_windows=16,
        eval_windows=4,
        mc_items=4,
        task_files=str(user_task),
        prompt_len=8,
        decode_tokens=2,
        speed_repeats=1,
    )
    ctx = InMemoryRunContext(data_dir=tmp_path)
    get_benchmark("nbl_linearize")(common).run(ctx, get_method("nbl")())
    assert "ppl_at_k" in ctx.summary and ctx.summary["ppl_at_k"] > 1
    assert ctx.summary["kv_cache_ratio"] == pytest.approx(0.5)  # k = L // 2 of 4 layers
    done, total, _ = ctx.progress_updates[-1]
    assert done == total
    assert [s for s, _ in ctx.series("ppl")] == [0, 1, 2, 3, 4]
    assert {"nbl_vs_k", "layer_sensitivity", "bound_vs_loss"} <= set(ctx.artifacts)
    sens = json.loads(ctx.artifacts["layer_sensitivity"][0])
    assert [r["layer"] for r in sens] == [0, 1, 2, 3]
    rows = {r["k"]: r for r in json.loads(ctx.artifacts["nbl_rows"][0])}
    assert "acc_file:mine" in rows[0]  # the user's JSONL task is part of the MC suite
    # the NBL choice at k = 1 is the block with the lowest CCA bound
    assert rows[1]["layers"] == [min(sens, key=lambda r: r["cca_bound"])["layer"]]

    # the LLM-Drop baseline on the same model: same original, k blocks removed (the random
    # baseline differs only in `select`, covered by test_select_layers_orders)
    fast = get_benchmark("nbl_linearize")({**common, "layer_sensitivity": False, "k_values": [2]})
    bctx = InMemoryRunContext(data_dir=tmp_path)
    fast.run(bctx, get_method("nbl_llm_drop")())
    brows = {r["k"]: r for r in json.loads(bctx.artifacts["nbl_rows"][0])}
    assert sorted(brows) == [0, 2] and len(brows[2]["layers"]) == 2
    assert brows[0]["ppl"] == pytest.approx(rows[0]["ppl"])
    assert bctx.summary["kv_cache_ratio"] == pytest.approx(0.5)
    with pytest.raises(FileNotFoundError, match="task_files"):
        get_benchmark("nbl_linearize")({**common, "task_files": str(tmp_path / "none.jsonl")}).run(
            InMemoryRunContext(data_dir=tmp_path), get_method("nbl")()
        )
