"""A safe icon fetcher for clients that render server, tool, resource and prompt icons.

Icon bytes come from an untrusted server. :class:`IconFetcher` follows the spec's security
rules:

- only ``https:`` and ``data:`` URIs (never ``http:``, ``file:``, ``javascript:``, ...);
- when the server is remote, an https icon must have the server's origin; redirects are
  followed only within that origin (never to another host, port or scheme);
- no cookies, ``Authorization`` headers or other credentials are sent (a fresh cookie jar,
  no ``.netrc``, no user-info in URLs, no proxy settings from the environment);
- size limits on the download and on the decoded image's width and height;
- the content type is sniffed from magic bytes and must be on the allow-list (PNG, JPEG,
  optionally WebP and GIF); a declared type that disagrees is rejected; SVG is refused
  (it can carry scripts).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import struct
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcpkit.errors import FetchRefused, McpkitError

if TYPE_CHECKING:
    from mcpkit.fetch import FetchPolicy
    from mcpkit.types import Icon

__all__ = [
    "DEFAULT_ALLOWED_TYPES",
    "FetchedIcon",
    "IconError",
    "IconFetcher",
    "IconRefused",
    "image_size",
    "sniff_image_type",
]

DEFAULT_ALLOWED_TYPES: frozenset[str] = frozenset({"image/png", "image/jpeg"})


class IconError(McpkitError, ValueError):
    """The icon was refused (unsafe URI, origin, redirect, size, type) or could not be read."""


class IconRefused(IconError, FetchRefused):
    """The fetch policy refused the icon's URL or its answer (``url`` and ``rule`` say
    which and why)."""

    def __init__(self, message: str, *, url: str, rule: str) -> None:
        IconError.__init__(self, message)
        self.url = url
        self.rule = rule


@dataclass(frozen=True)
class FetchedIcon:
    """A fetched, checked icon."""

    data: bytes
    mime_type: str
    width: int
    height: int
    source: str


def sniff_image_type(data: bytes) -> str | None:
    """The image MIME type from magic bytes (None when not a known raster format)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    head = data[:512].lstrip().lower()
    if head.startswith(b"<?xml") or head.startswith(b"<svg") or b"<svg" in head:
        return "image/svg+xml"
    return None


