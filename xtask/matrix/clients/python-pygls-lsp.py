"""pygls (PyPI) as a language client, for the rpcspec client role's LSP
series (`rpcspec run --role client --dialect lsp`; the adapter contract in
spec-cases/client/README.md). Found through PYTHONPATH, which the manifest
sets.

pygls's: pygls.lsp.client.LanguageClient (start_io spawns the server; its
Content-Length reader and writer; typed lsprotocol messages), its
initialize_async, initialized, text_document_hover_async, shutdown_async
and exit, send_request_async for the scripted server's own `rpcspec/…`
methods, pairing by id, JsonRpcException errors, and its features for the
server's requests: the adapter declares `window.workDoneProgress`,
`workspace.configuration` and `workspace.codeLens.refreshSupport` and
registers a feature for each (and for window/showMessageRequest), as a
user of pygls does.
The adapter's: the 3 s timeout (asyncio.wait_for; 1 s for `slow`, which
pygls does not cancel), and a server still alive 2 s after `exit` killed.
Report lines go to stdout, logs to stderr.
"""

import asyncio
import json
import os
import sys

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

TIMEOUT = 3.0


def log(*args):
    print("[python-pygls-lsp]", *args, file=sys.stderr, flush=True)


def report(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def outcome(e, timeout=TIMEOUT):
    if isinstance(e, JsonRpcException):
        error = {"code": e.code, "message": e.message}
        if e.data is not None:
            error["data"] = e.data
        return {"error": error}
    if isinstance(e, asyncio.TimeoutError):
        return {"failed": f"no reply within {timeout:g} s"}
    return {"failed": f"{type(e).__name__}: {e}"}


def plain(value):
    """A result as JSON: lsprotocol's attrs classes unstructured, and the
    named tuples pygls makes of the objects of an untyped result back into
    objects."""
    if hasattr(value, "__attrs_attrs__"):
        return client.protocol._converter.unstructure(value)
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


async def step(name, awaitable, shape=plain, timeout=TIMEOUT):
    try:
        result = await asyncio.wait_for(awaitable, timeout)
        report({"step": name, "result": shape(result)})
        return True
    except Exception as e:  # the library's and the server's failures alike
        report({"step": name, **outcome(e, timeout)})
        return False


client = LanguageClient("rpcspec-pygls-adapter", "1")


@client.feature(types.WORKSPACE_CONFIGURATION)
def configuration(ls, params):
    return [None for _ in params.items]


@client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
def progress_create(ls, params):
    return None


@client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
def code_lens_refresh(ls, params):
    return None


@client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
def show_message_request(ls, params):
    return None


async def main(argv):
    if not argv:
        log("usage: python-pygls-lsp.py SERVER [ARGS...]")
        return 2
    await client.start_io(argv[0], *argv[1:])
    params = types.InitializeParams(
        process_id=os.getpid(),
        capabilities=types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            workspace=types.WorkspaceClientCapabilities(
                configuration=True,
                code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            ),
        ),
    )
    name = lambda r: r.server_info.name if r.server_info else None  # noqa: E731
    if not await step("initialize", client.initialize_async(params), name):
        for s in ("hover", "error", "echo-a", "echo-b", "echo-c", "slow", "after", "shutdown"):
            report({"step": s, "failed": "not initialized"})
        return await end()
    client.initialized(types.InitializedParams())
    hover = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri="file:///rpcspec/a.txt"),
        position=types.Position(line=0, character=0),
    )
    await step("hover", client.text_document_hover_async(hover), lambda h: h.contents.value if h else None)
    send = client.protocol.send_request_async
    await step("error", send("rpcspec/fail", {}))
    await asyncio.gather(
        step("echo-a", send("rpcspec/echo", {"text": "a"})),
        step("echo-b", send("rpcspec/echo", {"text": "b"})),
        step("echo-c", send("rpcspec/echo", {"text": "c"})),
    )
    await step("slow", send("rpcspec/slow", {"ms": 10000}), timeout=1.0)
    await step("after", send("rpcspec/echo", {"text": "after"}))
    await step("shutdown", client.shutdown_async(None))
    try:
        client.exit(None)
    except RuntimeError as e:  # the server is gone: pygls has stopped
        log("exit:", e)
    return await end()


async def end():
    try:
        await asyncio.wait_for(client.stop(), 2.0)
    except asyncio.TimeoutError:
        log("the server did not exit within 2 s of `exit`: killing it")
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
