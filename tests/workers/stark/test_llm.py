from __future__ import annotations

import json

import pytest

from tests.workers.stark.fake_openai import FakeOpenAI
from workers.benchmarks.stark import prompts_tier1 as P
from workers.benchmarks.stark.plugin import StarkBenchmark
from workers.core import InMemoryRunContext
from workers.methods.stark_llm.agent import disallowed_imports, extract_code
from workers.methods.stark_llm.plugin import StarkLLMCode, StarkLLMText
from workers.models.base import ModelSpec, build_adapter
from workers.models.openai_compat import ModelEndpointError, OpenAICompatModel

TASKS = {"tasks": "loc_range,meets,track_range_online", "tracking_steps": 2}


@pytest.fixture
def server():
    with FakeOpenAI() as srv:
        yield srv


def model(srv: FakeOpenAI, **kw) -> OpenAICompatModel:
    return OpenAICompatModel(
        srv.url,
        "fake-model",
        "sk-secret",
        backoff=0.01,
        price_prompt_per_mtok=1.0,
        price_completion_per_mtok=2.0,
        **kw,
    )


def run(srv, method, bench=TASKS):
    ctx = InMemoryRunContext(seed=0, model=model(srv))
    StarkBenchmark(bench).run(ctx, method({"max_rounds": 2}))
    rows = {r["id"]: r for r in json.loads(ctx.artifacts["instances.json"][0])["instances"]}
    return ctx, rows


def test_text_mode_end_to_end(sample_dir, server):
    ctx, rows = run(server, StarkLLMText)
    s = ctx.summary
    assert s["n_instances"] == 3 and s["unparseable_rate"] == 0.0
    # each conversation: one untagged reply, STARK's feedback, then a tagged one; the second
    # tracking step continues the same conversation and is answered at once
    assert s["llm_calls"] == 2 + 2 + (2 + 1)
    assert s["prompt_tokens"] == 100 * s["llm_calls"] and s["cost_usd"] == pytest.approx(
        s["llm_calls"] * 140e-6
    )
    req = server.state["requests"][0]
    assert (
        req["auth"] == "Bearer sk-secret" and req["body"]["messages"][0]["content"] == P.SYSTEM_TEXT
    )
    assert req["body"]["messages"][1]["content"].startswith("\nHelp me determine the location")
    assert any(
        m["content"] == P.NO_KEYWORD_FEEDBACK
        for r in server.state["requests"]
        for m in r["body"]["messages"]
    )
    track = rows["tracking_range_0.01/0"]
    assert track["response"].count("[RESULTS_START]") == 2 and track["parsed"]
    step_msgs = [
        m["content"]
        for m in server.state["requests"][-1]["body"]["messages"]
        if m["role"] == "user"
    ]
    assert any(m.startswith("Step 1 | At time") for m in step_msgs)


def test_code_mode_end_to_end(sample_dir, server):
    ctx, rows = run(server, StarkLLMCode)
    s = ctx.summary
    assert s["unparseable_rate"] == 0.0 and s["sandbox_runs"] == 4 and s["sandbox_failures"] == 0
    # the tracking solver saw only the readings up to the current step
    assert rows["tracking_range_0.01/0"]["prediction"] == [[1.0, 2.0], [2.0, 2.0]]
    assert rows["localization_range_0.01/0"]["prediction"] == [1.0, 2.0]
    assert "The solver runs successfully." in rows["tier2_v2_temporal/meets/0"]["response"]


def test_code_helpers_follow_stark():
    reply = "text\n```python\ndef solver():\n    return 1\n```\nmore ```bash\nls\n```"
    assert extract_code(reply).strip() == "def solver():\n    return 1"
    assert disallowed_imports("import numpy\nfrom scipy import optimize") is None
    assert disallowed_imports("import requests\nimport numpy") == {"requests"}


