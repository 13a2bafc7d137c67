"""Command line: train a tiny Llama and save it in Hugging Face format.

    python -m workers.models.lm.train_cli --out DIR [--corpus stdlib|stdlib_docstrings|files]
        [--files a.txt b.jsonl] [--steps 300] [--hidden-size 128] ...

Every field of `TinyLlamaConfig` is an option (underscores become dashes). A progress bar (tqdm,
a dependency of transformers) shows the steps and the latest train loss on stderr; the directory
then loads with AutoTokenizer / AutoModelForCausalLM.from_pretrained.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workers.core.context import InMemoryRunContext
from workers.models.tiny_llama import TinyLlamaConfig, train_tiny_llama


class _ProgressBarContext(InMemoryRunContext):
    """A run context that draws ctx.progress as a terminal progress bar and prints ctx.log."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._bar = None

    def progress(self, done, total, note=""):
        from tqdm import tqdm

        super().progress(done, total, note)
        if self._bar is None:
            self._bar = tqdm(total=int(total), unit="step", dynamic_ncols=True)
        self._bar.update(int(done) - self._bar.n)
        self._bar.set_postfix_str(note)

    def log(self, message):
        super().log(message)
        print(message, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="train_cli", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", required=True, help="Directory to write the model and tokenizer to"
    )
    parser.add_argument(
        "--threads", type=int, default=0, help="torch intra-op threads (0 = torch default)"
    )
    for name, field in TinyLlamaConfig.model_fields.items():
        flag = "--" + name.replace("_", "-")
        if name == "files":
            parser.add_argument(flag, nargs="*", default=[], help=field.description)
        else:
            parser.add_argument(
                flag, type=type(field.default), default=field.default, help=field.description
            )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    values = {name: getattr(args, name) for name in TinyLlamaConfig.model_fields}
    values["files"] = tuple(values["files"])
    try:
        config = TinyLlamaConfig(**values)
    except ValueError as exc:
        print(f"invalid configuration: {exc}", file=sys.stderr)
        return 2
    ctx = _ProgressBarContext(seed=config.seed)
    try:
        record = train_tiny_llama(config, Path(args.out), ctx)
    finally:
        ctx.close()
    print(
        json.dumps(
            {
                k: record[k]
                for k in (
                    "parameters",
                    "tokens_seen",
                    "final_val_nll",
                    "final_val_ppl",
                    "mean_step_s",
                )
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
