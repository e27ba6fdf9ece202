"""``mcp.server.request_state`` on mcpkit (2.x): protection of the multi round-trip
``requestState`` a 2026-07-28 ``tools/call``, ``prompts/get`` or ``resources/read`` hands
back to the client.

:class:`RequestStateBoundary` is a 2.x middleware (``server.middleware.append(...)``): it
seals the ``requestState`` of every ``input_required`` result it sees leave, in an envelope
bound to the request (method, name or URI, a digest of the arguments), the server
(audience), the caller (principal) and a lifetime, and opens the echo of a retry before
the handler runs, so the handler reads back the plain state it wrote. A token that fails
any check is answered as the official SDK answers it: -32602 ``"Invalid or expired
requestState"`` with ``{"reason": "invalid_request_state"}``; the reason goes to the
server's log only. :class:`RequestStateSecurity` is the policy (``keys=`` for the built-in
AES-256-GCM codec, or ``codec=`` of your own; ``ephemeral()`` a key of this process).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import logging
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from mcpkit.compat.mcp.shared.exceptions import MCPError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

__all__ = [
    "AESGCMRequestStateCodec",
    "InvalidRequestState",
    "RequestStateBoundary",
    "RequestStateCodec",
    "RequestStateSecurity",
    "authenticated_principal",
]

logger = logging.getLogger(__name__)

#: The requests whose result may be ``input_required`` (and so carry ``requestState``).
_ROUND_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
_INVALID = -32602
_INTERNAL = -32603
_SKEW = 60.0
_FORMAT = "mk1."
_NONCE = 12
_KID = 4


class InvalidRequestState(Exception):
    """A sealed ``requestState`` did not verify (the message is for the log only)."""


class RequestStateCodec(Protocol):
    """Authenticated encryption of the boundary's envelope: ``unseal(seal(b)) == b``, and
    ``unseal`` raises :class:`InvalidRequestState` for any token it did not mint."""

    def seal(self, payload: bytes) -> str:
        """An opaque URL-safe token protecting ``payload``."""
        ...

    def unseal(self, token: str) -> bytes:
        """The payload of ``token`` (:class:`InvalidRequestState` when it does not verify)."""
        ...


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(raw) != text:  # one spelling per token: no malleable padding or alphabet
        raise ValueError("not canonical base64url")
    return raw


class AESGCMRequestStateCodec:
    """The built-in codec: AES-256-GCM under keys stretched from the given secrets (HKDF,
    SHA-256). The first key seals, every key opens (rotation); each token names its key by
    a short fingerprint, authenticated with the format prefix."""

    def __init__(self, keys: Sequence[bytes | bytearray | str]) -> None:
        secrets: list[bytes] = []
        for i, key in enumerate(keys):
            if isinstance(key, str):
                secrets.append(key.encode())
            elif isinstance(key, bytes | bytearray):
                secrets.append(bytes(key))
            else:
                raise TypeError(
                    f"request-state keys must be bytes, bytearray, or str; keys[{i}] is "
                    f"{type(key).__name__}"
                )
        if not secrets:
            raise ValueError("AESGCMRequestStateCodec requires at least one key")
        for i, secret in enumerate(secrets):
            if len(secret) < 32:
                raise ValueError(
                    f"request-state keys must be at least 32 bytes of secret randomness; "
                    f"keys[{i}] is {len(secret)} bytes"
                )
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        from cryptography.hazmat.primitives.hashes import SHA256
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF

        self._ring: dict[bytes, AESGCM] = {}
        self._sealing = b""
        #: The keys of mcpkit's own ``requestState`` sealing under this codec's (the same
        #: secrets stretched apart): servers given the same secrets open each other's state.
        self.native_keys: tuple[bytes, ...] = tuple(
            HKDF(SHA256(), 32, None, b"mcpkit native request state").derive(secret)
            for secret in secrets
        )
        for i, secret in enumerate(secrets):
            key = HKDF(SHA256(), 32, None, b"mcpkit compat request state").derive(secret)
            kid = hashlib.sha256(b"kid\0" + key).digest()[:_KID]
            if kid in self._ring:
                raise ValueError(f"keys[{i}] duplicates an earlier ring key")
            self._ring[kid] = AESGCM(key)
            if i == 0:
                self._sealing = kid

    def seal(self, payload: bytes) -> str:
        """An opaque token protecting ``payload``."""
        kid = self._sealing
        nonce = os.urandom(_NONCE)
        sealed = self._ring[kid].encrypt(nonce, payload, _FORMAT.encode() + kid)
        return _FORMAT + _b64(kid + nonce + sealed)

    def unseal(self, token: str) -> bytes:
        """The payload of ``token``, or :class:`InvalidRequestState`."""
        from cryptography.exceptions import InvalidTag

        if not token.startswith(_FORMAT):
            raise InvalidRequestState("malformed")
        try:
            raw = _unb64(token[len(_FORMAT) :])
        except ValueError:
            raise InvalidRequestState("malformed") from None
        if len(raw) < _KID + _NONCE + 16:
            raise InvalidRequestState("malformed")
        aead = self._ring.get(raw[:_KID])
        if aead is None:
            raise InvalidRequestState("unknown key")
        try:
            return aead.decrypt(
                raw[_KID : _KID + _NONCE], raw[_KID + _NONCE :], _FORMAT.encode() + raw[:_KID]
            )
        except InvalidTag:
            raise InvalidRequestState("seal") from None


def authenticated_principal(ctx: Any) -> str | None:
    """The caller a state is bound to: the authenticated principal of the request (its
    token's subject, else its client), None without authentication."""
    from mcpkit.owner import principal

    return principal()


class RequestStateSecurity:
    """How ``requestState`` is protected: exactly one of ``keys=`` (the built-in codec;
    ``keys[0]`` seals, every key opens) or ``codec=``; ``ttl`` in seconds;
    ``bind_principal`` (None: not bound to the caller); ``audience`` (None: the
    boundary's ``default_audience``)."""

    codec: RequestStateCodec
    ttl: float
    bind_principal: Callable[[Any], str | None] | None
    audience: str | None

    def __init__(
        self,
        *,
        keys: Sequence[bytes | bytearray | str] | None = None,
        codec: RequestStateCodec | None = None,
        ttl: float = 600.0,
        bind_principal: Callable[[Any], str | None] | None = authenticated_principal,
        audience: str | None = None,
    ) -> None:
        if (keys is None) == (codec is None):
            raise ValueError("RequestStateSecurity takes exactly one of keys= or codec=")
        if not (math.isfinite(ttl) and ttl > 0):
            raise ValueError(f"request-state ttl must be a positive finite number, got {ttl!r}")
        self.codec = AESGCMRequestStateCodec(keys) if keys is not None else codec  # type: ignore[assignment]
        self.ttl = ttl
        self.bind_principal = bind_principal
        self.audience = audience

    @classmethod
    def ephemeral(cls, *, ttl: float = 600.0, audience: str | None = None) -> RequestStateSecurity:
        """A policy under a random key of this process (state does not survive a restart
        or reach another replica)."""
        return cls(keys=[os.urandom(32)], ttl=ttl, audience=audience)


def _refuse(method: str, reason: str) -> NoReturn:
    logger.warning("requestState rejected on %s: %s", method, reason)
    raise MCPError(_INVALID, "Invalid or expired requestState", {"reason": "invalid_request_state"})


def _target(method: str, params: Mapping[str, Any]) -> tuple[str, str]:
    """The request a state belongs to: its name (its URI for a read) and a digest of its
    arguments."""
    args: Any = {}
    if method == "resources/read":
        name = str(params.get("uri", ""))
    else:
        name, args = str(params.get("name", "")), params.get("arguments") or {}
    text = json.dumps(args, sort_keys=True, separators=(",", ":"))
    return name, _b64(hashlib.sha256(text.encode()).digest()[:16])


def _principal_tag(principal: str, salt: bytes) -> bytes:
    data = b"principal\0" + salt + principal.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).digest()[:16]


