"""The ACP adapter (spec-cases/client/README.md, "ACP clients") for the
official Python SDK's client side (`agent-client-protocol` on PyPI): an
editor whose user says yes, declaring fs and terminal, making the ACP series
against the agent `{server}` and reporting each step on stdout.

    rpcspec run --role client --dialect acp -- python3 python-acp-sdk.py {server}
"""
import asyncio
import json
import os
import subprocess
import sys
from typing import Any

from acp import spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

TIMEOUT = 3.0
CANCEL_ME = "rpcspec: cancel me"


def report(line: dict) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


class Editor:
    """The client's side: answers the agent as a user who says yes."""

    def __init__(self) -> None:
        self.conn = None
        self.text = ""
        self.cancel_of: str | None = None
        self.cancelled = False
        self.terminals: dict[str, tuple[str, int | None]] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def cancel_turn(self, session_id: str) -> None:
        if self.cancel_of == session_id and not self.cancelled:
            self.cancelled = True
            await self.conn.cancel(session_id=session_id)

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        await self.cancel_turn(session_id)
        if self.cancelled:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        allow = next((o for o in options if str(o.kind).startswith("allow")), options[0])
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=allow.option_id))

    async def session_update(self, session_id, update, **kwargs):
        if getattr(update, "session_update", None) == "agent_message_chunk":
            text = getattr(update.content, "text", None)
            if text is not None:
                self.text += text
        await self.cancel_turn(session_id)

    async def read_text_file(self, session_id, path, line=None, limit=None, **kwargs):
        return ReadTextFileResponse(content="rpcspec: a file\n")

    async def write_text_file(self, session_id, path, content, **kwargs):
        return WriteTextFileResponse()

    async def create_terminal(self, session_id, command, args=None, env=None, cwd=None, output_byte_limit=None, **kwargs):
        run = subprocess.run([command, *(args or [])], cwd=cwd, capture_output=True, text=True, timeout=2)
        terminal_id = f"rpcspec-terminal-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = (run.stdout + run.stderr, run.returncode)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id, terminal_id, **kwargs):
        output, code = self.terminals[terminal_id]
        return TerminalOutputResponse(output=output, truncated=False, exit_status=TerminalExitStatus(exit_code=code))

    async def wait_for_terminal_exit(self, session_id, terminal_id, **kwargs):
        return WaitForTerminalExitResponse(exit_code=self.terminals[terminal_id][1])

    async def kill_terminal(self, session_id, terminal_id, **kwargs):
        return None

    async def release_terminal(self, session_id, terminal_id, **kwargs):
        self.terminals.pop(terminal_id, None)
        return None


async def outcome(step: str, call, shown=lambda r: r) -> Any:
    """Runs `call` with the contract's timeout and reports what it came to."""
    try:
        result = await asyncio.wait_for(call, TIMEOUT)
    except asyncio.TimeoutError:
        report({"step": step, "failed": f"no reply within {TIMEOUT} s"})
        return None
    except Exception as e:  # noqa: BLE001 - the contract reports any failure
        code = getattr(e, "code", None)
        if isinstance(code, int):
            error = {"code": code, "message": str(getattr(e, "message", e))}
            data = getattr(e, "data", None)
            if data is not None:
                error["data"] = data
            report({"step": step, "error": error})
        else:
            report({"step": step, "failed": f"{type(e).__name__}: {e}"})
        return None
    if hasattr(result, "model_dump"):
        result = result.model_dump(by_alias=True, exclude_none=True)
    report({"step": step, "result": shown(result)})
    return result


async def main() -> None:
    argv = sys.argv[1:] or json.loads(os.environ["RPCSPEC_SERVER"])
    editor = Editor()
    async with spawn_agent_process(editor, argv[0], *argv[1:]) as (conn, _process):
        editor.conn = conn
        init = await outcome(
            "initialize",
            conn.initialize(
                protocol_version=1,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
                ),
                client_info=Implementation(name="rpcspec-python-client", version="1"),
            ),
            lambda r: r.get("protocolVersion"),
        )
        session = await outcome(
            "session", conn.new_session(cwd=os.getcwd(), mcp_servers=[]), lambda r: r.get("sessionId")
        )
        session_id = (session or {}).get("sessionId", "")
        del init

        async def turn(step: str, text: str) -> None:
            editor.text = ""
            editor.cancel_of = session_id if text == CANCEL_ME else None
            editor.cancelled = False
            await outcome(
                step,
                conn.prompt(session_id=session_id, prompt=[text_block(text)]),
                lambda r: {"stopReason": r.get("stopReason"), "text": editor.text},
            )

        await turn("prompt", "rpcspec: hello")
        await outcome("error", conn.ext_method("rpcspec/fail", {}))
        await asyncio.gather(
            *(outcome(f"echo-{t}", conn.ext_method("rpcspec/echo", {"text": t})) for t in "abc")
        )
        await turn("cancel", CANCEL_ME)
        await turn("after", "rpcspec: again")


if __name__ == "__main__":
    asyncio.run(main())
