from fastmcp import FastMCP
from mcp.types import ToolAnnotations

mcp = FastMCP("docs")


@mcp.tool
def google(city: str, days: int = 1) -> str:
    """Forecast for a city.

    More words here.

    Args:
        city: The city name
            spanning two lines.
        days (int): How many days.

    Returns:
        The forecast.
    """
    return city


@mcp.tool(annotations=ToolAnnotations(title="Annotated Title", readOnlyHint=True))
def numpy_style(x: int) -> int:
    """Double it.

    Parameters
    ----------
    x : int
        The number.
    """
    return 2 * x


@mcp.tool
def sphinx_style(y: str) -> str:
    """Echo.

    :param y: what to echo
    :returns: y
    """
    return y


@mcp.tool
def nodoc(z: int) -> int:
    return z


@mcp.prompt
def ask(topic: str) -> str:
    """Ask about a topic.

    Args:
        topic: The topic.
    """
    return topic


if __name__ == "__main__":
    mcp.run(show_banner=False)
