from __future__ import annotations

import os

import numpy as np

from workers.runtime.sandbox import run_python


def test_runs_code_in_scratch_dir_with_read_only_inputs():
    code = (
        "import numpy as np, os\n"
        "x = np.load(os.path.join(DATA_DIR, 'x.npy'))\n"
        "open('scratch.txt', 'w').write('fine')\n"
        "print(x.sum(), os.path.basename(os.getcwd()))\n"
    )
    res = run_python(code, inputs={"x": np.arange(5.0), "note.txt": "hello"})
    assert res.ok, res.stderr
    assert res.stdout.split() == ["10.0", "work"]
    assert "audit-hook" in res.isolation and "rlimits" in res.isolation


def test_infinite_loop_is_stopped_by_the_wall_clock():
    res = run_python("while True:\n    pass\n", wall_timeout=1.5, cpu_seconds=60)
    assert res.reason == "wall_timeout" and not res.ok
    assert res.wall_time < 30


def test_cpu_time_limit():
    res = run_python("while True:\n    pass\n", wall_timeout=60, cpu_seconds=1)
    assert res.reason == "cpu_limit"


def test_network_is_blocked():
    code = "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=2)\n"
    res = run_python(code)
    assert res.reason == "blocked" and "network access is disabled" in res.stderr


def test_huge_allocation_hits_the_memory_limit():
    res = run_python("x = bytearray(16 * 1024 ** 3)\n", memory_mb=512)
    assert res.reason == "memory_limit"


def test_writes_outside_the_scratch_dir_are_refused(tmp_path):
    target = tmp_path / "evil.txt"
    res = run_python(f"open({str(target)!r}, 'w').write('x')\n")
    assert res.reason == "blocked" and not target.exists()
    res = run_python(
        "import os\nopen(os.path.join(DATA_DIR, 'x.npy'), 'wb').write(b'0')\n",
        inputs={"x": np.zeros(2)},
    )
    assert res.reason == "blocked"
    res = run_python(
        "import os\nos.remove(os.path.join(DATA_DIR, 'x.npy'))\n", inputs={"x": np.zeros(2)}
    )
    assert res.reason == "blocked"


def test_subprocesses_are_refused_and_errors_are_reported():
    assert run_python("import subprocess\nsubprocess.run(['true'])\n").reason == "blocked"
    res = run_python("raise ValueError('boom')\n")
    assert res.reason == "error" and "ValueError: boom" in res.stderr and res.exit_code == 1


def test_the_caller_survives_bad_arguments():
    res = run_python(None)  # type: ignore[arg-type]
    assert res.reason == "sandbox_error" and "code" in res.stderr
    res = run_python("print(1)", inputs={"../escape": np.zeros(1)})
    assert res.reason == "sandbox_error"
    assert os.getcwd()  # still here
