"""A loopback fake of the two model APIs jiayu speaks, for tests: no key, no network.

One threaded `http.server` on 127.0.0.1 (port 0) answers both
  POST /api/v1/services/aigc/text-generation/generation   DashScope's native API, as the real
      `dashscope` SDK sends it (point the SDK at `server.dashscope_url`), and
  POST /compatible-mode/v1/chat/completions               the OpenAI shape (`server.openai_url`),
with replies scripted in order (`server.script(...)`); when the script runs out it answers
the standard UNKNOWN array. Every request is recorded (`server.requests`), so a test can
assert on exactly what reached "the model".
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NATIVE_PATH = "/api/v1/services/aigc/text-generation/generation"
OPENAI_PATH = "/compatible-mode/v1/chat/completions"
UNKNOWN_TEXT = '[{"a":"UNKNOWN","s":"*","n":"*","t":"Unknown","q":"one"}]'


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    content: str = UNKNOWN_TEXT
    """The assistant message's text, wrapped in the API's response shape."""
    status: int = 200
    """An HTTP error status sends an error body instead of a message."""
    code: str = ""
    """The error code (DashScope's `code`, OpenAI's `error.code`)."""
    delay_s: float = 0.0
    """Wait this long before answering (a model slower than the client's timeout)."""
    raw: bytes | None = None
    """Send exactly these bytes with status 200 (a body that is not JSON)."""
    trickle_s: float = 0.0
    """Send the answer one byte every this many seconds (a server that never quite stalls)."""
    location: str | None = None
    """Answer with a redirect (`status`, 302 unless given) to this URL instead."""


def error(status: int, code: str) -> Reply:
    """An HTTP error reply: 401 InvalidApiKey, 429 Throttling, 500 InternalError …"""
    return Reply(status=status, code=code)


@dataclass(frozen=True)
class Received:
    """One request the fake received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, str]]:
        """The chat messages, from either API's body."""
        if "input" in self.body:
            return list(self.body["input"]["messages"])
        return list(self.body["messages"])

    @property
    def parameters(self) -> dict[str, Any]:
        """Generation parameters, from either API's body."""
        if "parameters" in self.body:
            return dict(self.body["parameters"])
        return {k: v for k, v in self.body.items() if k not in ("model", "messages")}


class FakeLLMServer:
    """Start with `with FakeLLMServer() as server:`; leaving the block stops it."""

    def __init__(self) -> None:
        self._script: list[Reply] = []
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        # A short poll keeps shutdown (one per test) from costing half a second.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def dashscope_url(self) -> str:
        """The native API root, as `base_address` (or dashscope.base_http_api_url)."""
        return self.base_url + "/api/v1"

    @property
    def openai_url(self) -> str:
        """The OpenAI-compatible root, as DashScope's compatible mode names it."""
        return self.base_url + "/compatible-mode/v1"

    def script(self, *replies: Reply | str) -> None:
        """Answer the next requests with these, in order (a str is a 200 with that text)."""
        with self._lock:
            self._script.extend(Reply(r) if isinstance(r, str) else r for r in replies)

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._closing.set()  # a slow reply stops waiting
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _next(self, received: Received) -> Reply:
        with self._lock:
            self.requests.append(received)
            return self._script.pop(0) if self._script else Reply()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                # Only a followed redirect sends a GET (302/303 turn a POST into one): recorded,
                # so a test sees what reached this host with which headers.
                fake._next(Received(self.path.split("?")[0], dict(self.headers.items()), {}))
                self._send(405, {"error": {"message": "GET is not a chat completion"}}, 0.0)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                path = self.path.split("?")[0]
                if path not in (NATIVE_PATH, OPENAI_PATH):
                    self._send(404, {"error": {"message": f"no route {path}"}})
                    return
                reply = fake._next(Received(path, dict(self.headers.items()), body))
                if reply.delay_s and fake._closing.wait(reply.delay_s):
                    return
                if reply.location is not None:
                    self.send_response(reply.status if reply.status != 200 else 302)
                    self.send_header("Location", reply.location)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif reply.raw is not None:
                    self._send_bytes(200, reply.raw, reply.trickle_s)
                elif path == NATIVE_PATH:
                    self._send(reply.status, _native(reply), reply.trickle_s)
                else:
                    model = str(body.get("model", ""))
                    self._send(reply.status, _openai(reply, model), reply.trickle_s)

            def _send(self, status: int, payload: dict[str, Any], trickle_s: float) -> None:
                data = json.dumps(payload, ensure_ascii=False).encode()
                self._send_bytes(status, data, trickle_s)

            def _send_bytes(self, status: int, data: bytes, trickle_s: float = 0.0) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if not trickle_s:
                        self.wfile.write(data)
                    for i in range(len(data) if trickle_s else 0):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        if fake._closing.wait(trickle_s):
                            return
                except OSError:
                    pass  # the client gave up (timed out) before the answer came

            def log_message(self, *_: Any) -> None:
                pass

        return Handler


def _native(reply: Reply) -> dict[str, Any]:
    if reply.status != 200:
        return {"code": reply.code, "message": f"fake {reply.code}", "request_id": "fake"}
    return {
        "output": {
            "choices": [
                {
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": reply.content},
                }
            ]
        },
        "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        "request_id": "fake",
    }


def _openai(reply: Reply, model: str) -> dict[str, Any]:
    if reply.status != 200:
        return {"error": {"message": f"fake {reply.code}", "type": "fake", "code": reply.code}}
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": reply.content},
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
