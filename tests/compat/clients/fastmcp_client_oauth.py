"""fastmcp's Client with OAuth against a server that is its own authorization server
(``servers/fastmcp_oauth_memory.py multi``, at the URL given): ``auth="oauth"``,
``OAuth(scopes=..., client_name=...)`` and ``BearerAuth``. The browser is replaced by a
function that follows the authorization URL's redirects (the server approves at once) to
the client's loopback callback server, from a thread as a browser would."""

import asyncio
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import webbrowser
from urllib.parse import parse_qs, urlsplit

from fastmcp import Client
from fastmcp.client.auth import BearerAuth, OAuth

URL = sys.argv[1]
opened: list[str] = []


class Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object) -> None:
        return None


def follow(url: str) -> None:
    """The authorization endpoint's redirect, then the callback (retried until the
    client's callback server listens, as a user's browser arrives after it starts)."""
    try:
        urllib.request.build_opener(Stay).open(url, timeout=30)
        raise SystemExit("the authorization endpoint did not redirect")
    except urllib.error.HTTPError as redirect:
        callback = redirect.headers["location"]
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(callback, timeout=30).read()
            return
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def browser(url: str, *args: object, **kwargs: object) -> bool:
    opened.append(url)
    threading.Thread(target=follow, args=(url,)).start()
    return True


webbrowser.open = browser


def authorization_request() -> dict:
    """What the client asked the authorization endpoint for (minted values left out)."""
    query = {k: v[0] for k, v in parse_qs(urlsplit(opened[-1]).query).items()}
    callback = urlsplit(query.pop("redirect_uri"))
    query["redirect_uri"] = f"{callback.scheme}://{callback.hostname}:<port>{callback.path}"
    for minted in ("client_id", "state", "code_challenge"):
        query[minted] = f"<{len(query.pop(minted))} chars>" if minted == "state" else "<minted>"
    return dict(sorted(query.items()))


def who(result) -> dict:
    data = dict(result.data)
    source, client_id, issuer, subject = json.loads(data.pop("client_id"))
    data["client"] = [source[:11], len(client_id), issuer, subject]
    return data


async def main() -> None:
    async with Client(URL, auth="oauth") as client:
        print("tools", [tool.name for tool in await client.list_tools()])
        print("whoami", who(await client.call_tool("whoami", {})))
        print("add", (await client.call_tool("add", {"a": 2, "b": 3})).data)
    print("browser opened", len(opened))
    print("asked", authorization_request())
    auth = OAuth(scopes=["read", "write"], client_name="probe")
    async with Client(URL, auth=auth) as client:
        print("whoami", who(await client.call_tool("whoami", {})))
    print("browser opened", len(opened))
    print("asked", authorization_request())
    async with Client(URL, auth=BearerAuth("tok-ci")) as client:
        print("bearer whoami", who(await client.call_tool("whoami", {})))
    print("browser opened", len(opened))


asyncio.run(main())
