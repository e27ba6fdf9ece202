"""Content helpers (:class:`Image`, :class:`Audio`, :class:`File`) and turning return values
into content.

Tools, prompts and resources return ordinary Python values; this module turns them into
content blocks (plain dicts, ready for the wire): ``str`` -> text, ``bytes``/:class:`Image`
-> image, :class:`Audio` -> audio, protocol models (``TextContent``, ``ResourceLink``,
``EmbeddedResource``, ...) -> their wire form, dicts with a content ``type`` pass through, a
list of those -> several blocks, anything else -> its JSON as text.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit._lazy import lazy_module
from mcpkit._models import is_model

if TYPE_CHECKING:
    import mimetypes
    import pathlib
    from pathlib import Path
else:  # loaded by the first Image or Audio made from a file
    mimetypes = lazy_module("mimetypes", globals(), "mimetypes")
    pathlib = lazy_module("pathlib", globals(), "pathlib")

__all__ = [
    "Audio",
    "File",
    "Image",
    "annotations_dict",
    "content_block",
    "content_types",
    "downgrade_messages",
    "downgrade_result",
    "needs_downgrade",
    "to_content",
    "to_json_text",
]

CONTENT_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)
_AUDIO_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"ID3", "audio/mpeg"),
    (b"\xff\xfb", "audio/mpeg"),
    (b"OggS", "audio/ogg"),
    (b"fLaC", "audio/flac"),
)


def annotations_dict(annotations: Any) -> dict[str, Any] | None:
    """Content/resource annotations (audience, priority, lastModified) in wire form."""
    if annotations is None:
        return None
    if is_model(annotations):
        dumped: dict[str, Any] = annotations.model_dump(
            by_alias=True, exclude_none=True, mode="json"
        )
        return dumped
    if isinstance(annotations, Mapping):
        out = dict(annotations)
        if "last_modified" in out:
            out["lastModified"] = out.pop("last_modified")
        return out
    raise TypeError(f"annotations must be a dict or Annotations, not {type(annotations).__name__}")


class _Media:
    kind = ""
    _magic: tuple[tuple[bytes, str], ...] = ()

    def __init__(
        self,
        data: bytes | str | None = None,
        *,
        path: str | Path | None = None,
        mime_type: str | None = None,
        format: str | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if (data is None) == (path is None):
            raise ValueError(f"{type(self).__name__} needs exactly one of data or path")
        self.path = pathlib.Path(path) if path is not None else None
        self._data = data
        self.annotations = annotations
        self.meta = meta
        if mime_type is None and format is not None:
            mime_type = f"{self.kind}/{format.lower().lstrip('.')}"
        self._mime_type = mime_type

    @property
    def data(self) -> bytes:
        """The raw bytes."""
        if self._data is None:
            assert self.path is not None
            self._data = self.path.read_bytes()
        if isinstance(self._data, str):
            return base64.b64decode(self._data)
        return self._data

    @property
    def mime_type(self) -> str:
        """The MIME type: given, else from the file name, else sniffed from the bytes."""
        if self._mime_type is not None:
            return self._mime_type
        if self.path is not None:
            guess, _ = mimetypes.guess_type(self.path.name)
            if guess:
                return guess
        head = self.data[:16]
        for magic, mime in self._magic:
            if head.startswith(magic):
                return mime
        if self.kind == "image" and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return "image/webp"
        if self.kind == "audio" and head[:4] == b"RIFF" and head[8:12] == b"WAVE":
            return "audio/wav"
        return f"{self.kind}/png" if self.kind == "image" else "audio/wav"

    def to_block(self) -> dict[str, Any]:
        """The content block (``{"type": "image", "data": <base64>, "mimeType": ...}``)."""
        raw = self._data
        encoded = raw if isinstance(raw, str) else base64.b64encode(self.data).decode()
        block: dict[str, Any] = {"type": self.kind, "data": encoded, "mimeType": self.mime_type}
        ann = annotations_dict(self.annotations)
        if ann:
            block["annotations"] = ann
        if self.meta:
            block["_meta"] = self.meta
        return block


class Image(_Media):
    """An image for a tool or prompt result: ``Image(path="chart.png")``, ``Image(data=png)``."""

    kind = "image"
    _magic = _IMAGE_MAGIC


class Audio(_Media):
    """Audio for a tool or prompt result: ``Audio(path="hello.wav")``, ``Audio(data=b"...")``."""

    kind = "audio"
    _magic = _AUDIO_MAGIC


_TEXT_APPLICATION = ("application/json", "application/xml", "application/yaml", "application/toml")


class File(_Media):
    """A file for a tool or prompt result, sent as an embedded resource:
    ``File(path="report.csv")``, ``File(data=b"...", name="data.bin")``.

    The block is ``{"type": "resource", "resource": {"uri": "file:///<name>", "mimeType":
    ..., "text" | "blob": ...}}``: text when the MIME type is textual and the bytes are UTF-8,
    else base64. ``name`` defaults to the path's file name; ``uri`` to ``file:///<name>``;
    the MIME type to the one given, else the name's, else ``application/octet-stream``."""

    kind = "resource"

    def __init__(
        self,
        data: bytes | str | None = None,
        *,
        path: str | Path | None = None,
        name: str | None = None,
        uri: str | None = None,
        mime_type: str | None = None,
        format: str | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8")  # a str is the file's text (not base64, as for Image)
        if mime_type is None and format is not None:
            ext = format.lower().lstrip(".")
            mime_type = mimetypes.guess_type(f"f.{ext}")[0] or "application/octet-stream"
        super().__init__(data, path=path, mime_type=mime_type, annotations=annotations, meta=meta)
        self.name = name or (self.path.name if self.path is not None else "file")
        self.uri = uri or f"file:///{self.name}"

    @property
    def mime_type(self) -> str:
        """The MIME type: given, else from the name, else ``application/octet-stream``."""
        if self._mime_type is not None:
            return self._mime_type
        guess, _ = mimetypes.guess_type(self.name)
        return guess or "application/octet-stream"

    def to_block(self) -> dict[str, Any]:
        """The embedded resource block."""
        mime = self.mime_type
        data = self.data
        resource: dict[str, Any] = {"uri": self.uri, "mimeType": mime}
        textual = mime.startswith("text/") or mime in _TEXT_APPLICATION or mime.endswith("+json")
        try:
            if not textual:
                raise UnicodeDecodeError("utf-8", b"", 0, 1, "binary type")
            resource["text"] = data.decode("utf-8")
        except UnicodeDecodeError:
            resource["blob"] = base64.b64encode(data).decode()
        block: dict[str, Any] = {"type": "resource", "resource": resource}
        ann = annotations_dict(self.annotations)
        if ann:
            block["annotations"] = ann
        if self.meta:
            block["_meta"] = self.meta
        return block


def to_json_text(value: Any) -> str:
    """JSON text for any JSON-able value (models, dataclasses, ...)."""
    return orjson.dumps(value, default=_default).decode()


def _default(value: Any) -> Any:
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value)


