from __future__ import annotations

import pytest

from workers.core.data import shared_data_dir


@pytest.fixture(scope="session")
def sample_dir():
    shared = shared_data_dir()
    if shared is None or not (shared / "stark-sample").is_dir():
        pytest.skip("shared STARK sample not available")
    return shared / "stark-sample"


@pytest.fixture(scope="session")
def sample(sample_dir):
    from workers.benchmarks.stark.importer import load_release

    return load_release(sample_dir)


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """One instance of every tier-1/tier-2 task, generated once for the session."""
    from workers.benchmarks.stark.generators import write_release

    root = tmp_path_factory.mktemp("stark-gen")
    write_release(root, seed=7, per_task=1)
    return root
