import json
import math

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from workers.core import InMemoryRunContext
from workers.models.lm.corpus import build_corpus
from workers.models.lm.tokenizer import train_bpe_tokenizer
from workers.models.tiny_llama import TinyLlamaConfig, get_or_train_tiny_llama, tiny_test_config


def test_stdlib_corpus_split_is_deterministic_and_disjoint():
    a = build_corpus("stdlib", max_chars=40_000, valid_fraction=0.2)
    b = build_corpus("stdlib", max_chars=40_000, valid_fraction=0.2)
    assert a == b
    assert a.train and a.valid and not set(a.train) & set(a.valid)
    assert (
        sum(map(len, a.valid)) >= 0.2 * a.n_chars * 0.5
    )  # roughly the requested share, whole documents


def test_docstring_corpus_is_prose_not_code():
    c = build_corpus("stdlib_docstrings", max_chars=20_000, valid_fraction=0.2)
    assert not any(t.lstrip().startswith(("import ", "def ")) for t in c.train[:20])


def test_user_files_text_and_jsonl(tmp_path):
    (tmp_path / "a.txt").write_text("alpha beta gamma " * 100)
    rows = [json.dumps({"text": f"document number {i} " * 30}) for i in range(10)]
    (tmp_path / "b.jsonl").write_text("\n".join(rows))
    c = build_corpus(
        "files",
        files=[tmp_path / "a.txt", tmp_path / "b.jsonl"],
        max_chars=10**6,
        valid_fraction=0.2,
    )
    assert len(c.train) + len(c.valid) == 11
    (tmp_path / "bad.jsonl").write_text('{"txt": "x"}\n')
    with pytest.raises(ValueError, match="'text'"):
        build_corpus("files", files=[tmp_path / "bad.jsonl"])
    with pytest.raises(ValueError, match="source"):
        build_corpus("web")


def test_tokenizer_roundtrip_and_autotokenizer(tmp_path):
    tok = train_bpe_tokenizer(
        ["def f(x):\n    return x + 1\n"] * 50 + ["héllo wörld ✓"], vocab_size=300
    )
    text = "def g(y):\n    return y * 2  # ünïcode ✓\n"
    assert tok.decode(tok(text)["input_ids"]) == text  # byte-level: nothing is unknown
    tok.save_pretrained(tmp_path)
    again = AutoTokenizer.from_pretrained(tmp_path)
    assert again(text)["input_ids"] == tok(text)["input_ids"]
    assert again.eos_token == "<|eos|>" and again.pad_token_id is not None


def test_tiny_llama_trains_saves_and_caches(tiny_model_dir, tmp_path):
    record = json.loads((tiny_model_dir / "training.json").read_text())
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    assert type(model).__name__ == "LlamaForCausalLM"
    assert model.config.vocab_size == len(tok)
    # learning happened: held-out NLL well below a uniform guess over the vocabulary
    assert record["final_val_nll"] < math.log(len(tok)) - 0.5
    assert record["history"][0]["train_loss"] > record["history"][-1]["train_loss"]
    # cache hit: same config returns the same directory without training again
    cfg = TinyLlamaConfig(**record["config"])
    ctx = InMemoryRunContext()
    assert get_or_train_tiny_llama(cfg, ctx, cache_dir=tiny_model_dir.parent) == tiny_model_dir
    assert any("reusing" in line for line in ctx.logs) and not ctx.progress_updates


def test_get_or_train_reports_progress_through_ctx(tmp_path):
    ctx = InMemoryRunContext(data_dir=tmp_path)
    path = get_or_train_tiny_llama(tiny_test_config(steps=6, num_layers=1, max_chars=20_000), ctx)
    assert path.parent == tmp_path / "tiny_llama"
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1] == 6
    assert ctx.series("train_loss") and ctx.datasets


def test_config_validation_names_the_field():
    with pytest.raises(ValueError, match="hidden_size"):
        from workers.models.tiny_llama import build_llama

        build_llama(
            tiny_test_config(hidden_size=30, num_heads=4), 300, bos_id=1, eos_id=2, pad_id=0
        )


def test_hf_local_adapter_generates(tiny_model_dir):
    from workers.models.base import ModelSpec, build_adapter

    model = build_adapter(ModelSpec(kind="project", name="tiny", path=str(tiny_model_dir)))
    assert (
        model.render_prompt([{"role": "user", "content": "def f"}]) == "def f"
    )  # no chat template
    out = model.complete([{"role": "user", "content": "def f"}], max_tokens=5)
    assert out.completion_tokens == 5 and model.usage.calls == 1
    # greedy decoding is deterministic and equals the argmax continuation of a plain forward
    ids = model.tokenizer("def f", return_tensors="pt", add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        first = model.model(input_ids=ids).logits[0, -1].argmax().item()
    assert model.tokenizer.decode([first]) == out.text[: len(model.tokenizer.decode([first]))]
    with pytest.raises(FileNotFoundError):
        build_adapter(ModelSpec(kind="hf_local", name="x", path=str(tiny_model_dir / "nope")))
