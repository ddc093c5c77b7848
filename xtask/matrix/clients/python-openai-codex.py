"""openai-codex (PyPI, OpenAI's Python SDK for the Codex app-server) as the
host of a `codex app-server` that rpcspec plays: rpcspec is the `codex`
executable (JSON-RPC without "jsonrpc", one message a line), and this SDK
drives it.

    python3 python-openai-codex.py PATH

PATH (argv[1]; else the first element of the JSON array in the environment
variable RPCSPEC_SERVER) is the executable the SDK starts as `codex`
(`CodexConfig(codex_bin=PATH)`; it runs `PATH app-server --listen
stdio://`). The public `Codex` class accepts every approval and offers no
hook, so the adapter uses the SDK's own `openai_codex.client.CodexClient`
with an `approval_handler`: it accepts command executions, declines file
changes, and for anything else returns what the SDK's default handler
returns (`_default_approval_handler`: `{}`).

The series (spec-cases/client/README.md, "Codex app-server hosts"), each
step bounded by 3 s (the SDK's calls block: each runs on a thread the
adapter stops waiting for):

  connect   client.start(), client.initialize() (then `initialized`);
            result: its userAgent
  thread    client.thread_start({"cwd": "/"}); result: the thread's id
  turn      client.turn_start(id, "rpcspec: hello"), then the turn's
            notifications (next_turn_notification, as the SDK's stream_text
            reads them) to turn/completed; result: {"text": the completed
            agent messages' text, "status": the turn's final status}
  close     client.close(); {"sent": true}

The SDK's: spawning, framing, pairing, the handshake, answering the
server's requests. The adapter's: the steps and their report lines.
"""

import json
import os
import sys
import threading

from openai_codex import CodexConfig
from openai_codex.client import CodexClient

TIMEOUT = 3.0  # every step (the contract's)


def codex_path():
    if len(sys.argv) > 1:
        return sys.argv[1]
    try:
        server = json.loads(os.environ.get("RPCSPEC_SERVER", ""))
        if isinstance(server, list) and server and isinstance(server[0], str):
            return server[0]
    except ValueError:
        pass
    return None


def report(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def bounded(step, call, shape):
    """Runs `call` on a thread for at most TIMEOUT; reports the step."""
    box = {}

    def run():
        try:
            box["value"] = call()
        except Exception as e:  # noqa: BLE001: what the SDK raised is the report
            box["error"] = f"{type(e).__name__}: {e}"

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(TIMEOUT)
    if t.is_alive():
        report({"step": step, "failed": f"timed out after {TIMEOUT} s"})
        return None
    if "error" in box:
        report({"step": step, "failed": box["error"]})
        return None
    report({"step": step, "result": shape(box["value"])})
    return box["value"]


def dump(v):
    """A model of the SDK's as the wire's JSON."""
    if hasattr(v, "model_dump"):
        return v.model_dump(mode="json", by_alias=True, warnings=False)
    return v


def main(path):
    client = None

    def decide(method, params):
        if method == "item/commandExecution/requestApproval":
            return {"decision": "accept"}
        if method == "item/fileChange/requestApproval":
            return {"decision": "decline"}
        return client._default_approval_handler(method, params)

    client = CodexClient(CodexConfig(codex_bin=path), approval_handler=decide)

    def connect():
        client.start()
        return client.initialize()

    bounded("connect", connect, lambda r: dump(r).get("userAgent"))
    thread = bounded("thread", lambda: client.thread_start({"cwd": "/"}), lambda r: dump(r)["thread"]["id"])
    thread_id = dump(thread)["thread"]["id"] if thread is not None else "rpcspec-thread"
    def turn():
        # As the SDK's own stream_text does: the turn's queue is prepared
        # by turn_start, read to turn/completed.
        turn_id = dump(client.turn_start(thread_id, "rpcspec: hello"))["turn"]["id"]
        client.register_turn_notifications(turn_id)
        texts = []
        try:
            while True:
                n = client.next_turn_notification(turn_id)
                payload = dump(n.payload)
                if n.method == "item/completed" and payload.get("item", {}).get("type") == "agentMessage":
                    texts.append(payload["item"].get("text", ""))
                if n.method == "turn/completed":
                    return {"text": "".join(texts), "status": payload["turn"]["status"]}
        finally:
            client.unregister_turn_notifications(turn_id)

    def shape(done):
        return done

    bounded("turn", turn, shape)
    threading.Thread(target=client.close, daemon=True).start()
    report({"step": "close", "sent": True})
    os._exit(0)


if __name__ == "__main__":
    path = codex_path()
    if path is None:
        print("usage: python3 python-openai-codex.py PATH (or RPCSPEC_SERVER)", file=sys.stderr)
        sys.exit(2)
    main(path)
