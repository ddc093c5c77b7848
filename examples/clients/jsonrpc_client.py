"""A JSON-RPC 2.0 client over a child process's stdio, standard library only
(Python 3.9+), and the rpcspec client-role adapter that drives it
(spec-cases/client/README.md, "The adapter contract"). Messages are
newline-delimited JSON: lines end at b"\\n", and only there.

    rpcspec run --role client -- python3 jsonrpc_client.py {server}
"""

import itertools
import json
import os
import subprocess
import sys
import threading
import time

TIMEOUT = 3.0  # seconds a call may take


def log(*args):
    print("[jsonrpc_client]", *args, file=sys.stderr, flush=True)


class RpcError(Exception):
    """The server answered with an error object (its code, message, data)."""

    def __init__(self, error):
        error = error if isinstance(error, dict) else {"message": f"malformed: {error!r}"}
        super().__init__(error.get("message"))
        self.error = {k: error[k] for k in ("code", "message", "data") if k in error}


class Pending:
    """A call in flight: wait() returns its result, or raises RpcError (the
    server's error), TimeoutError or ConnectionError."""

    def __init__(self, client, id):
        self.client, self.id = client, id
        self.deadline = time.monotonic() + TIMEOUT
        self.done = threading.Event()
        self.value = self.exc = None

    def wait(self):
        if not self.done.wait(max(0.0, self.deadline - time.monotonic())):
            # Settle it ourselves; if the reader got there first, its outcome wins.
            self.client.settle(self.id, exc=TimeoutError(f"timed out after {TIMEOUT:g} s"))
        if self.exc is not None:
            raise self.exc
        return self.value


class Client:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ids = itertools.count(1)
        self.lock = threading.Lock()  # guards pending and closed
        self.write_lock = threading.Lock()  # one whole message per write
        self.pending = {}  # id -> Pending, for the calls in flight
        self.closed = None  # why the connection ended, once it has
        threading.Thread(target=self.read_loop, daemon=True).start()

    def write(self, message):
        data = json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"
        with self.write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def call(self, method, params):
        return self.request(method, params).wait()

    def request(self, method, params):
        """Send a call without waiting for it: returns its Pending."""
        return self.batch([(method, params)])[0]

    def notify(self, method, params):
        if self.closed:
            raise ConnectionError(self.closed)
        self.write({"jsonrpc": "2.0", "method": method, "params": params})  # no id
        return True

    def batch(self, calls, notifications=()):
        """Send calls and notifications in one write (a JSON array if several);
        return the calls' Pendings, in order (already failed if unsent)."""
        with self.lock:
            waiting = [Pending(self, next(self.ids)) for _ in calls]
            self.pending.update((p.id, p) for p in waiting)
            closed = self.closed
        messages = [{"jsonrpc": "2.0", "id": p.id, "method": m, "params": params}
                    for p, (m, params) in zip(waiting, calls)]
        messages += [{"jsonrpc": "2.0", "method": m, "params": p} for m, p in notifications]
        try:
            if closed:
                raise ConnectionError(closed)
            self.write(messages if len(messages) > 1 else messages[0])
        except (OSError, ValueError) as e:  # ConnectionError, BrokenPipeError, stdin closed
            for p in waiting:
                self.settle(p.id, exc=ConnectionError(f"cannot send: {e}"))
        return waiting

    def settle(self, id, value=None, exc=None):
        """End the call `id`, once; False if no call with that id is in flight."""
        with self.lock:
            p = self.pending.pop(id, None)
        if p is None:
            return False
        p.value, p.exc = value, exc
        p.done.set()
        return True

    def read_loop(self):
        """The reader thread: the server's stdout, as bytes, cut into lines."""
        fd, partial = self.proc.stdout.fileno(), []  # the pieces of an unended line
        while chunk := os.read(fd, 1 << 20):  # what is there, up to 1 MiB; b"" at the end
            start = 0
            while (nl := chunk.find(b"\n", start)) >= 0:
                partial.append(chunk[start:nl])
                self.on_line(b"".join(partial))  # joined once: no quadratic copying
                partial, start = [], nl + 1
            partial.append(chunk[start:])
        # What is left in partial had no b"\n": a line cut short, not a message.
        # The stream is over: every call in flight, and every later one, fails.
        with self.lock:
            self.closed = "the server's stdout ended"
            ids = list(self.pending)
        for id in ids:
            self.settle(id, exc=ConnectionError(self.closed))

    def on_line(self, line):
        if line.endswith(b"\r"):
            line = line[:-1]  # a \r\n line end; any other \r is JSON whitespace
        if not line.strip():
            return
        try:
            message = json.loads(line.decode("utf-8"))  # strict: bad UTF-8 raises
        except ValueError as e:  # UnicodeDecodeError or JSONDecodeError: skip the line
            log(f"skipped a line that is not UTF-8 JSON ({e}): {line[:200]!r}")
            return
        for m in message if isinstance(message, list) else [message]:  # a batch's replies
            self.on_message(m)

    def on_message(self, m):
        if not isinstance(m, dict):
            log("skipped a message that is not an object:", repr(m)[:200])
        elif "method" in m:
            if "id" in m:  # a request from the server (a notification needs nothing)
                # Answer from another thread: a write may block on a full pipe,
                # and this thread must keep reading meanwhile.
                threading.Thread(target=self.answer, args=(m["id"],), daemon=True).start()
        elif ("result" in m) == ("error" in m):
            log("skipped a reply without exactly one of result and error:", repr(m)[:200])
        # Our ids are ints, so "7" (or 7.0, or true) is another call's id: test
        # the type, as Python's dict would match 7 == 7.0 and True == 1.
        elif type(m.get("id")) is not int:
            log("ignored a reply to no call of ours:", repr(m)[:200])
        else:
            exc = RpcError(m["error"]) if "error" in m else None
            if not self.settle(m["id"], m.get("result"), exc):  # unknown, duplicate, or late
                log("ignored a reply to no call in flight:", repr(m)[:200])

    def answer(self, id):
        """This client serves no methods: every request gets -32601."""
        error = {"code": -32601, "message": "Method not found"}
        try:
            self.write({"jsonrpc": "2.0", "id": id, "error": error})
        except (OSError, ValueError) as e:  # the server is gone
            log("could not answer the server's request:", e)

    def close(self):
        """Close the server's stdin, give it 2 s to exit, then kill it."""
        try:
            self.proc.stdin.close()
        except OSError:  # the server is gone: nothing to flush to
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def report(step, wait, key="result"):
    """Run one step and write its outcome as one JSON line on stdout."""
    try:
        line = {"step": step, key: wait()}
    except RpcError as e:
        line = {"step": step, "error": e.error}
    except Exception as e:
        line = {"step": step, "failed": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def main():
    client = Client(sys.argv[1:] or json.loads(os.environ["RPCSPEC_SERVER"]))
    report("positional", lambda: client.call("subtract", [42, 23]))
    report("named", lambda: client.call("subtract", {"minuend": 42, "subtrahend": 23}))
    report("notify", lambda: client.notify("update", [1, 2, 3]), key="sent")
    report("error", lambda: client.call("fail", {"why": "asked"}))
    echoes = [client.request("echo", [x]) for x in "abc"]  # all three in flight at once
    for x, p in zip("abc", echoes):
        report(f"echo-{x}", p.wait)
    x, y = client.batch([("echo", ["x"]), ("echo", ["y"])], [("update", [4])])
    report("batch-x", x.wait)
    report("batch-y", y.wait)
    report("after", lambda: client.call("subtract", [5, 3]))
    client.close()


if __name__ == "__main__":
    main()
