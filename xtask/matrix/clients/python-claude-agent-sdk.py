"""The Claude Agent SDK for Python (PyPI `claude-agent-sdk`) as the client
of a Claude Code CLI that rpcspec plays: rpcspec is the `claude` executable
(stream-json on stdio plus the control protocol), and this SDK drives it.
Found through PYTHONPATH, which the manifest sets.

    python3 python-claude-agent-sdk.py PATH

PATH (argv[1]; else the first element of the JSON array in the environment
variable RPCSPEC_SERVER) is the executable the SDK starts as the CLI
(`ClaudeAgentOptions.cli_path`). The SDK appends its own flags
(`--output-format stream-json --verbose --system-prompt "" --permission-prompt-tool
stdio --mcp-config {...} --input-format stream-json`) and sets
CLAUDE_CODE_ENTRYPOINT=sdk-py; it runs no `PATH -v`, and leaves the CLI's
stderr on this process's stderr.

The options: `can_use_tool` allows `Read` with the input plus
`"rpcspec": "allowed"` and denies every other tool with the message
`"rpcspec: denied"`; one `PreToolUse` hook (no matcher) answering `{}`; one
in-process MCP server `rpcspec` (`create_sdk_mcp_server`) with one tool
`echo` ({"text": string} -> a text block with that text). Nothing else.

The series, each step after the one before has ended, each reported on one
line of stdout as soon as it ends (`result`, `error` when the CLI answered a
control request with an error, `failed` otherwise, with why); every step is
bounded by 3 s, and a failed step does not stop the series:

    connect          ClaudeSDKClient(options).connect() (spawn + initialize);
                     result: the names of get_server_info()["commands"]
                     (null when the initialize response has no list)
    turn             query("rpcspec: hello"), then receive_response() up to
                     the ResultMessage; result: {text, result, is_error}
    permission-mode  set_permission_mode("acceptEdits"); result: null
    model            set_model("rpcspec-model"); result: null
    interrupt        interrupt(); result: null
    turn-2           as turn, with "rpcspec: again"
    close            disconnect() (closes stdin, waits 5 s for the CLI to
                     exit, then SIGTERM, 5 s, SIGKILL); {"sent": true}

The SDK's: spawning, framing, parsing (message_parser), the control
protocol both ways and its errors. The adapter's: the series and its report
lines (stdout), logs (stderr).
"""

import asyncio
import json
import os
import sys

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    TextBlock,
    create_sdk_mcp_server,
    tool,
)

TIMEOUT = 3.0  # every step (the contract's)


def log(*args):
    print("[claude-agent-sdk-py]", *args, file=sys.stderr, flush=True)


def report(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def cli_path():
    if len(sys.argv) > 1:
        return sys.argv[1]
    try:
        server = json.loads(os.environ.get("RPCSPEC_SERVER", ""))
        if isinstance(server, list) and server and isinstance(server[0], str):
            return server[0]
    except ValueError:
        pass
    return None


class ControlError(Exception):
    """The CLI answered a control request with an error."""


async def can_use_tool(tool_name, tool_input, context):
    if tool_name == "Read":
        return PermissionResultAllow(updated_input={**tool_input, "rpcspec": "allowed"})
    return PermissionResultDeny(message="rpcspec: denied")


async def pre_tool_use(hook_input, tool_use_id, context):
    return {}


@tool("echo", "Echo the text back", {"text": str})
async def echo(args):
    return {"content": [{"type": "text", "text": args["text"]}]}


def options(path):
    return ClaudeAgentOptions(
        cli_path=path,
        can_use_tool=can_use_tool,
        hooks={"PreToolUse": [HookMatcher(hooks=[pre_tool_use])]},
        mcp_servers={"rpcspec": create_sdk_mcp_server("rpcspec", tools=[echo])},
    )


def control(coro):
    """A control request's outcome: the SDK raises a bare Exception carrying
    the CLI's error text for an error response (query.py), its own
    CLIConnectionError/ProcessError or 'Control request timeout: ...' for
    the rest; only the bare one is the CLI's `error`."""

    async def run():
        try:
            await coro
        except Exception as e:  # noqa: BLE001
            if type(e) is Exception and not str(e).startswith("Control request timeout"):
                raise ControlError(str(e)) from e
            raise
        return None

    return run()


orphans = set()  # steps that timed out and did not unwind in time


async def step(name, coro):
    """Run one step, bounded by TIMEOUT, and report it. A step that times
    out is reported at once, then cancelled, and the next step waits (up to
    TIMEOUT more) for it to unwind: a connect() cancelled mid-way runs the
    SDK's disconnect(), and a step racing that cleanup would report the race
    rather than the SDK (two disconnects at once fail in the transport)."""
    task = asyncio.ensure_future(coro)
    done, _ = await asyncio.wait({task}, timeout=TIMEOUT)
    if not done:
        log(f"{name}: timed out")
        report({"step": name, "failed": f"timed out after {TIMEOUT:g} s"})
        task.cancel()
        await asyncio.wait({task}, timeout=TIMEOUT)
        if not task.done():
            log(f"{name}: still unwinding")
            orphans.add(task)
            task.add_done_callback(orphans.discard)
        return
    e = task.exception()
    if e is None:
        report({"step": name, **task.result()})
    elif isinstance(e, ControlError):
        log(f"{name}: error: {e}")
        report({"step": name, "error": str(e)})
    else:
        log(f"{name}: {type(e).__name__}: {e}")
        report({"step": name, "failed": str(e) or type(e).__name__})


async def main(path):
    client = ClaudeSDKClient(options(path))

    async def connect():
        await client.connect()
        info = await client.get_server_info()
        commands = (info or {}).get("commands")
        if not isinstance(commands, list):
            return {"result": None}
        return {"result": [c.get("name") if isinstance(c, dict) else None for c in commands]}

    async def turn(prompt):
        await client.query(prompt)
        text = []
        async for message in client.receive_response():
            if isinstance(message, AssistantMessage):
                text.extend(b.text for b in message.content if isinstance(b, TextBlock))
            elif isinstance(message, ResultMessage):
                return {"result": {"text": "".join(text), "result": message.result, "is_error": message.is_error}}
        raise RuntimeError("the stream ended before a result")

    async def call(coro):
        await control(coro)
        return {"result": None}

    async def close():
        await client.disconnect()
        return {"sent": True}

    await step("connect", connect())
    await step("turn", turn("rpcspec: hello"))
    await step("permission-mode", call(client.set_permission_mode("acceptEdits")))
    await step("model", call(client.set_model("rpcspec-model")))
    await step("interrupt", call(client.interrupt()))
    await step("turn-2", turn("rpcspec: again"))
    await step("close", close())
    if orphans:
        await asyncio.wait(set(orphans), timeout=TIMEOUT)


if __name__ == "__main__":
    path = cli_path()
    if not path:
        log("usage: python3 python-claude-agent-sdk.py PATH (or RPCSPEC_SERVER='[\"PATH\", ...]')")
        sys.exit(2)
    asyncio.run(main(path))
    sys.stdout.flush()
    sys.exit(0)
