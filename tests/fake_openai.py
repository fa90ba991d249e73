"""A local OpenAI-compatible chat server for tests, scripted with a queue of behaviours.

It serves `POST /v1/chat/completions` (streaming SSE and plain JSON) and `GET /v1/models` on
127.0.0.1 with an ephemeral port, in a background thread, and records every request it gets.
Point litellm at it with `model="openai/fake-model"`, `api_base=server.base_url`,
`api_key=server.api_key` (the `fake_openai` fixture in `tests/conftest.py` also sets the
`OPENAI_*` environment variables for the duration of one test).

Each chat request takes the next behaviour from the queue; when the queue is empty the server
asks `responder` (a function of the recorded request), then falls back to `default`. With
neither set it answers 400, so a test that sends more requests than it scripted fails loudly.

    server.script(
        HttpError(429, retry_after=1),
        Reply("Hello", tool_calls=[FakeToolCall("add", '{"a": 1, "b": 2}')]),
    )

Behaviours:
- `Reply`: a text reply, streamed in `chunk_size` pieces, optionally with reasoning text,
  tool calls (arguments streamed in fragments), usage numbers (or none), a per-chunk delay, or
  a dropped connection after some chunks.
- `HttpError`: any status with an OpenAI-shaped error body, optional `Retry-After`.
- `Hang`: sleep before answering (to trip the client's timeout), then reply.
- `Garbage`: raw bytes as the body (malformed JSON, broken SSE).
- `giant_reply(n)`: a `Reply` with `n` characters of text.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_API_KEY = "test-key"
FAKE_MODEL = "fake-model"


@dataclass(frozen=True)
class FakeToolCall:
    """A tool call the fake model makes; `arguments` is the raw JSON text it streams."""

    name: str
    arguments: str = "{}"
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    text: str = ""
    tool_calls: tuple[FakeToolCall, ...] | list[FakeToolCall] = ()
    reasoning: str = ""
    # None: estimated from the request and reply sizes.
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None  # None: "tool_calls" when there are calls, else "stop"
    chunk_size: int = 8
    chunk_delay_s: float = 0.0
    # Close the connection after this many content chunks (a reply cut off mid-stream).
    disconnect_after_chunks: int | None = None
    # False: act like a server that ignores `stream_options.include_usage`.
    send_usage: bool = True


@dataclass(frozen=True)
class HttpError:
    status: int
    message: str = "scripted error"
    retry_after: float | str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    """Wait `seconds` before answering with `then` (the client has usually given up by then)."""

    seconds: float
    then: Reply = Reply("too late")


@dataclass(frozen=True)
class Garbage:
    body: bytes = b"data: {this is not json\n\n"
    status: int = 200
    content_type: str = "text/event-stream"


Behaviour = Reply | HttpError | Hang | Garbage

# An event stream whose JSON is cut off mid-object.
MALFORMED_JSON = Garbage(
    b'data: {"id": "x", "object": "chat.completion.chunk", "choices": [{"del\n\n'
)
# A 200 answer that is not an event stream at all (a captive portal, a misconfigured proxy).
GARBAGE_SSE = Garbage(
    b"<html><body>Welcome to the hotel wifi</body></html>", content_type="text/html"
)


def giant_reply(n_chars: int, chunk_size: int = 4096) -> Reply:
    line = "All work and no play makes a long reply. "
    text = (line * (n_chars // len(line) + 1))[:n_chars]
    return Reply(text, chunk_size=chunk_size)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    raw_body: bytes = b""

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("messages", []))

    @property
    def stream(self) -> bool:
        return bool((self.body or {}).get("stream"))


class FakeOpenAIServer:
    """The server object tests talk to. Start with `start()` (or use it as a context manager)."""

    def __init__(self, models: tuple[str, ...] = (FAKE_MODEL,)) -> None:
        self.models = models
        self.api_key = FAKE_API_KEY
        self.responder: Callable[[RecordedRequest], Behaviour] | None = None
        self.default: Behaviour | None = None
        self.require_api_key = True
        self._queue: deque[Behaviour] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model(self) -> str:
        """The litellm model name that reaches this server."""
        return f"openai/{self.models[0]}"

    def llm_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for litellm (or `arena.llm.LiteLLM`) that reach this server."""
        return {"api_base": self.base_url, "api_key": self.api_key}

    # -- scripting and inspection ----------------------------------------------------------

    def script(self, *behaviours: Behaviour) -> None:
        with self._lock:
            self._queue.extend(behaviours)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def last_chat(self) -> RecordedRequest:
        chats = self.chat_requests
        assert chats, "the fake server received no chat request"
        return chats[-1]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_behaviour(self, request: RecordedRequest) -> Behaviour:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(request)
        if self.default is not None:
            return self.default
        return HttpError(400, "fake server: no scripted behaviour left for this request")

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server is stopping; True if the full time passed."""
        return not self._stopping.wait(seconds)

    def _next_id(self) -> str:
        return f"chatcmpl-fake-{next(self._ids)}"


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def _usage(reply: Reply, request: RecordedRequest) -> dict[str, int]:
    prompt = reply.prompt_tokens
    if prompt is None:
        prompt = _estimate_tokens(json.dumps(request.messages))
    completion = reply.completion_tokens
    if completion is None:
        completion = _estimate_tokens(reply.text + reply.reasoning) + sum(
            _estimate_tokens(c.name + c.arguments) for c in reply.tool_calls
        )
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _pieces(text: str, size: int) -> Iterator[str]:
    size = max(1, size)
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _call_ids(reply: Reply) -> list[str]:
    return [call.id or f"call_fake_{i}" for i, call in enumerate(reply.tool_calls)]


def _finish_reason(reply: Reply) -> str:
    if reply.finish_reason is not None:
        return reply.finish_reason
    return "tool_calls" if reply.tool_calls else "stop"


def _stream_deltas(reply: Reply) -> Iterator[dict[str, Any]]:
    """The `delta` objects of a streamed reply, in order."""
    yield {"role": "assistant", "content": ""}
    for piece in _pieces(reply.reasoning, reply.chunk_size):
        yield {"reasoning_content": piece}
    for piece in _pieces(reply.text, reply.chunk_size):
        yield {"content": piece}
    for index, (call, call_id) in enumerate(zip(reply.tool_calls, _call_ids(reply), strict=True)):
        yield {
            "tool_calls": [
                {
                    "index": index,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": ""},
                }
            ]
        }
        for piece in _pieces(call.arguments, max(1, reply.chunk_size // 2)):
            yield {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # Streams use chunked transfer encoding like real providers, so a connection cut
        # mid-reply is a protocol error for the client, not a normal end of the body.
        # Every connection serves one request.
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        # -- plumbing -----------------------------------------------------------------------

        def _read_request(self) -> RecordedRequest:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            request = RecordedRequest(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                raw_body=raw,
            )
            server._record(request)
            return request

        def _send_json(
            self, status: int, payload: Any, headers: dict[str, str] | None = None
        ) -> None:
            self._send_body(status, "application/json", json.dumps(payload).encode(), headers)

        def _send_body(
            self,
            status: int,
            content_type: str,
            data: bytes,
            headers: dict[str, str] | None = None,
        ) -> None:
            self.close_connection = True
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _write_chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _authorised(self) -> bool:
            if not server.require_api_key:
                return True
            auth = self.headers.get("Authorization", "")
            if auth == f"Bearer {server.api_key}":
                return True
            self._send_json(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided.",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
            return False

        # -- routes -------------------------------------------------------------------------

        def do_GET(self) -> None:
            request = self._read_request()
            if request.path.rstrip("/") != "/v1/models":
                self._send_json(404, {"error": {"message": f"no route {request.path}"}})
                return
            if not self._authorised():
                return
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                        for m in server.models
                    ],
                },
            )

        def do_POST(self) -> None:
            request = self._read_request()
            if request.path.rstrip("/") != "/v1/chat/completions":
                self._send_json(404, {"error": {"message": f"no route {request.path}"}})
                return
            if not self._authorised():
                return
            behaviour = server._next_behaviour(request)
            # The client may give up (timeout, cancellation): then there is nothing left to say.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._perform(behaviour, request)

        def _perform(self, behaviour: Behaviour, request: RecordedRequest) -> None:
            if isinstance(behaviour, Hang):
                if not server._sleep(behaviour.seconds):
                    return
                behaviour = behaviour.then
            if isinstance(behaviour, HttpError):
                headers = dict(behaviour.headers)
                if behaviour.retry_after is not None:
                    headers["Retry-After"] = str(behaviour.retry_after)
                self._send_json(
                    behaviour.status,
                    {
                        "error": {
                            "message": behaviour.message,
                            "type": "fake_error",
                            "code": str(behaviour.status),
                        }
                    },
                    headers,
                )
            elif isinstance(behaviour, Garbage):
                self._send_body(behaviour.status, behaviour.content_type, behaviour.body)
            elif request.stream:
                self._stream_reply(behaviour, request)
            else:
                self._plain_reply(behaviour, request)

        def _plain_reply(self, reply: Reply, request: RecordedRequest) -> None:
            message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
            if reply.reasoning:
                message["reasoning_content"] = reply.reasoning
            if reply.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call, call_id in zip(reply.tool_calls, _call_ids(reply), strict=True)
                ]
            self._send_json(
                200,
                {
                    "id": server._next_id(),
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": (request.body or {}).get("model", FAKE_MODEL),
                    "choices": [
                        {"index": 0, "message": message, "finish_reason": _finish_reason(reply)}
                    ],
                    "usage": _usage(reply, request),
                },
            )

        def _stream_reply(self, reply: Reply, request: RecordedRequest) -> None:
            body = request.body or {}
            chunk_id = server._next_id()
            created = int(time.time())
            model = body.get("model", FAKE_MODEL)
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

            def event(choices: list[dict[str, Any]], **extra: Any) -> bytes:
                payload = {
                    "id": chunk_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": choices,
                    **extra,
                }
                return b"data: " + json.dumps(payload).encode() + b"\n\n"

            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for n, delta in enumerate(_stream_deltas(reply)):
                if reply.disconnect_after_chunks is not None and n > reply.disconnect_after_chunks:
                    # Cut the reply off: no final chunk, no [DONE], no chunked-encoding end.
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self._write_chunk(event([{"index": 0, "delta": delta, "finish_reason": None}]))
                if reply.chunk_delay_s and not server._sleep(reply.chunk_delay_s):
                    return
            self._write_chunk(
                event([{"index": 0, "delta": {}, "finish_reason": _finish_reason(reply)}])
            )
            if include_usage and reply.send_usage:
                self._write_chunk(event([], usage=_usage(reply, request)))
            self._write_chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler
