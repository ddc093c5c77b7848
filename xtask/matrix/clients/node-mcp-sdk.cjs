// The official MCP TypeScript SDK (npm @modelcontextprotocol/sdk, 1.x) as
// an MCP client over stdio, for the rpcspec client role
// (spec-cases/client/README.md: "MCP clients"). Found through NODE_PATH,
// which the manifest sets (hence CommonJS: ES module imports ignore
// NODE_PATH; the SDK ships both builds).
//
// The SDK's: `Client` over `StdioClientTransport({command, args})` (spawns
// the server, newline framing; `close()` ends the server's stdin, waits 2 s,
// then SIGTERM, SIGKILL), the `initialize` handshake in `connect()` (offers
// 2025-11-25, the newest it has; refuses a version outside its
// SUPPORTED_PROTOCOL_VERSIONS, closing the transport; then
// `notifications/initialized`), the per-request timeout (`{timeout}`,
// which sends `notifications/cancelled` for a request it gives up on),
// answering `ping`, `roots/list` through a request handler (the `roots`
// capability declared), `elicitation/create` through one (form elicitation
// declared with `applyDefaults`, which has the SDK fill in the defaults),
// and the result schemas. The adapter's: the series
// and its report lines (stdout), logs (stderr).
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const {
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} = require("@modelcontextprotocol/sdk/types.js");

const TIMEOUT_MS = 3000; // every call (the contract's)
const GIVE_UP_MS = 1000; // `slow`
const STEPS = ["connect", "tools", "echo", "tool-error", "echo-a", "echo-b", "echo-c", "slow", "after"];

const log = (...args) => console.error("[node-mcp-sdk]", ...args);
const report = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const argv = process.argv.slice(2);
if (argv.length === 0) {
  log("usage: node node-mcp-sdk.cjs SERVER [ARGS...]");
  process.exit(2);
}

// McpError is the server's error object, except the two the SDK makes
// itself: RequestTimeout (it gave up) and ConnectionClosed (the
// connection ended), which are `failed`. Its message is prefixed with
// "MCP error CODE: ", which the server did not send.
const outcome = (e) => {
  if (e instanceof McpError && e.code !== ErrorCode.RequestTimeout && e.code !== ErrorCode.ConnectionClosed) {
    const error = { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, "") };
    if (e.data !== undefined) error.data = e.data;
    return { error };
  }
  return { failed: String((e && e.message) || e) };
};
const toolOutcome = (r) => {
  const text = (r.content || []).find((c) => c.type === "text");
  return { text: text ? text.text : "", isError: Boolean(r.isError) };
};
const step = (name, call, shape) => call.then(
  (value) => report({ step: name, result: shape(value) }),
  (e) => {
    log(`${name}:`, (e && e.message) || e);
    report({ step: name, ...outcome(e) });
  },
);

async function main() {
  const transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1) });
  // The Client keeps no negotiated version of its own: it hands it to a
  // transport that has `setProtocolVersion` (the HTTP ones), so this one
  // gets the hook to learn it.
  let negotiated;
  transport.setProtocolVersion = (version) => { negotiated = version; };
  const client = new Client(
    { name: "rpcspec-node-mcp-sdk", version: "0.1.0" },
    {
      capabilities: {
        roots: { listChanged: false },
        // The SDK fills a form's defaults into an accepted answer.
        elicitation: { form: { applyDefaults: true } },
      },
    },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///tmp/rpcspec", name: "rpcspec" }],
  }));
  // Every form accepted as presented (the contract): the SDK adds the
  // defaults.
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }));
  client.onerror = (e) => log("client error:", (e && e.message) || e);

  const timeout = { timeout: TIMEOUT_MS };
  let connected = false;
  try {
    await client.connect(transport, timeout);
    connected = true;
  } catch (e) {
    log("connect:", (e && e.message) || e);
    report({ step: "connect", ...outcome(e) });
    for (const name of STEPS.slice(1)) report({ step: name, failed: "not connected" });
  }
  if (connected) {
    report({ step: "connect", result: negotiated });
    await step("tools", client.listTools(undefined, timeout), (r) => r.tools.map((t) => t.name));
    await step("echo", client.callTool({ name: "echo", arguments: { text: "hi" } }, undefined, timeout), toolOutcome);
    await step("tool-error", client.callTool({ name: "fail", arguments: {} }, undefined, timeout), toolOutcome);
    await Promise.all(["a", "b", "c"].map((x) =>
      step(`echo-${x}`, client.callTool({ name: "echo", arguments: { text: x } }, undefined, timeout), toolOutcome)));
    await step("slow", client.callTool({ name: "slow", arguments: { ms: 10000 } }, undefined, { timeout: GIVE_UP_MS }), toolOutcome);
    await step("after", client.callTool({ name: "echo", arguments: { text: "after" } }, undefined, timeout), toolOutcome);
  }
  // The SDK's close: the server's stdin ended, then a wait for it (a
  // failed connect has already started one: this waits for the same).
  await client.close();
  // Exit once stdout has taken every report line (a 10 MB one may still
  // be queued: process.exit would drop it).
  process.stdout.write("", () => process.exit(0));
}

main().catch((e) => {
  log("adapter error:", e);
  process.exit(1);
});
