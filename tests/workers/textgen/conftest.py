import pytest
import torch


@pytest.fixture(autouse=True)
def _one_torch_thread():
    # the tiny models here are slower with several threads on a shared CPU (spin-waiting)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
