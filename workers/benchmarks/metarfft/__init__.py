"""Meta-RFFT task suite (30+ rule-following tasks) and the cross-task length-generalisation benchmark."""

from workers.benchmarks.metarfft import benchmark  # noqa: F401  (registers metarfft_lengthgen)
from workers.benchmarks.metarfft.task import Task, all_tasks, get_task, register_task

__all__ = ["Task", "all_tasks", "get_task", "register_task"]
