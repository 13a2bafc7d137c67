"""Run untrusted (model-written) Python in a separate, limited process.

Layers, each reported in `SandboxResult.isolation`:
- a fresh process group in a private working directory (`work/`, the only writable place); the
  inputs are copied into `data/`, made read-only, and exposed as the `DATA_DIR` path;
- resource limits (setrlimit): CPU seconds, address space, file size, open files, no core dumps;
  plus a wall-clock timeout after which the whole process group is killed;
- no network: a new network namespace (`unshare -n`) where the kernel allows one; in addition,
  and as the only barrier where it does not, a `sys.addaudithook` hook installed before the user
  code runs refuses socket creation, subprocesses and any write, rename or delete outside `work/`.
The audit hook is a Python-level barrier (ctypes can sidestep it) - this is a guard for honest
mistakes and casual misuse by model-written code, not a container. The caller never raises:
every failure, including the sandbox's own, comes back as a SandboxResult.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_BOOT = r"""
import os, sys
_WORK = os.path.realpath(sys.argv[1])
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

def _inside(path):
    try:
        p = os.path.realpath(os.fsdecode(path))
    except Exception:
        return False
    return p == _WORK or p.startswith(_WORK + os.sep)

def _hook(event, args):
    if event in ("socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
                 "socket.sendto", "socket.gethostbyname"):
        raise PermissionError("sandbox: network access is disabled")
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork",
                 "os.forkpty", "pty.spawn", "os.kill", "os.killpg"):
        raise PermissionError("sandbox: starting or signalling processes is disabled")
    if event == "open":
        path, mode, flags = args
        if path is None or isinstance(path, int):
            return
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                  (isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writing and not _inside(path):
            raise PermissionError("sandbox: writing outside the scratch directory is disabled: %s" % (path,))
    if event in ("os.remove", "os.rmdir", "os.mkdir", "os.rename", "os.chmod", "os.chown",
                 "os.symlink", "os.link", "os.truncate", "os.utime", "shutil.rmtree", "shutil.move"):
        paths = [a for a in args if isinstance(a, (str, bytes, os.PathLike))]
        if any(not _inside(p) for p in paths):
            raise PermissionError("sandbox: modifying files outside the scratch directory is disabled")

sys.addaudithook(_hook)
sys.argv = [sys.argv[2]]
_code = open(sys.argv[0], encoding="utf-8").read()
exec(compile(_code, "solution.py", "exec"), {"__name__": "__main__", "DATA_DIR": os.environ["DATA_DIR"]})
"""


@dataclass
class SandboxResult:
    """What happened. `reason`: ok | error | blocked (a forbidden operation: network, process,
    write outside the scratch dir) | wall_timeout | cpu_limit | memory_limit | killed |
    output_limit | sandbox_error."""

    stdout: str
    stderr: str
    exit_code: int | None
    reason: str
    wall_time: float
    isolation: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.reason == "ok"


@functools.lru_cache(maxsize=1)
def network_namespace_prefix() -> tuple[str, ...]:
    """The command prefix that starts a process without network, or () if none is allowed."""
    exe = shutil.which("unshare")
    if not exe:
        return ()
    for prefix in ((exe, "-n"), (exe, "-r", "-n")):
        try:
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            continue
        if probe.returncode == 0:
            return prefix
    return ()


def _limits(cpu_seconds: int, memory_mb: int, file_mb: int):
    def apply() -> None:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_mb << 20, file_mb << 20))
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _write_inputs(data_dir: Path, inputs: dict[str, Any]) -> None:
    import numpy as np

    for name, value in inputs.items():
        if "/" in name or name.startswith("."):
            raise ValueError(f"inputs: bad file name {name!r}")
        if isinstance(value, np.ndarray):
            np.save(data_dir / f"{name}.npy", value, allow_pickle=False)
        elif isinstance(value, (bytes, bytearray)):
            (data_dir / name).write_bytes(bytes(value))
        elif isinstance(value, str):
            (data_dir / name).write_text(value)
        elif isinstance(value, (str, os.PathLike)) and Path(value).is_file():
            shutil.copyfile(value, data_dir / name)
        else:
            raise TypeError(
                f"inputs[{name!r}]: expected ndarray, bytes or str, got {type(value).__name__}"
            )
    for path in data_dir.iterdir():
        path.chmod(0o444)
    data_dir.chmod(0o555)


def _decode(raw: bytes, limit: int) -> tuple[str, bool]:
    return raw[:limit].decode("utf-8", errors="replace"), len(raw) > limit


def run_python(
    code: str,
    *,
    inputs: dict[str, Any] | None = None,
    wall_timeout: float = 20.0,
    cpu_seconds: int = 10,
    memory_mb: int = 2048,
    file_mb: int = 16,
    max_output: int = 65536,
    python: str | None = None,
) -> SandboxResult:
    """Execute `code` as a script in the sandbox; never raises."""
    start = time.monotonic()
    root = None
    isolation: list[str] = []
    try:
        if not isinstance(code, str):
            raise TypeError(f"code: expected str, got {type(code).__name__}")
        root = Path(tempfile.mkdtemp(prefix="crucible-sandbox-"))
        work, data = root / "work", root / "data"
        work.mkdir()
        data.mkdir()
        _write_inputs(data, inputs or {})
        (root / "boot.py").write_text(_BOOT)
        (root / "solution.py").write_text(code)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(work),
            "DATA_DIR": str(data),
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "MPLBACKEND": "Agg",
            "LANG": "C.UTF-8",
        }
        prefix = network_namespace_prefix()
        isolation += [
            "netns" if prefix else "no-netns",
            "audit-hook",
            "rlimits",
            "scratch-cwd",
            "data-read-only",
        ]
        cmd = [
            *prefix,
            python or sys.executable,
            "-I",
            str(root / "boot.py"),
            str(work),
            str(root / "solution.py"),
        ]
        proc = subprocess.Popen(
            cmd,
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_limits(cpu_seconds, memory_mb, file_mb),
        )
        timed_out = False
        try:
            out, err = proc.communicate(timeout=wall_timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = proc.communicate()
        stdout, cut_out = _decode(out, max_output)
        stderr, cut_err = _decode(err, max_output)
        code_ = proc.returncode
        if timed_out:
            reason = "wall_timeout"
        elif code_ is not None and code_ < 0:
            sig = -code_
            reason = (
                "cpu_limit"
                if sig == signal.SIGXCPU
                else ("memory_limit" if "MemoryError" in stderr else "killed")
            )
        elif "MemoryError" in stderr:
            reason = "memory_limit"
        elif "PermissionError: sandbox:" in stderr:
            reason = "blocked"
        elif code_ == 0:
            reason = "output_limit" if (cut_out or cut_err) else "ok"
        else:
            reason = "error"
        return SandboxResult(stdout, stderr, code_, reason, time.monotonic() - start, isolation)
    except Exception as exc:  # the caller must survive anything, including our own bugs
        return SandboxResult(
            "",
            f"sandbox error: {type(exc).__name__}: {exc}",
            None,
            "sandbox_error",
            time.monotonic() - start,
            isolation,
        )
    finally:
        if root is not None:
            for path in (root / "data", root):
                try:
                    path.chmod(0o755)
                except OSError:
                    pass
            shutil.rmtree(root, ignore_errors=True)
