"""LLM question generation from captions through the OpenAI-compatible adapter (local fake server),
and the real-data path of the benchmark end to end."""

import numpy as np
import pytest

from tests.workers.mellow.conftest import TINY_ENC, TINY_TRAIN
from tests.workers.mellow.fake_llm import FakeLLM
from tests.workers.mellow.test_importers import make_audiocaps, make_clotho
from workers.benchmarks.mellow_aqa import MellowAQABenchmark
from workers.benchmarks.mellow_aqa.llm_questions import (
    GenerationStats,
    generate_pair,
    generate_single,
    parse_reply,
)
from workers.core import InMemoryRunContext
from workers.methods.mellow import AudioClassifierMethod
from workers.models.openai_compat import OpenAICompatModel


def test_generation_validates_and_shuffles_questions():
    with FakeLLM() as server:
        model = OpenAICompatModel(server.url, "fake-llm", max_retries=0)
        stats, rng = GenerationStats(), np.random.default_rng(0)
        items = generate_single(model, "clip1", ["A dog barks twice", "Barking"], rng, stats, n=4)
        pair = generate_pair(model, "clip1", ["A dog barks"], "clip2", ["Rain"], rng, stats)
        prompt = server.requests[0]["messages"][-1]["content"]
    assert "A dog barks twice" in prompt and "emotion" in prompt
    families = sorted(it.family for it in items)
    assert families == ["detailed", "llm_emotion", "llm_events"]
    # the scene answer that is not an option, and the comparison with duplicate options
    assert stats.dropped == {"answer not exactly one option": 2}
    assert stats.calls == 2 and stats.kept == 4
    for it in items + pair:
        if it.is_mcq:
            assert [o.lower() for o in it.options].count(it.answer.lower()) == 1
    assert pair[0].reasoning == "comparative" and pair[0].clip_b == "clip2"

    # the LLM always puts the answer first; the generator shuffles it away from there
    with FakeLLM() as server:
        model = OpenAICompatModel(server.url, "fake-llm", max_retries=0)
        many = [
            it
            for k in range(8)
            for it in generate_single(model, f"c{k}", ["x"], rng, stats)
            if it.is_mcq
        ]
    assert len({it.answer_index for it in many}) >= 3
    assert all(it.options[it.answer_index] == it.answer for it in many)


def test_parse_reply_accepts_fences_and_rejects_prose():
    assert parse_reply('sure ```json\n[{"a": 1}]\n```') == [{"a": 1}]
    assert parse_reply('[{"a": 1}, 3]') == [{"a": 1}]
    with pytest.raises(ValueError):
        parse_reply("I cannot help with that")


def test_real_data_run_with_llm_questions_end_to_end(tmp_path, mellow_data_dir):
    root = make_audiocaps(tmp_path / "ac", "train")
    make_audiocaps(root, "test", missing=False)
    clotho = make_clotho(tmp_path / "clotho")
    cfg = {
        "source": "audiocaps",
        "data_root": str(root),
        "ood_source": "clotho",
        "ood_root": str(clotho),
        "seconds": 1.0,
        "questions_per_clip": 3,
        "pair_questions": 1,
        "n_examples": 1,
    }
    with FakeLLM() as server:
        ctx = InMemoryRunContext(
            seed=0,
            data_dir=mellow_data_dir,
            model=OpenAICompatModel(server.url, "fake-llm", max_retries=0),
        )
        MellowAQABenchmark(cfg).run(ctx, AudioClassifierMethod({**TINY_ENC, **TINY_TRAIN}))
    s = ctx.summary
    assert 0 <= s["accuracy"] <= 1 and s["n_questions"] > 0
    assert "accuracy_ood" in s and "accuracy_comparative" in s
    assert any("LLM generation" in line for line in ctx.logs)
    assert "mellow-audiocaps" in ctx.datasets and "examples/0_a.wav" in ctx.artifacts
    with pytest.raises(ValueError, match="chat model"):
        MellowAQABenchmark(cfg).run(
            InMemoryRunContext(seed=0, data_dir=mellow_data_dir),
            AudioClassifierMethod({**TINY_ENC, **TINY_TRAIN}),
        )
