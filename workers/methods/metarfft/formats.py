"""How an example is shown to the model: what distinguishes Meta-RFFT from its baseline.

Meta-RFFT (Hu et al. 2025, Sec. 3): the input holds the task's rule (code / pseudo-code) and the
question; the target is the step-by-step execution of the rule followed by the answer
(rule-following fine-tuning, RFFT), and this is trained on many tasks at once so that rule
following itself transfers to unseen tasks. The baseline trains on direct answers: the input
names the task (no rule) and the target is the answer alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class TaskLike(Protocol):
    name: str
    rule: str

    def prompt(self, x: dict[str, Any]) -> str: ...

    def trace_text(self, x: dict[str, Any]) -> str: ...

    def reference(self, x: dict[str, Any]) -> str: ...


@dataclass(frozen=True)
class ExampleFormat:
    """`show_rule`: put the rule in the input; `show_trace`: train on the rule's execution trace."""

    show_rule: bool = True
    show_trace: bool = True

    def prompt(self, task: TaskLike, x: dict[str, Any]) -> str:
        head = f"R:{task.rule}\n" if self.show_rule else f"T:{task.name}\n"
        return f"{head}Q:{task.prompt(x)}\nA:"

    def target(self, task: TaskLike, x: dict[str, Any]) -> str:
        body = task.trace_text(x) if self.show_trace else ">" + task.reference(x)
        return body + "\n"

    def one_shot_prompt(self, task: TaskLike, demo: dict[str, Any], x: dict[str, Any]) -> str:
        """In-context adaptation: one solved example of the task, then the question."""
        return self.prompt(task, demo) + self.target(task, demo) + self.prompt(task, x)


RULE_FOLLOWING = ExampleFormat(show_rule=True, show_trace=True)
DIRECT_ANSWER = ExampleFormat(show_rule=False, show_trace=False)
