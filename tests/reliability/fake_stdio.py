"""A scripted stdio MCP server that misbehaves on ``tools/call`` as its argument says:
``die`` (exits mid-call), ``garbage`` (writes junk, then answers), ``garbage-only``,
``wrong-id`` (answers with another id), ``close-stdout`` (closes stdout, lives on),
``silent`` (never answers), ``error`` (answers a JSON-RPC error), ``huge-line`` (a line
over the client's limit)."""

from __future__ import annotations

import json
import os
import sys
import time

MODE = sys.argv[1]


def send(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if rid is None:
            continue  # notifications
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "protocolVersion": msg["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "fake", "version": "1"},
                    },
                }
            )
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method == "tools/list":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]},
                }
            )
        elif method == "tools/call":
            ok = {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {"content": [{"type": "text", "text": "ok"}]},
            }
            if MODE == "die":
                os._exit(3)
            elif MODE in ("garbage", "garbage-only"):
                sys.stdout.write('not json\n{"jsonrpc":"2.0"}\n[1,2\n\x00\xff\n{"id":' + "\n")
                sys.stdout.flush()
                if MODE == "garbage":
                    send(ok)
            elif MODE == "wrong-id":
                send({**ok, "id": f"other-{rid}"})
                send({**ok, "id": 10_000 + rid if isinstance(rid, int) else 0})
            elif MODE == "close-stdout":
                sys.stdout.close()
                os.close(1)
                time.sleep(60)
            elif MODE == "silent":
                pass
            elif MODE == "error":
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": rid,
                        "error": {"code": -32603, "message": "the server broke"},
                    }
                )
            elif MODE == "huge-line":
                send({**ok, "result": {"content": [{"type": "text", "text": "x" * 5_000_000}]}})
        else:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {"code": -32601, "message": f"Method not found: {method}"},
                }
            )


if __name__ == "__main__":
    main()
