"""Configuration of Mellow and its baselines. Defaults train on the CPU in about a minute; the
paper's size is `paper_scale_config()` (SmolLM2-135M from a local directory, 768-d encoder,
32 kHz 10 s audio), for GPU workers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from workers.core import PluginConfig


class DecoderConfig(PluginConfig):
    decoder_source: Literal["tiny", "hf_dir"] = Field(
        "tiny",
        description="tiny: the project's small Llama, pre-trained here on English "
        "docstrings (cached); hf_dir: a local Hugging Face causal LM directory (e.g. SmolLM2-135M)",
    )
    decoder_init: Literal["pretrained", "random"] = Field(
        "pretrained",
        description="Decoder weights: pre-trained, or re-initialised with the same "
        "shape and tokenizer (the paper's LM pre-training ablation)",
    )
    decoder_path: str = Field("", max_length=1000, description="hf_dir: the model directory")
    lm_hidden: int = Field(96, ge=16, le=4096, description="tiny: decoder width")
    lm_layers: int = Field(3, ge=1, le=48, description="tiny: decoder layers")
    lm_heads: int = Field(4, ge=1, le=64, description="tiny: attention heads")
    lm_vocab: int = Field(2048, ge=260, le=65536, description="tiny: BPE vocabulary size")
    lm_pretrain_steps: int = Field(200, ge=1, le=1_000_000, description="tiny: pre-training steps")
    lm_corpus_chars: int = Field(
        1_500_000, ge=10_000, le=500_000_000, description="tiny: characters of pre-training text"
    )
    steps: int = Field(300, ge=1, le=1_000_000, description="Fine-tuning steps on the AQA items")
    batch_size: int = Field(32, ge=1, le=4096, description="Items per step")
    lr: float = Field(1e-3, gt=0, le=1.0, description="Peak AdamW learning rate")
    weight_decay: float = Field(0.01, ge=0, le=1.0, description="AdamW weight decay")
    warmup: int = Field(30, ge=0, le=100_000, description="Linear warmup steps")
    prompt_choices: bool = Field(
        False,
        description="Also list the options in the prompt (MMAU style); off: cloze form, half the tokens",
    )
    score_batch: int = Field(128, ge=1, le=8192, description="Sequences per scoring forward pass")

    @model_validator(mode="after")
    def _check(self):
        if self.decoder_source == "hf_dir" and not self.decoder_path:
            raise ValueError("decoder_path: required when decoder_source is 'hf_dir'")
        if self.lm_hidden % self.lm_heads:
            raise ValueError(f"lm_heads: must divide lm_hidden ({self.lm_hidden})")
        return self


class EncoderConfig(PluginConfig):
    n_mels: int = Field(32, ge=16, le=256, description="Mel bins of the log-mel input")
    n_fft: int = Field(512, ge=64, le=8192, description="STFT size")
    hop: int = Field(400, ge=16, le=4096, description="STFT hop in samples")
    enc_dim: int = Field(48, ge=8, le=1024, description="Width of the first encoder stage")
    enc_depths: tuple[int, ...] = Field(
        (1, 1),
        min_length=1,
        max_length=4,
        description="Transformer blocks per stage (2x2 merging between stages)",
    )
    enc_heads: int = Field(4, ge=1, le=32, description="Attention heads in the encoder")
    patch_mels: int = Field(8, ge=1, le=64, description="Patch height (mel bins)")
    encoder_pretrain_steps: int = Field(
        300,
        ge=0,
        le=1_000_000,
        description="Steps of supervised tagging of the training clips before fine-tuning (stand-in for "
        "HTSAT's AudioSet pre-training; synthetic clips only, 0 = from scratch)",
    )
    patch_frames: int = Field(8, ge=1, le=64, description="Patch width (frames)")

    @model_validator(mode="after")
    def _check_encoder(self):
        if self.n_mels % (self.patch_mels * 2 ** (len(self.enc_depths) - 1)):
            raise ValueError("n_mels: must be divisible by patch_mels x 2^(stages - 1)")
        if self.enc_dim % self.enc_heads:
            raise ValueError(f"enc_heads: must divide enc_dim ({self.enc_dim})")
        if any(d < 1 or d > 24 for d in self.enc_depths):
            raise ValueError("enc_depths: each stage needs 1-24 blocks")
        return self


class MellowConfig(DecoderConfig, EncoderConfig):
    projection: Literal["mlp", "linear"] = Field(
        "mlp",
        description="mlp: Mellow's residual two-layer projection with layer norm; linear: one affine map",
    )
    projection_dropout: float = Field(
        0.1, ge=0, lt=1, description="Dropout inside the mlp projection (0.5 in the official code)"
    )
    pool: int = Field(
        2,
        ge=1,
        le=64,
        description="Average-pool factor over the encoder's time-major "
        "tokens (8 in the paper); pooling by the frequency patches per step (here 2) "
        "leaves one token per time step",
    )


class CaptionOnlyConfig(DecoderConfig):
    captions: Literal["reference", "none"] = Field(
        "reference",
        description="reference: the clips' captions replace the audio (MMAU's LLM + "
        "caption baseline); none: the question alone (measures answer priors)",
    )


class ClassifierConfig(EncoderConfig):
    text_dim: int = Field(
        64, ge=8, le=2048, description="Bag-of-token embedding width for question and options"
    )
    hidden: int = Field(128, ge=8, le=8192, description="Hidden width of the option-scoring MLP")
    steps: int = Field(300, ge=1, le=1_000_000, description="Training steps")
    batch_size: int = Field(32, ge=1, le=4096, description="Items per step")
    lr: float = Field(1e-3, gt=0, le=1.0, description="Peak AdamW learning rate")
    weight_decay: float = Field(0.01, ge=0, le=1.0, description="AdamW weight decay")
    warmup: int = Field(30, ge=0, le=100_000, description="Linear warmup steps")


def paper_scale_config(decoder_path: str) -> dict:
    """Mellow's published shape for a GPU worker (benchmark: sample_rate=32000, seconds=10)."""
    return dict(
        decoder_source="hf_dir",
        decoder_path=decoder_path,
        n_mels=64,
        n_fft=1024,
        hop=320,
        enc_dim=96,
        enc_depths=(2, 2, 6, 2),
        enc_heads=4,
        patch_mels=4,
        patch_frames=8,
        projection="mlp",
        projection_dropout=0.5,
        pool=2,
        steps=60_000,
        batch_size=48,
        lr=1e-4,
        warmup=2000,
    )
