// The Claude Agent SDK for TypeScript (npm @anthropic-ai/claude-agent-sdk)
// as the client of a Claude Code CLI that rpcspec plays: rpcspec is the
// `claude` executable (stream-json on stdio plus the control protocol), and
// this SDK drives it. An ES module, as the SDK is ESM only; ES imports
// ignore NODE_PATH, so the packages are resolved with require.resolve (which
// honours NODE_PATH, as the manifest sets it, and node_modules beside this
// file) and then imported by path.
//
//     node node-claude-agent-sdk.mjs PATH
//
// PATH (argv[2]; else the first element of the JSON array in the
// environment variable RPCSPEC_SERVER) is the executable the SDK starts as
// the CLI (`pathToClaudeCodeExecutable`). A path not ending in
// .js/.mjs/.ts/.tsx/.jsx is spawned directly (so a script with a shebang
// works); the SDK appends `--output-format stream-json --verbose
// --input-format stream-json --permission-prompt-tool=stdio`, sets
// CLAUDE_CODE_ENTRYPOINT=sdk-ts, runs no `PATH -v`, and pipes the CLI's
// stderr, keeping its tail for exit errors only.
//
// The options: `canUseTool` allows `Read` with the input plus
// `"rpcspec": "allowed"` and denies every other tool with the message
// `"rpcspec: denied"`; one `PreToolUse` hook (no matcher) answering `{}`; one
// in-process MCP server `rpcspec` (`createSdkMcpServer`) with one tool `echo`
// ({text: string} -> a text block with that text). Nothing else.
//
// The series, each step after the one before has ended, each reported on
// one line of stdout as soon as it ends (`result`, `error` when the CLI
// answered a control request with an error, `failed` otherwise, with why);
// every step is bounded by 3 s, and a failed step does not stop the series:
//
//   connect          query({prompt: <an async iterable fed below>, options}),
//                    then initializationResult(); result: the names of its
//                    `commands` (null when the response has no list)
//   turn             push the user message "rpcspec: hello", read up to the
//                    `result` message; result: {text, result, is_error}
//   permission-mode  setPermissionMode("acceptEdits"); result: null
//   model            setModel("rpcspec-model"); result: null
//   interrupt        interrupt(); result: null
//   turn-2           as turn, with "rpcspec: again"
//   close            end the input iterable and close() (which ends the
//                    CLI's stdin, then SIGTERM after 2 s, SIGKILL 5 s later),
//                    then wait for the message stream to end; {"sent": true}
//
// The SDK's own control requests have no timeout (only this adapter's 3 s
// bounds them). The SDK's: spawning, framing (readline), the control
// protocol both ways and its errors. The adapter's: the series and its
// report lines (stdout), logs (stderr).
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const TIMEOUT_MS = 3000; // every step (the contract's)

const log = (...args) => console.error("[claude-agent-sdk-ts]", ...args);
const report = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const require = createRequire(import.meta.url);
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);

function cliPath() {
  if (process.argv[2]) return process.argv[2];
  try {
    const server = JSON.parse(process.env.RPCSPEC_SERVER || "");
    if (Array.isArray(server) && typeof server[0] === "string") return server[0];
  } catch {}
  return undefined;
}

const path = cliPath();
if (!path) {
  log("usage: node node-claude-agent-sdk.mjs PATH (or RPCSPEC_SERVER='[\"PATH\", ...]')");
  process.exit(2);
}

const { query, tool, createSdkMcpServer } = await load("@anthropic-ai/claude-agent-sdk");
const { z } = await load("zod");

// The prompt: an async iterable the turns push user messages into; ending
// it is how the session's input ends.
function inputQueue() {
  const items = [];
  let wake;
  let ended = false;
  return {
    push(item) {
      items.push(item);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (items.length > 0) yield items.shift();
        else if (ended) return;
        else await new Promise((resolve) => (wake = resolve));
      }
    },
  };
}

