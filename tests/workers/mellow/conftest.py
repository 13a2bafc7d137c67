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
TINY_ENC = {"enc_dim": 16, "enc_heads": 2}
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
