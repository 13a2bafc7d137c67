"""STARK's LLM interaction loops (chat.py, main.py), on any `ChatModel`.

Text mode (chat.Agent_text_based): ask; if the reply has no [RESULTS_START], send STARK's
"state your results" feedback, up to `max_rounds` more times.
Code mode (chat.Agent_with_APIs): the model writes `def solver(...)` in a ```python block; the
block is wrapped as STARK's add_execution_string does (imports, `result = solver(...)`, a print
of the result between the tags), checked against STARK's import allow-list and run in the
sandbox; the program's output (or error) goes back to the model until a result is printed.
Online tracking (main.execute_llm_solver_online): the task prompt, then one user message per
step in the same conversation, one answer per step.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import numpy as np

from workers.benchmarks.stark import prompts_tier1 as P
from workers.benchmarks.stark.instance import Instance
from workers.models.base import ChatModel
from workers.runtime.sandbox import run_python

ALLOWED_IMPORTS = {
    "scipy",
    "numpy",
    "shapely",
    "pandas",
    "os",
    "csv",
    "filterpy",
}  # utils.guard_imports


def extract_code(reply: str) -> str:
    """utils.extract_code: the ```python / ```Python blocks of a reply, concatenated."""
    marks = [m.start() for m in re.finditer("```", reply)]
    if len(marks) % 2:
        marks = marks[:-1]
    code = ""
    for i in range(0, len(marks), 2):
        head = reply[marks[i] : marks[i] + 10]
        if "python" in head or "Python" in head:
            code += "\n" + reply[marks[i] + 10 : marks[i + 1]] + "\n"
    return code


def disallowed_imports(code: str) -> set[str] | None:
    """utils.guard_imports; returns the offending top-level modules (None if clean)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None  # let it fail when run, as STARK's exec would
    bad = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad |= {a.name.split(".")[0] for a in node.names} - ALLOWED_IMPORTS
        elif isinstance(node, ast.ImportFrom) and node.module:
            bad |= {node.module.split(".")[0]} - ALLOWED_IMPORTS
    return bad or None


def wrap_code(code: str, tracking: bool) -> str:
    """utils.add_execution_string; tracking solvers get readings/coordinate/timestamp from DATA_DIR."""
    if tracking:
        head = (
            "import numpy as np\nimport scipy\nimport os\n"
            "readings = np.load(os.path.join(DATA_DIR, 'readings.npy'))\n"
            "coordinate = np.load(os.path.join(DATA_DIR, 'coordinate.npy'))\n"
            "timestamp = np.load(os.path.join(DATA_DIR, 'timestamp.npy'))\n"
        )
        call = "result=solver(readings, coordinate, timestamp)\n"
    else:
        head, call = "import numpy as np\nimport scipy\n", "result=solver()\n"
    return (
        head + code + "\n" + call + 'print("[RESULTS_START] [{}] [RESULTS_END]".format(result))\n'
        "print('The solver runs successfully.')\n"
    )


def program_feedback(output: str) -> str:
    """utils.iteration_program_output."""
    if "An error occurred:" in output:
        text = "The above program printed errors. Please fix it:\n" + output
    elif len(output) == 0:
        text = (
            "The above code completed successfully or no code is written. If this is meant to be the case, "
            "state the keywords [RESULTS_START] and [RESULTS_END] and the iteration will stop."
        )
    elif len(output) >= 2048:
        text = (
            "The above program printed too lengthy output. I've cropped it to 4096 characters for you.\n"
            + output[:4096]
        )
    else:
        text = "The above program printed:\n" + output
    return ">>>>>>" + text


