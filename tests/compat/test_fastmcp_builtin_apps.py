"""fastmcp's built-in apps (``fastmcp.apps.approval``, ``choice``, ``form``, ``file_upload``,
``generative``): its examples run on fastmcp and unchanged on mcpkit, compared through the
official client, then driven as a host drives them.

What a client or a host relies on is compared as it is: tool names, input and output
schemas, ``_meta`` (``ui``, ``fastmcp``), resources, call results (content, structured data,
the Prefab payload's version, state and ``_meta``). Two things are mcpkit's own words and
are normalised (docs/migration.md, "fastmcp's built-in apps"): the tools' descriptions and
their parameters' descriptions, and the layout of a Prefab UI (the ``view`` tree of the
payload), checked here by what it does instead.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.apps.conftest import ext_apps_schema as ext_apps_schema  # the fixture
from tests.compat.test_examples_fastmcp import (
    LIST,
    PREFAB_RENDERER,
    call,
    commands,
    failing,
    read,
)
from tests.compat.test_unchanged import assert_same, drive_both, normalised, peer

#: Text that is ours (descriptions, a UI's layout), replaced on both sides before comparing.
OURS = "<own words>"


def own_words(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with the descriptions of tools and their parameters, and the ``view`` of
    each Prefab payload, replaced by :data:`OURS` (where the side has one)."""
    for op in report["ops"]:
        for tool in op.get("tools", ()):
            if "description" in tool:
                tool["description"] = OURS
            for prop in tool["inputSchema"].get("properties", {}).values():
                if "description" in prop:
                    prop["description"] = OURS
        payload = op.get("result", {}).get("structuredContent")
        if isinstance(payload, dict) and "$prefab" in payload:
            payload["view"] = OURS
    return report


def nodes(tree: Any) -> Iterator[dict[str, Any]]:
    """Every object of a Prefab ``view`` tree, depth first."""
    if isinstance(tree, dict):
        yield tree
        for value in tree.values():
            yield from nodes(value)
    elif isinstance(tree, list):
        for item in tree:
            yield from nodes(item)


