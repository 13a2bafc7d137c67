import math

import pytest
import torch
import torch.nn.functional as F

from workers.benchmarks.lm_pretrain.benchmark import tokens_to_target
from workers.core import InMemoryRunContext, get_benchmark, get_method
from workers.models.lm.evaluate import MCItem, loglikelihood, score_multiple_choice, stream_nll
from workers.models.lm.tasks import TASKS, generate_task, load_mc_jsonl
from workers.models.tiny_llama import load_tiny_llama


@pytest.fixture(scope="module")
def model_tok(tiny_model_dir):
    return load_tiny_llama(tiny_model_dir)


def test_loglikelihood_matches_explicit_token_by_token_sum(model_tok):
    model, tok = model_tok
    context, continuation = "def add(a, b):\n    ", "return a + b"
    ((ll, _),) = loglikelihood(model, tok, [(context, continuation)])
    # brute force: the harness moves trailing spaces of the context into the continuation
    ctx_ids = tok("def add(a, b):\n", add_special_tokens=False)["input_ids"]
    whole = tok("def add(a, b):\n    return a + b", add_special_tokens=False)["input_ids"]
    ids = [tok.bos_token_id] + whole
    expected = 0.0
    with torch.no_grad():
        for pos in range(1 + len(ctx_ids), len(ids)):
            logits = model(input_ids=torch.tensor([ids[:pos]]), use_cache=False).logits[0, -1]
            expected += F.log_softmax(logits, -1)[ids[pos]].item()
    assert ll == pytest.approx(expected, abs=1e-4)


def test_multiple_choice_argmax_and_byte_normalisation(model_tok):
    model, tok = model_tok
    # non-ASCII choices: characters (acc_norm) and UTF-8 bytes (acc_bytes) differ
    item = MCItem("x = ", ("1", "'\u00e9\u00e9\u00e9'", "print(1)"), gold=0)
    lls = [ll for ll, _ in loglikelihood(model, tok, [(item.context, c) for c in item.choices])]
    for gold in range(3):
        res = score_multiple_choice(model, tok, [MCItem(item.context, item.choices, gold)])
        assert res["acc"] == float(max(range(3), key=lls.__getitem__) == gold)
        per_char = [s / len(c) for s, c in zip(lls, item.choices, strict=True)]
        assert res["acc_norm"] == float(max(range(3), key=per_char.__getitem__) == gold)
        per_byte = [s / len(c.encode()) for s, c in zip(lls, item.choices, strict=True)]
        assert res["acc_bytes"] == float(max(range(3), key=per_byte.__getitem__) == gold)
    with pytest.raises(ValueError, match="gold"):
        MCItem("a", ("b", "c"), 2)


def test_stream_nll_equals_manual_cross_entropy(model_tok):
    model, tok = model_tok
    stream = torch.randint(0, len(tok), (3 * 16 + 1,))
    got = stream_nll(model, stream, seq_len=16, batch_size=2)
    windows = torch.stack([stream[i * 16 : (i + 1) * 16 + 1] for i in range(3)])
    with torch.no_grad():
        logits = model(input_ids=windows[:, :-1], use_cache=False).logits
    manual = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), windows[:, 1:].reshape(-1)
    ).item()
    assert got["nll"] == pytest.approx(manual, rel=1e-5) and got["tokens"] == 48


def test_generated_tasks_put_the_true_text_at_gold(tmp_path):
    docs = ["\n".join(f"line number {d}-{i} of the text" for i in range(30)) for d in range(6)]
    for name in TASKS:
        items = generate_task(name, docs, 10, seed=1)
        assert len(items) == 10
        for it in items:
            gold = it.choices[it.gold]
            doc = next(d for d in docs if it.context in d)
            assert doc[doc.index(it.context) + len(it.context) :].startswith(gold)
            assert len(set(it.choices)) == len(it.choices)
    (tmp_path / "mc.jsonl").write_text(
        '{"context": "1+1=", "choices": ["2", "3"], "gold": 0}\n{"context": "x"}\n'
    )
    with pytest.raises(ValueError, match="choices"):
        load_mc_jsonl(tmp_path / "mc.jsonl")


def test_tokens_to_target_interpolates():
    hist = [
        {"tokens": 100.0, "val_nll": 5.0},
        {"tokens": 200.0, "train_loss": 1.0},
        {"tokens": 300.0, "val_nll": 3.0},
    ]
    assert tokens_to_target(hist, 4.0) == pytest.approx(200.0)
    assert tokens_to_target(hist, 5.5) == 100.0
    assert math.isnan(tokens_to_target(hist, 1.0))


