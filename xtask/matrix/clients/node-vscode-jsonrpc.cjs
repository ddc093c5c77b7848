// vscode-jsonrpc (npm; the JSON-RPC layer of VS Code's language client and
// of most Node language servers) as a JSON-RPC client over a child's stdio
// in Content-Length framing, for the rpcspec client role
// (spec-cases/client/README.md: the adapter contract;
// `rpcspec run --role client --framing content-length`). Found through
// NODE_PATH, which the manifest sets.
//
// The library's: the framing (StreamMessageReader / StreamMessageWriter),
// request and notification objects, ids, pairing replies by id, error
// objects (ResponseError with code, message, data), cancellation
// (`$/cancelRequest` when a call's CancellationToken is cancelled), and
// answering the server's requests it has no handler for (-32601).
// The adapter's: the child process, the 3 s timeout (the library has
// none: the call's token is cancelled and the call reported `failed`),
// and telling the library's own errors (codes -32099..-32096: a write or
// read failed, the connection closed) from the server's.
// It has no batches: both batch steps are `skipped`.
// Report lines go to stdout, logs to stderr.
const { spawn } = require("child_process");
const rpc = require("vscode-jsonrpc/node");

const TIMEOUT_MS = 3000;
const log = (...args) => console.error("[node-vscode-jsonrpc]", ...args);
const report = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const argv = process.argv.slice(2);
if (argv.length === 0) {
  log("usage: node node-vscode-jsonrpc.cjs SERVER [ARGS...]");
  process.exit(2);
}
const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
child.on("error", (e) => log("cannot start the server:", e.message));
child.stdin.on("error", (e) => log("writing to the server:", e.message));
const exited = new Promise((resolve) => child.on("exit", resolve));

const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(child.stdout),
  new rpc.StreamMessageWriter(child.stdin),
  { error: log, warn: log, info: () => {}, log: () => {} },
);
connection.onError(([e]) => log("connection error:", e && e.message));
connection.listen();

// The library's own codes (vscode-jsonrpc ErrorCodes): not the server's.
const OWN = new Set([
  rpc.ErrorCodes.MessageWriteError,
  rpc.ErrorCodes.MessageReadError,
  rpc.ErrorCodes.PendingResponseRejected,
  rpc.ErrorCodes.ConnectionInactive,
]);
const outcome = (e) => {
  if (e instanceof rpc.ResponseError && !OWN.has(e.code)) {
    const error = { code: e.code, message: e.message };
    if (e.data !== undefined) error.data = e.data;
    return { error };
  }
  return { failed: String((e && e.message) || e) };
};

// A call with the contract's timeout: on it, the call is cancelled
// (`$/cancelRequest`) and reported failed.
const call = (step, method, ...params) => {
  const source = new rpc.CancellationTokenSource();
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      source.cancel();
      reject(new Error(`no reply within ${TIMEOUT_MS / 1000} s`));
    }, TIMEOUT_MS);
  });
  let request;
  try {
    request = connection.sendRequest(method, ...params, source.token);
  } catch (e) {
    request = Promise.reject(e);
  }
  return Promise.race([request, timeout]).then(
    (result) => report({ step, result }),
    (e) => report({ step, ...outcome(e) }),
  ).finally(() => clearTimeout(timer));
};
const byPosition = rpc.ParameterStructures.byPosition;

async function main() {
  await call("positional", "subtract", byPosition, 42, 23);
  await call("named", "subtract", { minuend: 42, subtrahend: 23 });
  try {
    await connection.sendNotification("update", byPosition, 1, 2, 3);
    report({ step: "notify", sent: true });
  } catch (e) {
    report({ step: "notify", failed: String(e.message || e) });
  }
  await call("error", "fail", { why: "asked" });
  await Promise.all([
    call("echo-a", "echo", byPosition, "a"),
    call("echo-b", "echo", byPosition, "b"),
    call("echo-c", "echo", byPosition, "c"),
  ]);
  for (const step of ["batch-x", "batch-y"]) {
    report({ step, skipped: "vscode-jsonrpc has no batches" });
  }
  await call("after", "subtract", byPosition, 5, 3);

  // End the connection, close the server's stdin and wait for it (at most
  // 2 s, then kill it).
  connection.dispose();
  child.stdin.end();
  const done = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 2000))]);
  if (done === "timeout") {
    log("the server did not exit within 2 s of its stdin closing: killing it");
    child.kill("SIGKILL");
  }
  // Exit once stdout has taken every report line (a 10 MB one may still
  // be queued: process.exit would drop it).
  process.stdout.write("", () => process.exit(0));
}

main().catch((e) => {
  log("adapter error:", e);
  process.exit(1);
});
