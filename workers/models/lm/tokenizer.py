"""A byte-level BPE tokenizer trained on the corpus, saved so AutoTokenizer loads it."""

from __future__ import annotations

from collections.abc import Sequence

BOS, EOS, PAD = "<|bos|>", "<|eos|>", "<|pad|>"


def train_bpe_tokenizer(texts: Sequence[str], vocab_size: int = 2048, *, min_frequency: int = 2):
    """Train a byte-level BPE (GPT-2 style pre-tokenisation) and wrap it for `transformers`.

    Byte-level means every string is encodable (no unknown token), which matters for code.
    Returns a `transformers` fast tokenizer with bos/eos/pad set.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    if vocab_size < 260:
        raise ValueError(
            f"vocab_size: must be at least 260 (256 bytes + special tokens), got {vocab_size}"
        )
    if not texts:
        raise ValueError("texts: need at least one training text")
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=[PAD, BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD, model_max_length=1 << 20
    )