def test_adapter_retries_5xx_and_fails_clearly(server):
    server.state["fail_next"] = 2
    m = model(server, max_retries=3)
    out = m.complete([{"role": "user", "content": "hi"}])
    assert out.text and out.prompt_tokens == 100 and m.usage.calls == 1
    assert len(server.state["requests"]) == 3
    server.state.update(fail_next=1, status=400)
    with pytest.raises(ModelEndpointError, match="HTTP 400") as err:
        m.complete([{"role": "user", "content": "hi"}])
    assert "sk-secret" not in str(err.value) and "sk-secret" not in repr(m)
    server.state.update(fail_next=10, status=503)
    with pytest.raises(ModelEndpointError, match="after 2 attempts"):
        model(server, max_retries=1).complete([{"role": "user", "content": "hi"}])


def test_adapter_connection_errors_and_registration():
    dead = OpenAICompatModel("http://127.0.0.1:9/v1", "m", max_retries=1, backoff=0.01, timeout=2)
    with pytest.raises(ModelEndpointError, match="ConnectionError"):
        dead.complete([{"role": "user", "content": "hi"}])
    built = build_adapter(
        ModelSpec(
            kind="openai",
            name="local",
            base_url="http://127.0.0.1:8000",
            model_id="m",
            options={"timeout": 5},
        )
    )
    assert (
        isinstance(built, OpenAICompatModel)
        and built.url == "http://127.0.0.1:8000/v1/chat/completions"
    )
    with pytest.raises(ValueError, match="base_url"):
        OpenAICompatModel("localhost:8000", "m")
    with pytest.raises(ValueError, match="unknown key"):
        build_adapter(ModelSpec(kind="openai", name="x", base_url="http://h", options={"bogus": 1}))


def test_llm_method_needs_a_model(sample_dir):
    ctx = InMemoryRunContext(seed=0)
    StarkBenchmark({"tasks": "meets"}).run(ctx, StarkLLMText({}))
    rows = json.loads(ctx.artifacts["instances.json"][0])["instances"]
    assert "needs a model" in rows[0]["info"]["error"] and ctx.summary["success_rate"] == 0.0


@pytest.fixture(scope="module")
def tiny_hf_dir(tmp_path_factory):
    """A randomly initialised tiny Llama with a byte-level tokenizer, saved as an HF directory."""
    from workers.models.lm.tokenizer import train_bpe_tokenizer
    from workers.models.tiny_llama import build_llama, tiny_test_config

    tok = train_bpe_tokenizer([P.SYSTEM_TEXT, P.SYSTEM_CODE, *P.LOCALIZATION.values()], 300)
    cfg = tiny_test_config(hidden_size=32, num_layers=1, num_heads=2, intermediate_size=64)
    model = build_llama(
        cfg, len(tok), bos_id=tok.bos_token_id, eos_id=tok.eos_token_id, pad_id=tok.pad_token_id
    )
    path = tmp_path_factory.mktemp("tiny_hf")
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.mark.slow  # imports transformers and generates with a (tiny) model on the CPU
@pytest.mark.parametrize("method", [StarkLLMText, StarkLLMCode])
def test_local_hugging_face_directory_in_both_modes(sample_dir, tiny_hf_dir, method):
    """The hf_local adapter (a model registered as a local directory) drives the same loops.
    An untrained model writes no tags: every answer must be counted as unparseable."""
    from workers.models.hf_local import HFLocalChatModel

    lm = build_adapter(ModelSpec(name="tiny", kind="hf_local", path=str(tiny_hf_dir),
                                 options={"device": "cpu", "dtype": "float32"}))  # fmt: skip
    assert isinstance(lm, HFLocalChatModel)
    ctx = InMemoryRunContext(seed=0, model=lm)
    bench = {"tasks": "loc_range,meets"}
    StarkBenchmark(bench).run(ctx, method({"max_rounds": 1, "max_tokens": 16, "temperature": 0}))
    s = ctx.summary
    assert s["n_instances"] == 2 and s["unparseable_rate"] == 1.0 and s["success_rate"] == 0.0
    assert s["llm_calls"] == 4  # one question and one feedback round per instance
    assert s["prompt_tokens"] > 100 and 0 < s["completion_tokens"] <= 4 * 16
