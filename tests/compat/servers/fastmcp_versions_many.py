"""fastmcp's several versions of one name: tools, resources, templates and prompts, the
highest listed and served by default, another served to a request's
``_meta.fastmcp.version``. The argument picks how the server is put together: ``plain``,
``disable`` (the highest tool version disabled), ``filter`` / ``filter_strict`` (a
``VersionFilter``, unversioned components kept or not), ``mount`` (served by a parent under
a namespace)."""

import os
import sys

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import FastMCP
from fastmcp.server.transforms import VersionFilter
from fastmcp.utilities.versions import VersionSpec

mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
child = FastMCP("versions")


@child.tool(version="1.0")
def calc(x: int) -> int:
    """Echo x (v1)."""
    return x


@child.tool
def plain() -> str:
    return "plain"


@child.tool(version="2.0", tags={"beta"})
def calc(x: int, y: int = 0) -> int:  # noqa: F811
    """Add (v2)."""
    return x + y + 1000


@child.tool(version="v3.0")
def calc(x: int, y: int = 0) -> int:  # noqa: F811
    return x + y + 3000


@child.resource("res://a", version="1")
def res_one() -> str:
    return "a1"


@child.resource("res://a", version="10")
def res_ten() -> str:
    return "a10"


@child.resource("res://plain")
def res_plain() -> str:
    return "plain"


@child.resource("tpl://{id}", version="1")
def tpl_one(id: str) -> str:
    return f"t1 {id}"


@child.resource("tpl://{id}", version="2")
def tpl_two(id: str) -> str:
    return f"t2 {id}"


@child.prompt(version="1.0")
def pr(text: str) -> str:
    return f"p1 {text}"


@child.prompt(version="2.0")
def pr(text: str, style: str = "short") -> str:  # noqa: F811
    return f"p2 {style} {text}"


mcp = child
if mode == "disable":
    mcp.disable(names={"calc"}, version=VersionSpec(eq="3.0"))
    mcp.disable(tags={"beta"})
elif mode == "filter":
    mcp.add_transform(VersionFilter(version_lt="3.0"))
elif mode == "filter_strict":
    mcp.add_transform(VersionFilter(version_gte="2.0", include_unversioned=False))
elif mode == "mount":
    mcp = FastMCP("parent")
    mcp.mount(child, namespace="ns")

if __name__ == "__main__":
    mcp.run()
