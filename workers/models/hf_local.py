"""ChatModel adapter for a local Hugging Face causal LM directory (and the project's own models).

``hf_local``: any directory `AutoModelForCausalLM.from_pretrained` can load (a real model on a
GPU worker). ``project``: the same for a model the project trained (e.g. by
`get_or_train_tiny_llama`); its artifact path is the directory. Chat messages go through the
tokenizer's chat template when it has one; otherwise they are joined as a plain prompt.
"""

from __future__ import annotations

from pathlib import Path

import torch

from workers.models.base import ChatModel, Completion, ModelSpec, register_adapter


class HFLocalChatModel(ChatModel):
    """Greedy or sampled generation with `generate()` from a local directory."""

    def __init__(
        self, path: str | Path, *, device: str | None = None, dtype: str = "auto", name: str = ""
    ) -> None:
        super().__init__()
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path = Path(path)
        if not (path / "config.json").is_file():
            raise FileNotFoundError(
                f"path: {path} is not a Hugging Face model directory (no config.json)"
            )
        self.name = name or path.name
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype)
        self.model = AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype).to(self.device)
        self.model.eval()

    def render_prompt(self, messages: list[dict[str, str]]) -> str:
        """The text the model sees: chat template if the tokenizer has one, else 'role: content' lines."""
        for m in messages:
            if "role" not in m or "content" not in m:
                raise ValueError("messages: each message needs 'role' and 'content'")
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        if len(messages) == 1 and messages[0]["role"] == "user":
            return messages[0]["content"]
        return "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"

    @torch.no_grad()
    def _complete(self, messages, *, max_tokens, temperature, stop) -> Completion:
        prompt = self.render_prompt(messages)
        enc = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(self.device)
        kwargs = dict(
            max_new_tokens=max_tokens,
            pad_token_id=self.tokenizer.pad_token_id
            if self.tokenizer.pad_token_id is not None
            else self.tokenizer.eos_token_id,
        )
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature)
        else:
            kwargs.update(do_sample=False)
        out = self.model.generate(**enc, **kwargs)
        new = out[0, enc["input_ids"].shape[1] :]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        for s in stop or []:
            cut = text.find(s)
            if cut >= 0:
                text = text[:cut]
        return Completion(
            text=text,
            prompt_tokens=int(enc["input_ids"].shape[1]),
            completion_tokens=int(new.numel()),
        )


@register_adapter("hf_local")
def build_hf_local(spec: ModelSpec) -> HFLocalChatModel:
    if not spec.path:
        raise ValueError("path: an hf_local model needs a local directory")
    return HFLocalChatModel(
        spec.path,
        device=spec.options.get("device"),
        dtype=spec.options.get("dtype", "auto"),
        name=spec.name,
    )


@register_adapter("project")
def build_project(spec: ModelSpec) -> HFLocalChatModel:
    if not spec.path:
        raise ValueError("path: a project model needs the artifact directory it was saved to")
    return HFLocalChatModel(
        spec.path,
        device=spec.options.get("device"),
        dtype=spec.options.get("dtype", "float32"),
        name=spec.name,
    )
