"""codex-sdk-python (PyPI, a community Python SDK for Codex) as the host of a
`codex app-server` that rpcspec plays, through its AppServerClient: rpcspec
is the `codex` executable (JSON-RPC without "jsonrpc", one message a line),
and this SDK drives it.

    python3 python-codex-sdk-python-host.py PATH

PATH (argv[1]; else the first element of the JSON array in the environment
variable RPCSPEC_SERVER) is the executable the SDK starts as `codex`
(`AppServerOptions(codex_path_override=PATH, auto_initialize=False)`, so
that the adapter gets initialize's result; it runs `PATH app-server`).
Approvals are the SDK's `ApprovalDecisions(command_execution="accept",
file_change="decline")`; a request it has no decision for it queues for
its caller (`session.requests()`), and the adapter leaves it there, as
the SDK does.

The series (spec-cases/client/README.md, "Codex app-server hosts"), each
step bounded by 3 s (asyncio.wait_for):

  connect   client.start(), client.initialize() (then `initialized`);
            result: its userAgent
  thread    client.thread_start(cwd="/"); result: the thread's id
  turn      client.turn_session(id, "rpcspec: hello", approvals=...), its
            notifications to the end, then session.wait(); result:
            {"text": the completed agent messages' text, "status": the
            final turn's status}; failed when wait() returns no turn
  close     client.close(); {"sent": true}

The SDK's: spawning, framing, pairing, the handshake, answering the
server's requests. The adapter's: the steps and their report lines.
"""

import asyncio
import json
import os
import sys

from codex_sdk import AppServerClient, AppServerOptions, ApprovalDecisions

TIMEOUT = 3.0  # every step (the contract's)


def codex_path():
    if len(sys.argv) > 1:
        return sys.argv[1]
    try:
        server = json.loads(os.environ.get("RPCSPEC_SERVER", ""))
        if isinstance(server, list) and server and isinstance(server[0], str):
            return server[0]
    except ValueError:
        pass
    return None


def report(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


async def bounded(step, call, shape):
    """Awaits `call()` for at most TIMEOUT; reports the step."""
    try:
        value = await asyncio.wait_for(call(), TIMEOUT)
    except asyncio.TimeoutError:
        report({"step": step, "failed": f"timed out after {TIMEOUT} s"})
        return None
    except Exception as e:  # noqa: BLE001: what the SDK raised is the report
        report({"step": step, "failed": f"{type(e).__name__}: {e}"})
        return None
    report({"step": step, "result": shape(value)})
    return value


async def main(path):
    # auto_initialize off: start() would send `initialize` itself, and
    # keep its result.
    client = AppServerClient(AppServerOptions(codex_path_override=path, auto_initialize=False))

    async def connect():
        await client.start()
        return await client.initialize()

    await bounded("connect", connect, lambda r: r.get("userAgent"))
    thread = await bounded("thread", lambda: client.thread_start(cwd="/"), lambda r: r["thread"]["id"])
    thread_id = thread["thread"]["id"] if thread else "rpcspec-thread"

    async def turn():
        session = await client.turn_session(
            thread_id,
            "rpcspec: hello",
            approvals=ApprovalDecisions(command_execution="accept", file_change="decline"),
        )
        texts = []
        async for n in session.notifications():
            params = n.params or {}
            if n.method == "item/completed" and (params.get("item") or {}).get("type") == "agentMessage":
                texts.append(params["item"].get("text", ""))
        final = await session.wait()
        if final is None:
            # The SDK's word for a turn that never completed.
            raise RuntimeError("session.wait() returned no final turn")
        return {"text": "".join(texts), "status": final.get("status")}

    await bounded("turn", turn, lambda r: r)
    try:
        await asyncio.wait_for(client.close(), TIMEOUT)
    except Exception:  # noqa: BLE001: the session is over either way
        pass
    report({"step": "close", "sent": True})
    os._exit(0)


if __name__ == "__main__":
    path = codex_path()
    if path is None:
        print("usage: python3 python-codex-sdk-python-host.py PATH (or RPCSPEC_SERVER)", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(path))
