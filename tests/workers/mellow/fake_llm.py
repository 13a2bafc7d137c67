"""A local OpenAI-compatible server that writes ReasonAQA-style questions from the captions in
the prompt (http.server in a thread), including one invalid question per reply to exercise the
validation."""

from __future__ import annotations

import json
import re

from tests.local_servers import ChatCompletionServer


def questions_for(prompt: str) -> str:
    captions = re.findall(r"^- (.*)$", prompt, flags=re.M)
    if "audio clip 2" in prompt:
        return json.dumps(
            [
                {
                    "family": "comparison",
                    "question": "Which clip is described as louder?",
                    "options": ["the first clip", "the second clip", "neither"],
                    "answer": "the first clip",
                },
                {
                    "family": "comparison",
                    "question": "Broken?",
                    "options": ["a", "a"],
                    "answer": "a",
                },
            ]
        )
    first = captions[0] if captions else "a sound"
    items = [
        {
            "family": "events",
            "question": f"What happens in the clip ({first[:20]})?",
            "options": [first, "silence", "a car horn", "applause"],
            "answer": first,
        },
        {
            "family": "emotion",
            "question": "How would a listener feel?",
            "options": ["calm", "alarmed", "amused", "bored"],
            "answer": "calm",
        },
        {
            "family": "scene",
            "question": "Where was it recorded?",
            "options": ["indoors", "outdoors"],
            "answer": "somewhere else",
        },  # invalid: not an option
        {"family": "detailed", "question": "Describe the sounds in detail.", "answer": first},
    ]
    return "Here you go:\n```json\n" + json.dumps(items) + "\n```"


class FakeLLM(ChatCompletionServer):
    def __init__(self) -> None:
        super().__init__(
            lambda body, state: questions_for(body["messages"][-1]["content"]),
            usage={"prompt_tokens": 50, "completion_tokens": 80},
        )
