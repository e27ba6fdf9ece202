"""Every exception class mcpkit defines is in the one tree of ``mcpkit.errors`` (derives from
:class:`~mcpkit.errors.McpkitError` and is drawn in that module's docstring), except the
control-flow signals that never reach a caller and the compat layer's mirror of another
SDK's hierarchy. A new exception that is neither fails here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import mcpkit
from mcpkit import errors
from mcpkit.errors import McpError, McpkitError

#: Raised and caught inside mcpkit; a caller never sees them.
CONTROL_FLOW = {
    "mcpkit.server.mrtr.InputRequired",
    "mcpkit.server.tasks_extension.StartTask",
    "mcpkit.server.schema.ArgumentsError",
    "mcpkit.transports.http.asgi.BodyTooLarge",
    "mcpkit.transports.http.asgi.BodyTooSlow",
    # The SSE decoder's over-long line (a ValueError), handled by the HTTP client that reads.
    "mcpkit.transports.http.sse.SSELineTooLong",
    # The authorization server's endpoints raise it and answer it as an OAuth error response.
    "mcpkit.auth.as_http.EndpointError",
}


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(mcpkit.__path__, "mcpkit."):
        if info.name.startswith(("mcpkit.compat", "mcpkit.cli.demo_server")):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseException)
                and obj.__module__ == module.__name__
            ):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_public_exception_is_in_the_drawn_tree() -> None:
    doc = errors.__doc__ or ""
    classes = _exception_classes()
    assert "mcpkit.errors.McpError" in classes  # the walk found the modules
    outside = []
    for path, cls in sorted(classes.items()):
        if path in CONTROL_FLOW or cls.__name__.startswith("_"):
            continue
        if not issubclass(cls, McpkitError) or cls.__name__ not in doc:
            outside.append(path)
    assert not outside, f"not in the tree of mcpkit.errors: {outside}"


def test_control_flow_signals_still_exist_and_stay_internal() -> None:
    classes = _exception_classes()
    assert CONTROL_FLOW <= set(classes)


def test_an_error_the_peer_sent_says_so() -> None:
    received = McpError.from_error({"code": -32601, "message": "Method not found"})
    assert received.from_peer and type(received) is McpError
    coded = McpError.from_error({"code": -31429, "message": "slow down"})
    assert coded.from_peer and type(coded).__name__ == "RateLimited"
    assert McpError.from_error("garbage").from_peer
    raised_here = McpError(-32601, "Method not found")
    assert not raised_here.from_peer
