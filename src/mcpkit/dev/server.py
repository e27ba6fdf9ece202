"""``mcpkit dev``: the user's server, restarted on every source change, and the web inspector
that drives it, served on 127.0.0.1 behind a random token."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mcpkit.dev.reloader import SourceWatcher
from mcpkit.dev.upstream import DevEra, EventHub, Upstream

__all__ = ["DevServer", "watch_root"]

HOST = "127.0.0.1"


def watch_root(spec: str) -> Path:
    """The folder whose files restart the server: the file's folder (a module: the current
    folder)."""
    from mcpkit.client.targets import parse_server_ref

    ref = parse_server_ref(spec)
    if ref is not None and ref.path is not None:
        return ref.path.resolve().parent
    return Path.cwd()


class DevServer:
    """The dev server of one user server ``spec`` (``file.py[:app]`` or ``module:app``).

    ``async with DevServer(spec) as dev:`` starts the user's server, the watcher and the HTTP
    server; :attr:`url` is the inspector's address (with the token).
    """

    def __init__(
        self,
        spec: str,
        *,
        port: int = 0,
        era: DevEra = "auto",
        interval: float = 0.3,
        token: str | None = None,
        root: Path | None = None,
        exclude: Sequence[str] = (),
    ) -> None:
        self.spec = spec
        self.token = token or secrets.token_urlsafe(24)
        self.hub = EventHub()
        self.upstream = Upstream(spec, era=era, hub=self.hub)
        self.interval = interval
        self.root = root or watch_root(spec)
        #: Globs of files whose changes never restart the server.
        self.exclude = tuple(exclude)
        self._requested_port = port
        self.port = 0
        self.reloads = 0
        self._tasks: list[asyncio.Task[Any]] = []
        self._server: Any = None
        self.on_reload: Callable[[list[Path]], None] | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{HOST}:{self.port}"

    @property
    def url(self) -> str:
        """The inspector page's URL, token included."""
        return f"{self.base_url}/?token={self.token}"

    async def _watch(self) -> None:
        watcher = SourceWatcher(self.root, exclude=self.exclude)
        while True:
            await asyncio.sleep(self.interval)
            changed = await asyncio.to_thread(watcher.changed)
            if changed and self.upstream.busy():
                # Data files that change while the server is running a call (or just ran
                # one) are the server's own writes: only source code restarts it then.
                changed = [p for p in changed if p.suffix == ".py"]
            if changed:
                self.reloads += 1
                if self.on_reload is not None:
                    self.on_reload(changed)
                await self.upstream.connect(reason="change")

    async def start(self) -> None:
        """Connect to the user's server, bind the port, start serving and watching."""
        import uvicorn

        from mcpkit.dev.api import build_app

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, self._requested_port))
        except OSError:
            sock.close()
            raise
        sock.listen(128)
        sock.setblocking(False)
        self.port = sock.getsockname()[1]
        hosts = (f"{HOST}:{self.port}", f"localhost:{self.port}")
        app = build_app(self.upstream, self.token, allowed_hosts=hosts)
        config = uvicorn.Config(
            app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self._server.install_signal_handlers = lambda: None
        await self.upstream.connect()
        self._tasks.append(asyncio.create_task(self._server.serve(sockets=[sock])))
        self._tasks.append(asyncio.create_task(self._watch()))
        while not self._server.started:
            if self._tasks[0].done():
                self._tasks[0].result()
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop serving, watching and the user's server."""
        self.hub.close()
        if self._server is not None:
            self._server.should_exit = True
        watch = self._tasks[1:] if len(self._tasks) > 1 else []
        for task in watch:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        await self.upstream.close()

    async def __aenter__(self) -> DevServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def serve_forever(self) -> None:
        """Run until cancelled (Ctrl-C)."""
        async with self:
            await self.wait()

    async def wait(self) -> None:
        """Until the HTTP server ends."""
        if self._tasks:
            await self._tasks[0]
