# NDJSON decoder under test: CPython's json.loads over
# `sys.stdin.buffer.read().decode().splitlines()`, the read-it-all idiom
# (str.splitlines also breaks on \r, \v, \f, \x1c-\x1e, U+0085, U+2028,
# U+2029). Tested with CPython 3.11. Contract: spec-cases/decoder/README.md,
# including "Many streams in one process" (RPCSPEC_STREAMS=pipes).
import json, os, sys


def decode(data):
    terminal = False
    for line in data.decode("utf-8").splitlines():
        if not line.strip():
            continue
        try:
            v = json.loads(line)
        except ValueError as e:
            print(json.dumps({"error": str(e)}))
            continue
        terminal = isinstance(v, dict) and v.get("type") in ("done", "error")
        print(json.dumps({"value": v}))
    print(json.dumps({"end": "complete" if terminal else "interrupted"}), flush=True)


if os.environ.get("RPCSPEC_STREAMS") == "pipes":
    print(json.dumps({"streams": "pipes"}), flush=True)
    for path in sys.stdin:
        with open(path.rstrip("\n"), "rb") as stream:
            decode(stream.read())
else:
    decode(sys.stdin.buffer.read())
