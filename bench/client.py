"""The one benchmark client: raw MCP over stdio and Streamable HTTP, asyncio + orjson, no SDK.

Every request is encoded before the clock starts, every response is checked (right id,
the echoed text in `result.content[0].text`, no `isError`), and every error is counted.
HTTP is a hand-written HTTP/1.1 keep-alive client on asyncio streams (Content-Length and
chunked bodies, JSON or SSE payloads), so the client costs far less than the servers;
its own CPU per call is measured and reported next to the server's.

Besides echo: the 1 MiB text of servers/payload.py read as a resource and returned by a
tool (the answer must be those exact characters), and many idle HTTP sessions opened one
after another on a few connections (each one checked alive at the end by a sample of calls).

Server CPU comes from /proc/PID/stat (utime+stime of all threads), client CPU from
time.process_time(), peak RSS from VmHWM in /proc/PID/status, current RSS from VmRSS.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import signal
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent / "servers"))
from payload import LARGE_TEXT, LARGE_TOOL, LARGE_URI  # the servers' own definition

PROTOCOL_VERSION = "2025-11-25"
HOST = "127.0.0.1"
STREAM_LIMIT = 1 << 26  # one tools/list line with 1000 tools is a few hundred KB
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

INITIALIZE = {
    "protocolVersion": PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "mcpkit-bench", "version": "1.0"},
}
INITIALIZED = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
# The 2026-07-28 wire: no handshake, every request carries this envelope in params._meta and
# the routing headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
MODERN_VERSION = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "mcpkit-bench", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
MODERN_CALL_HEADERS = (
    f"MCP-Protocol-Version: {MODERN_VERSION}\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"
).encode()


class BenchError(Exception):
    """A server that cannot be measured (did not start, broke the protocol, timed out)."""


# ---------------------------------------------------------------------------- messages


def encode_request(rid: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return orjson.dumps(msg)


def echo_text(rid: int) -> str:
    return f"hello {rid}"


def encode_call(rid: int, modern: bool = False) -> bytes:
    params: dict[str, Any] = {"name": "echo", "arguments": {"text": echo_text(rid)}}
    if modern:
        params["_meta"] = MODERN_META
    return encode_request(rid, "tools/call", params)


def check_call(msg: dict[str, Any], text: str, modern: bool = False) -> str | None:
    """None when `msg` is a good echo result for `text`, else what is wrong with it (on the
    2026-07-28 wire the result must also say ``resultType: "complete"``)."""
    result = msg.get("result")
    if not isinstance(result, dict):
        return f"error response: {str(msg.get('error'))[:200]}"
    if modern and result.get("resultType") != "complete":
        return f"not a 2026-07-28 complete result: {str(result)[:200]}"
    try:
        got = result["content"][0]["text"]
    except (KeyError, IndexError, TypeError):
        return f"malformed result: {str(result)[:200]}"
    if result.get("isError"):
        return f"isError result: {str(got)[:200]}"
    if got != text:
        return f"wrong text {str(got)[:50]!r} != {text!r}"
    return None


LARGE_KINDS = ("resource", "tool")
#: Megabytes (10^6 bytes) of text in one large answer: MB/s = answers/s * LARGE_MB.
LARGE_MB = len(LARGE_TEXT) / 1e6
#: The text as a JSON string's characters: every JSON encoder writes ASCII quotes and
#: newlines as \" and \n, so a right answer holds exactly these bytes.
LARGE_JSON = orjson.dumps(LARGE_TEXT)[1:-1]
_LARGE_HEAD = LARGE_JSON[:64]
#: What :func:`cut_large` leaves where it found the text.
LARGE_CUT = "bench: the 1 MiB text was here"
_LARGE_CUT_JSON = LARGE_CUT.encode()


def cut_large(raw: bytes) -> bytes:
    """`raw` (a JSON message, or SSE events) with the JSON string that is exactly the 1 MiB
    text replaced by :data:`LARGE_CUT`, when there is one: the bytes are compared instead of
    decoded, and only the small rest is parsed (decoding 1 MiB costs the client about as
    much as encoding it costs a fast server). Anything else is returned as it is and gets
    parsed in full, so an answer that differs in any byte is still caught."""
    i = raw.find(_LARGE_HEAD)
    end = i + len(LARGE_JSON)
    if (
        i > 0
        and raw[i - 1] == 0x22
        and raw.startswith(LARGE_JSON, i)
        and raw[end : end + 1] == b'"'
    ):
        return raw[:i] + _LARGE_CUT_JSON + raw[end:]
    return raw


def encode_large(rid: int, kind: str) -> bytes:
    """A ``resources/read`` of bench://large, or a ``tools/call`` of ``large``."""
    if kind == "resource":
        return encode_request(rid, "resources/read", {"uri": LARGE_URI})
    return encode_request(rid, "tools/call", {"name": LARGE_TOOL, "arguments": {}})


