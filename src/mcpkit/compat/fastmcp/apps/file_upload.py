"""fastmcp's ``FileUpload``: a built-in app where the user drops files that go straight to
the server (not through the model's context), and tools with which the model lists and
reads them.

Files are kept in memory, per client: the session of a handshake-era connection; on a
2026-07-28 connection (no session) the authenticated user, or the process on stdio; an
unauthenticated 2026-07-28 HTTP request has no client to keep them for and is refused.
Override ``on_store``, ``on_list`` and ``on_read`` (or ``_get_scope_key``) to keep them
elsewhere."""

from __future__ import annotations

import base64
import binascii
import math
from datetime import UTC, datetime
from threading import RLock
from time import monotonic
from typing import Any, cast

from mcpkit.compat.fastmcp.apps._builtin import missing_prefab
from mcpkit.compat.fastmcp.apps.app import FastMCPApp
from mcpkit.compat.fastmcp.context import Context
from mcpkit.compat.fastmcp.exceptions import ToolError

try:
    from prefab_ui.actions import SetState, ShowToast
    from prefab_ui.actions.mcp import CallTool
    from prefab_ui.app import PrefabApp
    from prefab_ui.components import (
        H3,
        Badge,
        Button,
        Card,
        CardContent,
        CardFooter,
        CardHeader,
        Column,
        DropZone,
        Muted,
        Row,
        Separator,
        Small,
    )
    from prefab_ui.components.control_flow import Else, ForEach, If
    from prefab_ui.rx import ERROR, RESULT, STATE, Rx
except ImportError as exc:  # pragma: no cover - prefab-ui is installed with the apps
    raise ImportError(missing_prefab("FileUpload")) from exc

__all__ = ["FileUpload"]

#: Names read back as text whatever MIME type the browser gave them.
TEXT_SUFFIXES = (".csv", ".json", ".txt", ".md", ".py", ".yaml", ".yml", ".toml")
#: How much of a binary file's base64 ``read_file`` shows.
PREVIEW = 200


def decoded_size(data: str) -> int:
    """The number of bytes base64 ``data`` decodes to (without decoding it)."""
    if not data:
        return 0
    return len(data) * 3 // 4 - data[-2:].count("=")


