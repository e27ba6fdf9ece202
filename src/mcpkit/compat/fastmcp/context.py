"""fastmcp's ``Context`` on mcpkit: the same names, served by mcpkit's
:class:`~mcpkit.Context` (:attr:`Context.native`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpkit.compat.mcp.server.mcpserver.context import Context as _McpContext
from mcpkit.compat.mcp.server.mcpserver.context import ReadResourceContents

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp.server import FastMCP
    from mcpkit.server.elicitation import ElicitationResult

__all__ = ["Context", "ResourceResult"]


@dataclass
class ResourceResult:
    """What :meth:`Context.read_resource` returns: ``contents``, each with ``content`` (text
    or bytes) and ``mime_type``."""

    contents: list[ReadResourceContents] = field(default_factory=list)


class Context(_McpContext[Any, Any]):
    """What a fastmcp handler annotated ``ctx: Context`` receives."""

    @property
    def fastmcp(self) -> FastMCP:
        """The :class:`FastMCP` serving this request."""
        return self.mcp_server  # type: ignore[return-value]

    @property
    def lifespan_context(self) -> Any:
        """What the server's lifespan yielded (an empty dict without one)."""
        return self.native.lifespan

    @property
    def session_id(self) -> str | None:
        """Not exposed (None)."""
        return None

    @property
    def client_id(self) -> str | None:
        """The OAuth client of this request, if any."""
        token = self.native.auth
        return getattr(token, "client_id", None) if token is not None else None

    async def log(  # type: ignore[override]
        self,
        message: str,
        level: Any = None,
        logger_name: str | None = None,
        extra: Any = None,
    ) -> None:
        """Send ``notifications/message`` (``{"msg": message, "extra": extra}``; default
        level ``info``)."""
        await self.native.log(level or "info", {"msg": message, "extra": extra}, logger_name)

    async def debug(self, message: str, logger_name: str | None = None, extra: Any = None) -> None:
        """Log at ``debug``."""
        await self.log(message, "debug", logger_name, extra)

    async def info(self, message: str, logger_name: str | None = None, extra: Any = None) -> None:
        """Log at ``info``."""
        await self.log(message, "info", logger_name, extra)

    async def warning(
        self, message: str, logger_name: str | None = None, extra: Any = None
    ) -> None:
        """Log at ``warning``."""
        await self.log(message, "warning", logger_name, extra)

    async def error(self, message: str, logger_name: str | None = None, extra: Any = None) -> None:
        """Log at ``error``."""
        await self.log(message, "error", logger_name, extra)

    async def read_resource(self, uri: Any) -> ResourceResult:  # type: ignore[override]
        """Read one of this server's resources."""
        return ResourceResult(await super().read_resource(uri))

    async def elicit(  # type: ignore[override]
        self, message: str, response_type: Any = None, **_options: Any
    ) -> ElicitationResult[Any]:
        """Ask the user for input shaped by ``response_type`` (a pydantic model or a JSON
        schema dict); ``.action`` and ``.data``."""
        schema = response_type if response_type is not None else {"type": "object"}
        return await self.native.elicit(message, schema)
