"""An ASGI wrapper printing every HTTP request an app receives as a JSON line: method, path,
query, the headers an authorization server reads, a form or JSON body (the MCP method for
``/mcp``). Imported by the servers beside it (their folder is first on the import path)."""

import json
from typing import Any
from urllib.parse import parse_qsl

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
