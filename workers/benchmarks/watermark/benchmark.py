"""`wm_detection`: detection power versus distortion of sampling-time watermarks.

Protocol (after Tsur et al., Sec. 6, on a small substrate):
1. prompts from two regimes: stdlib source code (low entropy) and docstring prose (higher);
2. unwatermarked generations give the null distribution (false-positive rate at the nominal
   level, perplexity of plain sampling);
3. watermarked generations at the method's default strength and at each value of its
   trade-off knob: TPR at the nominal FPR (p <= fpr_level, one-sided test), tokens needed to
   reach p <= 0.02, distortion = mean per-step KL(Qbar || P) between the key-averaged
   watermarked distribution and the model's, and perplexity under the original model;
4. robustness: TPR after random token substitution and deletion at each attack rate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import LogitsProcessorList, TemperatureLogitsWarper

from workers.benchmarks.watermark.config import WatermarkBenchConfig
from workers.benchmarks.watermark.corpus import load_corpus, sample_prompts
from workers.benchmarks.watermark.figures import robustness_figure, tradeoff_figures
from workers.benchmarks.watermark.lm import (
    LanguageModel,
    from_context_model,
    sequence_nll,
    single_thread_on_cpu,
    train_char_llama,
)
from workers.core import (
    Benchmark,
    DatasetSpec,
    MetricSpec,
    RunContext,
    register_benchmark,
)
from workers.methods.watermark.attacks import delete_tokens, substitute_tokens
from workers.methods.watermark.plugin import TSUR

REGIMES = ("code", "text")


def _summ(x: list[float]) -> float:
    return float(np.mean(x)) if x else float("nan")


@register_benchmark
class WatermarkDetectionBenchmark(Benchmark):
    name = "wm_detection"
    title = "Watermark detection vs distortion (low- and higher-entropy text)"
    description = (
        "TPR at 1% FPR, tokens to p <= 0.02, KL distortion and perplexity of LLM watermarks "
        "on code (low entropy) and prose prompts, with substitution/deletion robustness."
    )
    paper = TSUR
    Config = WatermarkBenchConfig
    metrics = (
        MetricSpec(
            "tpr_at_1fpr",
            "max",
            primary=True,
            description="fraction of watermarked texts with p <= fpr_level",
        ),
        MetricSpec(
            "fpr",
            "min",
            description="fraction of (unwatermarked text, key) pairs with p <= fpr_level",
        ),
        MetricSpec(
            "tokens_to_p02",
            "min",
            unit="tokens",
            description="mean tokens until p <= 0.02 (never: counted as new_tokens)",
        ),
        MetricSpec(
            "kl_distortion", "min", unit="nats", description="mean per-step KL(E_key Q || P)"
        ),
        MetricSpec(
            "perplexity",
            "min",
            description="perplexity of watermarked text under the original model",
        ),
        MetricSpec(
            "perplexity_unwatermarked", "min", description="perplexity of plain samples (reference)"
        ),
        MetricSpec("tpr_code", "max", description="TPR on code prompts (low entropy)"),
        MetricSpec("tpr_text", "max", description="TPR on prose prompts"),
        MetricSpec("entropy_code", "min", unit="nats", description="mean next-token entropy, code"),
        MetricSpec(
            "entropy_text", "min", unit="nats", description="mean next-token entropy, prose"
        ),
    )
    datasets = (
        DatasetSpec(
            "python-stdlib-text",
            "bundled",
            "source and docstrings of stdlib modules of the running Python (PSF licence)",
            license="PSF-2.0",
        ),
    )

    # -- model and prompts ---------------------------------------------------------------------
    def _language_model(self, ctx: RunContext, code: str, prose: str) -> LanguageModel:
        """`model_path`, else the run's model, else a small Llama the project trains."""
        cfg = self.config
        if cfg.model_path:
            return self._local_model(ctx)
        lm = from_context_model(getattr(ctx, "model", None))
        if lm is not None:
            return lm
        steps = cfg.lm_train_steps
        if cfg.lm == "tiny_llama":
            return self._substrate_model(ctx)
        text = code[: 2 * len(prose)] + "\n" + prose  # keep prose a third of the training text

        def on_step(step: int, loss: float) -> None:
            if step % 25 == 0 or step == steps - 1:
                ctx.log_metrics(step, lm_train_loss=loss)
                ctx.check_cancelled()

        return train_char_llama(
            text,
            steps=steps,
            hidden=cfg.lm_hidden,
            layers=cfg.lm_layers,
            seq_len=64,
            batch=16,
            lr=3e-3,
            seed=ctx.seed,
            cache_dir=ctx.data_path("wm_char_llama"),
            on_step=on_step,
        )

    def _local_model(self, ctx: RunContext) -> LanguageModel:
        from workers.models.tiny_llama import load_tiny_llama

        path = Path(self.config.model_path)
        if not (path / "config.json").is_file():  # checked first: a hub name is never fetched
            raise ValueError(f"model_path: {path} is not a local Hugging Face model directory")
        model, tok = load_tiny_llama(path, device=ctx.device, dtype=self.config.model_dtype)
        return LanguageModel(model, tok, int(model.config.vocab_size), f"local model {path}")

    def _substrate_model(self, ctx: RunContext) -> LanguageModel:
        """The project's BPE tiny Llama (workers.models.tiny_llama), trained once and cached."""
        from workers.models.tiny_llama import get_or_train_tiny_llama, load_tiny_llama

        cfg = self.config
        heads = max(1, cfg.lm_hidden // 32)
        path = get_or_train_tiny_llama(
            {
                "hidden_size": cfg.lm_hidden,
                "num_layers": cfg.lm_layers,
                "num_heads": heads,
                "intermediate_size": 8 * cfg.lm_hidden // 3,
                "steps": cfg.lm_train_steps,
                "max_chars": 1_000_000,
                "seed": ctx.seed,
            },
            ctx,
        )
        model, tok = load_tiny_llama(path, device=ctx.device)
        return LanguageModel(model, tok, int(model.config.vocab_size), f"tiny_llama {path.name}")

    def _prompt_ids(self, lm: LanguageModel, texts: list[str]) -> torch.Tensor:
        n = self.config.prompt_tokens
        rows = []
        for t in texts:
            ids = list(lm.tokenizer.encode(t, add_special_tokens=False))
            ids = ([ids[0]] * n + ids)[-n:] if ids else [0] * n  # left-fill, no padding mask needed
            rows.append(ids)
        return torch.tensor(rows, dtype=torch.long)

    def _generate(
        self, lm: LanguageModel, prompts: torch.Tensor, proc: Any, seed: int
    ) -> torch.Tensor:
        n = self.config.new_tokens
        torch.manual_seed(seed)
        kwargs: dict[str, Any] = dict(
            do_sample=True,
            top_k=0,
            top_p=1.0,
            temperature=1.0,
            max_new_tokens=n,
            attention_mask=torch.ones_like(prompts),
            pad_token_id=0,
        )
        if getattr(lm.model.generation_config, "eos_token_id", None) is not None:
            kwargs["min_new_tokens"] = n  # fixed-length outputs, as in the paper's evaluation
        # temperature first, then the watermark: the watermark must see (and preserve) the law
        # the text is sampled from, so generate()'s own warper (applied after processors) stays off
        chain = []
        if self.config.temperature != 1.0:
            chain.append(TemperatureLogitsWarper(self.config.temperature))
        if proc is not None:
            chain.append(proc)
        if chain:
            kwargs["logits_processor"] = LogitsProcessorList(chain)
        with torch.no_grad():
            out = lm.model.generate(prompts.to(lm.model.device), **kwargs)
        return out[:, prompts.shape[1] :].cpu()

    # -- protocol ------------------------------------------------------------------------------
    def run(self, ctx: RunContext, method: Any) -> None:
        with single_thread_on_cpu(ctx.device):
            self._run(ctx, method)

    def _run(self, ctx: RunContext, method: Any) -> None:
        cfg = self.config
        code, prose, digest = load_corpus()
        ctx.record_dataset(
            "python-stdlib-text", digest, "sysconfig stdlib: " + ", ".join(("code", "docstrings"))
        )
        rng = np.random.default_rng(ctx.seed)
        strengths: list[float | None] = [None]
        if cfg.sweep:
            strengths += [float(v) for v in getattr(method, "trade_off_values", ())]
        total = 2 + 2 * len(strengths) + 1
        ctx.progress(0, total, "training / loading the language model")
        lm = self._language_model(ctx, code, prose)
        ctx.log(f"language model: {lm.description}, vocab {lm.vocab_size}")
        prompts = {
            "code": self._prompt_ids(
                lm, sample_prompts(code, cfg.n_prompts, 4 * cfg.prompt_tokens, rng)
            ),
            "text": self._prompt_ids(
                lm, sample_prompts(prose, cfg.n_prompts, 4 * cfg.prompt_tokens, rng)
            ),
        }
        key = 15485863 + 7919 * ctx.seed
        done = 0

        # null: plain sampling, tested with the method's detector under `null_keys` keys. With
        # one key the texts' p-values are correlated (they share common n-grams, whose scores
        # the key fixes), so several keys give a far better estimate of the FPR over keys.
        dets = [
            method.make_processor(lm.vocab_size, key + 104729 * j).detector(alpha=cfg.alpha_tokens)
            for j in range(cfg.null_keys)
        ]
        null_p, null_nll = [], []
        for regime in REGIMES:
            gen = self._generate(lm, prompts[regime], None, ctx.seed + 1)
            null_nll += sequence_nll(lm.model, prompts[regime], gen).tolist()
            null_p += [
                det.detect(g.tolist(), p.tolist()).p_value
                for det in dets
                for g, p in zip(gen, prompts[regime], strict=True)
            ]
            done += 1
            ctx.progress(done, total, f"unwatermarked {regime}")
            ctx.check_cancelled()

        points, default = [], None
        for strength in strengths:
            res = self._evaluate(lm, method, key, strength, prompts, ctx)
            done += 2
            ctx.progress(
                done,
                total,
                f"watermarked, {getattr(method, 'trade_off', '') or 'default'}={strength}",
            )
            if strength is None:
                default = res
            else:
                points.append((strength, res))

        robust = self._robustness(lm, default, prompts, rng)
        ctx.progress(total, total, "done")
        self._report(ctx, method, default, points, robust, null_p, null_nll)

    def _evaluate(
        self,
        lm: LanguageModel,
        method: Any,
        key: int,
        strength: float | None,
        prompts: dict[str, torch.Tensor],
        ctx: RunContext,
    ) -> dict[str, Any]:
        cfg = self.config
        res: dict[str, Any] = {"gens": {}}
        pvals, tokens, kls, nll = [], [], [], []
        for regime in REGIMES:
            proc = method.make_processor(lm.vocab_size, key, strength, track=True)
            gen = self._generate(lm, prompts[regime], proc, ctx.seed + 2)
            det = proc.detector(alpha=cfg.alpha_tokens)
            dets = [
                det.detect(g.tolist(), p.tolist())
                for g, p in zip(gen, prompts[regime], strict=False)
            ]
            rp = [d.p_value for d in dets]
            res[f"tpr_{regime}"] = _summ([float(p <= cfg.fpr_level) for p in rp])
            res[f"entropy_{regime}"] = _summ([r.entropy for r in proc.records])
            res["gens"][regime] = gen
            pvals += rp
            tokens += [d.tokens_to_alpha or cfg.new_tokens for d in dets]
            kls += [r.kl_bias for r in proc.records]
            nll += sequence_nll(lm.model, prompts[regime], gen).tolist()
            if strength is None:  # one point per text: the z-scores the run page plots
                for i, d in enumerate(dets):
                    ctx.log_metrics(
                        i,
                        **{
                            f"z_{regime}": d.z,
                            f"tokens_to_p02_{regime}": d.tokens_to_alpha or cfg.new_tokens,
                        },
                    )
            ctx.check_cancelled()
        res.update(
            tpr=_summ([float(p <= cfg.fpr_level) for p in pvals]),
            tokens=_summ(tokens),
            kl=_summ(kls),
            ppl=float(np.exp(_summ(nll))),
            detector=det,
        )
        return res

    def _robustness(
        self,
        lm: LanguageModel,
        res: dict[str, Any],
        prompts: dict[str, torch.Tensor],
        rng: np.random.Generator,
    ) -> dict[str, float]:
        cfg = self.config
        det = res["detector"]
        out: dict[str, float] = {}
        for rate in cfg.attack_rates:
            for kind in ("sub", "del"):
                hits = []
                for regime in REGIMES:
                    for g, p in zip(res["gens"][regime], prompts[regime], strict=False):
                        toks = g.tolist()
                        toks = (
                            substitute_tokens(toks, rate, lm.vocab_size, rng)
                            if kind == "sub"
                            else delete_tokens(toks, rate, rng)
                        )
                        hits.append(float(det.detect(toks, p.tolist()).p_value <= cfg.fpr_level))
                out[f"tpr_{kind}_{rate:g}"] = _summ(hits)
        return out

    def _report(
        self,
        ctx: RunContext,
        method: Any,
        d: dict[str, Any],
        points: list,
        robust: dict[str, float],
        null_p: list[float],
        null_nll: list[float],
    ) -> None:
        cfg = self.config
        summary = dict(
            tpr_at_1fpr=d["tpr"],
            fpr=_summ([float(p <= cfg.fpr_level) for p in null_p]),
            tokens_to_p02=d["tokens"],
            kl_distortion=d["kl"],
            perplexity=d["ppl"],
            perplexity_unwatermarked=float(np.exp(_summ(null_nll))),
            tpr_code=d["tpr_code"],
            tpr_text=d["tpr_text"],
            entropy_code=d["entropy_code"],
            entropy_text=d["entropy_text"],
            **robust,
        )
        ctx.log_summary(**summary)
        knob = getattr(method, "trade_off", "") or "strength"
        # without a sweep the curve is the default point, labelled with the configured value
        # (None for methods without a knob: Gumbel, inverse transform)
        default_value = getattr(getattr(method, "config", None), knob, None)
        curve = [(s, r) for s, r in points] or [(default_value, d)]
        tpr_kl, tok_ppl = tradeoff_figures(
            method.name, knob, curve, cfg.fpr_level, cfg.alpha_tokens
        )
        ctx.save_artifact("tradeoff_tpr_vs_kl", tpr_kl)
        ctx.save_artifact("tradeoff_tokens_vs_ppl", tok_ppl)
        ctx.save_artifact(
            "robustness", robustness_figure(method.name, cfg.attack_rates, d["tpr"], robust)
        )
        ctx.save_artifact(
            "tradeoff_points",
            [
                {
                    knob: s,
                    "tpr": r["tpr"],
                    "tokens_to_p02": r["tokens"],
                    "kl": r["kl"],
                    "perplexity": r["ppl"],
                }
                for s, r in curve
            ],
        )
