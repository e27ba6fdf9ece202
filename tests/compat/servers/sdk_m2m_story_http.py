"""``sdk_m2m_story_http.py EXAMPLES_DIR PORT [STORY]``: an official story's app (STORY,
``oauth_client_credentials`` by default: its ``server.py``'s ``build_app()``, unchanged) served
on 127.0.0.1:PORT, printing ``ready`` and then every request it receives as a JSON line
(method, path, the headers an authorization server reads, the form of a token request)."""

import json
import sys
from typing import Any
from urllib.parse import parse_qsl

sys.path.insert(0, sys.argv[1])

import importlib

import uvicorn

STORY = sys.argv[3] if len(sys.argv) > 3 else "oauth_client_credentials"
build_app = importlib.import_module(f"stories.{STORY}.server").build_app

HEADERS = ("authorization", "content-type", "host")


def recording(app: Any) -> Any:
    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        entry: dict[str, Any] = {
            "method": scope["method"],
            "path": scope["path"],
            "headers": {k: headers[k] for k in HEADERS if k in headers},
        }
        if scope["path"].startswith("/.well-known/"):  # the revision a discovery names
            entry["headers"]["mcp-protocol-version"] = headers.get("mcp-protocol-version")
        if headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            entry["form"] = dict(parse_qsl(body.decode()))
        elif scope["path"] == "/mcp" and body:
            entry["mcp"] = json.loads(body).get("method")
        print(json.dumps(entry), flush=True)
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return asgi


async def main() -> None:
    config = uvicorn.Config(
        recording(build_app()), host="127.0.0.1", port=int(sys.argv[2]), log_level="error"
    )
    server = uvicorn.Server(config)
    print("ready", flush=True)
    await server.serve()


if __name__ == "__main__":
    import asyncio

    asyncio.run(main())
