// vscode-languageserver-protocol (npm; the typed LSP layer under VS Code's
// language client, Monaco's and Theia's) as a language client, for the
// rpcspec client role's LSP series (`rpcspec run --role client --dialect
// lsp`; the adapter contract in spec-cases/client/README.md). Found
// through NODE_PATH, which the manifest sets.
//
// The library's: createProtocolConnection over vscode-jsonrpc's
// StreamMessageReader / StreamMessageWriter (Content-Length framing), the
// typed requests and notifications (InitializeRequest,
// InitializedNotification, HoverRequest, ShutdownRequest,
// ExitNotification), sendRequest for the scripted server's own
// `rpcspec/…` methods, pairing by id, ResponseError (its own codes
// -32099..-32096 reported as failures), cancellation ($/cancelRequest when
// a call's token is cancelled) and -32601 for a server request it has no
// handler for. The adapter declares `window.workDoneProgress`,
// `workspace.configuration` and `workspace.codeLens.refreshSupport` and
// handles those requests (and window/showMessageRequest), as an editor
// does. The adapter's: the child process, the 3 s timeout (1 s for `slow`)
// that cancels the call's token, and killing a server still alive 2 s
// after `exit`. Report lines go to stdout, logs to stderr.
const { spawn } = require("child_process");
const lsp = require("vscode-languageserver-protocol/node");

const log = (...args) => console.error("[node-vscode-languageserver-protocol]", ...args);
const report = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const argv = process.argv.slice(2);
if (argv.length === 0) {
  log("usage: node node-vscode-languageserver-protocol.cjs SERVER [ARGS...]");
  process.exit(2);
}
const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
child.on("error", (e) => log("cannot start the server:", e.message));
child.stdin.on("error", (e) => log("writing to the server:", e.message));
const exited = new Promise((resolve) => child.on("exit", resolve));

const connection = lsp.createProtocolConnection(
  new lsp.StreamMessageReader(child.stdout),
  new lsp.StreamMessageWriter(child.stdin),
  { error: log, warn: log, info: () => {}, log: () => {} },
);
connection.onError(([e]) => log("connection error:", e && e.message));
connection.onRequest(lsp.ConfigurationRequest.type, (params) => params.items.map(() => null));
connection.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => null);
connection.onRequest(lsp.CodeLensRefreshRequest.type, () => null);
connection.onRequest(lsp.ShowMessageRequest.type, () => null);
connection.listen();

const OWN = new Set([
  lsp.ErrorCodes.MessageWriteError,
  lsp.ErrorCodes.MessageReadError,
  lsp.ErrorCodes.PendingResponseRejected,
  lsp.ErrorCodes.ConnectionInactive,
]);
const outcome = (e) => {
  if (e instanceof lsp.ResponseError && !OWN.has(e.code)) {
    const error = { code: e.code, message: e.message };
    if (e.data !== undefined) error.data = e.data;
    return { error };
  }
  return { failed: String((e && e.message) || e) };
};

// One call of the series: `send(token)` makes it; on the timeout its token
// is cancelled ($/cancelRequest) and the step fails.
const step = (name, send, shape = (r) => r, ms = 3000) => {
  const source = new lsp.CancellationTokenSource();
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      source.cancel();
      reject(new Error(`no reply within ${ms / 1000} s`));
    }, ms);
  });
  let request;
  try {
    request = send(source.token);
  } catch (e) {
    request = Promise.reject(e);
  }
  return Promise.race([request, timeout]).then(
    (result) => { report({ step: name, result: shape(result) }); return true; },
    (e) => { report({ step: name, ...outcome(e) }); return false; },
  ).finally(() => clearTimeout(timer));
};

async function main() {
  const init = {
    processId: process.pid,
    rootUri: null,
    clientInfo: { name: "rpcspec-vscode-languageserver-protocol-adapter" },
    capabilities: {
      window: { workDoneProgress: true },
      workspace: { configuration: true, codeLens: { refreshSupport: true } },
    },
  };
  const opened = await step("initialize",
    (t) => connection.sendRequest(lsp.InitializeRequest.type, init, t),
    (r) => (r.serverInfo ? r.serverInfo.name : null));
  if (!opened) {
    for (const s of ["hover", "error", "echo-a", "echo-b", "echo-c", "slow", "after", "shutdown"]) {
      report({ step: s, failed: "not initialized" });
    }
    return end();
  }
  await connection.sendNotification(lsp.InitializedNotification.type, {});
  const hover = { textDocument: { uri: "file:///rpcspec/a.txt" }, position: { line: 0, character: 0 } };
  await step("hover", (t) => connection.sendRequest(lsp.HoverRequest.type, hover, t),
    (h) => (h && h.contents ? h.contents.value : null));
  await step("error", (t) => connection.sendRequest("rpcspec/fail", {}, t));
  await Promise.all(["a", "b", "c"].map((text) =>
    step(`echo-${text}`, (t) => connection.sendRequest("rpcspec/echo", { text }, t))));
  await step("slow", (t) => connection.sendRequest("rpcspec/slow", { ms: 10000 }, t), (r) => r, 1000);
  await step("after", (t) => connection.sendRequest("rpcspec/echo", { text: "after" }, t));
  await step("shutdown", (t) => connection.sendRequest(lsp.ShutdownRequest.type, undefined, t));
  try {
    await connection.sendNotification(lsp.ExitNotification.type);
  } catch (e) {
    log("exit:", e.message);
  }
  return end();
}

async function end() {
  connection.dispose();
  child.stdin.end();
  const done = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 2000))]);
  if (done === "timeout") {
    log("the server did not exit within 2 s: killing it");
    child.kill("SIGKILL");
  }
  process.stdout.write("", () => process.exit(0));
}

main().catch((e) => {
  log("adapter error:", e);
  process.exit(1);
});
