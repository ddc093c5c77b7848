# NDJSON decoder under test: CPython's json.loads over `for line in sys.stdin`
# (text mode as sys.stdin has it on Unix: the locale's encoding and error
# handler, lines split at \n only), the most common way Python code reads
# JSON Lines. Tested with CPython 3.11.
# Adapter contract: spec-cases/decoder/README.md, including "Many streams
# in one process": offered RPCSPEC_STREAMS=pipes, it decodes stream after
# stream from named pipes, each opened as sys.stdin is.
import json, os, sys


def decode(stream):
    terminal = False
    for line in stream:
        if not line.strip():
            continue
        try:
            v = json.loads(line)
        except ValueError as e:
            print(json.dumps({"error": str(e)}), flush=True)
            continue
        terminal = isinstance(v, dict) and v.get("type") in ("done", "error")
        print(json.dumps({"value": v}), flush=True)
    print(json.dumps({"end": "complete" if terminal else "interrupted"}), flush=True)


if os.environ.get("RPCSPEC_STREAMS") == "pipes":
    print(json.dumps({"streams": "pipes"}), flush=True)
    for path in sys.stdin:
        with open(path.rstrip("\n"), encoding=sys.stdin.encoding,
                  errors=sys.stdin.errors, newline="\n") as stream:
            decode(stream)
else:
    decode(sys.stdin)
