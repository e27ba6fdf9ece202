"""One home per name: the "not given" sentinel, the ASGI types, MCP Apps' server module."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import mcpkit

SRC = Path(mcpkit.__file__).parent


def _module_level_sentinels() -> list[str]:
    found = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id == "object"
                and not value.args
            ):
                found.append(str(path.relative_to(SRC)))
    return found


def test_one_not_given_sentinel() -> None:
    from mcpkit._defaults import DEFAULT

    # Markers of other meanings stay where they are used: the end of a notification stream,
    # a prompt's "leave this field out".
    assert sorted(_module_level_sentinels()) == ["cli/interactive.py", "client/listen.py"]
    assert repr(DEFAULT) == "DEFAULT" and pickle.loads(pickle.dumps(DEFAULT)) is DEFAULT


def test_the_asgi_types_have_one_home() -> None:
    from mcpkit import asgi_types
    from mcpkit.auth import server as auth_server
    from mcpkit.transports.http import asgi, routes

    for name in ("Scope", "Message", "Receive", "Send"):
        assert getattr(asgi, name) is getattr(asgi_types, name)
        assert getattr(auth_server, name) is getattr(asgi_types, name)
    assert auth_server.ASGIApp is asgi_types.ASGIApp
    assert routes.Scope is asgi_types.Scope
    defined = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(
            isinstance(t, ast.Name) and t.id in ("Scope", "Receive")
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
    ]
    assert defined == ["asgi_types.py", "asgi_types.py"]


def test_mcp_apps_moved_and_the_old_path_still_imports() -> None:
    from mcpkit.server import apps, mcp_apps

    assert apps.client_supports_apps is mcp_apps.client_supports_apps
    assert set(apps.__all__) == set(mcp_apps.__all__)
