"""``sdk_legacy_auth_http.py EXAMPLES_DIR PORT``: the official ``simple-auth`` example's
legacy server (``mcp_simple_auth.legacy_as_server``, unchanged: an ``MCPServer`` that is its
own authorization server, as the 2025-03-26 revision described it, with no protected
resource metadata) built by its ``create_simple_mcp_server`` for ``http://127.0.0.1:PORT``
and served there on mcp 2.x. It prints ``ready`` and then every request it receives as a
JSON line (``_recording.py``)."""

import sys

sys.path.insert(0, sys.argv[1])

import uvicorn
from _recording import recording
from mcp_simple_auth.legacy_as_server import ServerSettings, create_simple_mcp_server
from mcp_simple_auth.simple_auth_provider import SimpleAuthSettings
from pydantic import AnyHttpUrl

PORT = int(sys.argv[2])
URL = f"http://127.0.0.1:{PORT}"


async def main() -> None:
    settings = ServerSettings(
        host="127.0.0.1", port=PORT, server_url=AnyHttpUrl(URL), auth_callback_path=f"{URL}/login"
    )
    app = create_simple_mcp_server(settings, SimpleAuthSettings()).streamable_http_app()
    config = uvicorn.Config(recording(app), host="127.0.0.1", port=PORT, log_level="error")
    server = uvicorn.Server(config)
    print("ready", flush=True)
    await server.serve()


if __name__ == "__main__":
    import asyncio

    asyncio.run(main())
