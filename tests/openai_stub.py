"""A small OpenAI-compatible chat-completions server on 127.0.0.1, started and stopped by the test."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class StubReply:
    """A reply other than a plain answer: a finish reason of its own, or an HTTP error.

    Attributes:
        text: The answer text (ignored for an error).
        finish_reason: ``stop``, or ``length`` for an answer cut at its token budget.
        status: HTTP status; anything but 200 sends `error` as an OpenAI-style error body.
        error: The error object, e.g. ``{"message": ..., "type": ..., "code": ...}``.
    """

    text: str = ""
    finish_reason: str = "stop"
    status: int = 200
    error: dict[str, Any] | None = None


Reply = Callable[[dict[str, Any]], "str | StubReply"]


@dataclass
class StubServer:
    """The running server: its base URL and every request body it received."""

    base_url: str
    requests: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def openai_stub(reply: Reply, model: str = "stub-judge") -> Iterator[StubServer]:
    """Serve `/v1/chat/completions` answering each request with `reply(request_body)`.

    `reply` returns the answer text, or a `StubReply` for a truncated answer or an HTTP error.
    """
    server_state: StubServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "test"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": "not found"}})
                return
            server_state.requests.append(body)
            answer = reply(body)
            answer = answer if isinstance(answer, StubReply) else StubReply(text=answer)
            if answer.status != 200:
                self._send(answer.status, {"error": answer.error or {"message": "rejected", "code": answer.status}})
                return
            text = answer.text
            prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
            completion_tokens = len(text.split())
            self._send(
                200,
                {
                    "id": f"chatcmpl-{len(server_state.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", model),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": answer.finish_reason,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                },
            )

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server_state = StubServer(base_url=f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server_state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
