"""``mcp.client.extension`` on mcpkit: 2.x's opt-in client extensions (SEP-2133), given to
``Client(extensions=[...])``.

A :class:`ClientExtension` is declared under ``capabilities.extensions[identifier]`` (its
``settings()``); its :class:`ResultClaim` s make ``call_tool`` finish a result of another
shape (a ``resultType`` of its own, on 2026-07-28) with the claim's ``resolve``; its
:class:`NotificationBinding` s observe server notifications. :func:`advertise` declares an
identifier and nothing else."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, get_args

from mcpkit.compat.mcp.shared.extension import validate_extension_identifier

__all__ = [
    "ClaimContext",
    "ClientExtension",
    "NotificationBinding",
    "ResultClaim",
    "UnexpectedClaimedResult",
    "advertise",
]

#: The result types of the protocol itself, which no claim may take.
CORE_RESULT_TYPES = frozenset({"complete", "input_required"})
#: The revisions a claimed shape can be delivered on.
MODERN_PROTOCOL_VERSIONS = frozenset({"2026-07-28"})
#: Wire keys of the core result surface a claim model may not alias.
_RESERVED_WIRE_KEYS = frozenset({"requestState", "inputRequests"})

ClaimedT = TypeVar("ClaimedT")
NotifyParamsT = TypeVar("NotifyParamsT")


@dataclass(frozen=True, kw_only=True)
class ClaimContext:
    """What a claim's ``resolve`` gets besides the claimed result: the client's session
    (to send follow-up requests), the tool called and the call's read timeout."""

    session: Any
    tool_name: str
    read_timeout_seconds: float | None


def _wire_keys(name: str, info: Any) -> set[str]:
    keys = {info.alias or name}
    if info.serialization_alias:
        keys.add(info.serialization_alias)
    alias = info.validation_alias
    for choice in getattr(alias, "choices", [alias]):
        path = getattr(choice, "path", None)
        if path:
            choice = path[0]
        if isinstance(choice, str):
            keys.add(choice)
    return keys


@dataclass(frozen=True, kw_only=True)
class ResultClaim(Generic[ClaimedT]):
    """One more result shape of ``tools/call``, keyed by its wire ``resultType``:
    ``model`` parses it and ``resolve(claimed, ClaimContext)`` turns it into the call's
    ``CallToolResult``. Active on the modern revisions ``protocol_versions`` names (None:
    every one); each constraint is checked when the claim is made (ValueError)."""

    result_type: str
    model: type[ClaimedT]
    resolve: Callable[[ClaimedT, ClaimContext], Awaitable[Any]]
    method: Literal["tools/call"] = "tools/call"
    protocol_versions: frozenset[str] | None = None

    def __post_init__(self) -> None:
        import mcpkit.compat.mcp.types as types

        if self.method != "tools/call":
            raise ValueError(f"claims attach to ['tools/call'] only; got method {self.method!r}")
        if self.result_type in CORE_RESULT_TYPES:
            raise ValueError(f"resultType {self.result_type!r} is core protocol vocabulary")
        model: Any = self.model
        if types.Result not in model.__mro__:
            raise ValueError(f"{model.__name__} must subclass mcp_types.Result")
        core = (types.CallToolResult, getattr(types, "InputRequiredResult"))  # noqa: B009
        if issubclass(model, core):
            raise ValueError("claim models must not subclass core result types")
        for name, info in model.model_fields.items():
            for clash in sorted(_wire_keys(name, info) & _RESERVED_WIRE_KEYS):
                raise ValueError(
                    f"{model.__name__}.{name} aliases {clash!r}, a typed field of the core "
                    "result surface; a colliding value would fail core validation before the "
                    "claim adapter runs"
                )
        tag = model.model_fields.get("result_type")
        if tag is None or get_args(tag.annotation) != (self.result_type,):
            raise ValueError(f"{model.__name__}.result_type must be Literal[{self.result_type!r}]")
        versions = self.protocol_versions
        if versions is not None and not versions:
            raise ValueError("empty protocol_versions could never activate; use None for all")
        if versions is not None and not versions <= MODERN_PROTOCOL_VERSIONS:
            unknown = sorted(versions - MODERN_PROTOCOL_VERSIONS)
            raise ValueError(
                f"protocol_versions {unknown} are not modern protocol revisions; claimed shapes "
                "cannot be delivered on a legacy wire (None means every modern version)"
            )

    def active_at(self, version: str | None) -> bool:
        """Whether the claim applies to a connection speaking ``version``."""
        if version not in MODERN_PROTOCOL_VERSIONS:
            return False
        return self.protocol_versions is None or version in self.protocol_versions