@dataclass
class StarkAgent:
    """Answer STARK instances with `model` in "text" or "code" mode (STARK's defaults: n = 5)."""

    model: ChatModel
    mode: str = "text"
    max_rounds: int = 5
    temperature: float = 1.0
    max_tokens: int = 4096
    wall_timeout: float = 30.0
    cpu_seconds: int = 20
    memory_mb: int = 2048
    sandbox_runs: int = 0
    sandbox_failures: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.mode not in ("text", "code"):
            raise ValueError(f"mode: expected 'text' or 'code', got {self.mode!r}")

    def _system(self, instance: Instance) -> str:
        if self.mode == "text":
            return P.SYSTEM_TEXT
        return P.SYSTEM_TRACK_CODE if instance.family == "tracking" else P.SYSTEM_CODE

    def _step(self, chat: list[dict[str, str]]) -> str:
        reply = self.model.complete(
            chat, max_tokens=self.max_tokens, temperature=self.temperature
        ).text
        if "```Python" in reply or "```python" in reply:
            reply += "```\n"  # agent.OpenAIAgent.step closes a block cut by a stop sequence
        chat.append({"role": "assistant", "content": reply})
        return reply

    def _text_loop(self, chat: list[dict[str, str]]) -> str:
        reply = ""
        for _ in range(self.max_rounds + 1):
            reply = self._step(chat)
            if "[RESULTS_START]" in reply:
                return reply
            chat.append({"role": "user", "content": P.NO_KEYWORD_FEEDBACK})
        return reply

    def _run(self, code: str, inputs: dict[str, np.ndarray]) -> str:
        self.sandbox_runs += 1
        res = run_python(
            code,
            inputs=inputs,
            wall_timeout=self.wall_timeout,
            cpu_seconds=self.cpu_seconds,
            memory_mb=self.memory_mb,
        )
        if res.ok:
            return res.stdout
        self.sandbox_failures[res.reason] = self.sandbox_failures.get(res.reason, 0) + 1
        last = (res.stderr.strip().splitlines() or [res.reason])[-1]
        return res.stdout + f"An error occurred: {last} ({res.reason})"

    def _code_loop(
        self, chat: list[dict[str, str]], tracking: bool, inputs: dict[str, np.ndarray]
    ) -> str:
        reply, failed = "", 0
        for _ in range(self.max_rounds + 1):
            reply = self._step(chat)
            code = extract_code(reply)
            program_output = ""
            if not code.replace("\n", ""):
                chat.append({"role": "user", "content": P.NO_CODE_FEEDBACK})
                output = ""
            else:
                full = wrap_code(code, tracking)
                if bad := disallowed_imports(full):
                    output = f"An error occurred: You've intended to use disallowed package: {sorted(bad)}. Try again"
                    chat.append({"role": "user", "content": output})
                    return output
                output = self._run(full, inputs)
                program_output = program_feedback(output)
                chat.append({"role": "user", "content": program_output})
            if "An error occurred:" in output:
                if failed >= 5:
                    return reply
                failed += 1
                continue
            if "[RESULTS_START]" in program_output and "no code is written." not in program_output:
                return program_output
            if "[RESULTS_START]" in reply and "no code is written." in program_output:
                return reply
        return reply

    def solve(self, instance: Instance) -> tuple[str, list[dict[str, str]]]:
        """Return (answer text, transcript). Tracking answers are the per-step replies joined."""
        chat = [
            {"role": "system", "content": self._system(instance)},
            {"role": "user", "content": instance.prompt},
        ]
        if instance.family != "tracking":
            if self.mode == "text":
                return self._text_loop(chat), chat
            return self._code_loop(chat, False, {}), chat
        answers = []
        for t, message in enumerate(instance.steps):
            if t == 0:
                chat[-1]["content"] += message  # main.py appends step 0 to the task prompt
            else:
                chat.append({"role": "user", "content": message})
            if self.mode == "text":
                answers.append(self._text_loop(chat))
            else:
                answers.append(self._code_loop(chat, True, self._tracking_inputs(instance, t)))
        return "\n".join(answers), chat

    @staticmethod
    def _tracking_inputs(instance: Instance, t: int) -> dict[str, np.ndarray]:
        """utils.read_tracking_data: data up to step t only. Event tasks get step indices as
        `timestamp`, because their timestamps are the firing times the task asks for."""
        inputs = instance.code_inputs
        stamp = (
            np.arange(t + 1, dtype=float)
            if instance.data.get("modality", "").startswith("event")
            else inputs["timestamp"][: t + 1]
        )
        return {
            "readings": inputs["readings"][: t + 1],
            "coordinate": inputs["coordinate"],
            "timestamp": stamp,
        }
