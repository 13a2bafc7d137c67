"""Local HTTP servers for tests: bound to 127.0.0.1 on a free port, served from a daemon thread.

`ChatCompletionServer` stands in for a hosted LLM API (an OpenAI-compatible
POST /v1/chat/completions); each test suite gives it its own `reply(body, state)`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LocalHTTPServer:
    def __init__(self, handler_cls: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler_cls)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


class QuietHandler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # headers and body go out in two writes: avoid 40 ms stalls

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def _send(self, code: int, data: bytes, ctype: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class ChatCompletionServer(LocalHTTPServer):
    """OpenAI-compatible chat completions. Every request is recorded in `state["requests"]` as
    {"path", "auth", "body"}; `state["fail_next"] = n` answers the next n with `state["status"]`
    (for retry tests); the reply text comes from `reply(body, state)`."""

    def __init__(self, reply: Callable[[dict, dict], str], *, usage: dict[str, int]) -> None:
        self.state: dict = {"fail_next": 0, "status": 500, "requests": []}
        outer = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                st = outer.state
                st["requests"].append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
                )
                if st["fail_next"] > 0:
                    st["fail_next"] -= 1
                    return self._send(st["status"], b'{"error": "try later"}')
                if self.path != "/v1/chat/completions":
                    return self._send(404, b"{}")
                payload = {
                    "id": "x",
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": reply(body, st)},
                        }
                    ],
                    "usage": usage,
                }
                self._send(200, json.dumps(payload).encode())

        super().__init__(Handler)

    @property
    def requests(self) -> list[dict]:
        """The request bodies, in order."""
        return [r["body"] for r in self.state["requests"]]