def shown(tree: Any, state: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The objects of a Prefab ``view`` a host shows in ``state``: of each ``Condition``,
    the first case whose ``when`` (``{{ key }}`` or ``{{ !key }}``) holds, or the case
    without one."""
    if isinstance(tree, list):
        for item in tree:
            yield from shown(item, state)
        return
    if not isinstance(tree, dict):
        return
    if tree.get("type") == "Condition":
        for case in tree["cases"]:
            when = case.get("when")
            if when is None:
                yield from shown(case["children"], state)
                return
            key = when.strip("{} ")
            holds = not state[key[1:]] if key.startswith("!") else bool(state[key])
            if holds:
                yield from shown(case["children"], state)
                return
        return
    yield tree
    for key, value in tree.items():
        if key not in ("onClick", "onSubmit", "onSuccess", "onError"):
            yield from shown(value, state)


def click(payload: dict[str, Any], label: str) -> tuple[list[str], dict[str, Any]]:
    """What a host does when the user presses the shown button ``label``: the messages it
    sends into the conversation, and the state after."""
    state = dict(payload["state"])
    (button,) = (
        n
        for n in shown(payload["view"], state)
        if n.get("type") == "Button" and n["label"] == label
    )
    sent = []
    for action in button["onClick"]:
        if action["action"] == "sendMessage":
            sent.append(action["content"])
        elif action["action"] == "setState":
            state[action["key"]] = action["value"]
    return sent, state


def run_both(name: str, script: list[dict[str, Any]], tmp: Path) -> tuple[Any, Any]:
    """The two reports of ``script`` on example ``name``, raw (before :func:`own_words`)."""
    theirs_cmd, ours_cmd = commands(name, "mcp", [], tmp)
    reports = drive_both(
        script,
        [str(peer("fastmcp")), *theirs_cmd],
        [sys.executable, "-m", "mcpkit.compat", *ours_cmd],
        tmp,
    )
    theirs, ours = (normalised(r) for r in reports)
    return theirs, ours


def same_but_own_words(theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    import copy

    assert_same(own_words(copy.deepcopy(theirs)), own_words(copy.deepcopy(ours)))


def check_ui_meta(report: dict[str, Any], check: Callable[[str, Any], list[str]]) -> None:
    """The listed ``_meta.ui`` against ext-apps' JSON Schemas."""
    listed = report["ops"][0]
    for tool in listed["tools"]:
        if "ui" in tool.get("_meta", {}):
            assert check("McpUiToolMeta", tool["_meta"]["ui"]) == [], tool["name"]
    for resource in listed["resources"]:
        assert check("McpUiResourceMeta", resource["_meta"]["ui"]) == [], resource["uri"]


def answers(view: Any) -> dict[str, list[dict[str, Any]]]:
    """Button label -> what clicking it does (its actions)."""
    found = {}
    for node in nodes(view):
        if node.get("type") == "Button" and "onClick" in node:
            actions = node["onClick"]
            found[node["label"]] = actions if isinstance(actions, list) else [actions]
    return found


APPROVAL = "apps/approval/approval_server.py"
APPROVAL_SCRIPT = [
    LIST,
    call("request_approval", summary="Deploy v3.2 to production"),
    call(
        "request_approval",
        summary="Drop table users",
        details="All rows are deleted.",
        title="Danger",
        approve_text="Ship it",
        reject_text="Abort",
        approve_variant="destructive",
        reject_variant="default",
    ),
    failing(call("request_approval")),
    read(PREFAB_RENDERER),
]


def test_approval_example(tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]) -> None:
    theirs, ours = run_both(APPROVAL, APPROVAL_SCRIPT, tmp_path)
    same_but_own_words(theirs, ours)
    check_ui_meta(ours, ext_apps_schema)
    # What a host does with the card: the button pressed sends the user's answer as a
    # message and marks the card answered. Both sides' buttons do the same.
    for side in (theirs, ours):
        first = side["ops"][1]["result"]["structuredContent"]
        assert first["state"] == {"decided": False}
        assert answers(first["view"]) == {
            label: [
                {
                    "action": "sendMessage",
                    "content": f'"Deploy v3.2 to production" — I selected: {label}',
                },
                {"action": "setState", "key": "decided", "value": True},
            ]
            for label in ("Approve", "Reject")
        }
        # the user approves: the answer goes into the conversation, the buttons go away
        sent, after = click(first, "Approve")
        assert sent == ['"Deploy v3.2 to production" — I selected: Approve']
        assert [n for n in shown(first["view"], after) if n.get("type") == "Button"] == []
        custom = side["ops"][2]["result"]["structuredContent"]["view"]
        assert set(answers(custom)) == {"Ship it", "Abort"}
        variants = {n["label"]: n["variant"] for n in nodes(custom) if n.get("type") == "Button"}
        assert variants == {"Ship it": "destructive", "Abort": "default"}
        texts = {n.get("content") for n in nodes(custom)}
        assert {"Danger", "Drop table users", "All rows are deleted."} <= texts


CHOICE_SCRIPT = [
    LIST,
    call("choose", prompt="Which deployment strategy?", options=["Blue-green", "Canary"]),
    call("choose", prompt="Pick one", options=[], title="Nothing to pick"),
    failing(call("choose", prompt="Which?", options="not a list")),
    read(PREFAB_RENDERER),
]