def test_lm_pretrain_end_to_end_with_sinkgd(tmp_path):
    bench = get_benchmark("lm_pretrain")(
        dict(
            max_chars=20_000,
            vocab_size=280,
            hidden_size=16,
            num_layers=1,
            num_heads=2,
            intermediate_size=32,
            seq_len=16,
            batch_size=4,
            steps=8,
            warmup=2,
            eval_points=2,
            eval_windows=2,
            target_val_nll=6.0,
        )
    )
    ctx = InMemoryRunContext(data_dir=tmp_path)
    bench.run(ctx, get_method("sinkgd")())
    s = ctx.summary
    assert s["val_ppl"] == pytest.approx(math.exp(s["val_nll"]))
    assert s["tokens_seen"] == 8 * 4 * 16 and s["tokens_to_target"] <= s["tokens_seen"]
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1] == 8
    assert {"loss_curve", "model.zip"} <= set(ctx.artifacts)
    assert [step for step, _ in ctx.series("val_nll")] == [4, 8]


def test_lm_pretrain_on_user_text_and_jsonl_files(tmp_path):
    import json

    text = tmp_path / "notes.txt"
    text.write_text("the quick brown fox jumps over the lazy dog. " * 400)
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(
        "\n".join(
            json.dumps({"text": f"record {i}: " + "lorem ipsum dolor sit amet " * 30})
            for i in range(40)
        )
    )
    bench = get_benchmark("lm_pretrain")(
        dict(
            corpus="files",
            corpus_files=f"{text},{jsonl}",
            max_chars=20_000,
            vocab_size=280,
            hidden_size=16,
            num_layers=1,
            num_heads=2,
            intermediate_size=32,
            seq_len=16,
            batch_size=4,
            steps=4,
            warmup=1,
            eval_points=1,
            eval_windows=2,
        )
    )
    ctx = InMemoryRunContext(data_dir=tmp_path / "cache")
    bench.run(ctx, get_method("lm_adam")())
    assert "corpus-files" in ctx.datasets and math.isfinite(ctx.summary["val_nll"])
    with pytest.raises(ValueError, match="corpus_files"):
        get_benchmark("lm_pretrain")(dict(corpus="files")).run(
            InMemoryRunContext(data_dir=tmp_path), get_method("lm_adam")()
        )


@pytest.mark.parametrize("name", ["lm_adam", "lm_sgd", "sinkgd", "sinkgd_swan"])
def test_every_pretrain_method_builds_a_working_optimizer(name):
    from workers.models.tiny_llama import build_llama, tiny_test_config

    model = build_llama(tiny_test_config(num_layers=1), 300, bos_id=1, eos_id=2, pad_id=0)
    before = [p.detach().clone() for p in model.parameters()]
    opt = get_method(name)().build_optimizer(model)
    ids = torch.randint(0, 300, (2, 8))
    model(input_ids=ids, labels=ids).loss.backward()
    opt.step()
    assert all(not torch.equal(a, p) for a, p in zip(before, model.parameters(), strict=True))


def test_train_cli_writes_a_loadable_model(tmp_path, capsys):
    from transformers import AutoModelForCausalLM

    from workers.models.lm.train_cli import main

    args = [
        "--out",
        str(tmp_path / "m"),
        "--max-chars",
        "20000",
        "--vocab-size",
        "280",
        "--hidden-size",
        "16",
        "--num-layers",
        "1",
        "--num-heads",
        "2",
        "--intermediate-size",
        "32",
        "--seq-len",
        "16",
        "--batch-size",
        "2",
        "--steps",
        "2",
        "--warmup",
        "1",
    ]
    assert main(args) == 0
    out = capsys.readouterr()
    assert "2/2" in out.err and "train loss" in out.err  # the progress bar reached the end
    assert '"final_val_ppl"' in out.out
    assert AutoModelForCausalLM.from_pretrained(tmp_path / "m").config.hidden_size == 16
    assert main(["--out", str(tmp_path / "x"), "--hidden-size", "5"]) == 2


def test_whitespace_continuation_merged_into_the_context_is_still_scored(model_tok):
    model, tok = model_tok
    context, continuation = "a = 1\n", " " * 8
    whole = tok(context + continuation, add_special_tokens=False)["input_ids"]
    ctx_ids = tok(context, add_special_tokens=False)["input_ids"]
    assert len(whole) <= len(ctx_ids)  # this tokenizer merges "\n" + indentation into one token
    ((ll, _),) = loglikelihood(model, tok, [(context, continuation)])
    cont = tok(continuation, add_special_tokens=False)["input_ids"]
    ids = [tok.bos_token_id] + ctx_ids + cont
    with torch.no_grad():
        lp = F.log_softmax(model(input_ids=torch.tensor([ids[:-1]])).logits[0], -1)
    expected = sum(lp[len(ctx_ids) + i, t].item() for i, t in enumerate(cont))
    assert ll < 0 and ll == pytest.approx(expected, abs=1e-4)


def test_continuation_task_skips_whitespace_only_spans():
    docs = [("x = 1\n" + " " * 80 + "y = 2\n") * 20 for _ in range(4)]
    for it in generate_task("continuation", docs, 20, seed=3):
        assert all(ch.strip() for ch in it.choices)
