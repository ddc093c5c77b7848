"""A JSON-RPC 2.0 server over stdio NDJSON in the Python standard library
only: the server `cargo xtask bench` times `rpcspec run` against (the
speed bars of BENCHMARKS.md), as a new user's first server would be.

It has the JSON-RPC 2.0 specification's example methods, as `rpcspec serve`
does. Options:

  --startup SECONDS   sleep before reading anything (a slow start-up)
  --delay MS          sleep before each reply (a slow handler)
  --threads           answer each request on its own thread, so replies
                      come back out of order (what JSON-RPC allows)
"""

import json
import sys
import threading
import time

PARSE, INVALID, NOT_FOUND, PARAMS = -32700, -32600, -32601, -32602
MESSAGES = {
    PARSE: "Parse error",
    INVALID: "Invalid Request",
    NOT_FOUND: "Method not found",
    PARAMS: "Invalid params",
}


class Refused(Exception):
    def __init__(self, code):
        self.code = code


def numbers(*xs):
    for x in xs:
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise Refused(PARAMS)
    return xs


def subtract(params):
    if isinstance(params, list) and len(params) == 2:
        a, b = numbers(*params)
    elif isinstance(params, dict) and set(params) == {"minuend", "subtrahend"}:
        a, b = numbers(params["minuend"], params["subtrahend"])
    else:
        raise Refused(PARAMS)
    return a - b


def total(params):
    if not isinstance(params, list):
        raise Refused(PARAMS)
    return sum(numbers(*params))


def get_data(params):
    if params not in (None, [], {}):
        raise Refused(PARAMS)
    return ["hello", 5]


def nothing(params):
    return None


METHODS = {
    "subtract": subtract,
    "sum": total,
    "get_data": get_data,
    "update": nothing,
    "notify_hello": nothing,
    "notify_sum": nothing,
    "foobar": None,
}


def error(code, id_):
    return {"jsonrpc": "2.0", "error": {"code": code, "message": MESSAGES[code]}, "id": id_}


def valid_id(message):
    id_ = message.get("id")
    if id_ is None or isinstance(id_, str):
        return True
    return isinstance(id_, (int, float)) and not isinstance(id_, bool)


def answer(message):
    """The reply to one request object, or None for a notification."""
    if not isinstance(message, dict):
        return error(INVALID, None)
    if not valid_id(message):
        return error(INVALID, None)
    id_ = message.get("id")
    notification = "id" not in message
    method, params = message.get("method"), message.get("params")
    if (
        message.get("jsonrpc") != "2.0"
        or not isinstance(method, str)
        or ("params" in message and not isinstance(params, (list, dict)))
        or not set(message) <= {"jsonrpc", "method", "params", "id"}
    ):
        return error(INVALID, id_)
    handler = METHODS.get(method)
    if handler is None:
        return None if notification else error(NOT_FOUND, id_)
    try:
        result = handler(params)
    except Refused as refused:
        return None if notification else error(refused.code, id_)
    return None if notification else {"jsonrpc": "2.0", "result": result, "id": id_}


def handle(line):
    """The reply text to one line, or None."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        # Nested past Python's recursion limit: refused as a parser limit
        # (RFC 8259 §9) rather than dying, so that the fuzz speed bar
        # measures rpcspec's loop, not Python's start-up after each crash.
        return json.dumps(error(PARSE, None))
    if isinstance(message, list):
        if not message:
            return json.dumps(error(INVALID, None))
        replies = [r for r in map(answer, message) if r is not None]
        return json.dumps(replies) if replies else None
    reply = answer(message)
    return None if reply is None else json.dumps(reply)


def main(argv):
    startup, delay, threads = 0.0, 0.0, False
    args = iter(argv)
    for arg in args:
        if arg == "--startup":
            startup = float(next(args))
        elif arg == "--delay":
            delay = float(next(args)) / 1000
        elif arg == "--threads":
            threads = True
        else:
            sys.exit(f"unknown option {arg}")
    time.sleep(startup)
    out = sys.stdout.buffer
    lock = threading.Lock()

    def reply(line):
        text = handle(line)
        if delay:
            time.sleep(delay)
        if text is not None:
            with lock:
                out.write(text.encode() + b"\n")
                out.flush()

    workers = []
    for raw in sys.stdin.buffer:
        line = raw.removesuffix(b"\n").removesuffix(b"\r")
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            line = None
        if line is None:
            # Not UTF-8, so not JSON: a parse error.
            with lock:
                out.write(json.dumps(error(PARSE, None)).encode() + b"\n")
                out.flush()
        elif not line.strip(" \t\r\n"):
            # Blank: JSON's whitespace only (str.strip() would also take
            # U+2028 and its kind, which JSON does not count as space).
            continue
        elif threads:
            worker = threading.Thread(target=reply, args=(line,))
            worker.start()
            workers.append(worker)
        else:
            reply(line)
    for worker in workers:
        worker.join()


if __name__ == "__main__":
    main(sys.argv[1:])
