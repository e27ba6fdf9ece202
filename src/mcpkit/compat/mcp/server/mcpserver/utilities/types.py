"""``Image`` and ``Audio`` as the official SDK takes them: ``Image(path=None, data=None,
format=None)``; the MIME type is ``image/<format>``, else guessed from the file's suffix,
else ``image/png`` for raw bytes (``audio/wav`` for audio). They are mcpkit's content helpers
(:class:`mcpkit.Image`), so a tool may return them as they are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpkit.server.content import Audio as _NativeAudio
from mcpkit.server.content import Image as _NativeImage

__all__ = ["Audio", "Image"]

_IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
_AUDIO_TYPES = {
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
    ".aac": "audio/aac",
    ".m4a": "audio/mp4",
}


def _mime(kind: str, path: Path | None, fmt: str | None, known: dict[str, str], raw: str) -> str:
    if fmt:
        return f"{kind}/{fmt.lower()}"
    if path is not None:
        return known.get(path.suffix.lower(), "application/octet-stream")
    return raw


class Image(_NativeImage):
    """An image for a tool result: exactly one of ``path`` and ``data``."""

    def __init__(
        self, path: str | Path | None = None, data: bytes | None = None, format: str | None = None
    ) -> None:
        if (path is None) == (data is None):
            raise ValueError("Give exactly one of path and data")
        self.path = Path(path) if path else None
        self._format = format
        mime = _mime("image", self.path, format, _IMAGE_TYPES, "image/png")
        super().__init__(data, path=self.path, mime_type=mime)

    def to_data_uri(self) -> str:
        """This image as a ``data:<mime>;base64,...`` URI."""
        block = self.to_block()
        return f"data:{block['mimeType']};base64,{block['data']}"

    def to_image_content(self) -> Any:
        """The ``ImageContent`` model of this image."""
        from mcpkit.types import ImageContent

        return ImageContent.from_wire(self.to_block())


class Audio(_NativeAudio):
    """Audio for a tool result: exactly one of ``path`` and ``data``."""

    def __init__(
        self, path: str | Path | None = None, data: bytes | None = None, format: str | None = None
    ) -> None:
        if (path is None) == (data is None):
            raise ValueError("Give exactly one of path and data")
        self.path = Path(path) if path else None
        self._format = format
        mime = _mime("audio", self.path, format, _AUDIO_TYPES, "audio/wav")
        super().__init__(data, path=self.path, mime_type=mime)

    def to_audio_content(self) -> Any:
        """The ``AudioContent`` model of this audio."""
        from mcpkit.types import AudioContent

        return AudioContent.from_wire(self.to_block())
