"""mcpkit: the Model Context Protocol for Python, server and client.

Names are imported lazily, so ``import mcpkit`` stays cheap and a stdio server starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit._lazy import export_names, load_export
from mcpkit._version import __version__ as __version__

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "McpkitError": "mcpkit.errors",
    "McpError": "mcpkit.errors",
    "RequestRefused": "mcpkit.errors",
    "HeaderMismatch": "mcpkit.errors",
    "MissingClientCapability": "mcpkit.errors",
    "UnsupportedProtocolVersion": "mcpkit.errors",
    "AuthError": "mcpkit.errors",
    "ConnectionClosed": "mcpkit.errors",
    "ProcessExited": "mcpkit.errors",
    "RequestTimeout": "mcpkit.errors",
    "TransportError": "mcpkit.errors",
    "Client": "mcpkit.client",
    "ClientGroup": "mcpkit.client.group",
    "ServerFailure": "mcpkit.client.group",
    "Timeout": "mcpkit.timeouts",
    "Retry": "mcpkit.client.retry",
    "ClientSession": "mcpkit.session",
    "ServerSession": "mcpkit.session",
    "RequestContext": "mcpkit.session",
    "Session": "mcpkit.session",
    "ProtocolVersion": "mcpkit.versions",
    "Server": "mcpkit.server",
    "Context": "mcpkit.server",
    "Depends": "mcpkit.server",
    "HttpRequest": "mcpkit.http_request",
    "Image": "mcpkit.server",
    "Audio": "mcpkit.server",
    "File": "mcpkit.server",
    "ResourceNotFound": "mcpkit.server.resources",
    "ToolError": "mcpkit.server.errors",
}

if TYPE_CHECKING:  # for type checkers: the same names, re-exported explicitly
    from mcpkit.client import Client as Client
    from mcpkit.client.group import ClientGroup as ClientGroup
    from mcpkit.client.group import ServerFailure as ServerFailure
    from mcpkit.client.retry import Retry as Retry
    from mcpkit.errors import AuthError as AuthError
    from mcpkit.errors import ConnectionClosed as ConnectionClosed
    from mcpkit.errors import HeaderMismatch as HeaderMismatch
    from mcpkit.errors import McpError as McpError
    from mcpkit.errors import McpkitError as McpkitError
    from mcpkit.errors import MissingClientCapability as MissingClientCapability
    from mcpkit.errors import ProcessExited as ProcessExited
    from mcpkit.errors import RequestRefused as RequestRefused
    from mcpkit.errors import RequestTimeout as RequestTimeout
    from mcpkit.errors import TransportError as TransportError
    from mcpkit.errors import UnsupportedProtocolVersion as UnsupportedProtocolVersion
    from mcpkit.http_request import HttpRequest as HttpRequest
    from mcpkit.server import Audio as Audio
    from mcpkit.server import Context as Context
    from mcpkit.server import Depends as Depends
    from mcpkit.server import File as File
    from mcpkit.server import Image as Image
    from mcpkit.server import Server as Server
    from mcpkit.server.errors import ToolError as ToolError
    from mcpkit.server.resources import ResourceNotFound as ResourceNotFound
    from mcpkit.session import ClientSession as ClientSession
    from mcpkit.session import RequestContext as RequestContext
    from mcpkit.session import ServerSession as ServerSession
    from mcpkit.session import Session as Session
    from mcpkit.timeouts import Timeout as Timeout
    from mcpkit.versions import ProtocolVersion as ProtocolVersion

#: Derived from the export table: one list of public names.
__all__ = export_names(_EXPORTS, "__version__")


def __getattr__(name: str) -> Any:
    return load_export(__name__, name, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