def test_choice_example(tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]) -> None:
    theirs, ours = run_both("apps/choice/choice_server.py", CHOICE_SCRIPT, tmp_path)
    same_but_own_words(theirs, ours)
    check_ui_meta(ours, ext_apps_schema)
    for side in (theirs, ours):
        payload = side["ops"][1]["result"]["structuredContent"]
        assert payload["state"] == {"decided": False}
        assert answers(payload["view"]) == {
            option: [
                {
                    "action": "sendMessage",
                    "content": f'"Which deployment strategy?" — I selected: {option}',
                },
                {"action": "setState", "key": "decided", "value": True},
            ]
            for option in ("Blue-green", "Canary")
        }
        sent, after = click(payload, "Canary")
        assert sent == ['"Which deployment strategy?" — I selected: Canary']
        assert [n for n in shown(payload["view"], after) if n.get("type") == "Button"] == []
        empty = side["ops"][2]["result"]["structuredContent"]["view"]
        assert answers(empty) == {}
        assert "Nothing to pick" in {n.get("content") for n in nodes(empty)}


GENERATIVE_SCRIPT = [
    LIST,
    call("search_prefab_components", query="Chart"),
    call("search_prefab_components", query="Button", detail=True, limit=1),
    # The code runs in prefab-ui's Pyodide sandbox, which needs Deno and the network: on
    # neither side here, and both answer the same error result saying so.
    failing(call("generate_prefab_ui", code="from prefab_ui.components import Text\nText('hi')")),
    failing(call("generate_prefab_ui", code="x = 1", data="{not json")),
    read("ui://prefab/generative.html"),
]


def test_generative_ui_example(
    tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]
) -> None:
    theirs, ours = run_both("apps/generative_ui.py", GENERATIVE_SCRIPT, tmp_path)
    # prefab-ui's own functions and docstrings on both sides: nothing to normalise.
    assert_same(theirs, ours)
    check_ui_meta(ours, ext_apps_schema)
    listed = ours["ops"][0]
    assert [t["name"] for t in listed["tools"]] == [
        "generate_prefab_ui",
        "search_prefab_components",
    ]
    assert "BarChart" in ours["ops"][1]["result"]["structuredContent"]["result"]
    html = ours["ops"][5]["result"]["contents"][0]
    assert html["mimeType"] == "text/html;profile=mcp-app" and "<html" in html["text"].lower()
    assert ext_apps_schema("McpUiResourceMeta", html["_meta"]["ui"]) == []
    error = ours["ops"][3]["result"]["content"][0]["text"]
    assert "Deno is required" in error, error


FORM_SCRIPT = [
    LIST,
    call("collect_shippingaddress", prompt="Where should we ship it?"),
    call(
        "collect_bugreport",
        prompt="Tell me about the bug",
        title="Bug",
        submit_text="File it",
        default={"title": "Crash on start", "severity": "high"},
    ),
    # the listed submit_form is the first form's (ShippingAddress), as on fastmcp
    call(
        "submit_form",
        data={"name": "Ada", "street": "1 Main St", "city": "X", "state": "NY", "zip_code": "1"},
    ),
    failing(call("submit_form", data={"name": "Ada"})),
    failing(call("submit_form")),
    # each form's submit_form by its identity address (the second's is listed under no name)
    call(
        "__60061a3d3271_submit_form",
        data={"name": "Ada", "street": "1 Main St", "city": "X", "state": "NY", "zip_code": "1"},
    ),
    call(
        "__f118ba499a74_submit_form",
        data={"title": "t", "severity": "low", "description": "d"},
    ),
    failing(call("__f118ba499a74_submit_form", data={"title": "t"})),
    read(PREFAB_RENDERER),
]


