"""The safe icon fetcher, with hostile inputs (httpx mock transport, no network)."""

from __future__ import annotations

import base64
import gzip
import struct
import zlib
from typing import Any

import httpx
import pytest

from mcpkit.client.icons import IconError, IconFetcher, image_size, sniff_image_type
from mcpkit.types import Icon


def png(width: int = 16, height: int = 16) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def jpeg(width: int = 32, height: int = 24) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def webp(width: int = 20, height: int = 10) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00"
    body += (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


SVG = (
    b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
)
SERVER = "https://mcp.example.com/mcp"


def R(status: int, **kwargs: Any) -> Any:
    """A route answering each request with a fresh response."""
    return lambda request: httpx.Response(status, **kwargs)


class Recorder:
    def __init__(self, routes: dict[str, Any]) -> None:
        self.routes = routes
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        route = self.routes.get(str(request.url))
        if route is None:
            return httpx.Response(404)
        return route(request)  # type: ignore[no-any-return]


async def _stream(data: bytes) -> Any:
    yield data


def fetcher(routes: dict[str, Any], **kwargs: Any) -> tuple[IconFetcher, Recorder]:
    rec = Recorder(routes)
    return IconFetcher(transport=httpx.MockTransport(rec), **kwargs), rec


def test_sniffing_and_sizes() -> None:
    assert sniff_image_type(png()) == "image/png"
    assert sniff_image_type(jpeg()) == "image/jpeg"
    assert sniff_image_type(webp()) == "image/webp"
    assert sniff_image_type(SVG) == "image/svg+xml"
    assert sniff_image_type(b"  <svg onload='x'>") == "image/svg+xml"
    assert sniff_image_type(b"hello") is None
    assert image_size(png(3, 4), "image/png") == (3, 4)
    assert image_size(jpeg(5, 6), "image/jpeg") == (5, 6)
    assert image_size(webp(7, 8), "image/webp") == (7, 8)
    with pytest.raises(IconError):
        image_size(png()[:20], "image/png")
    with pytest.raises(IconError):
        image_size(b"\xff\xd8\xff\xe0\x00", "image/jpeg")


async def test_same_origin_https_icon() -> None:
    f, rec = fetcher(
        {
            "https://mcp.example.com/icon.png": R(
                200, content=png(), headers={"content-type": "image/png"}
            )
        }
    )
    icon = Icon(src="https://mcp.example.com/icon.png", mime_type="image/png")
    got = await f.fetch(icon, server_url=SERVER)
    assert (got.mime_type, got.width, got.height) == ("image/png", 16, 16)
    sent = rec.requests[0]
    assert "cookie" not in sent.headers and "authorization" not in sent.headers


@pytest.mark.parametrize(
    "src",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "http://mcp.example.com/icon.png",
        "ftp://mcp.example.com/icon.png",
        "ws://mcp.example.com/icon",
        "vscode://extension/x",
        "//mcp.example.com/icon.png",
        "icon.png",
        "",
    ],
)
async def test_unsafe_schemes_refused(src: str) -> None:
    f, rec = fetcher({})
    with pytest.raises(IconError):
        await f.fetch(src, server_url=SERVER)
    assert rec.requests == []


@pytest.mark.parametrize(
    "src",
    [
        "https://evil.example.net/icon.png",
        "https://mcp.example.com:8443/icon.png",
        "https://sub.mcp.example.com/icon.png",
        "https://user:pw@mcp.example.com/icon.png",
    ],
)
async def test_other_origins_and_credentials_refused(src: str) -> None:
    f, rec = fetcher({src: R(200, content=png())})
    with pytest.raises(IconError):
        await f.fetch(src, server_url=SERVER)
    assert rec.requests == []


async def test_redirects_only_within_the_origin_and_without_cookies() -> None:
    base = "https://mcp.example.com"
    f, rec = fetcher(
        {
            f"{base}/a.png": R(
                302, headers={"location": "/b.png", "set-cookie": "sid=secret; Path=/"}
            ),
            f"{base}/b.png": R(200, content=png()),
            f"{base}/off.png": R(302, headers={"location": "https://evil.example.net/x.png"}),
            f"{base}/down.png": R(302, headers={"location": "http://mcp.example.com/b.png"}),
            f"{base}/loop.png": R(302, headers={"location": "/loop.png"}),
        }
    )
    got = await f.fetch(f"{base}/a.png", server_url=SERVER)
    assert got.width == 16
    assert all("cookie" not in r.headers for r in rec.requests)
    for src in ("off.png", "down.png"):
        with pytest.raises(IconError, match="redirect"):
            await f.fetch(f"{base}/{src}", server_url=SERVER)
    with pytest.raises(IconError, match="too many redirects"):
        await f.fetch(f"{base}/loop.png", server_url=SERVER)
    assert not any(r.url.host == "evil.example.net" for r in rec.requests)


async def test_size_limits() -> None:
    base = "https://mcp.example.com"
    big = png() + b"\x00" * 5000

    def stream_forever(request: httpx.Request) -> httpx.Response:
        async def chunks() -> Any:
            yield png()
            while True:
                yield b"\x00" * 1024

        return httpx.Response(200, content=chunks())

    f, _ = fetcher(
        {
            f"{base}/declared.png": R(200, content=big, headers={"content-length": "5057"}),
            f"{base}/endless.png": stream_forever,
            f"{base}/huge.png": R(200, content=png(100_000, 100_000)),
            f"{base}/zero.png": R(200, content=png(0, 5)),
        },
        max_bytes=4096,
    )
    for name, why in (
        ("declared.png", "larger than"),
        ("endless.png", "larger than"),
        ("huge.png", "100000x100000"),
        ("zero.png", "no pixels"),
    ):
        with pytest.raises(IconError, match=why):
            await f.fetch(f"{base}/{name}", server_url=SERVER)


