"""Shared tiny sizes: a decoder that pre-trains in seconds, a small encoder, small data."""

import pytest

TINY_LM = {
    "lm_hidden": 32,
    "lm_layers": 2,
    "lm_heads": 4,
    "lm_vocab": 300,
    "lm_pretrain_steps": 8,
    "lm_corpus_chars": 20_000,
}
TINY_ENC = {"enc_dim": 16, "enc_heads": 2, "encoder_pretrain_steps": 2}
TINY_TRAIN = {"steps": 3, "batch_size": 8, "warmup": 1}
TINY_BENCH = {
    "n_train_clips": 10,
    "n_train_items": 40,
    "n_test_clips": 3,
    "pairs_per_clip": 1,
    "n_examples": 2,
}


@pytest.fixture(scope="session")
def mellow_data_dir(tmp_path_factory):
    """One data cache for the session, so the tiny decoder is pre-trained once."""
    return tmp_path_factory.mktemp("mellow-data")


def tiny_llama(vocab: int = 50, hidden: int = 32):
    """A randomly initialised 2-layer LlamaForCausalLM (no hub download)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    return LlamaForCausalLM(
        LlamaConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=4,
            max_position_embeddings=256,
        )
    )


@pytest.fixture(scope="session")
def tiny_hf_dir(tmp_path_factory):
    """A local Hugging Face directory standing in for SmolLM2-135M: tokenizer + tiny random Llama."""
    from workers.models.lm.tokenizer import train_bpe_tokenizer

    path = tmp_path_factory.mktemp("smol")
    texts = [
        "a loud tone then a rising chirp",
        "how many sound events can be heard",
        "the first clip",
        "Question: which clip is louder? Answer: the second clip",
    ] * 20
    tok = train_bpe_tokenizer(texts, vocab_size=300, min_frequency=1)
    lm = tiny_llama(vocab=len(tok))
    lm.config.eos_token_id, lm.config.pad_token_id = tok.eos_token_id, tok.pad_token_id
    lm.save_pretrained(path)
    tok.save_pretrained(path)
    return path
