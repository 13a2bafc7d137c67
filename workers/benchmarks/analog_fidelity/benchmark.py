"""Benchmark `analog_fidelity`: how faithful are small analogs of a teacher LM, versus their size?

For each student width the method turns a fresh student (same tokenizer as the teacher) into an
analog; the benchmark then measures next-token agreement and KL(teacher || student) on held-out
text, the Spearman correlation of per-task accuracies over a suite of generated multiple-choice
tasks (each task type on each bucket of held-out documents), and the transfer of an
interpretability result: linear probes for the same token-level concepts trained on each
model's middle-layer hidden states, compared by Spearman correlation across concepts.
"""

from __future__ import annotations

import math
from typing import ClassVar

from pydantic import Field

from workers.core import (
    Benchmark,
    DatasetSpec,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)
from workers.methods.analog.fidelity import next_token_fidelity, spearman
from workers.methods.analog.plugin import ANALOG_PAPER
from workers.methods.analog.probes import CONCEPTS, probe_accuracies, token_features


class AnalogConfig(PluginConfig):
    teacher_path: str = Field(
        "", max_length=1000, description="Local HF teacher directory; empty = the tiny Llama"
    )
    teacher_hidden: int = Field(128, ge=16, le=4096, description="Tiny teacher width")
    teacher_layers: int = Field(4, ge=1, le=48, description="Tiny teacher layers")
    teacher_steps: int = Field(
        300, ge=10, le=100_000, description="Tiny teacher training steps (cached)"
    )
    max_chars: int = Field(
        1_000_000, ge=20_000, le=100_000_000, description="Corpus characters (Python stdlib)"
    )
    student_widths: tuple[int, ...] = Field(
        (32, 64), min_length=1, max_length=8, description="Analog widths"
    )
    student_layers: int = Field(2, ge=1, le=48, description="Analog layers")
    steps: int = Field(150, ge=1, le=100_000, description="Analog training steps")
    batch_size: int = Field(16, ge=1, le=1024, description="Sequences per step")
    seq_len: int = Field(128, ge=8, le=4096, description="Window length")
    eval_windows: int = Field(
        16, ge=1, le=10_000, description="Held-out windows for agreement and KL"
    )
    mc_items: int = Field(30, ge=4, le=10_000, description="Items per task in the suite")
    task_buckets: int = Field(
        3, ge=1, le=20, description="Held-out document buckets (tasks = 2 x buckets)"
    )
    task_files: str = Field(
        "",
        max_length=5000,
        description="Comma-separated JSONL multiple-choice files on the worker "
        '({"context", "choices", "gold"} per line), each one more task of the suite',
    )
    probe_tokens: int = Field(
        3000, ge=200, le=1_000_000, description="Tokens for the concept probes"
    )


