"""2.x's generic request model: ``types.Request[ParamsT, MethodT]``, which a client
subclasses to send a request of its own (an extension's method) with
``client.session.send_request(request, ResultType)``; ``name_param`` names the params key
the SDK mirrors into the ``Mcp-Name`` header."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

import mcpkit.types as _t

__all__ = ["Request"]

ParamsT = TypeVar("ParamsT")
MethodT = TypeVar("MethodT", bound=str)


class Request(_t.Request, Generic[ParamsT, MethodT]):
    """A request without its JSON-RPC envelope: ``method`` and ``params``."""

    method: MethodT
    params: ParamsT  # type: ignore[assignment]

    #: The params key mirrored into the ``Mcp-Name`` header (None: none).
    name_param: ClassVar[str | None] = None


def wire_params(request: Any) -> dict[str, Any] | None:
    """A request's params as sent (camelCase, without unset ``None`` fields)."""
    params = getattr(request, "params", None)
    if params is None:
        return None
    if hasattr(params, "model_dump"):
        dumped: dict[str, Any] = params.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped
    return dict(params)
