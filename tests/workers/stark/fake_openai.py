"""A local OpenAI-compatible /v1/chat/completions server for tests (http.server in a thread)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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


class FakeOpenAI:
    def __init__(self) -> None:
        self.state: dict = {"fail_next": 0, "status": 500, "requests": []}
        server_self = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                st = server_self.state
                st["requests"].append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
                )
                if st["fail_next"] > 0:
                    st["fail_next"] -= 1
                    self.send_response(st["status"])
                    self.end_headers()
                    self.wfile.write(b'{"error": "try later"}')
                    return
                if self.path != "/v1/chat/completions":
                    self.send_response(404)
                    self.end_headers()
                    return
                text = reply_for(body, st)
                payload = {
                    "id": "x",
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