def test_form_example(tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]) -> None:
    theirs, ours = run_both("apps/form/form_server.py", FORM_SCRIPT, tmp_path)
    same_but_own_words(theirs, ours)
    check_ui_meta(ours, ext_apps_schema)
    assert [t["name"] for t in ours["ops"][0]["tools"]] == [
        "submit_form",
        "collect_shippingaddress",
        "collect_bugreport",
    ]
    for side in (theirs, ours):
        ops = side["ops"]
        shipping, bug = (ops[i]["result"]["structuredContent"] for i in (1, 2))
        # each form submits to its own model's submit_form, by its address (the two
        # share the name)
        assert shipping["_meta"]["fastmcp"]["toolNames"] == {
            "__60061a3d3271_submit_form": "__60061a3d3271_submit_form"
        }
        assert bug["_meta"]["fastmcp"]["toolNames"] == {
            "__f118ba499a74_submit_form": "__f118ba499a74_submit_form"
        }
        (form,) = (n for n in nodes(bug["view"]) if n.get("type") == "Form")
        assert form["onSubmit"][0]["action"] == "toolCall"
        assert form["onSubmit"][0]["tool"] == "__f118ba499a74_submit_form"
        fields = {n["name"]: n for n in nodes(form) if "name" in n and "type" in n}
        assert set(fields) == {"title", "severity", "description"}
        assert fields["title"]["value"] == "Crash on start"  # the default, pre-filled
        assert fields["description"]["type"] == "Textarea"
        assert {n.get("label") for n in nodes(form) if n.get("type") == "Button"} == {"File it"}
        submitted = ops[3]["result"]
        assert submitted["structuredContent"] == {
            "result": '{"name": "Ada", "street": "1 Main St", "city": "X", "state": "NY", '
            '"zip_code": "1"}'
        }
        assert "validation error" in ops[4]["result"]["content"][0]["text"]
        assert ops[6]["result"]["structuredContent"] == submitted["structuredContent"]
        assert ops[7]["result"]["structuredContent"] == {
            "result": '{"title": "t", "severity": "low", "description": "d"}'
        }


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


PNG = bytes(range(256)) * 2
FILES = [
    {"name": "notes.txt", "size": 5, "type": "text/plain", "data": b64(b"hello")},
    {"name": "table.csv", "size": 4, "type": "", "data": b64(b"a,b\n")},
    {"name": "pic.png", "size": len(PNG), "type": "image/png", "data": b64(PNG)},
]
FILE_UPLOAD_SCRIPT = [
    LIST,
    call("file_manager"),
    call("list_files"),
    call("store_files", files=FILES[:2]),
    call("store_files", files=FILES[2:]),
    call("list_files"),
    call("read_file", name="notes.txt"),
    call("read_file", name="table.csv"),
    call("read_file", name="pic.png"),
    failing(call("read_file", name="nothing.txt")),
    failing(call("store_files", files="not a list")),
    call("file_manager"),
    read(PREFAB_RENDERER),
]
#: An upload time (UTC, to the second): differs by nature between the two runs.
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


