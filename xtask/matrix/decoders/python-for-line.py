# NDJSON decoder under test: CPython's json.loads over `for line in sys.stdin`
# (text mode: UTF-8, universal newlines, strict decoding), the most common
# way Python code reads JSON Lines. Tested with CPython 3.11.
# Adapter contract: spec-cases/decoder/README.md.
import json, sys

terminal = False
for line in sys.stdin:
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
