"""jsonrpcserver (PyPI) behind a stdio NDJSON loop, for the rpcspec matrix
(named so that it does not shadow the package).

Registers the methods of the JSON-RPC 2.0 specification's examples as
`rpcspec serve` has them. Each line (bytes, split on b"\\n" only) goes to
`dispatch` unchanged; its answer is written with "\\n" and flushed, and
nothing is written when it returns "" (notifications).
"""

import numbers
import sys

from jsonrpcserver import InvalidParams, Success, dispatch


def _number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


def subtract(minuend, subtrahend):
    if not (_number(minuend) and _number(subtrahend)):
        return InvalidParams("expected numbers")
    return Success(minuend - subtrahend)


def sum_(*terms):
    if not all(_number(t) for t in terms):
        return InvalidParams("expected numbers")
    return Success(sum(terms))


def nothing(*args, **kwargs):
    return Success(None)


METHODS = {
    "subtract": subtract,
    "sum": sum_,
    "get_data": lambda: Success(["hello", 5]),
    "update": nothing,
    "notify_hello": nothing,
    "notify_sum": nothing,
}

for line in sys.stdin.buffer:
    answer = dispatch(line.removesuffix(b"\n"), methods=METHODS)
    if answer:
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()
