"""A local OpenAI-compatible server that writes ReasonAQA-style questions from the captions in
the prompt (http.server in a thread), including one invalid question per reply to exercise the
validation."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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


class FakeLLM:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                outer.requests.append(body)
                text = questions_for(body["messages"][-1]["content"])
                data = json.dumps(
                    {
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": text}}
                        ],
                        "usage": {"prompt_tokens": 50, "completion_tokens": 80},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
