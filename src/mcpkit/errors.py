"""The exceptions mcpkit raises, all rooted at :class:`McpkitError`.

The hierarchy (``except`` the node that fits; every leaf is catchable by its parents)::

    McpkitError                      anything mcpkit raises on purpose
    ├── McpError                     a JSON-RPC error: code, message, data; ``from_peer``:
    │   │                            the peer answered with it (else raised on this side,
    │   │                            by a handler: the error to answer with)
    │   ├── RequestRefused           refused locally, nothing was sent: the lifecycle or the
    │   │   │                        peer's capabilities forbid the request (the code is the
    │   │   │                        one the peer would answer, -32600 or -32601)
    │   │   ├── client.errors.TaskNotSupported
    │   │   └── server.errors.ClientCapabilityError
    │   ├── RequestTimeout           no response in time (also a TimeoutError; -32001)
    │   ├── HeaderMismatch           -32020: HTTP headers disagree with the body (2026-07-28)
    │   ├── MissingClientCapability  -32021: the request needs a client capability it lacks;
    │   │                            ``required`` says which (2026-07-28)
    │   ├── UnsupportedProtocolVersion
    │   │                            -32022: ``supported`` lists what the server speaks,
    │   │                            ``requested`` what was asked (2026-07-28)
    │   ├── RateLimited              -31429: too many requests from this client;
    │   │                            ``retry_after`` seconds (a server's rate limit)
    │   ├── Overloaded               -31503: a concurrency limit is reached and its queue
    │   │                            is full (a server's per-tool or in-flight limit)
    │   ├── ResponseTooLarge         -31413: a result over the server's size limit
    │   ├── client.modern.ServerNotStarted
    │   │                            a stdio server read nothing of its stdin in time
    │   ├── redis.backend.StoreUnavailable
    │   │                            the shared store (Redis) cannot serve the request
    │   └── client.errors.*          InvalidServerResponse (OutputSchemaError), ToolError,
    │                                URLElicitationRequired
    ├── TransportError               the connection to the peer failed
    │   ├── transports.http.client.HttpStatusError
    │   │                            the HTTP server answered an error status
    │   └── ConnectionClosed         closed while a request waited (or before sending)
    │       ├── ProcessExited        the stdio server process exited: returncode, stderr_tail
    │       └── client.targets.TargetError
    │                                the client's target cannot be connected to as given
    ├── AuthError                    authorization could not be obtained or was refused
    │   ├── auth.cimd.ClientMetadataError
    │   │                            a client ID metadata document was refused (its URL,
    │   │                            the fetch or the document)
    │   ├── auth.oauth_proxy.UpstreamError
    │   │                            the OAuth proxy's identity provider refused the code
    │   │                            or the user's identity could not be read
    │   └── auth.errors.OAuthError   an OAuth failure: IssuerMismatchError,
    │                                AuthorizationServerMismatchError, ResourceMismatchError,
    │                                and the verifiers' InvalidTokenError,
    │                                InvalidDPoPProofError, UseDPoPNonceError,
    │                                VerifierUnavailableError (auth.verification)
    ├── FetchRefused                 a URL a server named was not fetched: the fetch policy
    │   │                            refused it; ``url`` and ``rule`` say which and why
    │   └── client.icons.IconRefused an icon's URL or answer (also an IconError)
    ├── CommandLineError             a failure the command line reports to its user
    │   └── cli.errors.CliError      (and its Declined)
    ├── client.mrtr.MrtrError        a multi round-trip request could not be completed:
    │                                InputRoundsExceeded, UnsupportedInputRequest
    ├── client.group.ServerFailure   one server of a ClientGroup failed
    ├── client.group.NameCollision   two servers of a group give one name (also ValueError)
    ├── client.group.UnknownName     no server of the group has the name (also LookupError)
    ├── server.resources.ResourceNotFound
    │                                raised by a resource function: nothing at the URI
    ├── tasks.TaskLimitError         the task store is full of tasks it may not evict
    ├── transports.http.serve.ServerNotStarted
    │                                the HTTP server could not start (a RuntimeError too)
    ├── transports.http.workers.WorkersUnavailable
    │                                worker processes cannot be used here (no os.fork, or
    │                                a bad count; a RuntimeError too)
    ├── client.skills.SkillsNotSupported
    │                                the server does not offer the Skills extension
    │                                (also a RuntimeError)
    ├── server.state.StateOwnerMissing
    │                                ``ctx.state`` in a request that belongs to nobody (no
    │                                session, no principal; also a RuntimeError)
    ├── server.visibility.VisibilityNotShared
    │                                ``ctx.enable``/``ctx.disable`` on a shared store
    │                                without ``session_visibility=True`` (a RuntimeError)
    └── invalid values given to mcpkit (each also a ValueError):
        client.apps.AppToolRefused, client.apps.NotAnApp, client.icons.IconError,
        http_headers.InvalidHeaderAnnotation, json_schema.InvalidSchemaError,
        json_schema.UnsupportedDialectError, json_schema.SchemaTooLargeError (an
        InvalidSchemaError), redis.keys.StoreSecretMissing, server.elicitation.ElicitationError,
        server.state.StateValueError, server.uri_template.URITemplateError, skills.SkillFormatError,
        client.skills.InvalidSkillEntry, client.skills.SkillVerificationError,
        settings.SettingsError (a setting of mcpkit run or the project file)

Exceptions used for control flow inside mcpkit, which never reach a caller, stay outside
the tree (server.mrtr.InputRequired, server.tasks_extension.StartTask,
server.schema.ArgumentsError, transports.http.asgi.BodyTooLarge and BodyTooSlow,
transports.http.sse.SSELineTooLong, and private classes); so do
the compat layer's, which mirror the hierarchy of the SDK they imitate.

An error the peer sent is turned into an exception by :meth:`McpError.from_error`, which
picks the class by code (:data:`ERROR_CLASSES`); codes not in the table give a plain
:class:`McpError`. mcpkit never raises an ``ExceptionGroup`` to its caller.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

__all__ = [
    "ERROR_CLASSES",
    "HTTP_ERROR",
    "AuthError",
    "CommandLineError",
    "ConnectionClosed",
    "FetchRefused",
    "HeaderMismatch",
    "McpError",
    "McpkitError",
    "MissingClientCapability",
    "Overloaded",
    "ProcessExited",
    "RateLimited",
    "RequestRefused",
    "RequestTimeout",
    "ResponseTooLarge",
    "TransportError",
    "UnsupportedProtocolVersion",
]


#: The code of the JSON-RPC error a client's HTTP transport answers a request with when the
#: HTTP exchange itself failed: ``data.status`` (an HTTP error status, with
#: ``data.retryAfterMs`` when the server sent ``Retry-After``) or ``data.exception`` (the
#: connection failed; the name of the HTTP library's exception).
HTTP_ERROR: Final = -32000


class McpkitError(Exception):
    """The root of every exception mcpkit raises on purpose."""


class McpError(McpkitError):
    """A JSON-RPC error: raised by handlers to answer with an error, and raised to callers
    when the peer answered with one.

    ``code`` is the JSON-RPC error code, ``message`` a short human-readable text, ``data`` any
    JSON value with details (for example ``{"uri": ...}`` for -32002). ``from_peer`` is True
    when the peer answered with this error (built by :meth:`from_error`), False when it was
    raised on this side (by a handler, or a refusal before anything was sent).
    """

    #: True when the peer sent this error (set by :meth:`from_error`).
    from_peer: bool = False

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    @classmethod
    def from_error(cls, error: Any) -> McpError:
        """Build from a received ``error`` member, tolerating malformed ones; a code with a
        class of its own in :data:`ERROR_CLASSES` gives that class."""
        if isinstance(error, dict):
            code = error.get("code")
            message = error.get("message")
            code = code if isinstance(code, int) and not isinstance(code, bool) else -32603
            message = message if isinstance(message, str) else "Malformed error from peer"
            special = ERROR_CLASSES.get(code)
            if special is not None:
                exc: McpError = special(message, error.get("data"))
            else:
                exc = cls(code, message, error.get("data"))
        else:
            exc = cls(-32603, "Malformed error from peer", error)
        exc.from_peer = True
        return exc

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code}, {self.message!r})"

    def __str__(self) -> str:
        return f"{self.message} (code {self.code})"


class RequestRefused(McpError):
    """A request or notification refused before anything was sent: the lifecycle phase or
    the capabilities the peer declared do not allow it. ``code`` is what the peer would
    have answered (-32600 before initialization, -32601 for a missing capability)."""


class RequestTimeout(McpError, TimeoutError):
    """A request got no response in time; mcpkit has sent ``notifications/cancelled`` for it."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(-32001, f"Request {method!r} timed out after {timeout:g}s")
        self.method = method
        self.timeout = timeout


