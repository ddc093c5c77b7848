"""openai-codex-sdk (PyPI, a community Python port of @openai/codex-sdk) as
the decoder of a `codex exec --experimental-json` that rpcspec plays:
rpcspec is the `codex` executable (one JSON event a line on stdout, one
process per turn), and this SDK reads it.

    python3 python-openai-codex-sdk.py PATH

PATH (argv[1]; else the first element of the JSON array in the environment
variable RPCSPEC_SERVER) is the executable the SDK starts as `codex`
(`codex_path_override`). The SDK runs `PATH exec --experimental-json`,
writes the prompt to its stdin and closes it, reads stdout with
asyncio.StreamReader.readline (64 KiB a line), validates each event with
pydantic (an unknown type is kept as UnknownThreadEvent), drains stderr,
and raises CodexExecError when the process exits non-zero.

The series is one step (spec-cases/client/README.md, "Codex exec
decoders"):

  turn   Codex({...}).start_thread().run_streamed("rpcspec: hello"), every
         event collected as JSON (model_dump, None left out); result:
         {"events": [...]}, or, when the SDK raised, error: {"message",
         "events"}; failed when 3 s passed first

The SDK's: spawning, framing, parsing, the exit status. The adapter's: the
step and its report line (stdout), logs (stderr). The report is written,
flushed, and the process leaves with os._exit: on Python 3.11 the SDK's
clean-up after an error may wait on the killed CLI for ever.
"""

import asyncio
import json
import os
import sys

from openai_codex_sdk import Codex

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
    thread = Codex({"codex_path_override": path}).start_thread()
    streamed = await thread.run_streamed("rpcspec: hello")
    async for event in streamed.events:
        events.append(event.model_dump(mode="json", exclude_none=True))


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
        print("usage: python3 python-openai-codex-sdk.py PATH (or RPCSPEC_SERVER)", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(path))
