"""aiorpcX (PyPI, module `aiorpcx`) as a JSON-RPC 2.0 client over a child's
stdio, for the rpcspec client role (spec-cases/client/README.md: the adapter
contract). Found through PYTHONPATH, which the manifest sets.

aiorpcx's: the newline framing (NewlineFramer, the session's default),
ids and pairing replies with calls by id (JSONRPCConnection), batches,
error objects (RPCError: code and message), the per-call timeout
(RPCSession.sent_request_timeout, raising TaskTimeout), answering the
server's requests (handler_invocation: -32601 for a method it does not
have) and the stream transport (RSTransport, as connect_rs uses it).
The adapter's: the child process, and a shim that gives RSTransport the
child's stdin and stdout as the one asyncio transport it expects (aiorpcx
has TCP, Unix socket and websocket transports, no pipe one). Report lines
go to stdout, logs to stderr.
"""

import asyncio
import json
import sys

from aiorpcx import ProtocolError, RPCError, RPCSession, SessionKind, TaskTimeout, handler_invocation
from aiorpcx.rawsocket import RSTransport


def log(*args):
    print("[python-aiorpcx]", *args, file=sys.stderr, flush=True)


def report(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


class Client(RPCSession):
    # The library's own timeout for a call (and a batch), 30 s by default.
    sent_request_timeout = 3.0

    async def handle_request(self, request):
        # The documented way to serve: no handlers, so every request the
        # server sends is answered -32601 (notifications get no answer).
        return await handler_invocation(None, request)()


class ChildStdio(asyncio.SubprocessProtocol):
    """The adapter's shim: the child's pipes as RSTransport's transport."""

    def __init__(self):
        self.rs = RSTransport(Client, None, SessionKind.CLIENT)
        self.exited = asyncio.Event()

    # asyncio's side: the child process.
    def connection_made(self, proc):
        self.proc = proc
        self.stdin = proc.get_pipe_transport(0)
        self.rs.connection_made(self)

    def pipe_data_received(self, fd, data):
        self.rs.data_received(data)

    def pipe_connection_lost(self, fd, exc):
        if fd == 1:  # the end of the server's stdout ends the session
            self.rs.connection_lost(exc)

    def pause_writing(self):
        self.rs.pause_writing()

    def resume_writing(self):
        self.rs.resume_writing()

    def process_exited(self):
        self.exited.set()

    # RSTransport's side: what it calls on its asyncio transport.
    def write(self, data):
        self.stdin.write(data)

    def close(self):
        self.stdin.close()

    def abort(self):
        self.proc.kill()

    def is_closing(self):
        return self.stdin.is_closing()

    def get_extra_info(self, name, default=None):
        return default

    def pause_reading(self):
        self.proc.get_pipe_transport(1).pause_reading()

    def resume_reading(self):
        self.proc.get_pipe_transport(1).resume_reading()


def outcome(value):
    """A call's outcome: RPCError is the server's error object; aiorpcx
    raises ProtocolError for a reply it could pair but not read, and that
    is a failure, not the server's error."""
    if isinstance(value, RPCError):
        return {"error": {"code": value.code, "message": value.message}}
    if isinstance(value, TaskTimeout):
        return {"failed": f"timed out after 3 s ({value})"}
    if isinstance(value, asyncio.CancelledError):
        return {"failed": "the connection ended (aiorpcx cancelled the call)"}
    if isinstance(value, ProtocolError):
        return {"failed": f"{type(value).__name__} {value.code}: {value.message}"}
    if isinstance(value, BaseException):
        return {"failed": f"{type(value).__name__}: {value}"}
    return {"result": value}


async def call(session, step, method, params):
    try:
        value = await session.send_request(method, params)
    except (Exception, asyncio.CancelledError) as e:
        value = e
    report({"step": step, **outcome(value)})


async def main(argv):
    loop = asyncio.get_running_loop()
    _, pipes = await loop.subprocess_exec(
        ChildStdio, *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=None
    )
    session = pipes.rs.session

    await call(session, "positional", "subtract", [42, 23])
    await call(session, "named", "subtract", {"minuend": 42, "subtrahend": 23})
    try:
        await session.send_notification("update", [1, 2, 3])
        report({"step": "notify", "sent": True})
    except Exception as e:
        report({"step": "notify", **outcome(e)})
    await call(session, "error", "fail", {"why": "asked"})
    await asyncio.gather(*(call(session, f"echo-{x}", "echo", [x]) for x in "abc"))
    # A batch: its results come back in the order of its requests.
    try:
        async with session.send_batch() as batch:
            batch.add_request("echo", ["x"])
            batch.add_request("echo", ["y"])
            batch.add_notification("update", [4])
        for step, value in zip(["batch-x", "batch-y"], batch.results):
            report({"step": step, **outcome(value)})
    except (Exception, asyncio.CancelledError) as e:
        for step in ["batch-x", "batch-y"]:
            report({"step": step, **outcome(e)})
    await call(session, "after", "subtract", [5, 3])

    # Close the server's stdin and wait for the session to end (the
    # library kills the server after force_after), then for the server.
    await session.close(force_after=2)
    try:
        await asyncio.wait_for(pipes.exited.wait(), 2)
    except asyncio.TimeoutError:
        log("the server did not exit: killing it")
        pipes.proc.kill()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        log("usage: python3 python-aiorpcx.py SERVER [ARGS...]")
        sys.exit(2)
    asyncio.run(main(sys.argv[1:]))