class _CodedError(McpError):
    """An MCP error with a fixed code (the code-table classes)."""

    CODE: ClassVar[int]
    DEFAULT_MESSAGE: ClassVar[str]

    def __init__(self, message: str | None = None, data: Any = None) -> None:
        super().__init__(self.CODE, message or self.DEFAULT_MESSAGE, data)


class HeaderMismatch(_CodedError):
    """-32020: an HTTP header (``Mcp-Method``, ``Mcp-Name``, ``MCP-Protocol-Version``)
    disagrees with the JSON-RPC body."""

    CODE = -32020
    DEFAULT_MESSAGE = "Header mismatch"


class MissingClientCapability(_CodedError):
    """-32021: the request needs a client capability the client did not declare;
    ``required`` is what the server named (``data["requiredCapabilities"]``), or None."""

    CODE = -32021
    DEFAULT_MESSAGE = "Missing required client capability"

    @classmethod
    def build(cls, required: dict[str, Any]) -> MissingClientCapability:
        """The error a server answers with, naming the client capabilities it needs."""
        return cls(None, {"requiredCapabilities": required})

    @property
    def required(self) -> Any:
        """The capabilities the server says the request needs (as sent), or None."""
        data = self.data
        return data.get("requiredCapabilities") if isinstance(data, dict) else None


