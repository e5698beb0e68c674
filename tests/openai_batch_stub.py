"""A small stand-in for OpenAI's Batch API on 127.0.0.1, started and stopped by the test.

It serves what Inspect's OpenAI batcher calls, in the order it calls them:

- ``POST /v1/files``: a multipart upload of the request JSONL (one line per judge call, each with its
  ``custom_id`` and the chat-completions ``body``);
- ``POST /v1/batches``: a batch over an uploaded file;
- ``GET /v1/batches/{id}``: the batch's status, ``in_progress`` for the first `polls_to_complete` polls,
  then ``completed`` with an output file;
- ``GET /v1/files/{id}/content``: the output JSONL, one chat completion per ``custom_id``;
- ``POST /v1/batches/{id}/cancel``: marks the batch ``cancelled``.

A plain ``POST /v1/chat/completions`` answers at once, so the same server serves a run without batch mode;
the state records which path each request took.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any]], str]
"""Answer text for one chat-completions request body."""


@dataclass
class BatchStubState:
    """What the server holds and what it was sent.

    Attributes:
        base_url: The server's ``/v1`` URL.
        files: Every file by id: uploaded request files and the output files made from them.
        batches: Every batch object by id, as last served.
        batch_bodies: The chat-completions body of every request line received in a batch file.
        chat_calls: The body of every direct ``/v1/chat/completions`` call.
        paths: Method and path of every request, in order.
        polls: Status polls received, by batch id.
    """

    base_url: str
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    batch_bodies: list[dict[str, Any]] = field(default_factory=list)
    chat_calls: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    polls: dict[str, int] = field(default_factory=dict)


def chat_completion(body: dict[str, Any], text: str, completion_id: str) -> dict[str, Any]:
    """A chat-completions response to `body` answering `text`, with whitespace-token usage."""
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    completion_tokens = len(text.split())
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "stub-judge"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _uploaded_file(content_type: str, payload: bytes) -> bytes:
    """The ``file`` part of a multipart/form-data body."""
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + payload)
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            content = part.get_payload(decode=True)
            if isinstance(content, bytes):
                return content
    raise ValueError("multipart upload without a 'file' part")


@contextmanager
def openai_batch_stub(reply: Reply, polls_to_complete: int = 1) -> Iterator[BatchStubState]:
    """Serve the Batch API and chat completions, answering each request body with `reply(body)`.

    Args:
        reply: Answer text for a chat-completions body, for direct calls and batch lines alike.
        polls_to_complete: Status polls a batch answers ``in_progress`` before it is ``completed``.
    """
    lock = threading.Lock()
    state: BatchStubState

    def complete(batch: dict[str, Any]) -> None:
        lines = [json.loads(line) for line in state.files[batch["input_file_id"]].decode().splitlines() if line]
        output = []
        for i, line in enumerate(lines):
            body = line["body"]
            state.batch_bodies.append(body)
            result: dict[str, Any] = {"id": f"batch_req_{batch['id']}_{i}", "custom_id": line["custom_id"]}
            try:
                response = chat_completion(body, reply(body), f"chatcmpl-{batch['id']}-{i}")
            except Exception as error:  # a line the reply cannot answer fails alone, as on the real service
                result.update(response=None, error={"code": 400, "message": f"{type(error).__name__}: {error}"})
            else:
                result.update(response={"status_code": 200, "request_id": f"req_{i}", "body": response}, error=None)
            output.append(result)
        output_id = f"file-out-{batch['id']}"
        state.files[output_id] = "".join(json.dumps(o) + "\n" for o in output).encode()
        now = int(time.time())
        batch.update(
            status="completed",
            output_file_id=output_id,
            completed_at=now,
            finalizing_at=now,
            request_counts={"total": len(lines), "completed": len(lines), "failed": 0},
        )

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, payload: dict[str, Any] | bytes) -> None:
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header(
                "Content-Type", "application/octet-stream" if isinstance(payload, bytes) else "application/json"
            )
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _not_found(self) -> None:
            self._send(404, {"error": {"message": f"no route {self.command} {self.path}", "code": 404}})

        def _route(self) -> list[str]:
            with lock:
                state.paths.append(f"{self.command} {self.path}")
            parts = self.path.split("?", 1)[0].strip("/").split("/")
            return parts[1:] if parts and parts[0] == "v1" else parts

        def do_GET(self) -> None:
            route = self._route()
            with lock:
                if len(route) == 2 and route[0] == "batches" and route[1] in state.batches:
                    batch = state.batches[route[1]]
                    state.polls[route[1]] = state.polls.get(route[1], 0) + 1
                    if batch["status"] == "in_progress" and state.polls[route[1]] > polls_to_complete:
                        complete(batch)
                    self._send(200, batch)
                elif len(route) == 3 and route[0] == "files" and route[2] == "content" and route[1] in state.files:
                    self._send(200, state.files[route[1]])
                else:
                    self._not_found()

        def do_POST(self) -> None:
            route = self._route()
            payload = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                if route == ["chat", "completions"]:
                    body = json.loads(payload)
                    state.chat_calls.append(body)
                    self._send(200, chat_completion(body, reply(body), f"chatcmpl-{len(state.chat_calls)}"))
                elif route == ["files"]:
                    file_id = f"file-{len(state.files) + 1}"
                    state.files[file_id] = _uploaded_file(self.headers.get("Content-Type", ""), payload)
                    self._send(
                        200,
                        {
                            "id": file_id,
                            "object": "file",
                            "bytes": len(state.files[file_id]),
                            "created_at": int(time.time()),
                            "filename": "batch.jsonl",
                            "purpose": "batch",
                            "status": "processed",
                        },
                    )
                elif route == ["batches"]:
                    request = json.loads(payload)
                    batch_id = f"batch_{len(state.batches) + 1}"
                    state.batches[batch_id] = {
                        "id": batch_id,
                        "object": "batch",
                        "endpoint": request["endpoint"],
                        "input_file_id": request["input_file_id"],
                        "completion_window": request["completion_window"],
                        "status": "in_progress",
                        "created_at": int(time.time()),
                        "request_counts": {"total": 0, "completed": 0, "failed": 0},
                    }
                    self._send(200, state.batches[batch_id])
                elif len(route) == 3 and route[0] == "batches" and route[2] == "cancel" and route[1] in state.batches:
                    batch = state.batches[route[1]]
                    batch.update(status="cancelled", cancelled_at=int(time.time()))
                    self._send(200, batch)
                else:
                    self._not_found()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state = BatchStubState(base_url=f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
