import pytest
import torch


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """The CI box has 2 shared cores: tiny tensors run faster (and steadier) on one thread."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