class UnsupportedProtocolVersion(_CodedError):
    """-32022: the server does not speak the protocol version of the request;
    ``supported`` lists the versions it does, ``requested`` echoes the one asked for."""

    CODE = -32022
    DEFAULT_MESSAGE = "Unsupported protocol version"

    @classmethod
    def build(cls, requested: str | None, supported: list[str]) -> UnsupportedProtocolVersion:
        """The error a server answers with (its ``data`` as the spec shapes it)."""
        data: dict[str, Any] = {"supported": list(supported)}
        if requested is not None:
            data["requested"] = requested
        return cls(None, data)

    @property
    def supported(self) -> list[str]:
        """The versions the server supports (empty when it did not say)."""
        data = self.data
        value = data.get("supported") if isinstance(data, dict) else None
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    @property
    def requested(self) -> str | None:
        """The version the request asked for, as the server echoed it."""
        data = self.data
        value = data.get("requested") if isinstance(data, dict) else None
        return value if isinstance(value, str) else None


class RateLimited(_CodedError):
    """-31429: too many requests from this client; ``data.retryAfterMs`` says when to retry.

    A server's policy, not a protocol error: its code lies outside the range reserved for
    JSON-RPC and MCP, and keeps the HTTP status it mirrors (429) in its last digits."""

    CODE = -31429
    DEFAULT_MESSAGE = "Rate limit exceeded"

    @property
    def retry_after(self) -> float | None:
        """Seconds until a request would be accepted (None when the server did not say)."""
        ms = self.data.get("retryAfterMs") if isinstance(self.data, dict) else None
        return ms / 1000 if isinstance(ms, int | float) and not isinstance(ms, bool) else None


class Overloaded(_CodedError):
    """-31503: a concurrency limit is reached and no more callers may wait; try later."""

    CODE = -31503
    DEFAULT_MESSAGE = "Server overloaded"


class ResponseTooLarge(_CodedError):
    """-31413: the result exceeds the server's response-size limit (``data.size`` and
    ``data.limit``, bytes)."""

    CODE = -31413
    DEFAULT_MESSAGE = "Response too large"


#: JSON-RPC error code -> the exception class an error with that code from the peer becomes.
ERROR_CLASSES: dict[int, type[_CodedError]] = {
    cls.CODE: cls
    for cls in (
        HeaderMismatch,
        MissingClientCapability,
        UnsupportedProtocolVersion,
        RateLimited,
        Overloaded,
        ResponseTooLarge,
    )
}


class TransportError(McpkitError):
    """The connection to the peer failed."""


class ConnectionClosed(TransportError):
    """The connection closed while a request was waiting for its response (or before sending)."""

    def __init__(self, message: str = "Connection closed") -> None:
        super().__init__(message)
        self.message = message


class ProcessExited(ConnectionClosed):
    """The server process of a stdio connection exited; carries its exit code and stderr tail."""

    def __init__(self, returncode: int | None, stderr_tail: str = "") -> None:
        msg = (
            f"Server process exited with code {returncode}"
            if returncode is not None
            else "Server process closed its output and is exiting"
        )
        if stderr_tail:
            msg += f"; last stderr output:\n{stderr_tail.rstrip()}"
        super().__init__(msg)
        self.returncode = returncode
        self.stderr_tail = stderr_tail


class AuthError(McpkitError):
    """Authorization could not be obtained, or the peer refused the credentials."""


class FetchRefused(McpkitError):
    """A URL a server made the client fetch (OAuth metadata, a JWKS, an icon, ...) was refused
    by the client's :class:`~mcpkit.fetch.FetchPolicy`, or its answer was: ``url`` is the
    URL, ``rule`` the rule (``scheme``, ``host``, ``credentials``, ``address``, ``size``,
    ``encoding``, ``deadline``)."""

    def __init__(self, message: str, *, url: str, rule: str) -> None:
        super().__init__(message)
        self.url = url
        self.rule = rule


class CommandLineError(McpkitError):
    """A failure the command line reports to its user (one line, perhaps a hint)."""