async def test_content_checks() -> None:
    base = "https://mcp.example.com"
    f, _ = fetcher(
        {
            f"{base}/svg.png": R(200, content=SVG, headers={"content-type": "image/png"}),
            f"{base}/html.png": R(200, content=b"<html>hi</html>"),
            f"{base}/jpeg.png": R(200, content=jpeg()),
            f"{base}/ct.png": R(200, content=png(), headers={"content-type": "image/gif"}),
            f"{base}/webp": R(200, content=webp()),
            f"{base}/gz.png": lambda request: httpx.Response(
                200, content=_stream(gzip.compress(png())), headers={"content-encoding": "gzip"}
            ),
            f"{base}/500.png": R(500),
        }
    )
    with pytest.raises(IconError, match="SVG"):
        await f.fetch(f"{base}/svg.png", server_url=SERVER)
    with pytest.raises(IconError, match="not a recognised image"):
        await f.fetch(f"{base}/html.png", server_url=SERVER)
    with pytest.raises(IconError, match="does not match"):
        await f.fetch(Icon(src=f"{base}/jpeg.png", mime_type="image/png"), server_url=SERVER)
    assert (await f.fetch(f"{base}/jpeg.png", server_url=SERVER)).mime_type == "image/jpeg"
    with pytest.raises(IconError, match="does not match"):
        await f.fetch(f"{base}/ct.png", server_url=SERVER)
    with pytest.raises(IconError, match="not allowed"):
        await f.fetch(f"{base}/webp", server_url=SERVER)
    with pytest.raises(IconError, match="compressed"):
        await f.fetch(f"{base}/gz.png", server_url=SERVER)
    with pytest.raises(IconError, match="HTTP 500"):
        await f.fetch(f"{base}/500.png", server_url=SERVER)
    w, _ = fetcher(
        {f"{base}/webp": R(200, content=webp())},
        allowed_types={"image/webp", "image/svg+xml"},
    )
    assert (await w.fetch(f"{base}/webp", server_url=SERVER)).width == 20
    assert "image/svg+xml" not in w.allowed_types  # SVG can never be allowed


async def test_data_uris() -> None:
    f, _ = fetcher({}, max_bytes=4096)
    ok = "data:image/png;base64," + base64.b64encode(png()).decode()
    assert (await f.fetch(ok)).mime_type == "image/png"
    assert (await f.fetch(ok, server_url=SERVER)).width == 16
    svg = "data:image/svg+xml;base64," + base64.b64encode(SVG).decode()
    with pytest.raises(IconError, match="SVG"):
        await f.fetch(svg)
    with pytest.raises(IconError, match="SVG"):
        await f.fetch("data:image/png," + SVG.decode())
    liar = "data:image/jpeg;base64," + base64.b64encode(png()).decode()
    with pytest.raises(IconError, match="does not match"):
        await f.fetch(liar)
    with pytest.raises(IconError, match="larger than"):
        await f.fetch("data:image/png;base64," + "A" * 10_000_000)
    with pytest.raises(IconError, match="base64"):
        await f.fetch("data:image/png;base64,!!!notbase64")
    with pytest.raises(IconError, match="malformed"):
        await f.fetch("data:image/png;base64")


async def public_cdn(host: str) -> list[str]:
    """A resolver for the made-up CDN (a public address; no DNS in tests)."""
    known = {"cdn.example.org": ["93.184.215.14"], "inside.example.org": ["10.0.0.7"]}
    return known.get(host) or ["127.0.0.1"]  # localhost


async def test_local_server_icons_and_private_hosts() -> None:
    from mcpkit.fetch import FetchPolicy

    policy = FetchPolicy(resolver=public_cdn)
    f, rec = fetcher({"https://cdn.example.org/i.png": R(200, content=png())}, fetch_policy=policy)
    assert (await f.fetch("https://cdn.example.org/i.png")).width == 16  # local server: any https
    for src in (
        "https://127.0.0.1/i.png",
        "https://10.0.0.5/i.png",
        "https://[::1]/i.png",
        "https://localhost/i.png",
        "https://inside.example.org/i.png",  # a name for a private address
    ):
        with pytest.raises(IconError):
            await f.fetch(src)
    assert {r.url.host for r in rec.requests} == {"cdn.example.org"}
    g, _ = fetcher({"https://127.0.0.1/i.png": R(200, content=png())}, allow_private_hosts=True)
    assert (await g.fetch("https://127.0.0.1/i.png")).width == 16


@pytest.mark.parametrize("host", ["127.1", "2130706433", "0x7f000001", "169.254.169.254"])
async def test_loopback_spelled_otherwise_and_metadata_are_refused(host: str) -> None:
    """Numeric spellings the system resolver reads as 127.0.0.1 are resolved and refused;
    a metadata address is refused even with allow_private_hosts."""
    src = f"https://{host}/i.png"
    f, rec = fetcher({src: R(200, content=png())}, allow_private_hosts=host.startswith("169"))
    with pytest.raises(IconError) as info:
        await f.fetch(src)
    assert rec.requests == []
    from mcpkit.errors import FetchRefused

    assert isinstance(info.value, FetchRefused) and info.value.rule == "address"