// The SDK's messages, read by one pump so that a turn that timed out loses
// nothing to a read left pending: every turn takes from this queue.
function messageQueue(iterable) {
  const items = [];
  let wake;
  let end; // {error} once the stream ended
  const ended = (async () => {
    try {
      for await (const m of iterable) {
        items.push(m);
        wake?.();
      }
      end = {};
    } catch (e) {
      end = { error: e };
    }
    wake?.();
  })();
  return {
    ended, // settles once the stream has ended (after the SDK's cleanup)
    async next() {
      for (;;) {
        if (items.length > 0) return { value: items.shift() };
        if (end) return { done: true, ...end };
        await new Promise((resolve) => (wake = resolve));
      }
    },
  };
}

const message = (e) => String((e && e.message) || e);

// A control request's outcome: the SDK rejects with an Error carrying the
// CLI's error text (tagged errorClass "control_request_failed") when the CLI
// answered with an error; anything else (closed query, exited process) is
// `failed`.
const controlOutcome = (e) =>
  e && e.errorClass === "control_request_failed" ? { error: message(e) } : { failed: message(e) };

async function step(name, run, outcome = (e) => ({ failed: message(e) })) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ failed: `timed out after ${TIMEOUT_MS / 1000} s` }), TIMEOUT_MS);
  });
  const line = await Promise.race([
    Promise.resolve().then(run).then(
      (fields) => fields,
      (e) => {
        log(`${name}:`, message(e));
        return outcome(e);
      },
    ),
    timeout,
  ]);
  clearTimeout(timer);
  report({ step: name, ...line });
}

const echo = tool("echo", "Echo the text back", { text: z.string() }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));

const options = {
  pathToClaudeCodeExecutable: path,
  canUseTool: async (toolName, input) =>
    toolName === "Read"
      ? { behavior: "allow", updatedInput: { ...input, rpcspec: "allowed" } }
      : { behavior: "deny", message: "rpcspec: denied" },
  hooks: { PreToolUse: [{ hooks: [async () => ({})] }] },
  mcpServers: { rpcspec: createSdkMcpServer({ name: "rpcspec", tools: [echo] }) },
};

const input = inputQueue();
let q;
let messages;

async function turn(prompt) {
  if (!q) throw new Error("not connected");
  input.push({ type: "user", message: { role: "user", content: prompt }, parent_tool_use_id: null });
  const text = [];
  for (;;) {
    const { value: m, done, error } = await messages.next();
    if (done) throw error ?? new Error("the stream ended before a result");
    if (m.type === "assistant" && Array.isArray(m.message?.content)) {
      for (const b of m.message.content) if (b?.type === "text") text.push(b.text);
    } else if (m.type === "result") {
      return { result: { text: text.join(""), result: m.result ?? null, is_error: m.is_error } };
    }
  }
}

const control = (call) => async () => {
  if (!q) throw new Error("not connected");
  await call();
  return { result: null };
};

await step("connect", async () => {
  q = query({ prompt: input, options });
  messages = messageQueue(q);
  const init = await q.initializationResult();
  const commands = init?.commands;
  return { result: Array.isArray(commands) ? commands.map((c) => c?.name ?? null) : null };
});
await step("turn", () => turn("rpcspec: hello"));
await step("permission-mode", control(() => q.setPermissionMode("acceptEdits")), controlOutcome);
await step("model", control(() => q.setModel("rpcspec-model")), controlOutcome);
await step("interrupt", control(() => q.interrupt()), controlOutcome);
await step("turn-2", () => turn("rpcspec: again"));
await step("close", async () => {
  input.end();
  if (q && typeof q.close === "function") q.close();
  // The stream ends once the SDK's cleanup is over (it waits up to 2 s for
  // the CLI to exit); exiting before that would SIGTERM the CLI (the SDK
  // kills the children it tracks when this process exits).
  if (messages) await messages.ended;
  return { sent: true };
});
// stdout may be a pipe Node writes asynchronously: let a long report line
// (a 1 MB turn text) drain before exiting.
await new Promise((resolve) => process.stdout.write("", resolve));
process.exit(0);