def check_large(msg: dict[str, Any], kind: str) -> str | None:
    """None when `msg` carries the whole 1 MiB text (as resource contents, or as the first
    text block of a tool result; :data:`LARGE_CUT` where :func:`cut_large` found it), else
    what is wrong with it."""
    result = msg.get("result")
    if not isinstance(result, dict):
        return f"error response: {str(msg.get('error'))[:200]}"
    try:
        if kind == "resource":
            item = result["contents"][0]
            if item.get("uri") != LARGE_URI:
                return f"wrong uri {str(item.get('uri'))[:80]!r}"
        else:
            if result.get("isError"):
                return f"isError result: {str(result)[:200]}"
            item = result["content"][0]
        got = item["text"]
    except (KeyError, IndexError, TypeError, AttributeError):
        return f"malformed result: {str(result)[:200]}"
    if got != LARGE_CUT and got != LARGE_TEXT:
        size = len(got) if isinstance(got, str) else type(got).__name__
        return f"not the 1 MiB text (got {size} characters)"
    return None


# ---------------------------------------------------------------------------- processes

LIVE: set[asyncio.subprocess.Process] = set()


async def spawn(
    argv: Sequence[str], env: dict[str, str], stderr: IO[bytes] | int, stdio: bool
) -> asyncio.subprocess.Process:
    """Start a server in its own process group (so it and any child die together)."""
    pipe = asyncio.subprocess.PIPE if stdio else asyncio.subprocess.DEVNULL
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=pipe,
        stdout=pipe,
        stderr=stderr,
        env=env,
        limit=STREAM_LIMIT,
        start_new_session=True,
    )
    LIVE.add(proc)
    return proc


def _signal_group(proc: asyncio.subprocess.Process, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


async def stop(proc: asyncio.subprocess.Process, grace: float = 2.0) -> None:
    """Close stdin, then SIGTERM, then SIGKILL the server's process group."""
    try:
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        if proc.returncode is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), grace)
            except TimeoutError:
                _signal_group(proc, signal.SIGKILL)
                await asyncio.wait_for(proc.wait(), grace)
        _signal_group(proc, signal.SIGKILL)  # leftovers in the group, if any
    finally:
        LIVE.discard(proc)


async def stop_all() -> None:
    for proc in list(LIVE):
        with contextlib.suppress(Exception):
            await stop(proc, grace=1.0)


def kill_all_now() -> None:
    """Synchronous last resort (no event loop needed)."""
    for proc in list(LIVE):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    LIVE.clear()


