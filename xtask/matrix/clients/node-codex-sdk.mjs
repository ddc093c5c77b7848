// The Codex SDK for TypeScript (npm @openai/codex-sdk) as the decoder of a
// `codex exec --experimental-json` that rpcspec plays: rpcspec is the
// `codex` executable (one JSON event a line on stdout, one process per
// turn), and this SDK reads it. An ES module, as the SDK is ESM only; ES
// imports ignore NODE_PATH, and the package exports an `import` entry only
// (which require.resolve refuses), so it is found in the folders
// require.resolve.paths lists (NODE_PATH among them, as the manifest sets
// it) and its `exports["."].import` imported by path.
//
//     node node-codex-sdk.mjs PATH
//
// PATH (argv[2]; else the first element of the JSON array in the
// environment variable RPCSPEC_SERVER) is the executable the SDK starts as
// `codex` (`codexPathOverride`). The SDK runs `PATH exec --experimental-json
// [flags]`, writes the prompt to its stdin and ends it, reads stdout with
// node:readline (a lone \r ends a line too), keeps stderr for its exit
// error, and raises when the process exits non-zero.
//
// The series is one step (spec-cases/client/README.md, "Codex exec
// decoders"):
//
//   turn   startThread({skipGitRepoCheck: true}).runStreamed("rpcspec: hello"),
//          every event of the stream collected; result: {"events": [...]},
//          or, when the SDK raised, error: {"message", "events"}; failed
//          when 3 s passed first (the turn is then aborted, which kills
//          the CLI)
//
// The SDK's: spawning, framing (readline), parsing, the exit status. The
// adapter's: the step and its report line (stdout), logs (stderr).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const TIMEOUT_MS = 3000; // the turn (the contract's)

const log = (...args) => console.error("[codex-sdk]", ...args);
const report = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const require = createRequire(import.meta.url);
async function load(name) {
  for (const dir of require.resolve.paths(name) ?? []) {
    const root = join(dir, name);
    if (!existsSync(join(root, "package.json"))) continue;
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    const entry = pkg.exports?.["."]?.import ?? pkg.module ?? pkg.main ?? "index.js";
    return import(pathToFileURL(join(root, entry)).href);
  }
  throw new Error(`cannot find ${name} (is NODE_PATH set?)`);
}

function codexPath() {
  if (process.argv[2]) return process.argv[2];
  try {
    const server = JSON.parse(process.env.RPCSPEC_SERVER || "");
    if (Array.isArray(server) && typeof server[0] === "string") return server[0];
  } catch {}
  return undefined;
}

const path = codexPath();
if (!path) {
  log("usage: node node-codex-sdk.mjs PATH (or RPCSPEC_SERVER='[\"PATH\", ...]')");
  process.exit(2);
}

const { Codex } = await load("@openai/codex-sdk");
const codex = new Codex({ codexPathOverride: path });
const thread = codex.startThread({ skipGitRepoCheck: true });
const events = [];
const abort = new AbortController();
let timedOut = false;
const timer = setTimeout(() => {
  timedOut = true;
  abort.abort();
}, TIMEOUT_MS);
try {
  const { events: stream } = await thread.runStreamed("rpcspec: hello", { signal: abort.signal });
  for await (const event of stream) events.push(event);
  report({ step: "turn", result: { events } });
} catch (e) {
  if (timedOut) {
    report({ step: "turn", failed: `timed out after ${TIMEOUT_MS} ms` });
  } else {
    report({ step: "turn", error: { message: String(e?.message ?? e), events } });
  }
}
clearTimeout(timer);
// stdout may be a pipe Node writes asynchronously: let a long report line
// (a 1 MB event) drain before exiting.
await new Promise((resolve) => process.stdout.write("", resolve));
process.exit(0);
