"""Command line: train a tiny Llama and save it in Hugging Face format.

    python -m workers.models.lm.train_cli --out DIR [--corpus stdlib|stdlib_docstrings|files]
        [--files a.txt b.jsonl] [--steps 300] [--hidden-size 128] ...

Every field of `TinyLlamaConfig` is an option (underscores become dashes). Progress goes to
stdout; the directory then loads with AutoTokenizer / AutoModelForCausalLM.from_pretrained.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workers.core.context import InMemoryRunContext
from workers.models.tiny_llama import TinyLlamaConfig, train_tiny_llama


class _PrintContext(InMemoryRunContext):
    def progress(self, done, total, note=""):
        super().progress(done, total, note)
        print(f"[{done:>6.0f}/{total:.0f}] {note}", flush=True)


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
    ctx = _PrintContext(seed=config.seed)
    record = train_tiny_llama(config, Path(args.out), ctx)
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