def without_stamps(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with each upload time replaced (checked to be one first)."""
    text = json.dumps(report)
    for op in report["ops"]:
        for found in nodes(op.get("result", {}).get("structuredContent")):
            if "uploaded_at" in found and isinstance(found["uploaded_at"], str):
                assert STAMP.fullmatch(found["uploaded_at"]), found
    cleaned: dict[str, Any] = json.loads(STAMP.sub("<uploaded>", text))
    return cleaned


def test_file_upload_example(
    tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]
) -> None:
    theirs, ours = run_both("apps/file_upload/file_upload_server.py", FILE_UPLOAD_SCRIPT, tmp_path)
    theirs, ours = without_stamps(theirs), without_stamps(ours)
    same_but_own_words(theirs, ours)
    check_ui_meta(ours, ext_apps_schema)
    for side in (theirs, ours):
        ops = side["ops"]
        assert ops[1]["result"]["structuredContent"]["state"] == {"pending": [], "stored": []}
        listed = ops[5]["result"]["structuredContent"]["result"]
        assert [(f["name"], f["size"], f["size_display"]) for f in listed] == [
            ("notes.txt", 5, "5 B"),
            ("table.csv", 4, "4 B"),
            ("pic.png", 512, "512 B"),
        ]
        assert ops[6]["result"]["structuredContent"]["content"] == "hello"
        assert ops[7]["result"]["structuredContent"]["content"] == "a,b\n"
        preview = ops[8]["result"]["structuredContent"]["content_base64"]
        assert preview == b64(PNG)[:200] + "..."
        assert "'nothing.txt' not found" in ops[9]["result"]["content"][0]["text"]
        # the panel opened again shows what the server keeps
        assert ops[11]["result"]["structuredContent"]["state"]["stored"] == listed
        view = ops[1]["result"]["structuredContent"]["view"]
        (upload,) = (n for n in nodes(view) if n.get("action") == "toolCall")
        assert upload["tool"] == "store_files"
        assert upload["arguments"] == {"files": "{{ pending }}"}
        assert {"action": "setState", "key": "stored", "value": "{{ $result }}"} in upload[
            "onSuccess"
        ]
        (drop,) = (n for n in nodes(view) if n.get("type") == "DropZone")
        assert drop["name"] == "pending" and drop["maxSize"] == 10 * 1024 * 1024


# -- driven in process: options the examples leave at their defaults ------------------------


async def test_form_callback_booleans_and_message() -> None:
    """``on_submit`` gets the validated instance and its answer is the result; a boolean
    field the form left out (an unchecked box) is False or its default; ``send_message``
    posts the answer into the conversation after the submission succeeds."""
    import pydantic

    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.apps.form import FormInput
    from mcpkit.compat.fastmcp.client import Client

    class Signup(pydantic.BaseModel):
        email: str
        newsletter: bool
        terms: bool = True

    seen: list[Signup] = []

    def save(signup: Signup) -> str:
        seen.append(signup)
        return f"saved {signup.email}"

    form = FormInput(Signup, tool_name="sign_up", on_submit=save, send_message=True)
    assert repr(form) == "FormInput('Signup')"
    mcp = FastMCP("forms", providers=[form])
    async with Client(mcp) as client:
        names = [t.name for t in await client.list_tools()]
        assert names == ["submit_form", "sign_up"]
        shown = await client.call_tool("sign_up", {"prompt": "Join us"})
        payload = shown.structured_content
        assert payload is not None
        (submit,) = (n for n in nodes(payload["view"]) if n.get("action") == "toolCall")
        assert submit["tool"] == "submit_form"
        assert submit["onSuccess"][0] == {"action": "sendMessage", "content": "{{ $result }}"}
        answer = await client.call_tool("submit_form", {"data": {"email": "a@b.c"}})
        assert answer.data == "saved a@b.c"
        assert seen == [Signup(email="a@b.c", newsletter=False, terms=True)]
        refused = await client.call_tool(
            "submit_form", {"data": {"newsletter": True}}, raise_on_error=False
        )
        assert refused.is_error and "email" in refused.content[0].text  # type: ignore[union-attr]
        assert len(seen) == 1


async def test_file_upload_limits_and_expiry(monkeypatch: pytest.MonkeyPatch) -> None:
    """``max_file_size`` refuses a file by its decoded data (not the size it claims),
    ``max_total_size`` a batch that would overfill the store (a replaced file counted
    once), and ``file_ttl_seconds`` forgets a file that long after its upload."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.apps import file_upload
    from mcpkit.compat.fastmcp.client import Client

    with pytest.raises(ValueError, match="nonnegative"):
        file_upload.FileUpload(max_total_size=-1)
    with pytest.raises(ValueError, match="positive and finite"):
        file_upload.FileUpload(file_ttl_seconds=float("inf"))
    now = [1000.0]
    monkeypatch.setattr(file_upload, "monotonic", lambda: now[0])
    files = file_upload.FileUpload(max_file_size=8, max_total_size=12, file_ttl_seconds=60)
    mcp = FastMCP("up", providers=[files])

    def one(name: str, data: bytes, claimed: int = 1) -> dict[str, Any]:
        return {"name": name, "size": claimed, "type": "text/plain", "data": b64(data)}

    async with Client(mcp) as client:

        async def store(*batch: dict[str, Any]) -> Any:
            return await client.call_tool(
                "store_files", {"files": list(batch)}, raise_on_error=False
            )

        big = await store(one("big.txt", b"123456789"))
        assert big.is_error
        assert "exceeds max size (9 B > 8 B)" in big.content[0].text  # type: ignore[union-attr]
        assert not (await store(one("a.txt", b"12345678"))).is_error
        over = await store(one("b.txt", b"12345"))
        assert "exceed total storage size (13 B > 12 B)" in over.content[0].text  # type: ignore[union-attr]
        assert not (await store(one("a.txt", b"1234"), one("b.txt", b"12345678"))).is_error
        listed = (await client.call_tool("list_files")).structured_content
        assert listed is not None
        assert [(f["name"], f["size"]) for f in listed["result"]] == [("a.txt", 1), ("b.txt", 1)]
        read = await client.call_tool("read_file", {"name": "b.txt"})
        assert read.structured_content is not None
        assert read.structured_content["content"] == "12345678"
        now[0] += 61
        assert (await client.call_tool("list_files")).structured_content == {"result": []}
        gone = await client.call_tool("read_file", {"name": "b.txt"}, raise_on_error=False)
        assert gone.is_error


async def test_file_upload_scopes_by_client() -> None:
    """Each handshake-era session sees its own files."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.apps.file_upload import FileUpload
    from mcpkit.compat.fastmcp.client import Client

    mcp = FastMCP("up", providers=[FileUpload()])
    note = {"name": "n.txt", "size": 2, "type": "text/plain", "data": b64(b"hi")}
    async with Client(mcp, mode="legacy") as alice, Client(mcp, mode="legacy") as bob:
        await alice.call_tool("store_files", {"files": [note]})
        mine = await alice.call_tool("list_files")
        theirs = await bob.call_tool("list_files")
        assert mine.structured_content is not None
        assert [f["name"] for f in mine.structured_content["result"]] == ["n.txt"]
        assert theirs.structured_content == {"result": []}


async def uploads_seen(
    base: str, era: str, bearer: str | None, upload: str | None
) -> tuple[bool, list[str]]:
    """On a new connection (``era``, with the token ``bearer``): upload a file named
    ``upload`` (if any), then ``list_files``: whether it failed, and the names listed."""
    from mcpkit import Client

    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    async with Client(base + "/mcp", headers=headers, era=era) as client:
        if upload is not None:
            note = {"name": upload, "size": 2, "type": "text/plain", "data": b64(b"hi")}
            await client.call_tool("store_files", {"files": [note]})
        listed = await client.call_tool("list_files", {})
        if listed.is_error:
            return True, []
        assert listed.structured_content is not None
        return False, [f["name"] for f in listed.structured_content["result"]]


@pytest.mark.parametrize("mode", ["open", "tokens"])
def test_file_upload_scopes_over_http(mode: str) -> None:
    """Over Streamable HTTP, on fastmcp and on mcpkit: a 2025 session sees the files it
    uploaded, and a new session none; on 2026-07-28 (no session) the files are the
    authenticated user's, and an unauthenticated request is refused."""
    import asyncio

    from tests.compat.test_compat import SERVERS
    from tests.compat.test_fastmcp_auth import started

    legacy, modern = "legacy", "2026-07-28"
    if mode == "open":
        steps = [
            (legacy, None, "a.txt"),
            (legacy, None, None),
            (modern, None, None),
        ]
        expected = [(False, ["a.txt"]), (False, []), (True, [])]
    else:
        steps = [
            (modern, "tok-ada", "ada.txt"),
            (modern, "tok-ada", None),
            (modern, "tok-cy", None),
            (modern, "tok-cy", "cy.txt"),
            (modern, "tok-ada", None),
            (legacy, "tok-ada", None),
        ]
        expected = [
            (False, ["ada.txt"]),
            (False, ["ada.txt"]),
            (False, []),
            (False, ["cy.txt"]),
            (False, ["ada.txt"]),
            (False, []),
        ]
    with started([str(SERVERS / "fastmcp_file_upload_http.py"), mode]) as urls:
        seen = [
            [asyncio.run(uploads_seen(url, era, bearer, up)) for era, bearer, up in steps]
            for url in urls
        ]
    assert seen[1] == seen[0] == expected