def cpu_seconds(pid: int) -> float:
    """utime + stime of every thread of `pid`, in seconds."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    fields = stat[stat.rindex(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _status_kb(pid: int, key: bytes) -> int:
    with open(f"/proc/{pid}/status", "rb") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1])
    raise BenchError(f"no {key.decode()} in /proc status")


def peak_rss_mb(pid: int) -> float:
    return _status_kb(pid, b"VmHWM:") / 1024


def rss_kb(pid: int) -> int:
    """The resident set size of `pid` now, in KiB."""
    return _status_kb(pid, b"VmRSS:")


# ---------------------------------------------------------------------------- results


@dataclass
class Measure:
    """One timed run of calls: throughput, errors, CPU per call on both sides."""

    calls: int = 0
    errors: int = 0
    seconds: float = 0.0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    first_error: str | None = None
    samples_ms: list[float] = field(default_factory=list)
    sse_responses: int = 0  # answers that came as text/event-stream (the rest were JSON)

    def error(self, what: str) -> None:
        self.errors += 1
        if self.first_error is None:
            self.first_error = what

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds > 0 else 0.0

    @property
    def server_us(self) -> float:
        return self.server_cpu / self.calls * 1e6 if self.calls else 0.0

    @property
    def client_us(self) -> float:
        return self.client_cpu / self.calls * 1e6 if self.calls else 0.0


class _Clock:
    """Wall, client-CPU and server-CPU clocks started and stopped together."""

    def __init__(self, server_pid: int) -> None:
        self.pid = server_pid

    def __enter__(self) -> _Clock:
        gc.collect()
        gc.disable()
        self.s0 = cpu_seconds(self.pid)
        self.c0 = time.process_time()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0
        self.client = time.process_time() - self.c0
        with contextlib.suppress(OSError):
            self.server = cpu_seconds(self.pid)
            self.server -= self.s0
        gc.enable()

    def fill(self, m: Measure) -> Measure:
        m.seconds, m.client_cpu, m.server_cpu = self.seconds, self.client, self.server
        return m


# ---------------------------------------------------------------------------- stdio


class StdioServer:
    """A server process spoken to over newline-delimited JSON on stdin/stdout."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc = proc
        self.pid = proc.pid
        self.reader = proc.stdout
        self.writer = proc.stdin
        self.next_id = 1
        self.init_result: dict[str, Any] = {}

    @classmethod
    async def start(
        cls, argv: Sequence[str], env: dict[str, str], stderr: IO[bytes] | int
    ) -> tuple[StdioServer, float]:
        """Spawn and initialize; returns the server and the cold start (spawn → result) in ms."""
        t0 = time.perf_counter()
        proc = await spawn(argv, env, stderr, stdio=True)
        server = cls(proc)
        try:
            server.writer.write(encode_request(0, "initialize", INITIALIZE) + b"\n")
            msg = await server.recv_response(0)
            cold_ms = (time.perf_counter() - t0) * 1000
            if not isinstance(msg.get("result"), dict):
                raise BenchError(f"initialize failed: {str(msg)[:300]}")
            server.init_result = msg["result"]
            server.writer.write(INITIALIZED + b"\n")
            await server.writer.drain()
        except BaseException:
            await stop(proc)
            raise
        return server, cold_ms

    async def close(self) -> None:
        await stop(self.proc)

    async def recv(self) -> dict[str, Any]:
        """The next message that is a response; server notifications are skipped and server
        requests (none expected) are refused, so they never block the client."""
        while True:
            msg = self.decode(await self.reader.readline())
            if msg is not None:
                return msg

    def decode(self, line: bytes) -> dict[str, Any] | None:
        """The response in one line from the server; None for a blank line or a server
        notification or request (a request is refused at once)."""
        if not line:
            raise BenchError(f"server closed stdout (exit code {self.proc.returncode})")
        if not line.strip():
            return None
        try:
            msg = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise BenchError(f"not JSON on stdout: {line[:200]!r}") from exc
        if not isinstance(msg, dict):
            raise BenchError(f"unexpected message: {line[:200]!r}")
        if "method" in msg:
            if "id" in msg:
                self.writer.write(
                    orjson.dumps(
                        {
                            "jsonrpc": "2.0",
                            "id": msg["id"],
                            "error": {"code": -32601, "message": "not supported by bench client"},
                        }
                    )
                    + b"\n"
                )
            return None
        return msg

    async def recv_response(self, rid: int) -> dict[str, Any]:
        while True:
            msg = await self.recv()
            if msg.get("id") == rid:
                return msg

    async def calls(self, n: int, window: int, max_seconds: float) -> Measure:
        """`n` echo calls with up to `window` requests outstanding (1 = sequential),
        stopping early after `max_seconds`."""
        base = self.next_id
        self.next_id += n
        requests = [encode_call(base + i) + b"\n" for i in range(n)]
        texts = [echo_text(base + i) for i in range(n)]
        pending: set[int] = set()
        m = Measure()
        write = self.writer.write
        with _Clock(self.pid) as clock:
            deadline = clock.t0 + max_seconds
            sent = 0
            while sent < min(window, n):
                write(requests[sent])
                pending.add(base + sent)
                sent += 1
            await self.writer.drain()
            while pending:
                msg = await self.recv()
                rid = msg.get("id")
                if not isinstance(rid, int) or rid not in pending:
                    m.error(f"unexpected response id {rid!r}")
                    continue
                pending.discard(rid)
                problem = check_call(msg, texts[rid - base])
                if problem is not None:
                    m.error(problem)
                m.calls += 1
                if sent < n and time.perf_counter() < deadline:
                    write(requests[sent])
                    pending.add(base + sent)
                    sent += 1
        return clock.fill(m)

    async def large_calls(self, kind: str, n: int, max_seconds: float) -> Measure:
        """`n` sequential large answers (`kind`: resource or tool), stopping early after
        `max_seconds`; every answer must be the whole 1 MiB text."""
        base = self.next_id
        self.next_id += n
        requests = [encode_large(base + i, kind) + b"\n" for i in range(n)]
        m = Measure()
        with _Clock(self.pid) as clock:
            deadline = clock.t0 + max_seconds
            readline = self.reader.readline
            for i in range(n):
                self.writer.write(requests[i])
                while (msg := self.decode(cut_large(await readline()))) is None:
                    pass
                if msg.get("id") != base + i:
                    m.error(f"unexpected response id {msg.get('id')!r}")
                    msg = await self.recv_response(base + i)
                problem = check_large(msg, kind)
                if problem is not None:
                    m.error(problem)
                m.calls += 1
                if time.perf_counter() >= deadline:
                    break
        return clock.fill(m)

    async def list_tools(self) -> tuple[float, int]:
        """One complete tools/list (every page followed): (ms, number of tools)."""
        t0 = time.perf_counter()
        count = 0
        cursor: str | None = None
        while True:
            rid = self.next_id
            self.next_id += 1
            params = {"cursor": cursor} if cursor else None
            self.writer.write(encode_request(rid, "tools/list", params) + b"\n")
            msg = await self.recv_response(rid)
            result = msg.get("result")
            if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
                raise BenchError(f"tools/list failed: {str(msg)[:300]}")
            count += len(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                return (time.perf_counter() - t0) * 1000, count


async def cold_start(argv: Sequence[str], env: dict[str, str], stderr: IO[bytes] | int) -> float:
    server, ms = await StdioServer.start(argv, env, stderr)
    await server.close()
    return ms


# ---------------------------------------------------------------------------- HTTP


def _header(head: bytes, lower: bytes, name: bytes) -> bytes | None:
    i = lower.find(b"\r\n" + name + b":")
    if i < 0:
        return None
    start = i + len(name) + 3
    return head[start : head.find(b"\r\n", start)].strip()


def parse_payload(content_type: bytes, body: bytes) -> list[Any]:
    """The JSON-RPC messages in a response body: plain JSON or SSE `data:` events."""
    if b"text/event-stream" not in content_type:
        msg = orjson.loads(body)
        return msg if isinstance(msg, list) else [msg]
    out: list[Any] = []
    for event in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = [
            line[6:] if line.startswith(b"data: ") else line[5:]
            for line in event.split(b"\n")
            if line.startswith(b"data:")
        ]
        if data and any(data):
            out.append(orjson.loads(b"\n".join(data)))
    return out


class HttpClient:
    """One keep-alive HTTP/1.1 connection speaking to one MCP endpoint (one session, or, with
    ``modern``, stateless 2026-07-28 requests with no handshake)."""

    def __init__(self, port: int, path: str = "/mcp", modern: bool = False) -> None:
        self.port = port
        self.path = path
        self.modern = modern
        self.session_id: bytes | None = None
        self.version_header = b""
        self.prefix = (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            "Content-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\n"
        ).encode()
        self.session_headers = MODERN_CALL_HEADERS if modern else b""
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.next_id = 1

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(
            HOST, self.port, limit=STREAM_LIMIT
        )

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
            self.writer = None

    def encode(self, body: bytes) -> bytes:
        return (
            self.prefix
            + self.session_headers
            + b"Content-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )

    async def exchange(self, request: bytes) -> tuple[int, bytes, bytes, bytes]:
        """Send one encoded request, read one response: (status, head, lowered head, body)."""
        if self.writer is None:
            await self.connect()
        assert self.reader is not None and self.writer is not None
        self.writer.write(request)
        reader = self.reader
        head = await reader.readuntil(b"\r\n\r\n")
        lower = head.lower()
        status = int(head[9:12])
        length = _header(head, lower, b"content-length")
        if length is not None:
            body = await reader.readexactly(int(length))
        elif b"\r\ntransfer-encoding: chunked" in lower:
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    while await reader.readuntil(b"\r\n") != b"\r\n":
                        pass  # trailers
                    break
                parts.append((await reader.readexactly(size + 2))[:-2])
            body = b"".join(parts)
        elif status in (204, 304) or status < 200:
            body = b""
        else:
            body = await reader.read()
            await self.close()
        if b"\r\nconnection: close" in lower and self.writer is not None:
            await self.close()
        return status, head, lower, body

    async def rpc(self, rid: int, body: bytes) -> dict[str, Any]:
        status, head, lower, payload = await self.exchange(self.encode(body))
        if status != 200:
            raise BenchError(f"HTTP {status}: {payload[:300]!r}")
        ctype = _header(head, lower, b"content-type") or b""
        for msg in parse_payload(ctype, payload):
            if isinstance(msg, dict) and msg.get("id") == rid and "method" not in msg:
                return msg
        raise BenchError(f"no response with id {rid} in {payload[:300]!r}")

    async def initialize(self, stateless: bool) -> None:
        if self.modern:
            return  # the 2026-07-28 wire has no handshake
        status, head, lower, payload = await self.exchange(
            self.encode(encode_request(0, "initialize", INITIALIZE))
        )
        if status != 200:
            raise BenchError(f"initialize: HTTP {status}: {payload[:300]!r}")
        ctype = _header(head, lower, b"content-type") or b""
        msgs = [
            m for m in parse_payload(ctype, payload) if isinstance(m, dict) and m.get("id") == 0
        ]
        if not msgs or not isinstance(msgs[0].get("result"), dict):
            raise BenchError(f"initialize failed: {payload[:300]!r}")
        version = str(msgs[0]["result"].get("protocolVersion", PROTOCOL_VERSION))
        headers = self.version_header = b"MCP-Protocol-Version: " + version.encode() + b"\r\n"
        sid = _header(head, lower, b"mcp-session-id")
        if sid is None and not stateless:
            raise BenchError("no Mcp-Session-Id on the initialize response")
        if sid is not None:
            headers += b"Mcp-Session-Id: " + sid + b"\r\n"
        self.session_id = sid
        self.session_headers = headers
        status, _, _, payload = await self.exchange(self.encode(INITIALIZED))
        if status not in (200, 202, 204):
            raise BenchError(f"notifications/initialized: HTTP {status}: {payload[:300]!r}")

    async def open_session(self) -> bytes:
        """A new session on this connection (initialize + initialized): its id. Later
        requests of this client go to it."""
        self.session_headers = b""
        await self.initialize(False)
        assert self.session_id is not None
        return self.session_id

    def use_session(self, sid: bytes) -> None:
        """Send the next requests in session `sid` (one this client opened before)."""
        self.session_id = sid
        self.session_headers = self.version_header + b"Mcp-Session-Id: " + sid + b"\r\n"

    async def end_session(self, sid: bytes) -> int:
        """DELETE session `sid`; the HTTP status."""
        status, _, _, _ = await self.exchange(
            f"DELETE {self.path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n".encode()
            + self.version_header
            + b"Mcp-Session-Id: "
            + sid
            + b"\r\nContent-Length: 0\r\n\r\n"
        )
        return status

    async def calls(
        self,
        n: int,
        deadline: float,
        m: Measure,
        requests: list[bytes],
        base: int,
        check: Callable[[dict[str, Any]], str | None] | None = None,
        cut: Callable[[bytes], bytes] | None = None,
    ) -> None:
        """Sequential pre-encoded calls on this connection, until n or the deadline; each
        answer is checked by `check` (default: the echo of its request's text), after `cut`
        (if any) made its body smaller."""
        for i in range(n):
            rid = base + i
            try:
                status, head, lower, payload = await self.exchange(requests[i])
                if status != 200:
                    m.error(f"HTTP {status}: {payload[:200]!r}")
                else:
                    ctype = _header(head, lower, b"content-type") or b""
                    if b"text/event-stream" in ctype:
                        m.sse_responses += 1
                    if cut is not None:
                        payload = cut(payload)
                    for msg in parse_payload(ctype, payload):
                        if isinstance(msg, dict) and "method" not in msg:
                            if msg.get("id") != rid:
                                m.error(f"unexpected response id {msg.get('id')!r}")
                            elif (
                                problem := check_call(msg, echo_text(rid), self.modern)
                                if check is None
                                else check(msg)
                            ) is not None:
                                m.error(problem)
                            break
                    else:
                        m.error(f"no response in {payload[:200]!r}")
            except (asyncio.IncompleteReadError, ConnectionError, ValueError) as exc:
                m.error(f"{type(exc).__name__}: {exc}")
                await self.close()
            m.calls += 1
            if time.perf_counter() >= deadline:
                break


async def http_calls(
    port: int,
    server_pid: int,
    clients: int,
    total: int,
    stateless: bool,
    max_seconds: float,
    warmup: int = 2,
    modern: bool = False,
) -> Measure:
    """`clients` connections (each its own session unless stateless), `total` echo calls
    shared between them, all running at once; sessions are set up before the clock starts.
    ``modern``: 2026-07-28 requests (envelope + routing headers, no handshake)."""
    conns = [HttpClient(port, modern=modern) for _ in range(clients)]
    try:
        await asyncio.gather(*(c.initialize(stateless) for c in conns))
        per = max(1, total // clients)
        scratch = Measure()
        plans: list[tuple[int, list[bytes]]] = []
        for c in conns:
            await c.calls(
                warmup,
                float("inf"),
                scratch,
                [c.encode(encode_call(c.next_id + i, modern)) for i in range(warmup)],
                c.next_id,
            )
            c.next_id += warmup
            base = c.next_id
            c.next_id += per
            plans.append((base, [c.encode(encode_call(base + i, modern)) for i in range(per)]))
        if scratch.errors:
            raise BenchError(f"warm-up calls failed: {scratch.first_error}")
        m = Measure()
        with _Clock(server_pid) as clock:
            deadline = clock.t0 + max_seconds
            await asyncio.gather(
                *(
                    c.calls(per, deadline, m, reqs, base)
                    for c, (base, reqs) in zip(conns, plans, strict=True)
                )
            )
        return clock.fill(m)
    finally:
        for c in conns:
            await c.close()


async def http_large(
    port: int, server_pid: int, kind: str, n: int, stateless: bool, max_seconds: float, warmup: int
) -> Measure:
    """`n` sequential large answers (`kind`: resource or tool) on one connection (one
    session unless stateless), stopping early after `max_seconds`."""
    c = HttpClient(port)

    def check(msg: dict[str, Any]) -> str | None:
        return check_large(msg, kind)

    try:
        await c.initialize(stateless)
        scratch = Measure()
        base = c.next_id
        await c.calls(
            warmup,
            float("inf"),
            scratch,
            [c.encode(encode_large(base + i, kind)) for i in range(warmup)],
            base,
            check,
            cut_large,
        )
        if scratch.errors:
            raise BenchError(f"warm-up calls failed: {scratch.first_error}")
        base = base + warmup
        c.next_id = base + n
        requests = [c.encode(encode_large(base + i, kind)) for i in range(n)]
        m = Measure()
        with _Clock(server_pid) as clock:
            await c.calls(n, clock.t0 + max_seconds, m, requests, base, check, cut_large)
        return clock.fill(m)
    finally:
        await c.close()


@dataclass
class Sessions:
    """Idle sessions opened one after another: how many, how fast, what they cost."""

    created: int = 0
    seconds: float = 0.0
    rss_before_kb: int = 0
    rss_after_kb: int = 0
    checked: int = 0  # sessions called once at the end (each must still answer)
    errors: int = 0
    first_error: str | None = None
    notes: list[str] = field(default_factory=list)

    def error(self, what: str) -> None:
        self.errors += 1
        if self.first_error is None:
            self.first_error = what

    @property
    def rate(self) -> float:
        return self.created / self.seconds if self.seconds > 0 else 0.0

    @property
    def kb_per_session(self) -> float:
        return (self.rss_after_kb - self.rss_before_kb) / self.created if self.created else 0.0


async def idle_sessions(
    port: int,
    server_pid: int,
    n: int,
    connections: int,
    max_seconds: float,
    warmup: int,
    check: int = 8,
    settle: float = 0.5,
) -> Sessions:
    """Open `n` sessions (initialize + notifications/initialized; nothing else, no GET
    stream) from `connections` keep-alive connections at once, stopping early after
    `max_seconds`; then the server's RSS growth, and an echo call on `check` of them (the
    first, the last, the rest at random) that must each be answered in its session.

    `warmup` sessions are opened and DELETEd first, so that code run once (imports, first
    use caches) is in the RSS before, not in the sessions' cost."""
    conns = [HttpClient(port) for _ in range(connections)]
    out = Sessions()
    try:
        for i in range(warmup):
            c = conns[i % connections]
            sid = await c.open_session()
            status = await c.end_session(sid)
            if status not in (200, 202, 204) and not out.notes:
                out.notes.append(f"DELETE of a warm-up session answered HTTP {status}")
        await asyncio.sleep(settle)
        out.rss_before_kb = rss_kb(server_pid)
        left = n
        opened: list[tuple[HttpClient, bytes]] = []
        t0 = time.perf_counter()
        deadline = t0 + max_seconds

        async def worker(c: HttpClient) -> None:
            nonlocal left
            failures = 0
            while left > 0 and failures < 5 and time.perf_counter() < deadline:
                left -= 1
                try:
                    opened.append((c, await c.open_session()))
                    failures = 0
                except (
                    BenchError,
                    asyncio.IncompleteReadError,
                    ConnectionError,
                    ValueError,
                ) as exc:
                    out.error(f"{type(exc).__name__}: {exc}"[:300])
                    failures += 1
                    await c.close()

        await asyncio.gather(*(worker(c) for c in conns))
        out.seconds = time.perf_counter() - t0
        out.created = len(opened)
        await asyncio.sleep(settle)
        out.rss_after_kb = rss_kb(server_pid)
        if opened:
            picks = [opened[0], opened[-1]]
            picks += random.Random(0).sample(opened, min(len(opened), max(0, check - 2)))
            m = Measure()
            for c, sid in picks[:check]:
                c.use_session(sid)
                rid = c.next_id
                c.next_id += 1
                await c.calls(1, float("inf"), m, [c.encode(encode_call(rid))], rid)
            out.checked = min(len(picks), check)
            out.errors += m.errors
            if m.first_error and out.first_error is None:
                out.first_error = f"a session did not answer: {m.first_error}"
        return out
    finally:
        for c in conns:
            await c.close()


async def wait_for_port(port: int, proc: asyncio.subprocess.Process, within: float) -> float:
    """Wait until the server accepts TCP connections; returns the seconds it took."""
    t0 = time.perf_counter()
    while True:
        if proc.returncode is not None:
            raise BenchError(f"server exited with code {proc.returncode} before listening")
        try:
            _, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            if time.perf_counter() - t0 > within:
                raise BenchError(
                    f"server did not listen on {HOST}:{port} in {within:.0f}s"
                ) from None
            await asyncio.sleep(0.05)
            continue
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
        return time.perf_counter() - t0


def free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def stderr_tail(path: Path, lines: int = 3) -> str:
    """The last few meaningful lines of a server's stderr log (for error reports)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    kept = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " | ".join(kept[-lines:])[-400:]
