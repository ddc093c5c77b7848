"""claudestream (PyPI `claudestream`, a community Python library that drives
Claude Code over stream-json; not Anthropic's) as the client of a Claude
Code CLI that rpcspec plays: rpcspec is the `claude` executable
(stream-json on stdio plus the control protocol), and this library drives
it through its `AsyncSession`. Found through PYTHONPATH.

    python3 python-claudestream.py PATH

PATH (argv[1]; else the first element of the JSON array in the environment
variable RPCSPEC_SERVER) is the executable the library starts as the CLI
(`SessionConfig.binary`). It first runs `PATH -v` (a version check, 2 s),
then starts `PATH --output-format stream-json --input-format stream-json
--permission-prompt-tool stdio --allowedTools mcp__rpcspec__* --verbose
--include-partial-messages`; the CLI's stderr is piped and logged.

The options, as far as the library has them: `intercept_permissions=True`,
so each `can_use_tool` comes to the turn's event stream as a
`PermissionRequest`, which the adapter answers with `respond_allow` (`Read`:
the input plus `"rpcspec": "allowed"`) or `respond_deny` (every other tool:
`"rpcspec: denied"`); one tool `echo` on the SDK-hosted MCP server `rpcspec`
(a `Tool`, {"text": string} -> its text, which the library wraps in one text
block). `SessionConfig` requires `model` and `profile`: `model=""` (no
`--model` flag) and `profile="default"` (no environment added). What the
library cannot do:

  * a hook callback: `SessionConfig.hooks` is copied raw into `initialize`,
    and a `hook_callback` request is surfaced as a `HookEvent` with no way
    to answer it; so no hook is registered (the hook scenario is SKIPPED).
  * report `initialize`'s answer: the library reads it during start-up and
    keeps it to itself, so `connect`, once the session is open, is
    reported `skipped` (a start-up that fails is `failed`).

Hosting a tool makes start-up a handshake of the library's own: it writes
`initialize` and `mcp_set_servers` (both with `request_id` only inside
`request`), takes the first two `control_response`s whatever their ids and
subtypes, then waits (10 s a read) for the CLI to send the MCP server's
`initialize` and `tools/list` before it returns. Claude Code 2.1.327 sends
them after `mcp_set_servers`, and so does rpcspec's scripted CLI.

The series, each step after the one before has ended, each reported on one
line of stdout as soon as it ends (`result`, `error` when the CLI answered a
control request with an error, `failed` otherwise, with why); every step is
bounded by 3 s, and a failed step does not stop the series:

    connect          AsyncSession(config).__aenter__() (version check,
                     spawn, the start-up handshake); `skipped` (above)
    turn             send("rpcspec: hello"), iterated to its Result,
                     answering each PermissionRequest on the way;
                     result: {text, result, is_error}
    permission-mode  set_permission_mode("acceptEdits"); result: null
    model            set_model("rpcspec-model"); result: null
    interrupt        interrupt(); result: null
    turn-2           as turn, with "rpcspec: again"
    close            close() (closes stdin, waits 5 s for the CLI to exit,
                     then SIGTERM, 5 s, SIGKILL); {"sent": true}

The library's: spawning, framing, parsing, the control protocol both ways
and its errors (a refused control request raises ClaudeStreamError
"Control request failed: <the CLI's text>"). The adapter's: the series,
the permission decisions, and its report lines (stdout), logs (stderr).
"""

import asyncio
import json
import logging
import os
import sys

from claudestream import AsyncSession, SessionConfig
from claudestream._async_session import ClaudeStreamError
from claudestream.events import AssistantText, PermissionRequest, Result
from claudestream._tools import Tool

TIMEOUT = 3.0  # every step (the contract's)
CONTROL_ERROR = "Control request failed: "  # _async_session.py, _resolve_control


def log(*args):
    print("[claudestream]", *args, file=sys.stderr, flush=True)


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


def echo(text: str) -> str:
    return text


ECHO = Tool(
    name="echo",
    description="Echo the text back",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    handler=echo,
    server="rpcspec",
)


def config(path):
    return SessionConfig(
        model="",
        profile="default",
        binary=path,
        intercept_permissions=True,
        tools=[ECHO],
    )


orphans = set()  # steps that timed out and did not unwind in time


async def step(name, coro):
    """Run one step, bounded by TIMEOUT, and report it. A step that times
    out is reported at once, then cancelled, and the next step waits (up to
    TIMEOUT more) for it to unwind."""
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
    elif isinstance(e, ClaudeStreamError) and str(e).startswith(CONTROL_ERROR):
        log(f"{name}: error: {e}")
        report({"step": name, "error": str(e)})
    else:
        log(f"{name}: {type(e).__name__}: {e}")
        report({"step": name, "failed": str(e) or type(e).__name__})


async def main(path):
    session = AsyncSession(config(path))

    async def connect():
        await session.__aenter__()
        return {"skipped": "claudestream opened the session but keeps initialize's answer to itself (read in AsyncSession._start, not exposed)"}

    async def turn(prompt):
        text = []
        async for event in session.send(prompt):
            if isinstance(event, AssistantText):
                text.append(event.text)
            elif isinstance(event, PermissionRequest):
                if event.tool_name == "Read":
                    await session.respond_allow(event.request_id, {**event.tool_input, "rpcspec": "allowed"})
                else:
                    await session.respond_deny(event.request_id, "rpcspec: denied")
            elif isinstance(event, Result):
                return {"result": {"text": "".join(text), "result": event.result, "is_error": event.is_error}}
        raise RuntimeError("the stream ended before a result")

    async def call(coro):
        await coro
        return {"result": None}

    async def close():
        await session.close()
        return {"sent": True}

    await step("connect", connect())
    await step("turn", turn("rpcspec: hello"))
    await step("permission-mode", call(session.set_permission_mode("acceptEdits")))
    await step("model", call(session.set_model("rpcspec-model")))
    await step("interrupt", call(session.interrupt()))
    await step("turn-2", turn("rpcspec: again"))
    await step("close", close())
    if orphans:
        await asyncio.wait(set(orphans), timeout=TIMEOUT)


if __name__ == "__main__":
    logging.basicConfig(level=os.environ.get("RPCSPEC_ADAPTER_LOG", "WARNING"), stream=sys.stderr)
    path = cli_path()
    if not path:
        log("usage: python3 python-claudestream.py PATH (or RPCSPEC_SERVER='[\"PATH\", ...]')")
        sys.exit(2)
    asyncio.run(main(path))
    sys.stdout.flush()
    sys.exit(0)
