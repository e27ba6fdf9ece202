"""Sealed MRTR ``requestState``: what a multi round-trip request remembers between rounds.

The state travels through the client, so it is attacker-controlled input: it is sealed
with AES-256-GCM (``cryptography``), authenticated and encrypted, and bound to the request
it was issued for. :meth:`RequestStateSealer.open` rejects (``-32602`` "Invalid
requestState: ...") a token that was tampered with, sealed by an unknown key, has expired,
or is presented by another principal or on another request (method, tool/prompt name or
resource URI, or arguments).

Keys: a :class:`KeyRing` holds one or more 256-bit keys; the first seals, all open, so a
key is rotated by putting the new one first and dropping the old one after the longest
TTL. Replicas share a ring through the ``MCPKIT_REQUEST_STATE_KEYS`` environment variable
(comma-separated base64 keys, newest first; :func:`generate_key` makes one). Without
configuration a random per-process key is used (:attr:`KeyRing.ephemeral`): state then
only opens on the process that sealed it, which is wrong behind a load balancer.

Token layout (base64url, no padding): ``version (1) | key id (4) | nonce (12) |
ciphertext+tag``; the version byte and key id are authenticated as associated data.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import orjson

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mcpkit.errors import McpError

__all__ = [
    "DEFAULT_MAX_STATE_BYTES",
    "DEFAULT_TTL",
    "KEYS_ENV",
    "KeyRing",
    "RequestBinding",
    "RequestState",
    "RequestStateSealer",
    "arguments_digest",
    "generate_key",
]

KEYS_ENV: Final = "MCPKIT_REQUEST_STATE_KEYS"
#: Seconds a sealed state stays valid.
DEFAULT_TTL: Final = 600.0
#: Largest plaintext sealed (and so, about 4/3 of it, the largest token accepted).
DEFAULT_MAX_STATE_BYTES: Final = 64 * 1024
_FORMAT: Final = 1
_NONCE: Final = 12
_KID: Final = 4
_CLOCK_SKEW: Final = 60.0


def _invalid(reason: str) -> McpError:
    return McpError(-32602, f"Invalid requestState: {reason}")


def generate_key() -> str:
    """A new random 256-bit key, base64: one entry of ``MCPKIT_REQUEST_STATE_KEYS``."""
    return base64.b64encode(os.urandom(32)).decode("ascii")


def _key_id(key: bytes) -> bytes:
    return hashlib.sha256(b"mcpkit request state key id\0" + key).digest()[:_KID]


class KeyRing:
    """Sealing keys, newest first: the first seals, every one opens."""

    def __init__(self, keys: Sequence[bytes], *, ephemeral: bool = False) -> None:
        if not keys:
            raise ValueError("a key ring needs at least one key")
        for key in keys:
            if len(key) != 32:
                raise ValueError("request state keys are 32 bytes (AES-256)")
        self._ids = [_key_id(k) for k in keys]
        if len(set(self._ids)) != len(self._ids):
            raise ValueError("duplicate key in the key ring")
        self._raw = tuple(keys)
        # The ciphers are made on first use: a server that never seals a request state
        # never loads cryptography's bindings (start-up time and memory).
        self._keys: list[tuple[bytes, AESGCM]] | None = None
        self._by_id: dict[bytes, AESGCM] = {}
        #: True when the key was generated for this process (nothing configured).
        self.ephemeral = ephemeral

    @classmethod
    def generate(cls) -> KeyRing:
        """A ring of one random key, marked ephemeral."""
        return cls([os.urandom(32)], ephemeral=True)

    @classmethod
    def from_base64(cls, text: str) -> KeyRing:
        """A ring from comma-separated base64 (standard or URL-safe) keys, newest first."""
        keys: list[bytes] = []
        for part in text.split(","):
            part = part.strip()
            if not part:
                continue
            padded = part + "=" * (-len(part) % 4)
            try:
                keys.append(base64.b64decode(padded.replace("-", "+").replace("_", "/")))
            except (binascii.Error, ValueError):
                raise ValueError("request state keys must be base64") from None
        return cls(keys)

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, variable: str = KEYS_ENV
    ) -> KeyRing:
        """The ring configured in ``variable`` (default ``MCPKIT_REQUEST_STATE_KEYS``), or
        an ephemeral one when it is unset or empty."""
        text = (os.environ if environ is None else environ).get(variable, "").strip()
        return cls.from_base64(text) if text else cls.generate()

    def rotated(self, new_key: bytes, *, keep: int = 2) -> KeyRing:
        """A ring sealing with ``new_key`` that still opens the ``keep - 1`` newest keys."""
        if keep < 1:
            raise ValueError("keep must be at least 1")
        return KeyRing([new_key, *[k for k in self._raw if k != new_key]][:keep])

    def _ciphers(self) -> list[tuple[bytes, AESGCM]]:
        keys = self._keys
        if keys is None:
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM

            keys = self._keys = [
                (kid, AESGCM(k)) for kid, k in zip(self._ids, self._raw, strict=True)
            ]
            self._by_id = dict(keys)
        return keys

    def _sealer(self) -> tuple[bytes, AESGCM]:
        return self._ciphers()[0]

    def _opener(self, kid: bytes) -> AESGCM | None:
        self._ciphers()
        return self._by_id.get(kid)

    def __len__(self) -> int:
        return len(self._raw)


def arguments_digest(arguments: Any) -> str:
    """SHA-256 (hex) of the arguments' canonical JSON (sorted keys)."""
    return hashlib.sha256(orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)).hexdigest()