def human_size(size: int) -> str:
    """``size`` bytes for people: B, KB or MB."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def shown(value: Any) -> str:
    """A reactive value where a component takes text (prefab-ui renders either)."""
    return cast(str, value)


def summary(entry: dict[str, Any]) -> dict[str, Any]:
    """What ``list_files`` tells of a stored file."""
    return {
        "name": entry["name"],
        "type": entry["type"],
        "size": entry["size"],
        "size_display": human_size(entry["size"]),
        "uploaded_at": entry["uploaded_at"],
    }


class FileUpload(FastMCPApp):
    """An app with a drop zone (``file_manager``), the backend tool it uploads with
    (``store_files``) and two tools for the model (``list_files``, ``read_file``).

    ``max_file_size`` bounds each file, ``max_total_size`` (optional) all files kept, in
    decoded bytes; ``file_ttl_seconds`` (optional) forgets a file that long after its
    upload (checked whenever the store is used)."""

    def __init__(
        self,
        name: str = "Files",
        *,
        max_file_size: int = 10 * 1024 * 1024,
        max_total_size: int | None = None,
        file_ttl_seconds: float | None = None,
        title: str = "File Upload",
        description: str = (
            "Files dropped here are sent to the server, where the model can list and "
            "read them without them passing through the conversation."
        ),
        drop_label: str = "Drop files here",
    ) -> None:
        if max_total_size is not None and max_total_size < 0:
            raise ValueError("max_total_size must be nonnegative")
        if file_ttl_seconds is not None and not (
            math.isfinite(file_ttl_seconds) and file_ttl_seconds > 0
        ):
            raise ValueError("file_ttl_seconds must be positive and finite")
        super().__init__(name)
        self._max_file_size = max_file_size
        self._max_total_size = max_total_size
        self._file_ttl_seconds = file_ttl_seconds
        self._title = title
        self._description = description
        self._drop_label = drop_label
        #: scope -> file name -> entry (``name``, ``size``, ``type``, ``data``, ...).
        self._store: dict[str, dict[str, dict[str, Any]]] = {}
        self._store_lock = RLock()
        self._register_tools()

    def __repr__(self) -> str:
        return f"FileUpload({self.name!r})"

    # -- storage (override for your own) -------------------------------------------------

    def _get_scope_key(self, ctx: Context) -> str:
        """Whose files a request sees: the session (handshake era), else the
        authenticated user, else the process (stdio); a ToolError for an unauthenticated
        2026-07-28 HTTP request."""
        native = ctx.native
        if native.envelope is None:
            return ctx.session_id
        token = native.auth
        if token is not None:
            return f"user:{token.subject or token.client_id}"
        if native.session.transport.info.kind == "http":
            raise ToolError(
                "File uploads are kept per client, and this request names none: a "
                "2026-07-28 HTTP request without authentication has no session. "
                "Protect the server with auth, or override FileUpload._get_scope_key."
            )
        return "process"

    def _forget_expired(self, now: float) -> None:
        """Drop the files whose time is up (the store's lock held)."""
        if self._file_ttl_seconds is None:
            return
        for scope in list(self._store):
            files = self._store[scope]
            for name in [n for n, e in files.items() if e["_expires_at"] <= now]:
                del files[name]
            if not files:
                del self._store[scope]

    def on_store(self, files: list[dict[str, Any]], ctx: Context) -> list[dict[str, Any]]:
        """Keep ``files`` (each ``name``, ``size``, ``type``, ``data`` in base64) for the
        caller; the summaries of all the caller's files. A batch that would take the
        store past ``max_total_size`` is refused whole."""
        scope = self._get_scope_key(ctx)
        with self._store_lock:
            now = monotonic()
            self._forget_expired(now)
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            incoming: dict[str, dict[str, Any]] = {}
            for given in files:
                entry = {k: given[k] for k in ("name", "size", "type", "data")}
                entry["uploaded_at"] = stamp
                if self._file_ttl_seconds is not None:
                    entry["_expires_at"] = now + self._file_ttl_seconds
                incoming[given["name"]] = entry
            if self._max_total_size is not None:
                kept = {
                    (s, n): decoded_size(e["data"])
                    for s, held in self._store.items()
                    for n, e in held.items()
                }
                for name, entry in incoming.items():
                    kept[(scope, name)] = decoded_size(entry["data"])
                total = sum(kept.values())
                if total > self._max_total_size:
                    raise ValueError(
                        f"Files exceed total storage size ({human_size(total)} > "
                        f"{human_size(self._max_total_size)})"
                    )
            mine = self._store.setdefault(scope, {})
            mine.update(incoming)
            return [summary(e) for e in mine.values()]

    def on_list(self, ctx: Context) -> list[dict[str, Any]]:
        """The summaries of the caller's files."""
        scope = self._get_scope_key(ctx)
        with self._store_lock:
            self._forget_expired(monotonic())
            return [summary(e) for e in self._store.get(scope, {}).values()]

    def on_read(self, name: str, ctx: Context) -> dict[str, Any]:
        """The caller's file ``name``: its details and ``content`` (text) or the start of
        its base64 (``content_base64``); a ValueError naming the files there are when
        there is none of that name."""
        scope = self._get_scope_key(ctx)
        with self._store_lock:
            self._forget_expired(monotonic())
            mine = self._store.get(scope, {})
            entry = mine.get(name)
            if entry is None:
                raise ValueError(f"File {name!r} not found. Available: {list(mine)}")
        found = {k: entry[k] for k in ("name", "size", "type", "uploaded_at")}
        data: str = entry["data"]
        if entry["type"].startswith("text/") or entry["name"].endswith(TEXT_SUFFIXES):
            try:
                found["content"] = base64.b64decode(data).decode("utf-8")
                return found
            except (UnicodeDecodeError, binascii.Error):
                pass
        found["content_base64"] = data[:PREVIEW] + "..."
        return found

    # -- tools -----------------------------------------------------------------------------

    def _register_tools(self) -> None:
        app = self

        def store_files(files: list[dict], ctx: Context) -> list[dict]:  # type: ignore[type-arg]
            """Keep the files the UI uploads (each: name, size, type, data as base64)."""
            for given in files:
                size = decoded_size(given.get("data", ""))  # the data, not the size claimed
                if size > app._max_file_size:
                    raise ValueError(
                        f"File {given.get('name', '?')!r} exceeds max size "
                        f"({human_size(size)} > {human_size(app._max_file_size)})"
                    )
            return app.on_store(files, ctx)

        def list_files(ctx: Context) -> list[dict]:  # type: ignore[type-arg]
            """The files the user uploaded: name, type, size and upload time of each."""
            return app.on_list(ctx)

        def read_file(name: str, ctx: Context) -> dict:  # type: ignore[type-arg]
            """The content of an uploaded file, by its name."""
            return app.on_read(name, ctx)

        def file_manager(ctx: Context) -> PrefabApp:
            """Open a panel where the user drops files to send to the server."""
            return app._panel(app.on_list(ctx))

        self.tool()(store_files)
        self.tool(model=True)(list_files)
        self.tool(model=True)(read_file)
        self.ui()(file_manager)

    def _panel(self, stored: list[dict[str, Any]]) -> PrefabApp:
        limit = human_size(self._max_file_size)
        count = STATE.stored.length()
        with Card(css_class="max-w-2xl mx-auto") as view:
            with CardHeader(), Row(gap=2, align="center"):
                H3(self._title)
                with If(count):
                    Badge(shown(count), variant="secondary")
            with CardContent(), Column(gap=4):
                Muted(self._description)
                DropZone(
                    name="pending",
                    icon="upload",
                    label=self._drop_label,
                    description=f"Files of any type, {limit} at most each",
                    multiple=True,
                    max_size=self._max_file_size,
                )
                with If(STATE.pending.length()), Column(gap=2):
                    with ForEach("pending"), Row(gap=2, align="center"):
                        Small(shown(Rx("$item.name")))
                        Badge(shown(Rx("$item.type")), variant="outline")
                    Button(
                        "Send to server",
                        on_click=CallTool(
                            "store_files",
                            arguments={"files": Rx("pending")},
                            on_success=[
                                SetState("stored", RESULT),
                                SetState("pending", []),
                                ShowToast("Upload complete", variant="success"),
                            ],
                            on_error=ShowToast(shown(ERROR), variant="error"),
                        ),
                    )
                with If(count):
                    Separator()
                    with ForEach("stored") as item, Row(gap=2, css_class="justify-between"):
                        with Column(gap=0):
                            Small(shown(item.name))
                            Muted(shown(item.uploaded_at))
                        Badge(shown(item.size_display), variant="secondary")
            with CardFooter():
                with If(count):
                    Muted(f"{count} {count.pluralize('file')} stored")
                with Else():
                    Muted("Nothing uploaded yet")
        return PrefabApp(view=view, state={"pending": [], "stored": stored})
