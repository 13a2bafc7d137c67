import pytest
import torch


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """Tiny models run faster (and steadier) on one thread of the shared CPU."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
