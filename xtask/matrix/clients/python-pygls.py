"""pygls (PyPI; the framework under jedi-language-server, ruff's former
server and pytest-lsp) as a JSON-RPC client over a child's stdio in
Content-Length framing, for the rpcspec client role
(spec-cases/client/README.md: the adapter contract; `rpcspec run --role
client --framing content-length`). Found through PYTHONPATH, which the
manifest sets.

pygls's: pygls.client.JsonRPCClient (start_io spawns the server and reads
its stdout with pygls's Content-Length reader, run_async), request and
notification objects, ids (UUID strings), pairing replies by id
(send_request_async), error objects (JsonRpcException: code, message,
data), failing the calls in flight when the server exits, and answering
the server's requests (-32601 for a method it has no feature for).
The adapter's: the 3 s timeout (asyncio.wait_for), closing the server's
stdin at the end (JsonRPCClient.stop waits for the server to exit and does
not close it), and killing a server still alive 2 s later.
It has no batches: both batch steps are `skipped`. Report lines go to
stdout, logs to stderr.
"""

import asyncio
import json
import sys

from pygls.client import JsonRPCClient
from pygls.exceptions import JsonRpcException

TIMEOUT = 3.0


def log(*args):
    print("[python-pygls]", *args, file=sys.stderr, flush=True)


def report(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def outcome(e):
    if isinstance(e, JsonRpcException):
        error = {"code": e.code, "message": e.message}
        if e.data is not None:
            error["data"] = e.data
        return {"error": error}
    if isinstance(e, asyncio.TimeoutError):
        return {"failed": f"no reply within {TIMEOUT:g} s"}
    return {"failed": f"{type(e).__name__}: {e}"}


async def call(client, step, method, params):
    try:
        result = await asyncio.wait_for(
            client.protocol.send_request_async(method, params), TIMEOUT
        )
        report({"step": step, "result": result})
    except Exception as e:  # the library's and the server's failures alike
        report({"step": step, **outcome(e)})


async def main(argv):
    if not argv:
        log("usage: python-pygls.py SERVER [ARGS...]")
        return 2
    client = JsonRPCClient()
    await client.start_io(argv[0], *argv[1:])
    await call(client, "positional", "subtract", [42, 23])
    await call(client, "named", "subtract", {"minuend": 42, "subtrahend": 23})
    try:
        client.protocol.notify("update", [1, 2, 3])
        report({"step": "notify", "sent": True})
    except Exception as e:
        report({"step": "notify", "failed": f"{type(e).__name__}: {e}"})
    await call(client, "error", "fail", {"why": "asked"})
    await asyncio.gather(
        call(client, "echo-a", "echo", ["a"]),
        call(client, "echo-b", "echo", ["b"]),
        call(client, "echo-c", "echo", ["c"]),
    )
    for step in ("batch-x", "batch-y"):
        report({"step": step, "skipped": "pygls has no batches"})
    await call(client, "after", "subtract", [5, 3])
    # Close the server's stdin, then let the client stop (it waits for the
    # server's exit); kill a server still alive after 2 s.
    try:
        client.protocol.writer.close()
    except Exception as e:
        log("closing the server's stdin:", e)
    try:
        await asyncio.wait_for(client.stop(), 2.0)
    except asyncio.TimeoutError:
        log("the server did not exit within 2 s of its stdin closing: killing it")
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
