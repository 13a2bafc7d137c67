import os

import pytest

from tests.workers.safety.servers import FakeChat, PageServer, SearchServer

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def chat_server():
    with FakeChat() as server:
        yield server


@pytest.fixture(scope="session")
def web():
    with PageServer() as pages, SearchServer(pages.url) as search:
        yield pages, search


@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    # MiniLM query encoding takes ~50 ms on one thread but over a second with two threads on
    # this shared 2-core machine (oversubscription); tests pin one thread and restore it.
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
