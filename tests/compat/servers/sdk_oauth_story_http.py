"""``sdk_oauth_story_http.py EXAMPLES_DIR PORT BASE_URL``: the official ``stories/oauth``
app (its ``server.py``'s ``build_app()``, unchanged) on mcp 2.x, its documents naming
BASE_URL (the story's ``http://127.0.0.1:8000``, or another origin a snippet names), served
on 127.0.0.1:PORT, consenting at once (``OAUTH_DEMO_AUTO_CONSENT=1``). It prints ``ready``
and then every request it receives as a JSON line: method, path, query, the headers an
authorization server reads, a form or JSON body (the MCP method for ``/mcp``)."""

import importlib
import json
import os
import sys
from typing import Any
from urllib.parse import parse_qsl

sys.path.insert(0, sys.argv[1])
os.environ["OAUTH_DEMO_AUTO_CONSENT"] = "1"

import uvicorn

shared = importlib.import_module("stories._shared.auth")
BASE = sys.argv[3]
shared.BASE_URL = BASE  # read when build_app() builds its settings
shared.MCP_URL = f"{BASE}/mcp"
build_app = importlib.import_module("stories.oauth.server").build_app

HEADERS = ("authorization", "content-type", "host", "mcp-protocol-version")


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
            "query": dict(parse_qsl(scope["query_string"].decode(), keep_blank_values=True)),
            "headers": {k: headers[k] for k in HEADERS if k in headers},
        }
        if headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            entry["form"] = dict(parse_qsl(body.decode()))
        elif scope["path"] == "/mcp" and body:
            entry["mcp"] = json.loads(body).get("method")
        elif body:
            entry["json"] = json.loads(body)
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