class UnexpectedClaimedResult(RuntimeError):
    """A claimed result arrived on a ``call_tool`` that did not opt in to it; the parsed
    value is :attr:`result`."""

    def __init__(self, result: Any) -> None:
        super().__init__(
            f"Server returned a claimed result ({type(result).__name__}); pass the owning "
            "extension to Client(extensions=[...]) for transparent resolution, or call with "
            "allow_claimed=True and handle the shape. The carried result may reference "
            "server-side state needing cleanup."
        )
        self.result = result


@dataclass(frozen=True, kw_only=True)
class NotificationBinding(Generic[NotifyParamsT]):
    """Hand the server's ``method`` notifications (their params parsed by
    ``params_type``) to ``handler``."""

    method: str
    params_type: type[NotifyParamsT]
    handler: Callable[[NotifyParamsT], Awaitable[None]]


class ClientExtension:
    """Base class of a client extension: set ``identifier`` (``vendor-prefix/name``) and
    override what it contributes."""

    #: Reverse-DNS identifier, declared under ``capabilities.extensions``.
    identifier: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        identifier = cls.__dict__.get("identifier")
        if identifier is not None:
            validate_extension_identifier(identifier, owner=cls.__name__)

    def settings(self) -> dict[str, Any]:
        """What is declared at ``capabilities.extensions[identifier]``."""
        return {}

    def claims(self) -> Sequence[ResultClaim[Any]]:
        """The result shapes this extension claims, with their resolvers."""
        return ()

    def notifications(self) -> Sequence[NotificationBinding[Any]]:
        """The server notifications this extension observes."""
        return ()


class _AdvertiseOnly(ClientExtension):
    def __init__(self, identifier: str, settings: dict[str, Any]) -> None:
        self.identifier = identifier
        self._settings = settings

    def settings(self) -> dict[str, Any]:
        return self._settings


def advertise(identifier: str, settings: dict[str, Any] | None = None) -> ClientExtension:
    """An extension that declares ``identifier`` (with ``settings``) and nothing else."""
    validate_extension_identifier(identifier, owner="advertise")
    return _AdvertiseOnly(identifier, {} if settings is None else settings)


@dataclass(frozen=True)
class FoldedExtensions:
    """What a client's extensions add up to: the claims by result type and the
    notification bindings by method (each once, ValueError otherwise)."""

    extensions: tuple[ClientExtension, ...]
    claims: dict[str, ResultClaim[Any]]
    bindings: dict[str, NotificationBinding[Any]]

    def declared(self, version: str | None) -> dict[str, dict[str, Any]]:
        """``capabilities.extensions`` on a connection speaking ``version``: an extension
        with claims only where one of them is active."""
        out: dict[str, dict[str, Any]] = {}
        for extension in self.extensions:
            claims = extension.claims()
            if claims and not any(c.active_at(version) for c in claims):
                continue
            out[extension.identifier] = dict(extension.settings())
        return out


def fold_extensions(extensions: Sequence[ClientExtension] | None) -> FoldedExtensions:
    """Check ``extensions`` (their identifiers, one claim per result type, one binding per
    notification method) and gather what they contribute."""
    seen: set[str] = set()
    claims: dict[str, ResultClaim[Any]] = {}
    bindings: dict[str, NotificationBinding[Any]] = {}
    for extension in extensions or ():
        identifier = getattr(extension, "identifier", None)
        validate_extension_identifier(identifier, owner=type(extension).__name__)
        if identifier in seen:
            raise ValueError(f"Extension {identifier!r} is given twice")
        seen.add(str(identifier))
        for claim in extension.claims():
            if claim.result_type in claims:
                raise ValueError(f"resultType {claim.result_type!r} is claimed twice")
            claims[claim.result_type] = claim
        for binding in extension.notifications():
            if binding.method in bindings:
                raise ValueError(
                    f"notification method {binding.method!r}; a method can have only one observer"
                )
            bindings[binding.method] = binding
    return FoldedExtensions(tuple(extensions or ()), claims, bindings)
