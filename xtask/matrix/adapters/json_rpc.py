"""json-rpc (PyPI, module `jsonrpc`) behind a stdio NDJSON loop, for the
rpcspec matrix.

Registers the methods of the JSON-RPC 2.0 specification's examples as
`rpcspec serve` has them. Each line (bytes, split on b"\\n" only) goes to
`JSONRPCResponseManager.handle` unchanged; its answer is written with "\\n"
and flushed, and nothing is written when it returns None (notifications).
"""

import numbers
import sys

from jsonrpc import Dispatcher, JSONRPCResponseManager
from jsonrpc.exceptions import JSONRPCDispatchException, JSONRPCInvalidParams


def _numbers(*xs):
    if not all(isinstance(x, numbers.Number) and not isinstance(x, bool) for x in xs):
        raise JSONRPCDispatchException(JSONRPCInvalidParams.CODE, JSONRPCInvalidParams.MESSAGE)


def subtract(minuend, subtrahend):
    _numbers(minuend, subtrahend)
    return minuend - subtrahend


def sum_(*terms):
    _numbers(*terms)
    return sum(terms)


def nothing(*args, **kwargs):
    return None


dispatcher = Dispatcher()
dispatcher["subtract"] = subtract
dispatcher["sum"] = sum_
dispatcher["get_data"] = lambda: ["hello", 5]
dispatcher["update"] = nothing
dispatcher["notify_hello"] = nothing
dispatcher["notify_sum"] = nothing

for line in sys.stdin.buffer:
    response = JSONRPCResponseManager.handle(line.removesuffix(b"\n"), dispatcher)
    if response is not None:
        sys.stdout.write(response.json + "\n")
        sys.stdout.flush()
