import pytest
import torch

from workers.models.tiny_llama import get_or_train_tiny_llama, tiny_test_config


@pytest.fixture(autouse=True)
def _one_thread():
    # On a shared 2-core machine, intra-op threads fight each other: one thread is ~8x faster here.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    torch.set_num_threads(1)
    return get_or_train_tiny_llama(
        tiny_test_config(steps=20), cache_dir=tmp_path_factory.mktemp("tiny")
    )
