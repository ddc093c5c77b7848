"""The official MCP Python SDK (PyPI `mcp`, 2.x) as an MCP client over
stdio, for the rpcspec client role (spec-cases/client/README.md: "MCP
clients"). Found through PYTHONPATH, which the manifest sets.

    python3 python-mcp-sdk.py [--mode auto|legacy] SERVER [ARGS...]

The SDK's: `mcp.Client` over `StdioServerParameters`, which is its stdio
transport (`stdio_client`: spawns the server, newline framing, and at the
end closes the server's stdin, waits 2 s, then terminates it) under a
`ClientSession`, plus the connect-time negotiation that only `Client`
offers publicly (a bare ClientSession leaves the choice to its caller).
`--mode auto` (the SDK's default) probes 2026-07-28's `server/discover`
(its own fixed 10 s timeout) and falls back to `initialize` on a server
that refuses it; `--mode legacy` is the `initialize` handshake only
(`ClientSession.initialize()`: offers 2025-11-25, refuses a version
outside 2024-11-05..2025-11-25, then sends `notifications/initialized`).
Also the SDK's: the per-request timeout
(`read_timeout_seconds`, which sends `notifications/cancelled` for a
request it gives up on), answering `ping`, `roots/list` through
`list_roots_callback` (which declares `roots`), `elicitation/create`
through `elicitation_callback` (which declares `elicitation`), and the
result types.
The adapter's: the series and its report lines (stdout), logs (stderr).
"""

import asyncio
import json
import sys
from contextlib import AsyncExitStack

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

TIMEOUT = 3.0  # every call (the contract's)
GIVE_UP = 1.0  # `slow`

STEPS = ["connect", "tools", "echo", "tool-error", "echo-a", "echo-b", "echo-c", "slow", "after"]


def log(*args):
    print("[python-mcp-sdk]", *args, file=sys.stderr, flush=True)


def report(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def unwrap(e):
    """The exception inside the SDK's task groups' ExceptionGroup."""
    while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
        e = e.exceptions[0]
    return e


def failure(e):
    """A step's outcome when the SDK raised. MCPError is the server's error
    object, except the two the SDK makes itself: REQUEST_TIMEOUT (it gave
    up) and CONNECTION_CLOSED (the connection ended), which are `failed`."""
    e = unwrap(e)
    if isinstance(e, MCPError) and e.code not in (REQUEST_TIMEOUT, CONNECTION_CLOSED):
        error = {"code": e.code, "message": e.message}
        if e.data is not None:
            error["data"] = e.data
        return {"error": error}
    if isinstance(e, MCPError):
        return {"failed": f"MCPError {e.code}: {e.message}"}
    return {"failed": f"{type(e).__name__}: {e}"}


def tool_outcome(result):
    """What the contract reports of a tools/call result."""
    text = next((c.text for c in result.content if isinstance(c, types.TextContent)), "")
    return {"text": text, "isError": bool(result.is_error)}


async def step(name, call, shape):
    try:
        value = await call
    except Exception as e:  # noqa: BLE001 - every failure is the step's outcome
        log(f"{name}: {type(unwrap(e)).__name__}: {unwrap(e)}")
        report({"step": name, **failure(e)})
        return
    report({"step": name, "result": shape(value)})


async def list_roots(context):
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/rpcspec", name="rpcspec")])


async def elicit(context, params):
    """Every form accepted as presented (the contract): the SDK fills in no
    defaults of its own."""
    return types.ElicitResult(action="accept", content={})


async def main(mode, argv):
    server = StdioServerParameters(command=argv[0], args=argv[1:])
    async with AsyncExitStack() as stack:
        try:
            client = await stack.enter_async_context(
                Client(
                    server,
                    mode=mode,
                    read_timeout_seconds=TIMEOUT,
                    list_roots_callback=list_roots,
                    elicitation_callback=elicit,
                )
            )
        except Exception as e:  # noqa: BLE001
            log(f"connect: {type(unwrap(e)).__name__}: {unwrap(e)}")
            report({"step": "connect", **failure(e)})
            for name in STEPS[1:]:
                report({"step": name, "failed": "not connected"})
            return
        log("negotiated", client.protocol_version)
        report({"step": "connect", "result": client.protocol_version})

        await step("tools", client.list_tools(), lambda r: [t.name for t in r.tools])
        await step("echo", client.call_tool("echo", {"text": "hi"}), tool_outcome)
        await step("tool-error", client.call_tool("fail", {}), tool_outcome)
        await asyncio.gather(
            *(step(f"echo-{x}", client.call_tool("echo", {"text": x}), tool_outcome) for x in "abc")
        )
        await step("slow", client.call_tool("slow", {"ms": 10000}, read_timeout_seconds=GIVE_UP), tool_outcome)
        await step("after", client.call_tool("echo", {"text": "after"}), tool_outcome)
        # Leaving the stack closes the session: the SDK closes the server's
        # stdin and waits for it to exit.


if __name__ == "__main__":
    args = sys.argv[1:]
    mode = "auto"
    if args[:1] == ["--mode"] and len(args) >= 2:
        mode, args = args[1], args[2:]
    if not args:
        log("usage: python3 python-mcp-sdk.py [--mode auto|legacy] SERVER [ARGS...]")
        sys.exit(2)
    asyncio.run(main(mode, args))
    sys.stdout.flush()
