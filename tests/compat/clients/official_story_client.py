"""``official_story_client.py EXAMPLES_DIR PORT STORY``: an official story's ``client.py``,
unchanged, run as ``python -m stories.STORY.client --http http://127.0.0.1:8000/mcp`` (the
origin its server's documents name); every HTTP request of this process for that origin is
sent to 127.0.0.1:PORT instead (the Host header kept)."""

import runpy
import sys
from typing import Any

sys.path.insert(0, sys.argv[1])
PORT = int(sys.argv[2])
STORY = sys.argv[3]


def _redirect(cls: Any) -> None:
    original = cls.handle_async_request

    async def handle(self: Any, request: Any) -> Any:
        if request.url.host == "127.0.0.1" and request.url.port == 8000:
            request.url = request.url.copy_with(port=PORT)
        return await original(self, request)

    cls.handle_async_request = handle


for name in ("httpx", "httpx2"):
    try:
        _redirect(__import__(name).AsyncHTTPTransport)
    except ImportError:
        pass

sys.argv = [f"stories/{STORY}/client.py", "--http", "http://127.0.0.1:8000/mcp"]
runpy.run_module(f"stories.{STORY}.client", run_name="__main__", alter_sys=True)
