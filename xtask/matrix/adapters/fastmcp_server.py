"""A small MCP server on FastMCP, for the rpcspec matrix (`--dialect mcp`):
a Python MCP server as FastMCP's documentation writes one, with the same
tools, resource and prompt as `mcp_server.py` (the SDK's own MCPServer), so
the two frameworks meet the same checks. `targets/fastmcp.toml` names the
tool calls the checks may make. No adapter logic: FastMCP does the framing,
the lifecycle and the errors.
"""

import anyio
from fastmcp import Context, FastMCP

server = FastMCP("rpcspec-matrix-fastmcp")


@server.tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@server.tool
def fail() -> str:
    """Always fails, as a tool."""
    raise ValueError("this tool always fails")


@server.tool
async def slow(ms: int, ctx: Context) -> str:
    """Take `ms` milliseconds, reporting progress four times."""
    for step in range(1, 5):
        await anyio.sleep(ms / 4000)
        await ctx.report_progress(step, 4)
    return "done"


@server.resource("rpcspec://static/greeting")
def greeting() -> str:
    """A static greeting."""
    return "hello"


@server.prompt
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    server.run("stdio", show_banner=False)
