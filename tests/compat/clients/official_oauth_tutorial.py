"""``official_oauth_tutorial.py FILE PORT``: the official ``docs_src/oauth_clients/tutorial001.py``
(FILE, unchanged) run as its text says: its ``main()``, with a user at the keyboard. Its
requests for ``localhost:8001`` (the server it names) go to 127.0.0.1:PORT instead (the Host
header kept). The user reads the ``Visit: URL`` it prints, opens the URL (the authorization
server consents at once and redirects) and pastes the URL it was redirected to."""

import io
import runpy
import sys
from typing import Any

import anyio

try:
    import httpx
except ImportError:  # the SDK's venv has httpx2 alone
    import httpx2 as httpx  # type: ignore[no-redef]

FILE = sys.argv[1]
PORT = int(sys.argv[2])


def _redirect(cls: Any) -> None:
    original = cls.handle_async_request

    async def handle(self: Any, request: Any) -> Any:
        if request.url.host == "localhost" and request.url.port == 8001:
            request.url = request.url.copy_with(host="127.0.0.1", port=PORT)
        return await original(self, request)

    cls.handle_async_request = handle


for name in ("httpx", "httpx2"):
    try:
        _redirect(__import__(name).AsyncHTTPTransport)
    except ImportError:
        pass


class Screen(io.TextIOBase):
    """stdout, remembering the last URL the program asked the user to visit."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.visit: str | None = None

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.startswith("Visit: "):
                self.visit = line.removeprefix("Visit: ")
        return int(self.out.write(text))

    def flush(self) -> None:
        self.out.flush()


class User(io.TextIOBase):
    """stdin: the user, who opens the URL shown and pastes where it redirected to."""

    def readline(self, size: int | None = -1) -> str:
        assert screen.visit is not None, "nothing to visit"
        url = httpx.URL(screen.visit)
        answer = httpx.get(
            url.copy_with(host="127.0.0.1", port=PORT),
            headers={"Host": f"{url.host}:{url.port}"},
            follow_redirects=False,
        )
        assert answer.status_code == 302, answer.text
        return answer.headers["location"] + "\n"


screen = Screen(sys.stdout)
sys.stdout = screen
sys.stdin = User()
anyio.run(runpy.run_path(FILE)["main"])
