"""fastmcp's ready-made resources: :class:`TextResource`, :class:`BinaryResource`,
:class:`FileResource` and :class:`DirectoryResource` (served with ``mcp.add_resource`` or
by a provider), reading as fastmcp's read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pydantic

from mcpkit.compat.fastmcp._components import Resource
from mcpkit.compat.fastmcp.exceptions import ResourceError

__all__ = ["BinaryResource", "DirectoryResource", "FileResource", "TextResource"]


def _absolute(path: Path) -> Path:
    if not path.is_absolute():
        raise ValueError("Path must be absolute")
    return path


class TextResource(Resource):
    """A resource reading ``text``."""

    text: str

    async def read(self) -> str:
        """The text."""
        return self.text


class BinaryResource(Resource):
    """A resource reading ``data``."""

    data: bytes

    async def read(self) -> bytes:
        """The bytes."""
        return self.data


class FileResource(Resource):
    """A resource reading the file at ``path`` (absolute): as text, or as bytes when
    ``is_binary`` (by default: when the MIME type is not ``text/*``)."""

    path: Path
    is_binary: bool = False
    encoding: str | None = "utf-8"

    _check_path = pydantic.field_validator("path")(_absolute)

    @pydantic.model_validator(mode="after")
    def _binary_by_mime_type(self) -> FileResource:
        if "is_binary" not in self.model_fields_set:
            self.is_binary = not self.mime_type.startswith("text/")
        return self

    async def read(self) -> str | bytes:
        """The file's content (ResourceError when it cannot be read)."""
        try:
            if self.is_binary:
                return await anyio.Path(self.path).read_bytes()
            return await anyio.Path(self.path).read_text(encoding=self.encoding)
        except Exception as exc:
            raise ResourceError(f"Error reading file {self.path}") from exc


class DirectoryResource(Resource):
    """A resource listing the files of the directory ``path`` (absolute) as JSON
    (``{"files": [...]}``, paths relative to it; ``recursive``, a glob ``pattern``)."""

    path: Path
    recursive: bool = False
    pattern: str | None = None
    mime_type: str = "application/json"

    _check_path = pydantic.field_validator("path")(_absolute)

    def list_files(self) -> list[Path]:
        """The files listed (FileNotFoundError, NotADirectoryError)."""
        if not self.path.exists():
            raise FileNotFoundError(f"Directory not found: {self.path}")
        if not self.path.is_dir():
            raise NotADirectoryError(f"Not a directory: {self.path}")
        found = (self.path.rglob if self.recursive else self.path.glob)(self.pattern or "*")
        return [p for p in found if p.is_file()]

    async def read(self) -> Any:
        """The listing (ResourceError when the directory cannot be listed)."""
        try:
            files = await anyio.to_thread.run_sync(self.list_files)
        except Exception as exc:
            raise ResourceError(f"Error reading directory {self.path}") from exc
        return json.dumps({"files": [str(f.relative_to(self.path)) for f in files]}, indent=2)
