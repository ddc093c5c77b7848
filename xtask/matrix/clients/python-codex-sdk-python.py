"""codex-sdk-python (PyPI, a community Python SDK for Codex) as
the decoder of a `codex exec --experimental-json` that rpcspec plays:
rpcspec is the `codex` executable (one JSON event a line on stdout, one
process per turn), and this SDK reads it.

    python3 python-codex-sdk-python.py PATH

PATH (argv[1]; else the first element of the JSON array in the environment
variable RPCSPEC_SERVER) is the executable the SDK starts as `codex`
(`CodexOptions.codex_path_override`; it makes PATH executable if it is
not). The SDK runs `PATH exec --experimental-json`, writes the prompt to
its stdin and closes it, reads stdout with asyncio.StreamReader.readline
(64 KiB a line), parses each event into a dataclass by hand (an unknown
type raises CodexParseError, members it has no field for are dropped),
reads stderr by lines, and raises when the process exits non-zero.

The series is one step (spec-cases/client/README.md, "Codex exec
decoders"):

  turn   Codex(CodexOptions(...)).start_thread().run_streamed("rpcspec:
         hello"), every event collected as JSON (dataclasses.asdict, None
         left out); result:
         {"events": [...]}, or, when the SDK raised, error: {"message",
         "events"}; failed when 3 s passed first

The SDK's: spawning, framing, parsing, the exit status. The adapter's: the
step and its report line (stdout), logs (stderr). The report is written,
flushed, and the process leaves with os._exit, so that no clean-up of the
SDK's outlives the report.
"""

import asyncio
import dataclasses
import json
import os
import sys

from codex_sdk import Codex, CodexOptions

TIMEOUT = 3.0  # the turn (the contract's)


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


async def turn(path, events):
    thread = Codex(CodexOptions(codex_path_override=path)).start_thread()
    streamed = await thread.run_streamed("rpcspec: hello")
    async for event in streamed.events:
        events.append(dataclasses.asdict(event, dict_factory=present))


def present(pairs):
    """A dataclass as a JSON object, its None members left out."""
    return {k: v for k, v in pairs if v is not None}


def report(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


async def main(path):
    events = []
    try:
        await asyncio.wait_for(turn(path, events), TIMEOUT)
        report({"step": "turn", "result": {"events": events}})
    except asyncio.TimeoutError:
        report({"step": "turn", "failed": f"timed out after {TIMEOUT} s"})
    except Exception as e:  # noqa: BLE001: what the SDK raised is the report
        report({"step": "turn", "error": {"message": f"{type(e).__name__}: {e}", "events": events}})
    os._exit(0)


if __name__ == "__main__":
    path = codex_path()
    if path is None:
        print("usage: python3 python-codex-sdk-python.py PATH (or RPCSPEC_SERVER)", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(path))
