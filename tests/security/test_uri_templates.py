"""Resource-template matching takes linear time, and long URIs are refused up front.

The reference below is how templates used to be matched (a backtracking regex): the
linear matcher must give exactly its answers, on the tricky templates and on random ones.
That regex took quadratic time or worse on templates like ``{a}.{b}`` and a long URI that
almost fits (one 20 KB URI stalled a server for seconds): a 1 MB such URI must now be
matched well within a deadline the regex would overrun by hours.
"""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Server
from mcpkit.server.resources import DEFAULT_MAX_URI_LENGTH
from mcpkit.server.uri_template import URITemplate, _Expr
from mcpkit.transports.http import running
from tests.conftest import server_env
from tests.http import raw

TRICKY = [
    "{a}.{b}",
    "{a}-{b}",
    "{+path}.{ext}",
    "{+path}{.ext}",
    "{a}{b}{c}",
    "x://{a}.{b}.{c}/{d}",
    "file:///{+dir}/{name}.{ext}",
    "{/segs*}{.fmt}{?q*}",
    "{;a,b}{;c}",
    "{#frag}{+rest}",
]


def _reference(template: URITemplate) -> re.Pattern[str]:
    """The regex templates were matched with before (``\\Z``: no trailing-newline quirk)."""
    regex: list[str] = []
    for index, part in enumerate(template._parts):
        if isinstance(part, str):
            regex.append(re.escape(part))
            continue
        op = part.op
        single = len(part.vars) == 1 and not part.vars[0].explode
        if op.first == "" and op.reserved:
            body = r"[^?#]*"
        elif op.first == "#":
            body = r".*"
        elif op.first == "":
            body = r"[^/?#&]*"
        elif op.first in "?&":
            body = r"[^#]*"
        elif op.first == "/":
            body = r"[^/?#]*" if single else r"[^/?#]*(?:/[^/?#]*)*"
        else:
            body = r"[^/?#]*"
        first = re.escape(op.first)
        regex.append(f"(?:{first}(?P<e{index}>{body}))?" if first else f"(?P<e{index}>{body})")
    return re.compile("^" + "".join(regex) + r"\Z", re.DOTALL)


def _reference_match(template: URITemplate, uri: str) -> dict[str, Any] | None:
    m = _reference(template).match(uri)
    if m is None:
        return None
    out: dict[str, Any] = {}
    for index, part in enumerate(template._parts):
        text = m.group(f"e{index}") if isinstance(part, _Expr) else None
        if text is not None and not template._assign(part, text, out):  # type: ignore[arg-type]
            return None
    return out


def test_tricky_templates_match_as_before() -> None:
    assert URITemplate("{a}.{b}").match("x.y.z") == {"a": "x.y", "b": "z"}
    assert URITemplate("{a}-{b}").match("2026-12-06") == {"a": "2026-12", "b": "06"}
    assert URITemplate("{+path}.{ext}").match("dir/file.tar.gz") == {
        "path": "dir/file.tar",
        "ext": "gz",
    }
    assert URITemplate("{+path}{.ext}").match("dir/a.b") == {"path": "dir/a.b"}
    assert URITemplate("{a}.{b}").match("x.y/z") is None
    assert URITemplate("x://{a}.{b}.{c}/{d}").match("x://1.2.3.4/5") == {
        "a": "1.2",
        "b": "3",
        "c": "4",
        "d": "5",
    }
    assert URITemplate("{/segs*}{.fmt}{?q*}").match("/a/b.json?x=1&y=2") == {
        "segs": ["a", "b.json"],  # a path segment may hold a dot: the first takes it
        "q": {"x": "1", "y": "2"},
    }


@pytest.mark.parametrize("seed", range(4))
def test_random_templates_match_as_the_regex_did(seed: int) -> None:
    rnd = random.Random(seed)
    ops = ["", "+", "#", ".", "/", ";", "?", "&"]
    literals = ["x", ".", "-", "/", "?", "#", "&", "=", ",", "ab", "x://", ".json", "é", "\0"]
    alphabet = "ab.-/?#&=,;%2\n\0é☃"
    compared = 0
    for _ in range(1500):
        parts: list[str] = []
        for _ in range(rnd.randint(1, 5)):
            if rnd.random() < 0.4:
                parts.append(rnd.choice(literals))
                continue
            names = []
            for k in range(rnd.randint(1, 2)):
                name = f"v{len(parts)}{k}"
                r = rnd.random()
                names.append(name + ("*" if r < 0.2 else ":3" if r < 0.3 else ""))
            parts.append("{" + rnd.choice(ops) + ",".join(names) + "}")
        template = URITemplate("".join(parts))
        for _ in range(6):
            if rnd.random() < 0.5:
                values = ["a", "b.c", "", ["x", "y"], {"k": "v"}, None, "a/b", "1?2", "é"]
                uri = template.expand({v: rnd.choice(values) for v in template.variables})
                if rnd.random() < 0.3:
                    i = rnd.randint(0, len(uri))
                    uri = uri[:i] + rnd.choice(alphabet) + uri[i:]
            else:
                uri = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
            expected = _reference_match(template, uri)
            assert template.match(uri) == expected, (template.template, uri)
            compared += expected is not None
    assert compared > 1000  # the URIs did exercise matches, not only misses


