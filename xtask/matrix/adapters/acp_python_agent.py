"""A minimal ACP agent on the official Python SDK (`agent-client-protocol`
on PyPI): version 1, no login, an echo for a model. What rpcspec tests is
the SDK's own handling of the protocol (framing, pairing, errors, unknown
methods, cancellation); the agent only gives it sessions and turns.

    python3 acp_python_agent.py
"""
import asyncio
import uuid
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    run_agent,
    text_block,
    update_agent_message,
)
from acp.interfaces import Client


class EchoAgent:
    """Only what it implements: the SDK answers the rest (a class derived
    from the SDK's `Agent` protocol would inherit its stubs, which answer
    every method with `null`)."""

    def __init__(self) -> None:
        self.conn: Client | None = None
        self.sessions: set[str] = set()

    def on_connect(self, conn: Client) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, client_capabilities=None,
                         client_info=None, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION)

    async def new_session(self, cwd: str, mcp_servers=None, **kwargs: Any) -> NewSessionResponse:
        session = uuid.uuid4().hex
        self.sessions.add(session)
        return NewSessionResponse(session_id=session)

    async def prompt(self, prompt, session_id: str, **kwargs: Any) -> PromptResponse:
        if session_id not in self.sessions:
            raise RequestError.invalid_params({"sessionId": session_id})
        for block in prompt:
            text = getattr(block, "text", None) or getattr(block, "uri", "")
            await self.conn.session_update(session_id, update_agent_message(text_block(text)))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


if __name__ == "__main__":
    asyncio.run(run_agent(EchoAgent()))
