"""The MCP Python SDK's low-level `Server` over its own stdio transport, for
the rpcspec matrix (run with `--dialect mcp`; the runner opens each case with
the initialize handshake from spec-cases/preambles.toml).

The SDK does the framing: `mcp.server.stdio.stdio_server` reads and writes
the lines itself, so this adapter only builds the server. Of the JSON-RPC
2.0 specification's example methods only the notifications can be
registered as written: MCP params are objects and MCP results are objects,
so `subtract` and `sum` (positional params, number results) and `get_data`
(an array result) cannot exist on an MCP server; the manifest lists them
under `without`, which skips the cases that need them.
"""

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def nothing(ctx, params):
    return None


server = Server("rpcspec-matrix")
for name in ("update", "notify_hello", "notify_sum"):
    server.add_notification_handler(name, types.NotificationParams, nothing)


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
