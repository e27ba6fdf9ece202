"""Choosing a server's protocol era from the answer to the client's first modern request
(2026-07-28 basic/versioning, "Backward Compatibility with Initialization-Based Versions").

A dual-era client opens with a modern request (on stdio the ``server/discover`` probe; on
HTTP any request, typically ``server/discover``) and reads the answer:

- a result: the server is **modern** (from ``server/discover``, a mutually supported version
  of its ``supportedVersions`` is chosen; a result without ``resultType`` is a legacy server
  that processed the request anyway, so the client **falls back**);
- a *recognized modern error* — ``-32022`` UnsupportedProtocolVersion, ``-32020``
  HeaderMismatch, ``-32021`` MissingRequiredClientCapability, or on HTTP a ``404`` whose body
  is JSON-RPC ``-32601`` for a method other than ``server/discover`` (which every modern
  server implements): the server is modern. After ``-32022`` the client **retries once**
  with a version from ``error.data.supported`` (or falls back when only legacy versions are
  shared);
- anything else — another error code (legacy servers answer unknown pre-``initialize``
  requests with implementation-defined codes, commonly -32601 or -32602), a 4xx without a
  JSON-RPC error body, a stdio timeout — is a legacy server: **fall back** to
  ``initialize``. The decision never rests on one specific legacy code.

HTTP 401/403 and 5xx say nothing about the era (authorize, or retry later): the decision
is ``"undetermined"``. :func:`decide_http` and :func:`decide_stdio` are pure;
:class:`EraMemo` remembers each target's decision (for the server process on stdio, for the
origin on HTTP: :func:`http_target`), to be forgotten when the assumption later fails.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from mcpkit.versions import LEGACY_SUPPORTED, MODERN_SUPPORTED

__all__ = [
    "CLIENT_VERSIONS",
    "MODERN_ERROR_CODES",
    "EraAction",
    "EraDecision",
    "EraMemo",
    "decide_http",
    "decide_stdio",
    "http_target",
]

#: What :func:`decide_http` / :func:`decide_stdio` tell the client to do.
EraAction = Literal["modern", "retry", "fallback", "incompatible", "undetermined"]
#: Errors only a modern server sends.
MODERN_ERROR_CODES: Final = frozenset({-32020, -32021, -32022})
#: The versions this client speaks, preferred first (modern ones before legacy ones).
CLIENT_VERSIONS: Final = tuple(v.name for v in (*MODERN_SUPPORTED, *LEGACY_SUPPORTED))
_UNSUPPORTED_VERSION: Final = -32022
_METHOD_NOT_FOUND: Final = -32601
_MODERN_NAMES: Final = frozenset(v.name for v in MODERN_SUPPORTED)


@dataclass(frozen=True, slots=True)
class EraDecision:
    """What to do after the first modern request.

    - ``"modern"``: stay modern with ``version``.
    - ``"retry"``: modern server; send the request again once with ``version``.
    - ``"fallback"``: legacy server; open with ``initialize`` (``version``, when set, is the
      legacy version the server named as supported).
    - ``"incompatible"``: no version in common; surface ``reason`` to the user.
    - ``"undetermined"``: the answer says nothing about the era (authorization, a server
      error); handle it and ask again.
    """

    action: EraAction
    version: str | None
    reason: str

    @property
    def era(self) -> Literal["modern", "legacy"] | None:
        """The server's era, when the decision settles it."""
        if self.action in ("modern", "retry"):
            return "modern"
        return "legacy" if self.action == "fallback" else None


def _is_modern(version: str) -> bool:
    return version in _MODERN_NAMES


def _pick(offered: Sequence[Any], mine: Sequence[str]) -> str | None:
    """The first of ``mine`` (preference order) that ``offered`` lists."""
    names = {v for v in offered if isinstance(v, str)}
    return next((v for v in mine if v in names), None)


def _on_result(result: Any, method: str, requested: str, mine: Sequence[str]) -> EraDecision:
    if not isinstance(result, Mapping):
        return EraDecision("fallback", None, "the answer is no result object")
    if method == "server/discover":
        offered = result.get("supportedVersions")
        if not isinstance(offered, list):
            return EraDecision(
                "fallback", None, "server/discover answered without supportedVersions"
            )
        if requested in offered and requested in mine:
            return EraDecision("modern", requested, "server/discover lists the requested version")
        chosen = _pick([v for v in offered if isinstance(v, str) and _is_modern(v)], mine)
        if chosen is not None:
            return EraDecision("modern", chosen, f"server/discover lists {chosen}")
        return EraDecision(
            "incompatible", None, f"the server supports only {offered!r}, none of {list(mine)!r}"
        )
    if "resultType" not in result:
        return EraDecision(
            "fallback", None, "a result without resultType comes from a legacy server"
        )
    return EraDecision("modern", requested, "the modern request succeeded")


