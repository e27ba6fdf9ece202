"""The option objects of :class:`~mcpkit.client.Client`: small typed values, one per concern.

```python
Client(
    "server.py",
    hooks=ClientHooks(on_list_changed=changed, auto_refresh=True),
    timeout=Timeout(30, max_total=300),
    connection=StdioOptions(env={"API_KEY": key}, cwd="/srv"),
    protocol=ProtocolOptions(extensions={APPS_EXTENSION: {}}),
)
```

:class:`StdioOptions` (how a server process is started) and :class:`HttpOptions` (more
settings of the HTTP transport) are the ``connection``; :class:`ProtocolOptions` what the
client speaks; :class:`CacheOptions` the response cache with its principal. The handlers'
own settings travel with them: :class:`~mcpkit.client.sampling.Sampling`,
:class:`~mcpkit.client.elicitation.Elicitation`.

The keyword arguments these objects replaced are still accepted by ``Client`` with a
:class:`DeprecationWarning` naming the new spelling (:func:`fold_deprecated`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Final, Literal

from mcpkit.client.elicitation import Elicitation
from mcpkit.client.modern import PROBE_TIMEOUT, START_TIMEOUT
from mcpkit.client.mrtr import DEFAULT_MAX_ROUNDS
from mcpkit.client.notifications import ClientHooks
from mcpkit.client.sampling import Sampling
from mcpkit.timeouts import Timeout

if TYPE_CHECKING:
    from mcpkit.client.cache import ResponseCache
    from mcpkit.session import RequestHandler

__all__ = [
    "CacheOptions",
    "HttpOptions",
    "ProtocolOptions",
    "StdioOptions",
    "fold_deprecated",
]


@dataclass(frozen=True, slots=True)
class StdioOptions:
    """How a stdio server process is started and heard.

    ``env`` (added to this process's environment), ``cwd``; ``stderr``: ``"capture"`` (kept
    to explain a failed start, each line to ``on_stderr``) or ``"inherit"``. Start-up with
    ``era="auto"``: the ``server/discover`` probe waits while the server has not read it yet
    (a slow import, a model loading), up to ``start_timeout`` seconds (None: no limit); once
    read, ``probe_timeout`` seconds without an answer mean a server of the handshake era."""

    env: Mapping[str, str] | None = None
    cwd: str | os.PathLike[str] | None = None
    stderr: Literal["capture", "inherit"] = "capture"
    on_stderr: Callable[[str], None] | None = None
    start_timeout: float | None = START_TIMEOUT
    probe_timeout: float = PROBE_TIMEOUT


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """More keyword arguments of
    :class:`~mcpkit.transports.http.StreamableHTTPClientTransport` (``headers`` and
    ``auth`` are ``Client`` keywords of their own)."""

    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ProtocolOptions:
    """What the client speaks.

    ``version``: ask for this revision (a handshake-era one asks for the handshake);
    ``supported_versions``: the revisions it accepts; ``extensions`` (id -> settings):
    declared in ``capabilities.extensions`` on both eras; ``max_input_rounds``: the
    ``InputRequiredResult`` rounds of one modern request; ``validate_output``: check tool
    results against their output schema; ``request_handlers``: raw session handlers of
    server-to-client methods (``async (params, ctx) -> result``, no validation either way),
    installed over the typed ones; ``debug``: the session's debug mode."""

    version: str | None = None
    supported_versions: Sequence[str] | None = None
    extensions: Mapping[str, Mapping[str, Any]] | None = None
    max_input_rounds: int = DEFAULT_MAX_ROUNDS
    validate_output: bool = True
    request_handlers: Mapping[str, RequestHandler] | None = None
    debug: bool = False


@dataclass(frozen=True, slots=True)
class CacheOptions:
    """The response cache of the modern wire: ``store`` (default: a private
    :class:`~mcpkit.client.cache.MemoryResponseCache`; None turns caching off) and
    ``principal``, the authorization context of private entries in a shared store (default:
    one of this client's own)."""

    store: ResponseCache | Literal["memory"] | None = "memory"
    principal: str | None = None


