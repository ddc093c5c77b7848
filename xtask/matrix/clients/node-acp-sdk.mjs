// The ACP adapter (spec-cases/client/README.md, "ACP clients") for the
// official TypeScript SDK's client side (`@agentclientprotocol/sdk` on npm):
// an editor whose user says yes, declaring fs and terminal, making the ACP
// series against the agent `{server}` and reporting each step on stdout.
//
//     rpcspec run --role client --dialect acp -- node node-acp-sdk.mjs {server}
//
// ES imports ignore NODE_PATH, so the SDK is resolved with require.resolve
// (which reads it: the manifest sets it) and imported by path.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Readable, Writable } from "node:stream";

const require = createRequire(import.meta.url);
const { client, methods, ndJsonStream } = await import(
  pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href
);

const TIMEOUT_MS = 3000;
const CANCEL_ME = "rpcspec: cancel me";
const argv = process.argv.slice(2).length ? process.argv.slice(2) : JSON.parse(process.env.RPCSPEC_SERVER);

const report = (line) => process.stdout.write(JSON.stringify(line) + "\n");
const timed = (promise) =>
  Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`no reply within ${TIMEOUT_MS} ms`)), TIMEOUT_MS)),
  ]);
// What a step came to, as the contract reports it.
const outcome = async (step, promise, shown = (r) => r) => {
  try {
    report({ step, result: shown(await timed(promise)) });
  } catch (e) {
    if (e && typeof e.code === "number") {
      const error = { code: e.code, message: e.message };
      if (e.data !== undefined) error.data = e.data;
      report({ step, error });
    } else {
      report({ step, failed: String(e && e.message ? e.message : e) });
    }
  }
};

const agent = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
agent.on("error", (e) => process.stderr.write(`cannot start the agent: ${e}\n`));

// The turn in flight: the text of its message chunks, and whether it is the
// one to cancel (and was).
let turn = { text: "", cancel: null, cancelled: false };
let connection;
const cancelTurn = (sessionId) => {
  if (turn.cancel && turn.cancel === sessionId && !turn.cancelled) {
    turn.cancelled = true;
    connection.agent.notify(methods.agent.session.cancel, { sessionId });
  }
};
const terminals = new Map();

const app = client({ name: "rpcspec-ts-client" })
  .onRequest(methods.client.session.requestPermission, async ({ params }) => {
    cancelTurn(params.sessionId);
    if (turn.cancelled) return { outcome: { outcome: "cancelled" } };
    const allow = params.options.find((o) => o.kind.startsWith("allow")) ?? params.options[0];
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest(methods.client.fs.readTextFile, async () => ({ content: "rpcspec: a file\n" }))
  .onRequest(methods.client.fs.writeTextFile, async () => ({}))
  .onRequest(methods.client.terminal.create, async ({ params }) => {
    const run = spawnSync(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, timeout: 2000 });
    const id = `rpcspec-terminal-${terminals.size + 1}`;
    terminals.set(id, {
      output: `${run.stdout ?? ""}${run.stderr ?? ""}`,
      exitStatus: { exitCode: run.status, signal: run.signal },
    });
    return { terminalId: id };
  })
  .onRequest(methods.client.terminal.output, async ({ params }) => {
    const t = terminals.get(params.terminalId);
    return { output: t.output, truncated: false, exitStatus: t.exitStatus };
  })
  .onRequest(methods.client.terminal.waitForExit, async ({ params }) => terminals.get(params.terminalId).exitStatus)
  .onRequest(methods.client.terminal.kill, async () => ({}))
  .onRequest(methods.client.terminal.release, async ({ params }) => {
    terminals.delete(params.terminalId);
    return {};
  })
  .onNotification(methods.client.session.update, async ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") turn.text += u.content.text;
    cancelTurn(params.sessionId);
  });

const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
connection = app.connect(stream);
const a = connection.agent;

let sessionId = null;
await outcome(
  "initialize",
  a.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    clientInfo: { name: "rpcspec-ts-client", version: "1" },
  }),
  (r) => r.protocolVersion,
);
await outcome("session", a.request(methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] }), (r) => {
  sessionId = r.sessionId;
  return r.sessionId;
});
const prompt = async (step, text) => {
  turn = { text: "", cancel: text === CANCEL_ME ? sessionId : null, cancelled: false };
  // The SDK starts a notification's handler after validating it, which
  // can let the reply that followed it resolve first: a turn of the event
  // loop lets the handlers of what came before the reply run.
  const settled = a
    .request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] })
    .then((r) => new Promise((resolve) => setImmediate(() => resolve(r))));
  await outcome(step, settled, (r) => ({ stopReason: r.stopReason, text: turn.text }));
};
await prompt("prompt", "rpcspec: hello");
await outcome("error", a.request("_rpcspec/fail", {}));
await Promise.all(["a", "b", "c"].map((t) => outcome(`echo-${t}`, a.request("_rpcspec/echo", { text: t }))));
await prompt("cancel", CANCEL_ME);
await prompt("after", "rpcspec: again");

agent.stdin.end();
const exited = new Promise((resolve) => agent.on("exit", resolve));
await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
agent.kill();
// Writes to a pipe are asynchronous: exit once the reports are out.
process.stdout.write("", () => process.exit(0));
