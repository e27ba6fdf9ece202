"""stdio transport: newline-delimited JSON over a process's stdin and stdout.

The server end reads its own stdin and writes its own stdout (and moves anything else that
would be printed to stdout over to stderr, so no stray print can corrupt the protocol). When
stdin reaches end of file while stdout stays open (``server.py < requests.jsonl``, or a client
that writes its requests, closes its end and reads), the server answers what it was already
asked before it ends: see :meth:`mcpkit.session.Session.end_of_input`, bounded by
``drain_timeout``. The client end spawns the server as a subprocess, captures or forwards
its stderr, and shuts it down as the spec says: close its stdin, wait, then SIGTERM, then
SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import selectors
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, Final

import orjson

from mcpkit.errors import ConnectionClosed, ProcessExited
from mcpkit.jsonrpc import INVALID_REQUEST, MessageKind, RequestId, error_response, peek
from mcpkit.transports.base import DrainingSink, MessageSink, Transport, TransportInfo

__all__ = [
    "DEFAULT_DRAIN_TIMEOUT",
    "DEFAULT_INHERITED_ENV",
    "DEFAULT_MAX_MESSAGE_SIZE",
    "LineFramer",
    "StdioClientTransport",
    "StdioServerTransport",
    "default_environment",
]

logger = logging.getLogger("mcpkit.stdio")

DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024
_OPT = orjson.OPT_APPEND_NEWLINE
#: Seconds a stdio server whose stdin reached end of file gives the requests it already
#: received to finish, before it cancels them (each answered with an error) and exits.
DEFAULT_DRAIN_TIMEOUT = 10.0
#: Seconds a closing server end waits for what it wrote to leave stdout's buffer.
_OUTPUT_GRACE = 2.0
#: Seconds after the server process exited to read what is left on a stdout that another
#: process keeps open, before pending requests fail.
_EXIT_GRACE = 0.5
#: Seconds after the server closed its stdout for its exit to be seen, before pending
#: requests fail with ConnectionClosed (rather than ProcessExited with the exit code). An
#: exiting process is usually reaped within milliseconds, but on a loaded machine 0.2 s
#: was seen to pass first (0.5 s stays below the shortest call timeouts users set).
_EOF_GRACE = 0.5
#: Bytes of an oversize message kept to read its id.
_HEAD = 4096


class LineFramer:
    """Splits a byte stream into lines and hands each to the sink (a trailing newline may stay).

    A line longer than ``max_size`` is never buffered whole: once the buffer passes the limit
    without a newline, the rest of that line is discarded as it arrives and ``on_oversize`` is
    called once, with the line's first bytes (enough to read its id).
    """

    __slots__ = ("_buf", "_discarding", "max_size", "on_oversize", "sink")

    def __init__(
        self, sink: MessageSink, max_size: int, on_oversize: Callable[[bytes], None]
    ) -> None:
        self.sink = sink
        self.max_size = max_size
        self.on_oversize = on_oversize
        self._buf = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> None:
        if self._discarding:
            i = data.find(b"\n")
            if i < 0:
                return
            self._discarding = False
            data = data[i + 1 :]
        buf = self._buf
        if not buf and data.endswith(b"\n"):
            if data.count(b"\n") == 1:
                # Fast path: exactly one whole message in this chunk.
                if len(data) - 1 > self.max_size:
                    self.on_oversize(data[:_HEAD])
                elif len(data) > 1:
                    self.sink.receive_bytes(data)
                return
            # Whole messages only (pipelined requests): split them at once, in C.
            receive = self.sink.receive_bytes
            max_size = self.max_size
            for line in data.split(b"\n"):
                if not line:
                    continue
                if len(line) > max_size:
                    self.on_oversize(line[:_HEAD])
                elif not line.isspace():
                    receive(line)
            return
        buf += data
        start = 0
        receive = self.sink.receive_bytes
        while True:
            i = buf.find(b"\n", start)
            if i < 0:
                break
            if i - start > self.max_size:
                self.on_oversize(bytes(buf[start : start + _HEAD]))
            elif i > start and not buf[start:i].isspace():
                receive(bytes(buf[start:i]))
            start = i + 1
        if start:
            del buf[:start]
        if len(buf) > self.max_size:
            head = bytes(buf[:_HEAD])
            buf.clear()
            self._discarding = True
            self.on_oversize(head)

    def finish(self) -> None:
        """The stream ended: a last message without its newline is taken as it is."""
        buf = self._buf
        if self._discarding:
            self._discarding = False
        elif buf and not buf.isspace():
            data = bytes(buf)
            buf.clear()
            self.sink.receive_bytes(data)
        buf.clear()


def _oversize_reply(
    transport: Transport, sink: MessageSink, max_size: int
) -> Callable[[bytes], None]:
    """What to do with a message over the size limit: a request is answered -32600 with its
    id (when the id can be read), a response to one of ours fails that request at once."""

    def reply(head: bytes) -> None:
        kind, rid = peek(head)
        logger.warning(
            "Dropped an incoming %s over the %d-byte limit (id %r)", kind.value, max_size, rid
        )
        data = {"maxMessageSize": max_size}
        if rid is not None and (kind is MessageKind.RESULT or kind is MessageKind.ERROR):
            sink.receive(
                error_response(
                    rid,
                    INVALID_REQUEST,
                    f"The response exceeds the message size limit of {max_size} bytes "
                    "(max_message_size)",
                    data,
                )
            )
            return
        if kind is not MessageKind.REQUEST:
            rid = None
        with contextlib.suppress(Exception):
            transport.write(
                error_response(
                    rid, INVALID_REQUEST, f"Message exceeds the size limit of {max_size} bytes"
                )
            )

    return reply


class _FlowControl:
    """Pause/resume bookkeeping for a write transport (like asyncio's FlowControlMixin)."""

    def __init__(self) -> None:
        self.paused = False
        self._waiter: asyncio.Future[None] | None = None

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def lost(self, exc: BaseException | None) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(ConnectionClosed(str(exc) if exc else "Connection closed"))

    async def wait(self) -> None:
        if not self.paused:
            return
        if self._waiter is None:
            self._waiter = asyncio.get_running_loop().create_future()
        await self._waiter


# -- server end -------------------------------------------------------------------------------


def _pollable(stream: IO[bytes], events: int = selectors.EVENT_READ) -> bool:
    """True when the event loop can wait on ``stream`` (epoll refuses regular files and some
    character devices such as /dev/null; asyncio only finds out in a callback, and uvloop
    aborts the process)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    try:
        with selectors.DefaultSelector() as probe:
            probe.register(fd, events)
    except (OSError, ValueError):
        return False
    return True


class _ReadProto(asyncio.Protocol):
    def __init__(self, owner: StdioServerTransport) -> None:
        self.owner = owner

    def data_received(self, data: bytes) -> None:
        framer = self.owner._framer
        if framer is not None:
            framer.feed(data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner._input_closed(exc)


class _WriteProto(asyncio.BaseProtocol):
    def __init__(self, flow: _FlowControl, owner: StdioServerTransport) -> None:
        self.flow = flow
        self.owner = owner

    def pause_writing(self) -> None:
        self.flow.pause()
        self.owner.writing_paused = True
        self.owner._set_paused(output=True)

    def resume_writing(self) -> None:
        self.flow.resume()
        self.owner.writing_paused = False
        self.owner._set_paused(output=False)

    def connection_lost(self, exc: Exception | None) -> None:
        self.flow.lost(exc)
        self.owner._output_closed(exc)


class StdioServerTransport(Transport):
    """Serve on this process's stdin/stdout (or the binary streams given).

    At stdin's end of file the session answers the requests it already received (at most
    ``drain_timeout`` seconds; those still running then are answered with an error) and
    then closes; a read error, or stdout closing meanwhile, ends it at once.
    """

    info = TransportInfo(kind="stdio")

    def __init__(
        self,
        stdin: IO[bytes] | None = None,
        stdout: IO[bytes] | None = None,
        *,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        protect_stdout: bool = True,
        drain_timeout: float = DEFAULT_DRAIN_TIMEOUT,
    ) -> None:
        if not drain_timeout >= 0:
            raise ValueError(f"drain_timeout must be 0 or more seconds, not {drain_timeout!r}")
        #: Seconds the requests received before stdin's end of file get to finish.
        self.drain_timeout = drain_timeout
        self._input_ended = False
        self._closing = False
        self._out_done: asyncio.Future[None] | None = None
        self._stdin = stdin
        self._stdout = stdout
        self.max_message_size = max_message_size
        self._protect_stdout = protect_stdout and stdout is None
        self._framer: LineFramer | None = None
        self._sink: MessageSink | None = None
        self._flow = _FlowControl()
        self._reader: asyncio.ReadTransport | None = None
        self._writer: asyncio.WriteTransport | None = None
        self._out_file: IO[bytes] | None = None
        self._closed = False
        self._thread_reader: threading.Thread | None = None
        self._pending: list[bytes] = []
        self._loop: asyncio.AbstractEventLoop = None  # type: ignore[assignment]  # set by start
        # Input is read only while the session wants more and the output buffer has room:
        # a peer that does not read our stdout stops being read (every reply, to garbage
        # too, would otherwise pile up in memory).
        self._paused_by_session = False
        self._paused_by_output = False
        self._thread_gate = threading.Event()
        self._thread_gate.set()
        #: Whether stdout's buffer is full (a plain attribute, read after every write; the
        #: write pipe's protocol keeps it).
        self.writing_paused = False

    async def start(self, sink: MessageSink) -> None:
        loop = self._loop = asyncio.get_running_loop()
        self._sink = sink
        self._framer = LineFramer(
            sink, self.max_message_size, _oversize_reply(self, sink, self.max_message_size)
        )
        out = self._stdout
        if out is None:
            if not self._protect_stdout:
                sys.stdout.flush()
            fd = os.dup(sys.stdout.fileno())
            if self._protect_stdout:
                # From now on fd 1 is stderr: print() and C libraries cannot touch the protocol.
                sys.stderr.flush()
                os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
                # What was printed before (still in stdout's buffer) goes to stderr too.
                sys.stdout.flush()
            out = os.fdopen(fd, "wb", buffering=0)
        self._out_file = out
        self._writer = None  # a regular file or /dev/null: plain blocking writes
        if _pollable(out, selectors.EVENT_WRITE):
            with contextlib.suppress(ValueError, OSError):
                self._writer, _ = await loop.connect_write_pipe(
                    lambda: _WriteProto(self._flow, self), out
                )
        inp = self._stdin if self._stdin is not None else sys.stdin.buffer
        if not _pollable(inp):
            # A regular file or a device epoll refuses (/dev/null): read it in a thread.
            self._start_thread_reader(loop, inp)
            return
        try:
            self._reader, _ = await loop.connect_read_pipe(lambda: _ReadProto(self), inp)
        except (ValueError, OSError):
            self._start_thread_reader(loop, inp)

    def _start_thread_reader(self, loop: asyncio.AbstractEventLoop, inp: IO[bytes]) -> None:
        gate = self._thread_gate

        def run() -> None:
            try:
                while True:
                    gate.wait()
                    chunk = inp.read1(65536) if hasattr(inp, "read1") else inp.read(65536)
                    if not chunk:
                        break
                    loop.call_soon_threadsafe(self._feed, chunk)
            except (OSError, ValueError):
                pass
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._input_closed, None)

        self._thread_reader = threading.Thread(target=run, name="mcpkit-stdin", daemon=True)
        self._thread_reader.start()

    def _feed(self, data: bytes) -> None:
        if self._framer is not None and not self._closed:
            self._framer.feed(data)

    def _input_closed(self, exc: BaseException | None) -> None:
        if self._closed:
            return
        if exc is None and not self._closing and not self._input_ended and self._output_open():
            sink = self._sink
            if isinstance(sink, DrainingSink):
                # End of file with stdout still open: what was asked is answered first.
                self._input_ended = True
                if self._framer is not None:
                    self._framer.finish()
                sink.end_of_input(self.drain_timeout)
                return
        self._closed = True
        if self._sink is not None:
            self._sink.connection_lost(exc)

    def _output_open(self) -> bool:
        writer = self._writer
        if writer is not None:
            return not writer.is_closing()
        return self._out_file is not None

    def _output_closed(self, exc: BaseException | None) -> None:
        done = self._out_done
        if done is not None and not done.done():
            done.set_result(None)
        if self._input_ended and not self._closing:
            # stdout closed while answering after the end of input: nobody can read the rest.
            self._input_closed(exc or ConnectionClosed("stdout is closed"))

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        data = orjson.dumps(message, option=_OPT)
        writer = self._writer
        if writer is not None:
            if writer.is_closing():
                raise ConnectionClosed("stdout is closed")
            # Messages written during one loop iteration leave in one write(2): under load
            # that is one system call (and one GIL release) per burst instead of per message.
            pending = self._pending
            pending.append(data)
            if len(pending) == 1:
                self._loop.call_soon(self._flush)
        elif self._out_file is not None:
            self._out_file.write(data)
        else:
            raise ConnectionClosed("stdio transport not started")

    def _flush(self) -> None:
        pending = self._pending
        if not pending:
            return
        data = pending[0] if len(pending) == 1 else b"".join(pending)
        pending.clear()
        writer = self._writer
        if writer is not None and not writer.is_closing():
            writer.write(data)

    async def drain(self) -> None:
        await self._flow.wait()

    def pause_reading(self) -> None:
        self._set_paused(session=True)

    def resume_reading(self) -> None:
        self._set_paused(session=False)

    def _set_paused(self, *, session: bool | None = None, output: bool | None = None) -> None:
        was = self._paused_by_session or self._paused_by_output
        if session is not None:
            self._paused_by_session = session
        if output is not None:
            self._paused_by_output = output
        now = self._paused_by_session or self._paused_by_output
        if now is was:
            return
        reader = self._reader
        if now:
            self._thread_gate.clear()
            if reader is not None and not reader.is_closing():
                reader.pause_reading()
        else:
            self._thread_gate.set()
            if reader is not None and not reader.is_closing():
                reader.resume_reading()

    async def close(self) -> None:
        """Close both streams, once what was written has left stdout (at most 2 s)."""
        self._closing = True
        self._thread_gate.set()
        if self._reader is not None:
            self._reader.close()
        writer = self._writer
        if writer is not None:
            self._flush()
            if not writer.is_closing():
                done = self._out_done = self._loop.create_future()
                writer.close()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(done, _OUTPUT_GRACE)
        self._input_closed(None)


# -- client end -------------------------------------------------------------------------------


class _ProcessProto(asyncio.SubprocessProtocol):
    def __init__(self, owner: StdioClientTransport) -> None:
        self.owner = owner

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            framer = self.owner._framer
            if framer is not None:
                framer.feed(data)
        else:
            self.owner._stderr_received(data)

    def pause_writing(self) -> None:
        self.owner._flow.pause()

    def resume_writing(self) -> None:
        self.owner._flow.resume()

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 2:
            owner = self.owner
            owner._stderr_open = False
            if owner._exited.is_set() and owner._stdout_closed:
                owner._process_gone()
        elif fd == 1:
            owner = self.owner
            owner._stdout_closed = True
            if owner._exited.is_set():
                owner._process_gone()
            else:
                # Nothing more can arrive: pending requests fail now (as ProcessExited when
                # the process is exiting anyway, which it usually is).
                asyncio.get_running_loop().call_later(_EOF_GRACE, owner._stdout_gone)

    def process_exited(self) -> None:
        owner = self.owner
        owner._exited.set()
        if owner._stdout_closed:
            owner._process_gone()
        else:
            # A grandchild may hold stdout (or stderr) open: what the server wrote is read
            # first, but pending requests must not wait for that other process to exit.
            asyncio.get_running_loop().call_later(_EXIT_GRACE, owner._process_gone)

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner._process_gone()


_WINDOWS_ENV = (
    "APPDATA", "COMSPEC", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
    "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME",
    "USERPROFILE", "WINDIR",
)  # fmt: skip
_POSIX_ENV = (
    "HOME", "LANG", "LANGUAGE", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "TZ", "USER",
)  # fmt: skip
#: The variables a server started with an ``env`` of its own inherits from this process
#: (besides ``LC_*``): what programs need to run, no credentials.
DEFAULT_INHERITED_ENV: Final = _WINDOWS_ENV if sys.platform == "win32" else _POSIX_ENV


def default_environment() -> dict[str, str]:
    """The part of this process's environment a server with an ``env`` of its own gets
    (:data:`DEFAULT_INHERITED_ENV` and the locale's ``LC_*``); exported shell functions
    (values starting ``()``) are left out."""
    env: dict[str, str] = {}
    for name, value in os.environ.items():
        if (name in DEFAULT_INHERITED_ENV or name.startswith("LC_")) and not value.startswith("()"):
            env[name] = value
    return env


class StdioClientTransport(Transport):
    """Spawn ``command`` and talk to it over its stdin/stdout.

    ``env``: variables for the server. Given, the server gets them over a small default set
    of this process's environment (:func:`default_environment`: the path, home, user,
    shell, terminal, locale and temporary folder), not the whole of it: secrets in this
    process's environment stay here. ``inherit_env=True`` passes the whole environment
    (with ``env`` over it), ``False`` only ``env``. Without ``env`` the server inherits
    this process's environment (``inherit_env=False``: an empty one).

    ``stderr``: ``"capture"`` (default) keeps the tail for error reports and passes lines to
    ``on_stderr`` if given; ``"inherit"`` lets the child write to our stderr directly.
    """

    info = TransportInfo(kind="stdio")

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        inherit_env: bool | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: str = "capture",
        on_stderr: Callable[[str], None] | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        shutdown_timeout: float = 2.0,
        stderr_tail_bytes: int = 8192,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.env = dict(env) if env is not None else None
        self.inherit_env = inherit_env
        self.cwd = cwd
        self.stderr_mode = stderr
        self.on_stderr = on_stderr
        self.max_message_size = max_message_size
        self.shutdown_timeout = shutdown_timeout
        self._stderr_tail: deque[bytes] = deque()
        self._stderr_tail_size = 0
        self._stderr_tail_max = stderr_tail_bytes
        self._stderr_partial = b""
        self._flow = _FlowControl()
        self._framer: LineFramer | None = None
        self._sink: MessageSink | None = None
        self._proc: asyncio.SubprocessTransport | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._exited = asyncio.Event()
        self._stdout_closed = False
        #: Whether the server's stderr is a pipe not read to its end yet.
        self._stderr_open = False
        self._stderr_wait = False
        self._gone = False
        self._shutdown: asyncio.Task[None] | None = None

    @property
    def writing_paused(self) -> bool:  # type: ignore[override]
        return self._flow.paused

    @property
    def pid(self) -> int | None:
        """The server process id (None before start)."""
        return self._proc.get_pid() if self._proc is not None else None

    @property
    def returncode(self) -> int | None:
        """The server's exit code once it exited."""
        return self._proc.get_returncode() if self._proc is not None else None

    @property
    def stderr_tail(self) -> str:
        """The last bytes the server wrote to stderr (decoded leniently)."""
        return b"".join(self._stderr_tail).decode("utf-8", "replace")

    async def start(self, sink: MessageSink) -> None:
        loop = asyncio.get_running_loop()
        self._sink = sink
        self._framer = LineFramer(
            sink, self.max_message_size, _oversize_reply(self, sink, self.max_message_size)
        )
        env: dict[str, str] | None = None
        inherit = self.inherit_env
        if self.env is not None:
            if inherit is None:
                env = {**default_environment(), **self.env}
            else:
                env = {**os.environ, **self.env} if inherit else dict(self.env)
        elif inherit is False:
            env = {}
        stderr = None if self.stderr_mode == "inherit" else subprocess.PIPE
        try:
            proc, _ = await loop.subprocess_exec(
                lambda: _ProcessProto(self),
                self.command,
                *self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
                cwd=self.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            raise ConnectionClosed(f"Could not start server {self.command!r}: {exc}") from exc
        self._proc = proc
        self._stdin = proc.get_pipe_transport(0)  # type: ignore[assignment]
        self._stderr_open = stderr is not None

    def _stderr_received(self, data: bytes) -> None:
        self._stderr_tail.append(data)
        self._stderr_tail_size += len(data)
        while self._stderr_tail_size > self._stderr_tail_max and len(self._stderr_tail) > 1:
            self._stderr_tail_size -= len(self._stderr_tail.popleft())
        if self.on_stderr is not None:
            text = self._stderr_partial + data
            *lines, self._stderr_partial = text.split(b"\n")
            for line in lines:
                try:
                    self.on_stderr(line.decode("utf-8", "replace"))
                except Exception:
                    logger.exception("on_stderr callback failed")

    def _process_gone(self, waited: bool = False) -> None:
        if self._gone:
            return
        if self._stderr_open and not waited:
            # Its last words (a crash's message) may still be in the stderr pipe: read them
            # first, but not longer than a grandchild holding stderr open allows.
            if not self._stderr_wait:
                self._stderr_wait = True
                asyncio.get_running_loop().call_later(_EXIT_GRACE, self._process_gone, True)
            return
        self._gone = True
        self._flow.lost(None)
        if self._sink is not None:
            self._sink.connection_lost(ProcessExited(self.returncode, self.stderr_tail))
        if self._proc is not None and self._exited.is_set():
            self._proc.close()  # release the pipes even if another process holds them open

    def _stdout_gone(self) -> None:
        if self._gone:
            return
        if self._exited.is_set():
            self._process_gone(True)  # it exited meanwhile (its stderr is still held open)
            return
        self._gone = True
        self._flow.lost(None)
        if self._sink is not None:
            self._sink.connection_lost(
                ConnectionClosed(
                    f"The server closed its stdout but is still running (pid {self.pid})"
                )
            )
        # A server that can no longer answer is shut down as the spec says (the session,
        # closed already, will not ask for it).
        self._shutdown = asyncio.get_running_loop().create_task(self.close())

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        stdin = self._stdin
        if stdin is None or stdin.is_closing() or self._gone:
            raise ProcessExited(self.returncode, self.stderr_tail)
        stdin.write(orjson.dumps(message, option=_OPT))

    def unread_input(self) -> int | None:
        """Bytes written to the server that it has not read yet (still in this side's
        buffer or in the pipe); None where the platform cannot tell. A server still
        starting (importing, loading a model) has not read its first message."""
        stdin = self._stdin
        if stdin is None or stdin.is_closing():
            return None
        pending = stdin.get_write_buffer_size()
        pipe = stdin.get_extra_info("pipe")
        try:
            import fcntl
            import termios

            fd = pipe.fileno()
            raw = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
        except (ImportError, AttributeError, OSError, ValueError):
            return None
        return pending + int.from_bytes(raw, sys.byteorder, signed=True)

    def write_bytes(self, data: bytes) -> None:
        """Send raw bytes (tests use it to send malformed input)."""
        if self._stdin is None or self._stdin.is_closing():
            raise ProcessExited(self.returncode, self.stderr_tail)
        self._stdin.write(data)

    async def drain(self) -> None:
        await self._flow.wait()

    def pause_reading(self) -> None:
        if self._proc is not None:
            pipe = self._proc.get_pipe_transport(1)
            if isinstance(pipe, asyncio.ReadTransport):
                pipe.pause_reading()

    def resume_reading(self) -> None:
        if self._proc is not None:
            pipe = self._proc.get_pipe_transport(1)
            if isinstance(pipe, asyncio.ReadTransport):
                pipe.resume_reading()

    async def close(self) -> None:
        """Close stdin, wait for exit, then SIGTERM, then SIGKILL."""
        proc = self._proc
        if proc is None:
            return
        shutdown = self._shutdown
        if shutdown is not None and shutdown is not asyncio.current_task():
            await shutdown
            return
        if self._stdin is not None and not self._stdin.is_closing():
            self._stdin.close()
        try:
            for step in ("wait", "terminate", "kill"):
                if proc.get_returncode() is not None:
                    break
                if step == "terminate":
                    with contextlib.suppress(ProcessLookupError):
                        proc.terminate()
                elif step == "kill":
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._exited.wait(), self.shutdown_timeout)
        finally:
            # Cancelled too (the loop ending mid-shutdown): the pipes are released and a
            # server still running is killed, while the loop can still close them.
            proc.close()
        self._process_gone()
