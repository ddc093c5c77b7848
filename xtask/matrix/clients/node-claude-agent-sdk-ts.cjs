// claude-agent-sdk-ts (npm `claude-agent-sdk-ts`, a community TypeScript
// port of Anthropic's Python Claude Agent SDK: `ClaudeAgentSDKClient`,
// `SubprocessCLITransport`, `Query`; not Anthropic's) as the client of a
// Claude Code CLI that rpcspec plays: rpcspec is the `claude` executable
// (stream-json on stdio plus the control protocol), and this port drives it.
// CommonJS, as the port is; its packages (and the in-process MCP server's,
// `@modelcontextprotocol/sdk` and `zod`, which the port takes as an
// instance but does not bring) are found through NODE_PATH.
//
//     node node-claude-agent-sdk-ts.cjs PATH
//
// PATH (argv[2]; else the first element of the JSON array in the
// environment variable RPCSPEC_SERVER) is the executable the port spawns as
// the CLI (`cliPath`), directly, with `--output-format stream-json --verbose
// --permission-prompt-tool stdio --mcp-config {"mcpServers":{"rpcspec":
// {"type":"sdk","name":"rpcspec"}}} --input-format stream-json`, the CLI's
// stderr inherited; it runs no `PATH -v`.
//
// The options: `canUseTool` allows `Read` with the input plus
// `"rpcspec": "allowed"` and denies every other tool with the message
// `"rpcspec: denied"`; one `PreToolUse` hook (no matcher) answering `{}`;
// the SDK-hosted MCP server `rpcspec` (`{type: "sdk", name, instance}`, the
// instance an `McpServer` of @modelcontextprotocol/sdk) with one tool `echo`
// ({text: string} -> a text block with that text). Nothing else. The port
// has every step of the series.
//
// The series, each step after the one before has ended, each reported on
// one line of stdout as soon as it ends (`result`, `error` when the CLI
// answered a control request with an error, `failed` otherwise, with why);
// every step is bounded by 3 s, and a failed step does not stop the series:
//
//   connect          new ClaudeAgentSDKClient(options).connect() (spawn,
//                    initialize awaited); result: the names of
//                    getServerInfo().commands (null when no list)
//   turn             query("rpcspec: hello") (writes the user message), then
//                    the messages of receiveMessages() up to the `result`;
//                    result: {text, result, is_error}
//   permission-mode  setPermissionMode("acceptEdits"); result: null
//   model            setModel("rpcspec-model"); result: null
//   interrupt        interrupt(); result: null
//   turn-2           as turn, with "rpcspec: again"
//   close            disconnect() (destroys the CLI's stdin, SIGTERMs it and
//                    waits for its exit); {"sent": true}
//
// The port's control requests have no timeout (only this adapter's 3 s
// bounds them). A request the CLI refused rejects with a CLIConnectionError
// "控制请求失败：<the CLI's text>" ("control request failed: …"), its
// `cause` the CLI's text: that is `error`, anything else `failed`. The
// port's: spawning, framing, the control protocol both ways and its errors.
// The adapter's: the series and its report lines (stdout), logs (stderr).
"use strict";

const TIMEOUT_MS = 3000; // every step (the contract's)

const log = (...args) => console.error("[claude-agent-sdk-ts]", ...args);
const report = (line) => process.stdout.write(JSON.stringify(line) + "\n");

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
  log("usage: node node-claude-agent-sdk-ts.cjs PATH (or RPCSPEC_SERVER='[\"PATH\", ...]')");
  process.exit(2);
}

const { ClaudeAgentSDKClient, CLIConnectionError } = require("claude-agent-sdk-ts");
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { z } = require("zod");

// The port's messages, read by one pump so that a turn that timed out loses
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
    ended,
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

// A refused control request: the port's CLIConnectionError whose cause is
// the Error it made of the CLI's `error` text (query.js, sendControlRequest).
const controlOutcome = (e) =>
  e instanceof CLIConnectionError && e.cause instanceof Error && message(e).startsWith("控制请求失败")
    ? { error: message(e) }
    : { failed: message(e) };

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

const server = new McpServer({ name: "rpcspec", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Echo the text back", inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);

const client = new ClaudeAgentSDKClient({
  cliPath: path,
  canUseTool: async (toolName, input) =>
    toolName === "Read"
      ? { behavior: "allow", updatedInput: { ...input, rpcspec: "allowed" } }
      : { behavior: "deny", message: "rpcspec: denied" },
  hooks: { PreToolUse: [{ hooks: [async () => ({})] }] },
  mcpServers: { rpcspec: { type: "sdk", name: "rpcspec", instance: server } },
});

// The port queues what it reads from the moment connect() has made its
// Query (even while initialize is unanswered), so the pump may start late.
let messages;

async function turn(prompt) {
  await client.query(prompt);
  messages ??= messageQueue(client.receiveMessages());
  const text = [];
  for (;;) {
    const { value: m, done, error } = await messages.next();
    if (done) throw error ?? new Error("the stream ended before a result");
    if (m?.type === "assistant" && Array.isArray(m.message?.content)) {
      for (const b of m.message.content) if (b?.type === "text") text.push(b.text);
    } else if (m?.type === "result") {
      return { result: { text: text.join(""), result: m.result ?? null, is_error: m.is_error } };
    }
  }
}

const control = (call) => async () => {
  await call();
  return { result: null };
};

(async () => {
  await step("connect", async () => {
    await client.connect();
    const commands = client.getServerInfo()?.commands;
    return { result: Array.isArray(commands) ? commands.map((c) => c?.name ?? null) : null };
  });
  await step("turn", () => turn("rpcspec: hello"));
  await step("permission-mode", control(() => client.setPermissionMode("acceptEdits")), controlOutcome);
  await step("model", control(() => client.setModel("rpcspec-model")), controlOutcome);
  await step("interrupt", control(() => client.interrupt()), controlOutcome);
  await step("turn-2", () => turn("rpcspec: again"));
  await step("close", async () => {
    await client.disconnect();
    return { sent: true };
  });
  // stdout may be a pipe Node writes asynchronously: let a long report
  // line (a 1 MB turn text) drain before exiting.
  await new Promise((resolve) => process.stdout.write("", resolve));
  process.exit(0);
})();
