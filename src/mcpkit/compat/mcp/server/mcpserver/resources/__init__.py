"""``mcp.server.mcpserver.resources`` on mcpkit: resource objects for
``MCPServer.add_resource`` (``TextResource``, ``BinaryResource``, ``FunctionResource``,
``FileResource``, or a ``Resource`` subclass with its own ``read``), each served as a
resource of mcpkit's own registry, read when a client reads it."""

from __future__ import annotations

import abc
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio.to_thread
import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

__all__ = ["BinaryResource", "FileResource", "FunctionResource", "Resource", "TextResource"]


class Resource(BaseModel, abc.ABC):
    """A resource: its listing's fields and :meth:`read` (text or bytes)."""

    model_config = ConfigDict(validate_default=True)

    uri: str
    name: str | None = None
    title: str | None = None
    description: str | None = None
    mime_type: str = "text/plain"
    icons: list[Any] | None = None
    annotations: Any = None
    meta: dict[str, Any] | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _default_name(cls, name: str | None, info: ValidationInfo) -> str:
        if name:
            return name
        if uri := info.data.get("uri"):
            return str(uri)
        raise ValueError("Either name or uri must be provided")

    @abc.abstractmethod
    async def read(self) -> str | bytes:
        """The resource's content."""


class TextResource(Resource):
    """A resource of fixed text."""

    text: str

    async def read(self) -> str:
        """The text."""
        return self.text


class BinaryResource(Resource):
    """A resource of fixed bytes."""

    data: bytes

    async def read(self) -> bytes:
        """The bytes."""
        return self.data


class FunctionResource(Resource):
    """A resource read by calling ``fn`` (no arguments): a str is text, bytes binary,
    anything else indented JSON."""

    fn: Callable[[], Any] = Field(exclude=True)

    async def read(self) -> str | bytes:
        """Call the function (a plain one in a worker thread)."""
        if inspect.iscoroutinefunction(self.fn):
            result = await self.fn()
        else:
            result = await anyio.to_thread.run_sync(self.fn)
        if isinstance(result, Resource):
            return await result.read()
        if isinstance(result, str | bytes):
            return result
        return pydantic_core.to_json(result, fallback=str, indent=2).decode()

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        uri: str,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Any] | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> FunctionResource:
        """A resource reading ``fn``, named after it unless ``name`` is given."""
        fn_name = name or fn.__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        return cls(
            uri=uri,
            name=fn_name,
            title=title,
            description=description or fn.__doc__ or "",
            mime_type=mime_type or "text/plain",
            fn=fn,
            icons=icons,
            annotations=annotations,
            meta=meta,
        )


class FileResource(Resource):
    """A file (an absolute path) read as text in ``encoding``, or as bytes when
    ``encoding`` is None."""

    path: Path
    encoding: str | None = "utf-8"

    @field_validator("path")
    @classmethod
    def _absolute(cls, path: Path) -> Path:
        if not path.is_absolute():
            raise ValueError("Path must be absolute")
        return path

    async def read(self) -> str | bytes:
        """The file's text or bytes."""
        if self.encoding is None:
            return await anyio.to_thread.run_sync(self.path.read_bytes)
        encoding = self.encoding
        return await anyio.to_thread.run_sync(lambda: self.path.read_text(encoding=encoding))