class RequestStateBoundary:
    """The 2.x middleware sealing ``requestState`` on the way out and opening it on the way
    in (see the module docstring); other methods pass through untouched."""

    def __init__(self, security: RequestStateSecurity, *, default_audience: str | None) -> None:
        self._security = security
        self._audience = security.audience if security.audience is not None else default_audience

    def _principal(self, ctx: Any, fail: Callable[[str], NoReturn]) -> str | None:
        bind = self._security.bind_principal
        try:
            who = bind(ctx) if bind is not None else None
        except Exception:
            logger.exception("bind_principal raised on %s", ctx.method)
            fail("principal binding error")
        if who is not None and not isinstance(who, str):
            fail(f"bind_principal returned {type(who).__name__}")
        return who

    async def __call__(self, ctx: Any, call_next: Callable[..., Any]) -> Any:
        if ctx.method not in _ROUND_METHODS:
            return await call_next(ctx)
        params: Mapping[str, Any] = ctx.params or {}
        if params.get("requestState") is not None:
            plain = self._open(ctx.method, params, ctx)
            ctx = dataclasses.replace(ctx, params={**params, "requestState": plain})
        result = await call_next(ctx)
        return self._sealed(ctx, result)

    def _open(self, method: str, params: Mapping[str, Any], ctx: Any) -> str:
        token = params["requestState"]
        if not isinstance(token, str):
            _refuse(method, "not a string")
        try:
            payload = self._security.codec.unseal(token)
        except InvalidRequestState as exc:
            _refuse(method, str(exc))
        except Exception:
            logger.exception("requestState codec raised on %s", method)
            _refuse(method, "codec error")
        try:
            claims = json.loads(payload)
            state, issued, expires = claims["state"], claims["iat"], claims["exp"]
        except (ValueError, KeyError, TypeError):
            _refuse(method, "malformed")
        if not isinstance(state, str):
            _refuse(method, "malformed")
        now = time.time()
        if not isinstance(issued, int | float) or not issued <= now + _SKEW:
            _refuse(method, "issued in the future")
        if not isinstance(expires, int | float) or not now < expires:
            _refuse(method, "expired")
        name, digest = _target(method, params)
        if [claims.get("method"), claims.get("name"), claims.get("args")] != [method, name, digest]:
            _refuse(method, "issued for another request")
        if claims.get("aud") != self._audience:
            _refuse(method, "audience")

        def fail(reason: str) -> NoReturn:
            _refuse(method, reason)

        who = self._principal(ctx, fail)
        tag = claims.get("who")
        if (tag is None) != (who is None):
            _refuse(method, "principal drift")
        if who is not None:
            try:
                raw = _unb64(tag) if isinstance(tag, str) else b""
            except ValueError:
                raw = b""
            if not hmac.compare_digest(raw[8:], _principal_tag(who, raw[:8])):
                _refuse(method, "principal")
        return state

    def _sealed(self, ctx: Any, result: Any) -> Any:
        if isinstance(result, Mapping):
            if result.get("resultType") != "input_required":
                return result
            state = result.get("requestState")
            if not isinstance(state, str):
                return result
            return {**result, "requestState": self._seal(ctx, state)}
        if getattr(result, "result_type", None) != "input_required":
            return result
        state = getattr(result, "request_state", None)
        if not isinstance(state, str):
            return result
        return result.model_copy(update={"request_state": self._seal(ctx, state)})

    def _seal(self, ctx: Any, state: str) -> str:
        method = ctx.method

        def fail(reason: str) -> NoReturn:
            logger.error("refusing to seal requestState on %s: %s", method, reason)
            raise MCPError(_INTERNAL, "Internal error")

        name, digest = _target(method, ctx.params or {})
        now = time.time()
        claims: dict[str, Any] = {
            "method": method,
            "name": name,
            "args": digest,
            "state": state,
            "iat": now,
            "exp": now + self._security.ttl,
        }
        if self._audience is not None:
            claims["aud"] = self._audience
        who = self._principal(ctx, fail)
        if who is not None:
            salt = os.urandom(8)
            claims["who"] = _b64(salt + _principal_tag(who, salt))
        try:
            return self._security.codec.seal(json.dumps(claims, separators=(",", ":")).encode())
        except Exception:
            logger.exception("requestState codec raised on %s", method)
            raise MCPError(_INTERNAL, "Internal error") from None
