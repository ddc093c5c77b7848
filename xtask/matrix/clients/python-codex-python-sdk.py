"""codex-python-sdk (PyPI, a community Python SDK for the Codex app-server)
as the host of a `codex app-server` that rpcspec plays: rpcspec is the
`codex` executable (JSON-RPC without "jsonrpc", one message a line), and
this SDK drives it.

    python3 python-codex-python-sdk.py PATH

PATH (argv[1]; else the first element of the JSON array in the environment
variable RPCSPEC_SERVER) is the executable the SDK starts as `codex`
(`codex_command=PATH`; it runs `PATH app-server --enable guardian_approval
-c web_search="live"`). The SDK's approval hooks: `on_command_approval`
accepts, `on_file_change_approval` declines; a method it has no hook for
it answers as it does (-32601).

The series (spec-cases/client/README.md, "Codex app-server hosts"), each
step bounded by 3 s (asyncio.wait_for):

  connect   client.connect() (initialize, then `initialized`); skipped: the
            SDK keeps initialize's result to itself
  thread    client.thread_start(params={"cwd": "/"}); result: the id
  turn      client.responses_events(prompt="rpcspec: hello", thread_id=id)
            to its end; result: {"text": the completed agent messages'
            text, "status": turn/completed's status}; the SDK raises for a
            failed turn (reported as failed)
  close     client.close(); {"sent": true}

The SDK's: spawning, framing, pairing, the handshake, answering the
server's requests. The adapter's: the steps and their report lines.
"""

import asyncio
import json
import os
import sys

from codex_python_sdk import AsyncCodexAgenticClient

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
    report({"step": step, **shape(value)})
    return value


async def main(path):
    client = AsyncCodexAgenticClient(
        codex_command=path,
        on_command_approval=lambda params: {"decision": "accept"},
        on_file_change_approval=lambda params: {"decision": "decline"},
    )
    await bounded(
        "connect",
        client.connect,
        lambda _: {"skipped": "the SDK keeps initialize's result to itself"},
    )
    thread = await bounded(
        "thread",
        lambda: client.thread_start(params={"cwd": "/"}),
        lambda r: {"result": r["thread"]["id"]},
    )
    thread_id = thread["thread"]["id"] if thread else "rpcspec-thread"

    async def turn():
        texts, status = [], None
        async for ev in client.responses_events(prompt="rpcspec: hello", thread_id=thread_id):
            params = ev.raw.get("params") or {}
            if ev.type == "item/completed" and (params.get("item") or {}).get("type") == "agentMessage":
                texts.append(params["item"].get("text", ""))
            if ev.type == "turn/completed":
                status = (params.get("turn") or {}).get("status")
        return {"text": "".join(texts), "status": status}

    await bounded("turn", turn, lambda r: {"result": r})
    try:
        await asyncio.wait_for(client.close(), TIMEOUT)
    except Exception:  # noqa: BLE001: the session is over either way
        pass
    report({"step": "close", "sent": True})
    os._exit(0)


if __name__ == "__main__":
    path = codex_path()
    if path is None:
        print("usage: python3 python-codex-python-sdk.py PATH (or RPCSPEC_SERVER)", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(path))
