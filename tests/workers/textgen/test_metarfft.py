"""Meta-RFFT task suite, data formats, the small LM and the benchmark end to end."""

import json
from collections import Counter

import numpy as np
import pytest

from workers.benchmarks.metarfft.task import (
    _TASKS,
    ANSWER_MARK,
    STEP_SEP,
    Task,
    all_tasks,
    parse_answer,
    register_task,
)
from workers.core import ConfigError, InMemoryRunContext, get_benchmark, get_method
from workers.methods.metarfft import (
    DIRECT_ANSWER,
    RULE_FOLLOWING,
    CharVocab,
    build_model,
    greedy_complete,
    train_on_pairs,
)

TASKS = all_tasks()


def test_suite_covers_the_paper_families():
    assert len(TASKS) >= 30
    fam = Counter(t.family for t in TASKS.values())
    assert set(fam) == {"arithmetic", "number", "string", "logic", "code"}
    assert all(v >= 4 for v in fam.values())


@pytest.mark.parametrize("name", sorted(TASKS))
def test_trace_generator_agrees_with_checker(name):
    task = TASKS[name]
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    vocab = CharVocab()
    for n in (1, 2, 3, 5, 8, 13, 20):
        for _ in range(3):
            x = task.instance(n, rng)
            steps, answer = task.run_rule(x)
            assert answer == task.reference(x), (n, x)
            assert task.check(x, task.trace_text(x)), (n, x)
            assert not task.check(x, task.trace_text(x) + "9")  # a wrong answer is rejected
            assert all(STEP_SEP not in s and ANSWER_MARK not in s and "\n" not in s for s in steps)
            assert len(steps) <= 2 * n + 2  # one step per element: the trace grows with the length
            vocab.encode(
                RULE_FOLLOWING.prompt(task, x) + RULE_FOLLOWING.target(task, x)
            )  # printable ASCII


def test_lengths_are_respected():
    rng = np.random.default_rng(0)
    assert len(TASKS["add"].instance(7, rng)["a"]) == 7
    assert len(TASKS["reverse_string"].instance(11, rng)["s"]) == 11
    with pytest.raises(ValueError, match="length"):
        TASKS["add"].instance(0, rng)


def test_parse_answer_and_formats():
    assert parse_answer("1+2+0=3;4+5+0=9>93\nQ:...") == "93"
    task, x = TASKS["add"], {"a": "12", "b": "34"}
    assert RULE_FOLLOWING.prompt(task, x).startswith("R:" + task.rule)
    assert RULE_FOLLOWING.target(task, x) == "2+4+0=6;1+3+0=4>46\n"
    assert DIRECT_ANSWER.prompt(task, x) == "T:add\nQ:12+34\nA:"
    assert DIRECT_ANSWER.target(task, x) == ">46\n"
    shot = RULE_FOLLOWING.one_shot_prompt(task, {"a": "1", "b": "2"}, x)
    assert shot.count("Q:") == 2 and shot.endswith("Q:12+34\nA:")


def test_user_task_is_one_small_class():
    @register_task
    class Upper(Task):
        name, family, rule = "test_upper_only", "string", "for c in s:out+=upper(c)"

        def sample(self, n, rng):
            return {"s": "ab" * n}

        def prompt(self, x):
            return "up" + x["s"]

        def run_rule(self, x):
            steps = [f"{c}:{c.upper()}" for c in x["s"]]
            return steps, x["s"].upper()

        def reference(self, x):
            return x["s"].upper()

    try:
        task = all_tasks()["test_upper_only"]
        x = task.instance(2, np.random.default_rng(0))
        assert task.check(x, task.trace_text(x))
        with pytest.raises(TypeError, match="unique name"):
            register_task(Upper)
    finally:
        _TASKS.pop("test_upper_only", None)  # keep the suite as shipped for the other tests


def test_small_lm_fits_and_completes():
    vocab = CharVocab()
    pairs = [("Q:ab\nA:", "ba\n"), ("Q:cd\nA:", "dc\n")]
    model = build_model(vocab, hidden=32, layers=1, seed=0)
    losses = []
    train_on_pairs(
        model,
        vocab,
        lambda r, k: pairs,
        steps=60,
        batch=2,
        lr=1e-2,
        rng=np.random.default_rng(0),
        on_step=lambda s, loss: losses.append(loss),
    )
    assert losses[-1] < 0.2 * losses[0]
    assert greedy_complete(model, vocab, ["Q:ab\nA:", "Q:cd\nA:"], max_new=5) == ["ba", "dc"]


def test_benchmark_end_to_end_tiny():
    cfg = {
        "held_out_tasks": ["sub", "caesar"],
        "train_tasks": ["add", "duplicate_chars"],
        "train_max_length": 2,
        "eval_max_length": 3,
        "eval_per_length": 1,
        "pretrain_steps": 3,
        "batch_size": 2,
        "adapt_examples": 2,
        "adapt_steps": 1,
        "hidden": 32,
        "layers": 1,
    }
    for method in ("metarfft", "metarfft_direct"):
        ctx = InMemoryRunContext(seed=0)
        get_benchmark("metarfft_lengthgen")(cfg).run(ctx, get_method(method)())
        assert 0.0 <= ctx.summary["heldout_acc"] <= 1.0
        assert {"heldout_acc_long", "heldout_acc_short", "acc_sub", "acc_caesar"} <= set(
            ctx.summary
        )
        done, total, _ = ctx.progress_updates[-1]
        assert done == total
        table = json.loads(ctx.artifacts["accuracy_table"][0])
        assert table["lengths"] == [1, 2, 3] and set(table["curves"]) == {"sub", "caesar"}
    icl = InMemoryRunContext(seed=0)
    get_benchmark("metarfft_lengthgen")({**cfg, "adaptation": "icl"}).run(
        icl, get_method("metarfft")()
    )
    assert "heldout_acc" in icl.summary


def test_benchmark_config_errors_name_the_field():
    bench = get_benchmark("metarfft_lengthgen")
    with pytest.raises(ConfigError, match="held_out_tasks|unknown task"):
        bench.validate({"held_out_tasks": ["nope"]})
    with pytest.raises(ConfigError, match="overlap"):
        bench.validate({"held_out_tasks": ["add"], "train_tasks": ["add"]})
    with pytest.raises(ConfigError, match="pretrain_steps"):
        bench.validate({"pretrain_steps": -1})
