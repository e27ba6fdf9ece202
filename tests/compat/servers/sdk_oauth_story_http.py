"""``sdk_oauth_story_http.py EXAMPLES_DIR PORT BASE_URL``: the official ``stories/oauth``
app (its ``server.py``'s ``build_app()``, unchanged) on mcp 2.x, its documents naming
BASE_URL (the story's ``http://127.0.0.1:8000``, or another origin a snippet names), served
on 127.0.0.1:PORT, consenting at once (``OAUTH_DEMO_AUTO_CONSENT=1``). It prints ``ready``
and then every request it receives as a JSON line: method, path, query, the headers an
authorization server reads, a form or JSON body (the MCP method for ``/mcp``)."""

import importlib
import os
import sys

sys.path.insert(0, sys.argv[1])
os.environ["OAUTH_DEMO_AUTO_CONSENT"] = "1"

import uvicorn
from _recording import recording

shared = importlib.import_module("stories._shared.auth")
BASE = sys.argv[3]
shared.BASE_URL = BASE  # read when build_app() builds its settings
shared.MCP_URL = f"{BASE}/mcp"
build_app = importlib.import_module("stories.oauth.server").build_app


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