def _png_size(data: bytes) -> tuple[int, int]:
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise IconError("truncated or malformed PNG")
    w, h = struct.unpack(">II", data[16:24])
    return int(w), int(h)


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            raise IconError("malformed JPEG")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if length < 2:
            raise IconError("malformed JPEG")
        if marker in _SOF:
            if i + 9 > n:
                break
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(w), int(h)
        i += 2 + length
    raise IconError("truncated or malformed JPEG (no frame header)")


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8 " and len(data) >= 30:
        w, h = struct.unpack("<HH", data[26:30])
        return int(w) & 0x3FFF, int(h) & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        b = data[21:25]
        w = 1 + (((b[1] & 0x3F) << 8) | b[0])
        h = 1 + (((b[3] & 0x0F) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
        return w, h
    raise IconError("truncated or malformed WebP")


def _gif_size(data: bytes) -> tuple[int, int]:
    if len(data) < 10:
        raise IconError("truncated GIF")
    w, h = struct.unpack("<HH", data[6:10])
    return int(w), int(h)


def image_size(data: bytes, mime_type: str) -> tuple[int, int]:
    """(width, height) read from the image header; IconError when unreadable."""
    if mime_type == "image/png":
        return _png_size(data)
    if mime_type == "image/jpeg":
        return _jpeg_size(data)
    if mime_type == "image/webp":
        return _webp_size(data)
    if mime_type == "image/gif":
        return _gif_size(data)
    raise IconError(f"cannot read the size of {mime_type}")


def _origin(url: str) -> tuple[str, str, int]:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError as exc:
        raise IconError(f"invalid port in {url!r}") from exc
    if port is None:
        port = 443 if scheme == "https" else 80 if scheme == "http" else 0
    return scheme, (parts.hostname or "").lower(), port


class IconFetcher:
    """Fetches and checks icons; see the module docstring. Reusable and stateless.

    ``max_bytes``: largest download; ``max_dimension``: largest width/height in pixels;
    ``allowed_types``: sniffed types accepted (PNG and JPEG by default; add ``"image/webp"``
    or ``"image/gif"`` if you can render them safely); ``allow_private_hosts``: allow https
    icons on loopback, private and link-local addresses when the server is local (off by
    default); ``fetch_policy``: the :class:`~mcpkit.fetch.FetchPolicy` every download follows
    (by default one with ``timeout`` as the deadline for an icon and its redirects: the host
    is resolved and every address checked, cloud metadata addresses are never fetched);
    ``transport``: an ``httpx`` transport (tests use a mock one).
    """

    def __init__(
        self,
        *,
        max_bytes: int = 512 * 1024,
        max_dimension: int = 1024,
        allowed_types: frozenset[str] | set[str] = DEFAULT_ALLOWED_TYPES,
        max_redirects: int = 3,
        timeout: float = 10.0,
        allow_private_hosts: bool = False,
        transport: Any = None,
        fetch_policy: FetchPolicy | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.max_dimension = max_dimension
        self.allowed_types = frozenset(allowed_types) - {"image/svg+xml"}
        self.max_redirects = max_redirects
        self.timeout = timeout
        self.allow_private_hosts = allow_private_hosts
        self._transport = transport
        from mcpkit.fetch import FetchPolicy

        base = fetch_policy or FetchPolicy(deadline=timeout)
        #: The fetch policy of every download (its size cap is ``max_bytes``).
        self.policy = dataclasses.replace(
            base, max_bytes=max_bytes, allow_private=base.allow_private or allow_private_hosts
        )

    async def fetch(self, icon: Icon | str, *, server_url: str | None = None) -> FetchedIcon:
        """Fetch ``icon`` (an :class:`~mcpkit.types.Icon` or a URI string).

        ``server_url``: the server's URL when it is remote (icons must share its origin).
        Raises :class:`IconError` when the icon is refused.
        """
        from mcpkit.types import Icon

        src = icon if isinstance(icon, str) else icon.src if isinstance(icon, Icon) else None
        declared = icon.mime_type if isinstance(icon, Icon) else None
        if not isinstance(src, str) or not src:
            raise IconError("icon has no src")
        scheme = urllib.parse.urlsplit(src.strip()).scheme.lower()
        if scheme == "data":
            data, media = self._decode_data_uri(src.strip())
            return self._check(data, declared or media, None, src)
        if scheme != "https":
            raise IconError(
                f"icon URI scheme {scheme or '(none)'!r} refused: only https: and data:"
            )
        self._check_url(src, server_url)
        data, content_type = await self._download(src, server_url)
        return self._check(data, declared, content_type, src)

    # -- data: ----------------------------------------------------------------------------------

    def _decode_data_uri(self, uri: str) -> tuple[bytes, str | None]:
        header, sep, payload = uri[5:].partition(",")
        if not sep:
            raise IconError("malformed data: URI")
        params = header.split(";")
        media = params[0].strip().lower() or None
        is_b64 = any(p.strip().lower() == "base64" for p in params[1:])
        # Refuse before decoding anything big (base64 inflates by 4/3).
        if (is_b64 and len(payload) > (self.max_bytes * 4) // 3 + 4) or (
            not is_b64 and len(payload) > self.max_bytes * 3
        ):
            raise IconError(f"icon larger than {self.max_bytes} bytes")
        if is_b64:
            try:
                data = base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise IconError(f"invalid base64 in data: URI: {exc}") from None
        else:
            data = urllib.parse.unquote_to_bytes(payload)
        if len(data) > self.max_bytes:
            raise IconError(f"icon larger than {self.max_bytes} bytes")
        return data, media

    # -- https: ---------------------------------------------------------------------------------

    def _check_url(self, url: str, server_url: str | None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme.lower() != "https":
            raise IconError(f"redirect or URI with scheme {parts.scheme!r} refused")
        if parts.username is not None or parts.password is not None:
            raise IconError("icon URI with credentials (user-info) refused")
        host = (parts.hostname or "").lower()
        if not host:
            raise IconError("icon URI without a host")
        if server_url is not None and _origin(url) != _origin(server_url):
            raise IconError(
                f"icon origin {_origin(url)} differs from the server's {_origin(server_url)}"
            )
        # addresses: the fetch policy, which resolves the host and checks every address

    async def _download(self, url: str, server_url: str | None) -> tuple[bytes, str | None]:
        import httpx

        from mcpkit.errors import FetchRefused
        from mcpkit.fetch import Fetcher

        start_origin = _origin(url)
        from mcpkit.fetch.pinning import pinned_transport

        transport = self._transport or pinned_transport(self.policy, server_url or "")
        async with httpx.AsyncClient(
            transport=transport,
            follow_redirects=False,
            trust_env=False,
            timeout=self.timeout,
            headers={"Accept": "image/png, image/jpeg, image/webp;q=0.8, image/gif;q=0.5"},
        ) as http:
            # every hop under the fetch policy, all of them within one deadline
            fetcher = Fetcher(http, self.policy, server_url or "")
            for _ in range(self.max_redirects + 1):
                http.cookies.clear()  # never send cookies, not even ones set by a redirect
                try:
                    response = await fetcher.request("GET", url, what="icon")
                except FetchRefused as exc:
                    raise IconRefused(str(exc), url=exc.url, rule=exc.rule) from None
                except httpx.HTTPError as exc:
                    raise IconError(f"icon fetch failed: {exc}") from None
                if response.is_redirect:
                    location = response.headers.get("location", "")
                    nxt = urllib.parse.urljoin(url, location)
                    if _origin(nxt) != start_origin:
                        raise IconError(f"redirect to another origin or scheme refused: {nxt!r}")
                    self._check_url(nxt, server_url)
                    url = nxt
                    continue
                if response.status_code != 200:
                    raise IconError(f"icon fetch failed: HTTP {response.status_code}")
                return response.content, response.headers.get("content-type")
            raise IconError("too many redirects")

    # -- content --------------------------------------------------------------------------------

    def _check(
        self, data: bytes, declared: str | None, content_type: str | None, src: str
    ) -> FetchedIcon:
        sniffed = sniff_image_type(data)
        if sniffed is None:
            raise IconError("icon content is not a recognised image")
        if sniffed == "image/svg+xml":
            raise IconError("SVG icons are refused (they may carry scripts)")
        if sniffed not in self.allowed_types:
            raise IconError(f"icon type {sniffed} is not allowed")
        for claimed in (declared, content_type):
            if claimed is None:
                continue
            base = claimed.split(";")[0].strip().lower()
            if base == "image/jpg":
                base = "image/jpeg"
            if base and base != "application/octet-stream" and base != sniffed:
                raise IconError(f"declared type {base} does not match the content ({sniffed})")
        width, height = image_size(data, sniffed)
        if width <= 0 or height <= 0:
            raise IconError("icon has no pixels")
        if width > self.max_dimension or height > self.max_dimension:
            raise IconError(
                f"icon is {width}x{height}, larger than {self.max_dimension}px on a side"
            )
        return FetchedIcon(data, sniffed, width, height, src)
