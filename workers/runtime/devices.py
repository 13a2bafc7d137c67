"""Device discovery and per-process device assignment for GPU workers."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    kind: str  # "cuda" or "cpu"
    name: str
    memory_mb: int

    def as_dict(self) -> dict:
        return asdict(self)


def list_devices() -> list[DeviceInfo]:
    """The GPUs this host can use, or one CPU entry when there are none."""
    # nvidia-smi rather than torch.cuda: initialising CUDA in the parent would break the
    # forked worker children, which must each pick their own device first.
    import shutil
    import subprocess

    if shutil.which("nvidia-smi"):
        try:
            out = subprocess.run(
                [
                    "nvidia-smi",
                    "--query-gpu=index,name,memory.total",
                    "--format=csv,noheader,nounits",
                ],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            ).stdout
            gpus = []
            for line in out.strip().splitlines():
                index, name, mem = (part.strip() for part in line.split(","))
                gpus.append(DeviceInfo(int(index), "cuda", name, int(float(mem))))
            if gpus:
                return gpus
        except (subprocess.SubprocessError, ValueError, OSError):
            pass
    import platform

    try:
        mem_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError):
        mem_mb = 0
    return [DeviceInfo(0, "cpu", platform.processor() or platform.machine(), mem_mb)]


def pin_process_to_device(slot: int, devices: list[DeviceInfo]) -> str:
    """Make this process see only its own GPU (one run per device). Returns the torch device.

    Must run before CUDA is initialised in the process, which is why workers call it from
    `worker_process_init`.
    """
    gpus = [d for d in devices if d.kind == "cuda"]
    if not gpus:
        return "cpu"
    chosen = gpus[slot % len(gpus)]
    os.environ["CUDA_VISIBLE_DEVICES"] = str(chosen.index)
    return "cuda:0"