def _on_error(
    error: Any, method: str, requested: str, mine: Sequence[str], retried: bool, *, http404: bool
) -> EraDecision:
    code = error.get("code") if isinstance(error, Mapping) else None
    if code == _UNSUPPORTED_VERSION:
        data = error.get("data") if isinstance(error, Mapping) else None
        offered = data.get("supported") if isinstance(data, Mapping) else None
        offered = offered if isinstance(offered, list) else []
        modern = _pick([v for v in offered if isinstance(v, str) and _is_modern(v)], mine)
        if modern is not None and not retried:
            # Retried even when it lists the version refused: the retry settles it.
            return EraDecision(
                "retry", modern, f"the server refused {requested}; it lists {modern}"
            )
        legacy = _pick([v for v in offered if isinstance(v, str) and not _is_modern(v)], mine)
        if legacy is not None:
            return EraDecision(
                "fallback", legacy, f"the server supports only handshake-era versions ({legacy})"
            )
        if retried:
            return EraDecision("incompatible", None, f"{requested} was refused again after a retry")
        return EraDecision(
            "incompatible", None, f"the server supports {offered!r}, none of {list(mine)!r}"
        )
    if code in MODERN_ERROR_CODES:
        return EraDecision("modern", requested, f"the server answered the modern error {code}")
    if http404 and code == _METHOD_NOT_FOUND and method != "server/discover":
        return EraDecision("modern", requested, "HTTP 404 with a JSON-RPC -32601: a modern server")
    return EraDecision("fallback", None, f"error {code!r} is no modern error: a legacy server")


def decide_http(
    status: int,
    response: Any,
    *,
    method: str,
    requested: str,
    supported: Sequence[str] = CLIENT_VERSIONS,
    retried: bool = False,
) -> EraDecision:
    """The decision after a first modern POST answered with HTTP ``status``.

    ``response`` is the JSON-RPC response message of the request (parsed from the JSON body
    or the SSE stream), or None when the body held none (empty, HTML, not JSON).
    ``requested`` is the version the request carried; ``supported`` the client's versions
    in preference order; ``retried`` whether this answers the one retry after ``-32022``.
    """
    if status in (401, 403):
        return EraDecision("undetermined", None, f"HTTP {status}: authorize, then ask again")
    if status >= 500:
        return EraDecision("undetermined", None, f"HTTP {status}: a server error says nothing")
    if not isinstance(response, Mapping):
        if 200 <= status < 300:
            return EraDecision("fallback", None, f"HTTP {status} without a JSON-RPC response")
        return EraDecision(
            "fallback", None, f"HTTP {status} without a JSON-RPC error body: a legacy server"
        )
    if "error" in response:
        return _on_error(
            response["error"], method, requested, supported, retried, http404=status == 404
        )
    if "result" in response and 200 <= status < 300:
        return _on_result(response["result"], method, requested, supported)
    return EraDecision("fallback", None, f"HTTP {status} with no result or error")


def decide_stdio(
    response: Any,
    *,
    requested: str,
    supported: Sequence[str] = CLIENT_VERSIONS,
    retried: bool = False,
    method: str = "server/discover",
) -> EraDecision:
    """The decision after the stdio probe (``server/discover``): ``response`` is the
    JSON-RPC response message, or None when none came in time (a legacy server)."""
    if not isinstance(response, Mapping):
        return EraDecision("fallback", None, "no answer to the probe in time: a legacy server")
    if "error" in response:
        return _on_error(response["error"], method, requested, supported, retried, http404=False)
    if "result" in response:
        return _on_result(response["result"], method, requested, supported)
    return EraDecision("fallback", None, "the probe's answer has no result or error")


def http_target(url: str) -> str:
    """The memo key of an HTTP server: its origin (``scheme://host:port``)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower(), 0)
    return f"{parts.scheme.lower()}://{host.lower()}:{port}"


class EraMemo:
    """Each target's settled era and version (at most ``max_targets``, oldest dropped).

    Only decisions that settle the era are kept (``"modern"``, ``"retry"``, ``"fallback"``);
    call :meth:`forget` when the remembered assumption later fails, to probe again.
    """

    def __init__(self, max_targets: int = 256) -> None:
        self.max_targets = max_targets
        self._items: OrderedDict[str, tuple[Literal["modern", "legacy"], str | None]] = (
            OrderedDict()
        )

    def get(self, target: str) -> tuple[Literal["modern", "legacy"], str | None] | None:
        """``(era, version)`` remembered for ``target``, or None."""
        item = self._items.get(target)
        if item is not None:
            self._items.move_to_end(target)
        return item

    def remember(self, target: str, decision: EraDecision) -> None:
        """Keep ``decision`` for ``target`` if it settles the era (others are ignored)."""
        era = decision.era
        if era is None:
            return
        self._items[target] = (era, decision.version)
        self._items.move_to_end(target)
        while len(self._items) > self.max_targets:
            self._items.popitem(last=False)

    def forget(self, target: str) -> None:
        """Drop what is remembered for ``target`` (the next connection probes again)."""
        self._items.pop(target, None)