ADVERSARIAL = [
    ("{a}.{b}", "'a.' * 500_000 + '/'"),
    ("{a}-{b}", "'a-' * 500_000 + '/'"),
    ("{+path}.{ext}", "'a.' * 500_000 + '?'"),
    ("{a}{b}{c}", "'a' * 1_000_000 + '/'"),
    ("{a}.{b}", "'.' * 1_000_000"),
]


def test_a_1mb_adversarial_uri_is_matched_in_linear_time() -> None:
    # The regex needed about 5 s for 20 KB on {a}.{b} and grows with the square: hours for
    # 1 MB. In a child process, so that the old behaviour fails this test instead of
    # holding the interpreter (the regex engine never lets go of it).
    script = "\n".join(
        [
            "from mcpkit.server.uri_template import URITemplate",
            *(
                f"print(URITemplate({t!r}).match({u}) is not None, flush=True)"
                for t, u in ADVERSARIAL
            ),
        ]
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            env=server_env(),
            capture_output=True,
            text=True,
            timeout=45,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"matching 1 MB URIs did not finish within 45 s: {exc.stdout!r}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "False", "False", "True"]


def _server(max_uri_length: int | None = DEFAULT_MAX_URI_LENGTH) -> Server:
    server = Server("templates")
    server.resources.max_uri_length = max_uri_length

    for template in TRICKY:

        @server.resource(f"t://{template}")
        def read(**variables: Any) -> str:
            return orjson.dumps(variables).decode()

    @server.tool()
    def echo(text: str) -> str:
        return text

    return server


async def _read(http: httpx.AsyncClient, url: str, sid: str, uri: str) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": uri}}
    r = await http.post(url, content=orjson.dumps(body), headers=raw.headers(sid))
    assert r.status_code == 200, r.text
    lines = [ln for ln in r.text.splitlines() if ln.startswith("data: {")]
    return orjson.loads(lines[-1][len("data: ") :])  # type: ignore[no-any-return]


async def _echo(http: httpx.AsyncClient, url: str, sid: str) -> str:
    r = await http.post(url, json=raw.tool_call(4, "echo", text="here"), headers=raw.headers(sid))
    assert r.status_code == 200
    return r.text


async def test_a_uri_over_the_limit_is_refused_with_invalid_params() -> None:
    app = _server().http_app()
    async with running(app) as base, httpx.AsyncClient(timeout=30) as http:
        url = base + "/mcp"
        sid = await raw.open_session(http, url)
        ok = await _read(http, url, sid, "t://x.y.z")
        assert orjson.loads(ok["result"]["contents"][0]["text"]) == {"a": "x.y", "b": "z"}
        long = "t://" + "a." * DEFAULT_MAX_URI_LENGTH
        error = (await _read(http, url, sid, long))["error"]
        assert error["code"] == -32602
        assert error["message"].startswith("Resource URI too long")
        body = {"jsonrpc": "2.0", "id": 5, "method": "resources/subscribe", "params": {"uri": long}}
        r = await http.post(url, content=orjson.dumps(body), headers=raw.headers(sid))
        assert b"Resource URI too long" in r.content


@pytest.mark.parametrize("limit", [DEFAULT_MAX_URI_LENGTH, None])
async def test_adversarial_uris_up_to_the_body_limit_do_not_stall_other_sessions(
    limit: int | None,
) -> None:
    """Every tricky template tried against URIs of up to the body limit (4 MiB), with the
    default URI limit and with none; meanwhile another session is answered."""
    app = _server(limit).http_app()
    async with running(app) as base, httpx.AsyncClient(timeout=60) as http:
        url = base + "/mcp"
        attacker = await raw.open_session(http, url)
        other = await raw.open_session(http, url)
        size = 4 * 1024 * 1024 - 1024
        # Each fits several templates until its last character.
        uris = ["t://" + "a." * (size // 2) + "/?", "t://" + "a-" * (size // 4) + "?"]

        async def attack() -> list[dict[str, Any]]:
            return [await _read(http, url, attacker, uri) for uri in uris]

        async def bystander() -> list[str]:
            return [await _echo(http, url, other) for _ in range(5)]

        answers, echoed = await asyncio.wait_for(asyncio.gather(attack(), bystander()), 50)
        for answer in answers:
            assert answer["error"]["code"] == (-32602 if limit else -32002)
        assert all('"here"' in e for e in echoed)
