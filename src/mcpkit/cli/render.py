"""Printing for the CLI: content blocks, tables, JSON, compact schemas, progress and logs.

Results go to stdout; progress, log messages and notes go to stderr, so ``mcpkit call ... >
out.txt`` keeps only the result. Server-provided text is never read as rich markup.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import mimetypes
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.cli.errors import INSTALL_HINT, CliError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

__all__ = ["LOG_LEVELS", "Output", "compact_schema", "require_rich", "to_json"]

#: The protocol's log levels (RFC 5424), least severe first.
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "application/json": ".json",
    "text/plain": ".txt",
}


def require_rich() -> None:
    """Fail with an install hint when the ``cli`` extra is missing."""
    try:
        import rich  # noqa: F401
    except ImportError:
        raise CliError(
            "the mcpkit command needs the 'rich' package",
            INSTALL_HINT.format(extras="cli"),
        ) from None


def to_json(value: Any) -> str:
    """Indented JSON text (non-JSON values shown with ``str``)."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2, default=str).decode()


def _type_of(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "any"
    if "enum" in schema and isinstance(schema["enum"], list):
        return "|".join(orjson.dumps(v).decode() for v in schema["enum"])
    if "const" in schema:
        return orjson.dumps(schema["const"]).decode()
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return "|".join(_type_of(o) for o in options)
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind == "array":
        return f"{_type_of(schema.get('items'))}[]"
    if kind == "object" and isinstance(schema.get("properties"), Mapping):
        return "{" + compact_schema(schema) + "}"
    if isinstance(kind, str):
        return kind
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return "any"


def compact_schema(schema: Any) -> str:
    """An input schema on one line: ``city: string, days?: integer = 3``."""
    if not isinstance(schema, Mapping):
        return ""
    props = schema.get("properties")
    if not isinstance(props, Mapping) or not props:
        return ""
    required = set(schema.get("required") or ())
    parts = []
    for name, prop in props.items():
        text = f"{name}{'' if name in required else '?'}: {_type_of(prop)}"
        if isinstance(prop, Mapping) and "default" in prop:
            text += f" = {orjson.dumps(prop['default'], default=str).decode()}"
        parts.append(text)
    return ", ".join(parts)


def _terminal_width() -> int:
    """Stdout is piped: the width of the terminal stderr or stdin is on (``mcpkit inspect X |
    less``), else 120 (captured: tables are not squeezed into 80 columns)."""
    for fd in (2, 0):
        try:
            columns = os.get_terminal_size(fd).columns
        except OSError:
            continue
        if columns > 0:  # a terminal that never set its size says 0
            return columns
    return 120


class _TrimmedLines:
    """A text stream that drops the trailing spaces of every line (rich pads table cells to
    the console width; piped output should not carry that padding)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._partial = ""

    def write(self, text: str) -> int:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        if lines:
            self._stream.write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._partial:
            self._stream.write(self._partial)
            self._partial = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return int(self._stream.fileno())

    @property
    def encoding(self) -> str:
        return str(getattr(self._stream, "encoding", "utf-8") or "utf-8")


class Output:
    """Where the CLI prints: ``out`` (stdout: results) and ``err`` (stderr: everything else).

    Binary content (images, audio, blobs) is written to ``save_dir`` (created on first use)
    and its path shown; without a ``save_dir`` nothing is written (no stray temporary
    folders) and the line says how to save it.
    """

    def __init__(
        self,
        *,
        save_dir: str | None = None,
        color: bool | None = None,
        log_level: str | None = None,
        quiet: bool = False,
    ) -> None:
        require_rich()
        from rich.console import Console

        kwargs: dict[str, Any] = {}
        piped = not sys.stdout.isatty()
        if "COLUMNS" not in os.environ and piped:
            kwargs["width"] = _terminal_width()
        if color is False:
            kwargs["no_color"] = True
        # The real stdout, kept: while an in-memory server runs, sys.stdout is stderr.
        self.stdout = sys.stdout
        self.out: Console = Console(file=self.stdout, highlight=False, soft_wrap=True, **kwargs)
        #: Tables and grids on stdout (``inspect``): piped, without rich's trailing padding
        #: (``out`` keeps server text exactly as it is).
        tables_file: Any = _TrimmedLines(self.stdout) if piped else self.stdout
        self.tables: Console = Console(file=tables_file, highlight=False, soft_wrap=True, **kwargs)
        self.err: Console = Console(stderr=True, highlight=False, soft_wrap=True, **kwargs)
        self._save_dir = Path(save_dir) if save_dir else None
        #: Server log messages below this level are not shown; ``quiet`` hides all of them
        #: and progress too.
        self.log_level = log_level
        self.quiet = quiet
        self._progress: Progress | None = None
        self._tasks: dict[str, TaskID] = {}
        self._paused = 0

    # -- plain lines ----------------------------------------------------------------------------

    def text(self, text: str) -> None:
        """Print server text as it is (no markup)."""
        self.out.print(text, markup=False, highlight=False)

    def note(self, message: str, style: str = "dim") -> None:
        """A line on stderr (markup allowed: callers escape what they interpolate)."""
        self.err.print(message, style=style)

    def json(self, value: Any) -> None:
        """Print ``value`` as indented JSON on stdout (plain, so it can be piped)."""
        self.stdout.write(to_json(value) + "\n")
        self.stdout.flush()

    # -- files ----------------------------------------------------------------------------------

    def save(self, data: bytes, mime_type: str | None, stem: str) -> Path | None:
        """Write ``data`` to the save folder under a fresh name and return the path; None
        (nothing written) when no folder was named with ``--save-dir``."""
        folder = self._save_dir
        if folder is None:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        ext = _EXTENSIONS.get((mime_type or "").lower()) or (
            mimetypes.guess_extension(mime_type or "") or ".bin"
        )
        base = _SAFE_NAME.sub("_", stem).strip("._") or "content"
        path = folder / f"{base}{ext}"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{base}-{n}{ext}"
        path.write_bytes(data)
        return path

    @staticmethod
    def where(path: Path | None) -> str:
        """How a saved (or unsaved) binary is shown after its size."""
        return f"saved to {path}" if path is not None else "not saved (--save-dir DIR saves it)"

    def _decode(self, data: Any) -> bytes | None:
        if not isinstance(data, str):
            return None
        try:
            return base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return None

    # -- content --------------------------------------------------------------------------------

    def content_blocks(self, blocks: Sequence[Mapping[str, Any]], stem: str) -> None:
        """Print content blocks readably; binary content saved to files (path shown)."""
        for i, block in enumerate(blocks, start=1):
            self.content_block(block, f"{stem}-{i}" if len(blocks) > 1 else stem)

    def content_block(self, block: Mapping[str, Any], stem: str) -> None:
        """Print one content block (text, image, audio, resource link, embedded resource)."""
        from rich.markup import escape

        kind = block.get("type")
        if kind == "text":
            self.text(str(block.get("text", "")))
        elif kind in ("image", "audio"):
            mime = block.get("mimeType")
            data = self._decode(block.get("data"))
            if data is None:
                self.out.print(f"[yellow]\\[{kind} {escape(str(mime))}: invalid base64 data][/]")
                return
            path = self.save(data, mime, stem)
            self.out.print(
                f"[cyan]\\[{kind} {escape(str(mime))}, {len(data)} bytes][/] "
                f"{escape(self.where(path))}"
            )
        elif kind == "resource_link":
            name = block.get("title") or block.get("name") or ""
            mime = block.get("mimeType")
            extra = ", ".join(str(x) for x in (name, mime) if x)
            self.out.print(
                f"[cyan]\\[resource link][/] {escape(str(block.get('uri')))}"
                + (f" ({escape(extra)})" if extra else "")
            )
        elif kind == "resource":
            resource = block.get("resource")
            if isinstance(resource, Mapping):
                self.resource_contents([resource], stem)
        else:
            self.out.print(f"[yellow]\\[{escape(str(kind))} content][/]")
            self.json(dict(block))

    def resource_contents(self, contents: Sequence[Mapping[str, Any]], stem: str) -> None:
        """Print resource contents: text shown, blobs saved to files."""
        from rich.markup import escape

        for i, item in enumerate(contents, start=1):
            uri = str(item.get("uri", ""))
            mime = item.get("mimeType")
            header = escape(uri) + (f" ({escape(str(mime))})" if mime else "")
            if "text" in item:
                self.out.print(f"[cyan]\\[resource][/] {header}")
                self.text(str(item.get("text", "")))
            else:
                data = self._decode(item.get("blob"))
                if data is None:
                    self.out.print(f"[yellow]\\[resource][/] {header}: invalid base64 blob")
                    continue
                name = f"{stem}-{i}" if len(contents) > 1 else stem
                path = self.save(data, mime, name)
                self.out.print(
                    f"[cyan]\\[resource][/] {header}, {len(data)} bytes {escape(self.where(path))}"
                )

    def structured(self, blocks: Sequence[Mapping[str, Any]], structured: Any) -> None:
        """Print ``structuredContent`` as JSON unless a text block already says the same."""
        for block in blocks:
            if block.get("type") == "text":
                try:
                    if orjson.loads(str(block.get("text", ""))) == structured:
                        return
                except orjson.JSONDecodeError:
                    pass
        self.out.print("[cyan]\\[structured content][/]")
        self.json(structured)

    # -- progress and logs ----------------------------------------------------------------------

    def progress(self, key: str, progress: float, total: float | None, message: str | None) -> None:
        """Show a progress notification: a bar on a terminal, a line otherwise."""
        from rich.markup import escape

        if self.quiet:
            return
        if not self.err.is_terminal:
            shown = f"{progress:g}/{total:g}" if total is not None else f"{progress:g}"
            self.note(f"progress {shown}" + (f": {escape(message)}" if message else ""))
            return
        bar = self._bar()
        description = escape(message or key)
        task = self._tasks.get(key)
        if task is None:
            task = self._tasks[key] = bar.add_task(description, total=total)
        bar.update(task, completed=progress, total=total, description=description)

    def task_status(
        self, task_id: str | None, status: str, message: str | None, *, plain: bool = False
    ) -> None:
        """Show a task's status: one live line on a terminal; otherwise (or ``plain``) a line
        ``status: STATUS`` (with the server's message) each time it changes."""
        from rich.markup import escape

        if self.quiet:
            return
        said = status + (f" ({message})" if message else "")
        if plain or not self.err.is_terminal:
            self.note(f"status: {escape(said)}")
            return
        bar = self._bar()
        description = escape(f"task {task_id or '(none)'}: {said}")
        key = f"\0task:{task_id}"
        row = self._tasks.get(key)
        if row is None:
            row = self._tasks[key] = bar.add_task(description, total=None)
        finished = status in ("completed", "failed", "cancelled")
        bar.update(
            row,
            description=description,
            total=1 if finished else None,
            completed=1 if finished else 0,
        )

    def _bar(self) -> Progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        if self._progress is None:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=self.err,
                transient=False,
            )
            if not self._paused:
                self._progress.start()
        return self._progress

    def end_progress(self) -> None:
        """Stop the progress display (before printing the result)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            self._tasks.clear()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Hide the live progress display while asking the user something."""
        self._paused += 1
        if self._progress is not None and self._paused == 1:
            self._progress.stop()
        try:
            yield
        finally:
            self._paused -= 1
            if self._progress is not None and self._paused == 0:
                self._progress.start()

    def log(self, params: Any) -> None:
        """Show a ``notifications/message`` as it arrives."""
        from rich.markup import escape

        level = str(getattr(params, "level", "info"))
        if self.quiet or (
            self.log_level is not None
            and level in LOG_LEVELS
            and LOG_LEVELS.index(level) < LOG_LEVELS.index(self.log_level)
        ):
            return
        logger = getattr(params, "logger", None)
        data = getattr(params, "data", None)
        text = data if isinstance(data, str) else orjson.dumps(data, default=str).decode()
        style = {
            "debug": "dim",
            "info": "blue",
            "notice": "blue",
            "warning": "yellow",
        }.get(level, "red")
        where = f" {escape(logger)}" if logger else ""
        self.err.print(f"[{style}]\\[{level}{where}][/] {escape(text)}")