def content_block(value: Any) -> dict[str, Any] | None:
    """One content block for ``value``, or None when it is not content."""
    if isinstance(value, str):
        return {"type": "text", "text": value}
    if isinstance(value, _Media):
        return value.to_block()
    if isinstance(value, (bytes, bytearray)):
        return Image(data=bytes(value)).to_block()
    if is_model(value):
        type_ = getattr(value, "type", None)
        if type_ in CONTENT_TYPES:
            dumped: dict[str, Any] = value.model_dump(by_alias=True, exclude_none=True, mode="json")
            return dumped
        return None
    if isinstance(value, dict) and value.get("type") in CONTENT_TYPES:
        return value
    return None


def to_content(value: Any) -> list[dict[str, Any]]:
    """Content blocks for a return value (see the module docstring)."""
    if value is None:
        return []
    block = content_block(value)
    if block is not None:
        return [block]
    if isinstance(value, (list, tuple)):
        blocks: list[dict[str, Any]] = []
        for item in value:
            b = content_block(item)
            if b is None:
                return [{"type": "text", "text": to_json_text(value)}]
            blocks.append(b)
        return blocks
    return [{"type": "text", "text": to_json_text(value)}]


def content_types(with_models: bool = True) -> tuple[type, ...]:
    """Python types that are content (for deciding output schemas); ``with_models=False``
    leaves out the protocol models (and does not import them)."""
    if not with_models:
        return (_Media,)
    from mcpkit.types import (
        AudioContent,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
    )

    return (_Media, TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)


def needs_downgrade(version: Any) -> bool:
    """True when ``version`` lacks a content type a result may hold (audio before
    2025-03-26, resource links before 2025-06-18)."""
    return version is not None and not (version.audio_content and version.resource_links)


def downgrade_blocks(blocks: list[Any], version: Any) -> list[Any]:
    """Content blocks ``version`` can carry: audio and resource links it does not know become
    text blocks saying what was there (so the peer's schema is respected)."""
    out: list[Any] = []
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "audio" and not version.audio:
            text = f"[audio ({block.get('mimeType', 'unknown type')}) not shown: protocol "
            text += f"version {version} cannot carry audio content]"
            block = {"type": "text", "text": text}
        elif kind == "resource_link" and not version.structured_output:
            label = block.get("title") or block.get("name") or block.get("uri")
            block = {"type": "text", "text": f"Resource: {label} <{block.get('uri')}>"}
        out.append(block)
    return out


def downgrade_result(result: Any, version: Any) -> Any:
    """A ``CallToolResult`` dict with its content fit for ``version``."""
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        return {**result, "content": downgrade_blocks(result["content"], version)}
    return result


def downgrade_messages(result: Any, version: Any) -> Any:
    """A ``GetPromptResult`` dict with each message's content fit for ``version``."""
    messages = result.get("messages") if isinstance(result, dict) else None
    if not isinstance(messages, list):
        return result
    fixed = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, dict):
            m = {**m, "content": downgrade_blocks([content], version)[0]}
        fixed.append(m)
    return {**result, "messages": fixed}