@register_benchmark
class AnalogFidelity(Benchmark):
    name = "analog_fidelity"
    title = "Analog models: fidelity of small distilled models to their teacher"
    description = __doc__
    paper = ANALOG_PAPER
    Config = AnalogConfig
    metrics: ClassVar = (
        MetricSpec(
            "agreement",
            "max",
            "",
            primary=True,
            description="Top-1 next-token agreement (largest analog)",
        ),
        MetricSpec(
            "kl", "min", "nats", description="Mean KL(teacher || analog) per token (largest analog)"
        ),
        MetricSpec(
            "task_spearman",
            "max",
            "",
            description="Spearman of per-task accuracies, teacher vs analog",
        ),
        MetricSpec(
            "probe_spearman",
            "max",
            "",
            description="Spearman of concept-probe accuracies, teacher vs analog",
        ),
        MetricSpec(
            "probe_gap",
            "min",
            "",
            description="Mean |probe accuracy teacher - analog| over concepts",
        ),
    )
    datasets: ClassVar = (
        DatasetSpec(
            "python-stdlib",
            "bundled",
            "The Python standard library's source code",
            license="PSF-2.0",
        ),
    )

    def run(self, ctx: RunContext, method) -> None:
        from workers.models.lm.corpus import build_corpus
        from workers.models.lm.data import encode_documents
        from workers.models.lm.evaluate import score_multiple_choice
        from workers.models.lm.tasks import TASKS, generate_task, load_task_files, parse_paths
        from workers.models.tiny_llama import (
            TinyLlamaConfig,
            build_llama,
            count_parameters,
            get_or_train_tiny_llama,
            load_tiny_llama,
        )

        c = self.config
        if c.teacher_path:
            teacher_dir = c.teacher_path
        else:
            tcfg = TinyLlamaConfig(
                hidden_size=c.teacher_hidden,
                num_layers=c.teacher_layers,
                num_heads=max(1, c.teacher_hidden // 32),
                intermediate_size=(c.teacher_hidden * 8 // 3 + 7) // 8 * 8,
                steps=c.teacher_steps,
                max_chars=c.max_chars,
                seq_len=c.seq_len,
            )
            teacher_dir = get_or_train_tiny_llama(tcfg, ctx)
        # a real teacher keeps its stored precision (bf16 on a GPU worker); students are float32
        teacher, tok = load_tiny_llama(
            teacher_dir, ctx.device, dtype="auto" if c.teacher_path else "float32"
        )
        corpus = build_corpus("stdlib", max_chars=c.max_chars, valid_fraction=0.1)
        ctx.record_dataset("corpus-stdlib", corpus.sha256, "python stdlib")
        train_ids, valid_ids = (
            encode_documents(tok, corpus.train),
            encode_documents(tok, corpus.valid),
        )
        suite = {}
        for t in TASKS:
            for b in range(c.task_buckets):
                try:
                    suite[f"{t}@{b}"] = generate_task(
                        t, corpus.valid[b :: c.task_buckets], c.mc_items, seed=ctx.seed
                    )
                except ValueError as exc:  # a bucket of held-out text too small for this task
                    ctx.log(f"task {t}@{b} skipped: {exc}")
        suite.update(load_task_files(parse_paths(c.task_files)))
        if not suite:
            raise ValueError("max_chars: held-out text too small to build any multiple-choice task")

        def profile(model) -> tuple[list[float], dict[str, float]]:
            accs = [
                score_multiple_choice(model, tok, items, device=ctx.device)["acc"]
                for items in suite.values()
            ]
            layer = max(1, model.config.num_hidden_layers // 2)
            X, labels = token_features(
                model,
                tok,
                corpus.valid,
                layer=layer,
                seq_len=c.seq_len,
                max_tokens=c.probe_tokens,
                device=ctx.device,
            )
            return accs, probe_accuracies(X, labels, seed=ctx.seed)

        total = len(c.student_widths) * (c.steps + 1) + 1
        done = 0
        t_accs, t_probe = profile(teacher)
        ctx.log(
            "teacher tasks "
            + ", ".join(f"{k}={a:.2f}" for k, a in zip(suite, t_accs, strict=False))
        )
        ctx.log("teacher probes " + ", ".join(f"{k}={a:.2f}" for k, a in t_probe.items()))
        done += 1
        ctx.progress(done, total, "teacher profiled")
        results = []
        for width in sorted(c.student_widths):
            heads = max(1, width // 32) if width % 32 == 0 else 1
            scfg = TinyLlamaConfig(
                hidden_size=width,
                num_layers=c.student_layers,
                num_heads=heads,
                intermediate_size=(width * 8 // 3 + 7) // 8 * 8,
                seq_len=c.seq_len,
                seed=ctx.seed,
            )
            student = build_llama(
                scfg,
                teacher.config.vocab_size,
                bos_id=tok.bos_token_id,
                eos_id=tok.eos_token_id,
                pad_id=tok.pad_token_id,
            ).to(ctx.device)

            def callback(step, steps, loss, _done=done, _w=width):
                ctx.check_cancelled()
                if step % 10 == 0 or step == steps:
                    ctx.progress(_done + step, total, f"analog d={_w}: loss {loss:.3f}")

            method.make_analog(
                student,
                teacher,
                train_ids,
                steps=c.steps,
                batch_size=c.batch_size,
                seq_len=c.seq_len,
                seed=ctx.seed,
                device=ctx.device,
                callback=callback,
            )
            done += c.steps + 1
            fid = next_token_fidelity(
                teacher,
                student,
                valid_ids,
                seq_len=c.seq_len,
                max_windows=c.eval_windows,
                device=ctx.device,
            )
            s_accs, s_probe = profile(student)
            common = [k for k in CONCEPTS if not (math.isnan(t_probe[k]) or math.isnan(s_probe[k]))]
            row = {
                "width": width,
                "params": count_parameters(student),
                "param_ratio": count_parameters(student) / count_parameters(teacher),
                **fid,
                "task_spearman": spearman(t_accs, s_accs),
                "probe_spearman": spearman(
                    [t_probe[k] for k in common], [s_probe[k] for k in common]
                ),
                "probe_gap": sum(abs(t_probe[k] - s_probe[k]) for k in common)
                / max(1, len(common)),
                "mean_task_acc": sum(s_accs) / len(s_accs),
            }
            results.append(row)
            ctx.log_metrics(width, **{k: float(v) for k, v in row.items() if k != "width"})
            ctx.progress(done, total, f"analog d={width}: agreement {fid['agreement']:.3f}")
        last = results[-1]
        ctx.log_summary(
            agreement=last["agreement"],
            kl=last["kl"],
            task_spearman=last["task_spearman"],
            probe_spearman=last["probe_spearman"],
            probe_gap=last["probe_gap"],
            param_ratio=last["param_ratio"],
            teacher_mean_task_acc=sum(t_accs) / len(t_accs),
        )
        ctx.save_artifact(
            "fidelity_vs_size",
            {
                "rows": results,
                "teacher_tasks": dict(zip(suite, t_accs, strict=False)),
                "teacher_probes": t_probe,
            },
        )
        ctx.save_artifact("fidelity_rows", results)
        ctx.save_artifact("fidelity_figure", _figure(results, method.name))


def _figure(rows: list[dict], method_name: str):
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    x = [r["param_ratio"] for r in rows]
    text = [f"d={r['width']}" for r in rows]
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=("next-token agreement / KL", "task-profile Spearman", "probe transfer"),
    )
    for col, keys in (
        (1, ("agreement", "kl")),
        (2, ("task_spearman",)),
        (3, ("probe_spearman", "probe_gap")),
    ):
        for key in keys:
            fig.add_trace(
                go.Scatter(
                    x=x, y=[r[key] for r in rows], mode="lines+markers", name=key, text=text
                ),
                1,
                col,
            )
    fig.update_xaxes(title_text="analog parameters / teacher parameters")
    fig.update_layout(title=f"{method_name}: analog fidelity versus analog size")
    return fig
