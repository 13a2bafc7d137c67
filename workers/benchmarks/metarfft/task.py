"""The Meta-RFFT task framework: a rule, an instance generator, a rule-following trace, a checker.

Adding a task means writing one small class (see `tasks_*.py`):

    @register_task
    class Reverse(Task):
        name, family = "reverse_string", "string"
        rule = "for i from n-1 to 0: out+=s[i]"
        def sample(self, length, rng): return {"s": rand_word(rng, length)}
        def prompt(self, x): return x["s"]
        def run_rule(self, x): ...   # step-by-step execution of the rule -> (steps, answer)
        def reference(self, x): return x["s"][::-1]   # independent ground truth

`run_rule` executes the rule as written, recording one trace step per loop iteration (the
paper's rule-following output: the model states what each step of the rule does); the final
answer it reaches must equal `reference`, which computes the answer another way (Python
built-ins). The tests check this for every task at several lengths. The output the model is
trained to produce is `step;step;...>answer`; the checker parses what follows the last '>'.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

ANSWER_MARK = ">"
STEP_SEP = ";"


class Task(ABC):
    name: ClassVar[str] = ""
    family: ClassVar[str] = ""  # arithmetic | number | string | logic | code
    rule: ClassVar[str] = ""  # pseudo-code shown to the model
    min_length: ClassVar[int] = 1

    @abstractmethod
    def sample(self, length: int, rng: np.random.Generator) -> dict[str, Any]:
        """An instance whose size is `length` (digits, characters or list items)."""

    @abstractmethod
    def prompt(self, x: dict[str, Any]) -> str:
        """The question as the model sees it."""

    @abstractmethod
    def run_rule(self, x: dict[str, Any]) -> tuple[list[str], str]:
        """Execute the rule step by step: (trace steps, final answer)."""

    @abstractmethod
    def reference(self, x: dict[str, Any]) -> str:
        """The correct answer, computed independently of the rule's trace."""

    # -- shared behaviour ------------------------------------------------------------------------
    def instance(self, length: int, rng: np.random.Generator) -> dict[str, Any]:
        if length < self.min_length:
            raise ValueError(f"task {self.name}: length must be >= {self.min_length}, got {length}")
        return self.sample(length, rng)

    def trace_text(self, x: dict[str, Any]) -> str:
        steps, answer = self.run_rule(x)
        return STEP_SEP.join(steps) + ANSWER_MARK + answer

    def check(self, x: dict[str, Any], output: str) -> bool:
        """True when the answer after the last '>' (or the whole output) is correct."""
        return parse_answer(output) == self.reference(x)


def parse_answer(output: str) -> str:
    text = output.split("\n", 1)[0]
    return text.rsplit(ANSWER_MARK, 1)[-1].strip()


_TASKS: dict[str, Task] = {}


def register_task(cls: type[Task]) -> type[Task]:
    if not cls.name or cls.name in _TASKS:
        raise TypeError(f"task {cls.__name__} needs a unique name, got {cls.name!r}")
    if cls.family not in ("arithmetic", "number", "string", "logic", "code"):
        raise TypeError(f"task {cls.name}: unknown family {cls.family!r}")
    if not cls.rule:
        raise TypeError(f"task {cls.name}: a rule is required")
    _TASKS[cls.name] = cls()
    return cls


def all_tasks() -> dict[str, Task]:
    from workers.benchmarks.metarfft import tasks_arith, tasks_code, tasks_string  # noqa: F401

    return dict(_TASKS)


def get_task(name: str) -> Task:
    tasks = all_tasks()
    if name not in tasks:
        raise ValueError(f"unknown Meta-RFFT task {name!r}; known: {sorted(tasks)}")
    return tasks[name]


# -- instance helpers ---------------------------------------------------------------------------
LETTERS = "abcdefgh"


def rand_number(rng: np.random.Generator, n: int) -> str:
    """An n-digit decimal number without a leading zero (n == 1 may be 0)."""
    first = str(rng.integers(1 if n > 1 else 0, 10))
    return first + "".join(str(d) for d in rng.integers(0, 10, size=n - 1))


def rand_digits(rng: np.random.Generator, n: int) -> str:
    return "".join(str(d) for d in rng.integers(0, 10, size=n))


def rand_word(rng: np.random.Generator, n: int, alphabet: str = LETTERS) -> str:
    return "".join(alphabet[i] for i in rng.integers(0, len(alphabet), size=n))


def rand_bits(rng: np.random.Generator, n: int) -> str:
    return "".join(str(b) for b in rng.integers(0, 2, size=n))