@dataclass(frozen=True, slots=True)
class RequestBinding:
    """What a state is bound to: who asked, and which request."""

    principal: str | None
    method: str
    #: The tool or prompt name, or the resource URI.
    name: str | None
    #: :func:`arguments_digest` of the request's arguments (``{}`` when absent).
    arguments: str

    @classmethod
    def of(cls, method: str, params: Mapping[str, Any], principal: str | None) -> RequestBinding:
        """The binding of a ``tools/call``/``prompts/get``/``resources/read`` request."""
        name = params.get("uri") if method == "resources/read" else params.get("name")
        args = params.get("arguments")
        return cls(
            principal,
            method,
            name if isinstance(name, str) else None,
            arguments_digest(args if args is not None else {}),
        )


@dataclass(frozen=True, slots=True)
class RequestState:
    """An opened state: the questions of the last round, every answer so far, the
    handler's own data, and the round number."""

    binding: RequestBinding
    #: Keys of the input requests the previous round asked.
    questions: tuple[str, ...] = ()
    #: Validated answers of all earlier rounds, by key.
    answers: Mapping[str, Any] = field(default_factory=dict)
    #: Anything JSON the handler keeps across rounds.
    data: Mapping[str, Any] = field(default_factory=dict)
    #: How many rounds answered ``input_required`` so far (1 after the first).
    round: int = 0
    issued_at: float = 0.0
    ttl: float = DEFAULT_TTL


class RequestStateSealer:
    """Seals and opens :class:`RequestState` with a :class:`KeyRing`."""

    def __init__(
        self,
        keys: KeyRing | None = None,
        *,
        ttl: float = DEFAULT_TTL,
        max_bytes: int = DEFAULT_MAX_STATE_BYTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.keys = keys if keys is not None else KeyRing.from_env()
        self.ttl = ttl
        self.max_bytes = max_bytes
        self._clock = clock

    @property
    def ephemeral(self) -> bool:
        """True when sealing with a per-process random key (warn when serving HTTP)."""
        return self.keys.ephemeral

    def seal(
        self,
        binding: RequestBinding,
        *,
        questions: Sequence[str] = (),
        answers: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
        round: int = 1,
    ) -> str:
        """The opaque ``requestState`` string. ValueError when the plaintext exceeds
        ``max_bytes`` or is not JSON-serializable."""
        payload = {
            "p": binding.principal,
            "m": binding.method,
            "n": binding.name,
            "a": binding.arguments,
            "q": list(questions),
            "r": dict(answers or {}),
            "d": dict(data or {}),
            "k": round,
            "t": self._clock(),
            "l": self.ttl,
        }
        try:
            plain = orjson.dumps(payload)
        except TypeError as exc:
            raise ValueError(f"request state is not JSON-serializable: {exc}") from None
        if len(plain) > self.max_bytes:
            raise ValueError(f"request state of {len(plain)} bytes exceeds {self.max_bytes}")
        kid, aead = self.keys._sealer()
        header = bytes([_FORMAT]) + kid
        nonce = os.urandom(_NONCE)
        token = header + nonce + aead.encrypt(nonce, plain, header)
        return base64.urlsafe_b64encode(token).rstrip(b"=").decode("ascii")

    def open(self, token: object, binding: RequestBinding) -> RequestState:
        """The state sealed in ``token`` for ``binding``, or McpError -32602."""
        if not isinstance(token, str) or not token:
            raise _invalid("must be a non-empty string")
        if len(token) > (self.max_bytes + 64) * 4 // 3 + 4:
            raise _invalid("too large")
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise _invalid("not issued by this server") from None
        if len(raw) < 1 + _KID + _NONCE + 16 or raw[0] != _FORMAT:
            raise _invalid("not issued by this server")
        header, nonce, sealed = (
            raw[: 1 + _KID],
            raw[1 + _KID : 1 + _KID + _NONCE],
            raw[1 + _KID + _NONCE :],
        )
        aead = self.keys._opener(header[1:])
        if aead is None:
            raise _invalid("sealed with an unknown key")
        from cryptography.exceptions import InvalidTag

        try:
            payload = orjson.loads(aead.decrypt(nonce, sealed, header))
        except (InvalidTag, orjson.JSONDecodeError):
            raise _invalid("failed verification") from None
        state = RequestState(
            binding=RequestBinding(payload["p"], payload["m"], payload["n"], payload["a"]),
            questions=tuple(payload["q"]),
            answers=payload["r"],
            data=payload["d"],
            round=payload["k"],
            issued_at=payload["t"],
            ttl=payload["l"],
        )
        now = self._clock()
        if now >= state.issued_at + state.ttl:
            raise _invalid("expired")
        if state.issued_at > now + _CLOCK_SKEW:
            raise _invalid("issued in the future")
        if state.binding.principal != binding.principal:
            raise _invalid("issued to another principal")
        if (state.binding.method, state.binding.name) != (binding.method, binding.name):
            raise _invalid("issued for another request")
        if state.binding.arguments != binding.arguments:
            raise _invalid("issued for other arguments")
        return state