# Each deprecated keyword: (its group, the field it became, how to spell it now).
_MOVED: Final[dict[str, tuple[str, str]]] = {
    "on_progress": ("hooks", "on_progress"),
    "on_list_changed": ("hooks", "on_list_changed"),
    "on_resource_updated": ("hooks", "on_resource_updated"),
    "on_elicitation_complete": ("hooks", "on_elicitation_complete"),
    "on_cancelled": ("hooks", "on_cancelled"),
    "on_task_status": ("hooks", "on_task_status"),
    "auto_refresh": ("hooks", "auto_refresh"),
    "max_total_timeout": ("timeout", "max_total"),
    "reset_timeout_on_progress": ("timeout", "reset_on_progress"),
    "env": ("stdio", "env"),
    "cwd": ("stdio", "cwd"),
    "stderr": ("stdio", "stderr"),
    "on_stderr": ("stdio", "on_stderr"),
    "start_timeout": ("stdio", "start_timeout"),
    "probe_timeout": ("stdio", "probe_timeout"),
    "http_options": ("http", "options"),
    "protocol_version": ("protocol", "version"),
    "supported_versions": ("protocol", "supported_versions"),
    "extensions": ("protocol", "extensions"),
    "max_input_rounds": ("protocol", "max_input_rounds"),
    "validate_output": ("protocol", "validate_output"),
    "request_handlers": ("protocol", "request_handlers"),
    "debug": ("protocol", "debug"),
    "cache_principal": ("cache", "principal"),
    "sampling_tools": ("sampling", "tools"),
    "sampling_context": ("sampling", "context"),
    "elicitation_modes": ("elicitation", "modes"),
}
_SPELLING: Final = {
    "hooks": "hooks=ClientHooks({field}=...)",
    "timeout": "timeout=Timeout(..., {field}=...)",
    "stdio": "connection=StdioOptions({field}=...)",
    "http": "connection=HttpOptions({field}=...)",
    "protocol": "protocol=ProtocolOptions({field}=...)",
    "cache": "cache=CacheOptions({field}=...)",
    "sampling": "sampling_handler=Sampling(handler, {field}=...)",
    "elicitation": "elicitation_handler=Elicitation(handler, {field}=...)",
}


@dataclass(slots=True)
class Folded:
    """The ``Client`` settings after the deprecated keywords were folded in."""

    hooks: ClientHooks
    timeout: Any
    connection: StdioOptions | HttpOptions | None
    protocol: ProtocolOptions
    cache: Any
    sampling_handler: Any
    elicitation_handler: Any


def _merge(current: Any, cls: type[Any], changes: dict[str, Any], param: str) -> Any:
    if current is None:
        return cls(**changes)
    if not isinstance(current, cls):
        raise TypeError(f"Client({param}=...) is not a {cls.__name__}: cannot add {changes}")
    clash = [k for k in changes if getattr(current, k) != _default(cls, k)]
    if clash:
        raise TypeError(f"{', '.join(clash)} given twice: in {param}= and as a keyword")
    return replace(current, **changes)


def fold_deprecated(deprecated: Mapping[str, Any], folded: Folded) -> Folded:
    """Fold the old keyword arguments of ``Client`` into ``folded``, warning once per call.

    An unknown keyword raises ``TypeError`` as Python would; a setting given both ways
    raises ``TypeError``."""
    groups: dict[str, dict[str, Any]] = {}
    for name, value in deprecated.items():
        moved = _MOVED.get(name)
        if moved is None:
            raise TypeError(f"Client() got an unexpected keyword argument {name!r}")
        group, field_name = moved
        groups.setdefault(group, {})[field_name] = value
    if not groups:
        return folded
    spelled = [
        f"{name}= is now {_SPELLING[_MOVED[name][0]].format(field=_MOVED[name][1])}"
        for name in deprecated
    ]
    warnings.warn(
        "Client keyword arguments moved: " + "; ".join(spelled),
        DeprecationWarning,
        stacklevel=3,
    )
    if "hooks" in groups:
        folded.hooks = _merge(folded.hooks, ClientHooks, groups["hooks"], "hooks")
    if "timeout" in groups:
        if isinstance(folded.timeout, Timeout):
            raise TypeError(
                "Client(timeout=Timeout(...)) already holds max_total and "
                "reset_on_progress: give them in the Timeout"
            )
        folded.timeout = Timeout(folded.timeout, **groups["timeout"])
    if "stdio" in groups:
        folded.connection = _merge(folded.connection, StdioOptions, groups["stdio"], "connection")
    if "http" in groups:
        folded.connection = _merge(folded.connection, HttpOptions, groups["http"], "connection")
    if "protocol" in groups:
        folded.protocol = _merge(folded.protocol, ProtocolOptions, groups["protocol"], "protocol")
    if "cache" in groups:
        cache = folded.cache
        if not isinstance(cache, CacheOptions):
            cache = CacheOptions(store=_store_of(cache))
        folded.cache = _merge(cache, CacheOptions, groups["cache"], "cache")
    if "sampling" in groups:
        folded.sampling_handler = _with_settings(
            folded.sampling_handler, Sampling, groups["sampling"], "sampling_handler"
        )
    if "elicitation" in groups:
        folded.elicitation_handler = _with_settings(
            folded.elicitation_handler, Elicitation, groups["elicitation"], "elicitation_handler"
        )
    return folded


def _store_of(cache: Any) -> Any:
    if cache is True:
        return "memory"
    if cache is False:
        return None
    return cache


def _with_settings(handler: Any, cls: type[Any], changes: dict[str, Any], param: str) -> Any:
    if handler is None:
        return None  # settings of an absent handler declare nothing, as before
    if isinstance(handler, cls):
        return _merge(handler, cls, changes, param)
    return cls(handler, **changes)


def _default(cls: type[Any], name: str) -> Any:
    for f in fields(cls):
        if f.name == name:
            if f.default is not MISSING:
                return f.default
            if f.default_factory is not MISSING:
                return f.default_factory()
    return None
