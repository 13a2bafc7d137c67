"""The STARK tests' stand-in for an LLM API: canned answers in text and code mode."""

from __future__ import annotations

from tests.local_servers import ChatCompletionServer

TRACK_CODE = (
    "Here is my solver.\n```python\nimport numpy as np\n"
    "def solver(readings, coordinate, timestamp):\n"
    "    # the step count tells us the data were cut at the current step\n"
    "    return np.array([float(readings.shape[0]), 2.0])\n```"
)
PLAIN_CODE = "```python\nimport numpy as np\ndef solver():\n    return np.array({value})\n```"


def reply_for(body: dict, state: dict) -> str:
    messages = body["messages"]
    system, last = messages[0]["content"], messages[-1]["content"]
    prompt = messages[1]["content"] if len(messages) > 1 else last
    if "Python" in system:  # code mode
        if last.startswith(">>>>>>"):
            return "Done."
        if "def solver(readings, coordinate, timestamp)" in system:
            return TRACK_CODE
        value = "[1]" if "relationship" in prompt else "[1.0, 2.0]"
        return PLAIN_CODE.format(value=value)
    # text mode: the first answer of each conversation forgets the tags, to exercise STARK's feedback
    if len(messages) == 2 and not state.get("always_tagged"):
        return "Let me think about the geometry first."
    if "relationship" in prompt:
        return "Reasoning... so the answer is [RESULTS_START] [1] [RESULTS_END]"
    return "[RESULTS_START] [1.0, 2.0] [RESULTS_END]"


class FakeOpenAI(ChatCompletionServer):
    def __init__(self) -> None:
        super().__init__(
            reply_for, usage={"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        )
