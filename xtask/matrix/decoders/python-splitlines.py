# NDJSON decoder under test: CPython's json.loads over
# `sys.stdin.buffer.read().decode().splitlines()`, the read-it-all idiom
# (str.splitlines also breaks on \r, \v, \f, \x1c-\x1e, U+0085, U+2028,
# U+2029). Tested with CPython 3.11. Contract: spec-cases/decoder/README.md.
import json, sys

terminal = False
for line in sys.stdin.buffer.read().decode("utf-8").splitlines():
    if not line.strip():
        continue
    try:
        v = json.loads(line)
    except ValueError as e:
        print(json.dumps({"error": str(e)}))
        continue
    terminal = isinstance(v, dict) and v.get("type") in ("done", "error")
    print(json.dumps({"value": v}))
print(json.dumps({"end": "complete" if terminal else "interrupted"}))
