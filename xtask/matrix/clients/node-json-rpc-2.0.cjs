// json-rpc-2.0 (npm) as a JSON-RPC client over a child's stdio, for the
// rpcspec client role (spec-cases/client/README.md: the adapter contract).
// Found through NODE_PATH, which the manifest sets.
//
// The library's: request and notification objects, ids (from the createID
// we give it), pairing replies with calls by id, batches, the per-call
// timeout (`timeout(3000)`), error objects (JSONRPCErrorException with
// code, message, data), and answering the server's requests
// (JSONRPCServerAndClient: -32601 for a method it does not have).
// The adapter's, as the library leaves transport to its user: the child
// process, writing each message as one line, and splitting the child's
// stdout into lines the way a typical user would, with node's readline
// (which also ends a line at a lone "\r"), then JSON.parse on each line.
// Report lines go to stdout, logs to stderr.
const { spawn } = require("child_process");
const readline = require("readline");
const {
  JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient, JSONRPCErrorException,
  createJSONRPCRequest, createJSONRPCNotification,
} = require("json-rpc-2.0");

const TIMEOUT_MS = 3000;
const log = (...args) => console.error("[node-json-rpc-2.0]", ...args);
const report = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const argv = process.argv.slice(2);
if (argv.length === 0) {
  log("usage: node node-json-rpc-2.0.cjs SERVER [ARGS...]");
  process.exit(2);
}
const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
child.on("error", (e) => log("cannot start the server:", e.message));
child.stdin.on("error", (e) => log("writing to the server:", e.message));
const exited = new Promise((resolve) => child.on("exit", resolve));

// Every message the library sends is one line on the child's stdin; a
// failed write rejects, which the library turns into that call's error.
const send = (payload) => new Promise((resolve, reject) => {
  child.stdin.write(JSON.stringify(payload) + "\n", (e) => (e ? reject(e) : resolve()));
});
let nextId = 0;
const peer = new JSONRPCServerAndClient(
  new JSONRPCServer(), new JSONRPCClient(send, () => ++nextId), { errorListener: log },
);

const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
lines.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch (e) {
    log("not JSON, skipped:", JSON.stringify(line.slice(0, 200)));
    return;
  }
  peer.receiveAndSend(message).catch((e) => log("receiveAndSend:", e.message));
});
// The end of the server's stdout ends every call still waiting.
lines.on("close", () => peer.rejectAllPendingRequests("the server closed its stdout"));

const timed = peer.timeout(TIMEOUT_MS);

// The library reports its own failures (the timeout, a closed connection,
// a failed write) as a JSONRPCErrorException with code 0, its
// DefaultErrorCode: those are `failed`, any other error is the server's.
const outcome = (e) => {
  if (e instanceof JSONRPCErrorException && e.code !== 0) {
    const error = { code: e.code, message: e.message };
    if (e.data !== undefined) error.data = e.data;
    return { error };
  }
  return { failed: String((e && e.message) || e) };
};
const call = (step, method, params) => timed.request(method, params).then(
  (result) => report({ step, result }),
  (e) => report({ step, ...outcome(e) }),
);

async function main() {
  await call("positional", "subtract", [42, 23]);
  await call("named", "subtract", { minuend: 42, subtrahend: 23 });
  try {
    peer.notify("update", [1, 2, 3]);
    report({ step: "notify", sent: true });
  } catch (e) {
    report({ step: "notify", failed: String(e.message || e) });
  }
  await call("error", "fail", { why: "asked" });
  await Promise.all([
    call("echo-a", "echo", ["a"]),
    call("echo-b", "echo", ["b"]),
    call("echo-c", "echo", ["c"]),
  ]);
  // A batch is requestAdvanced with an array; the responses come back in
  // the order of the requests that have ids, whatever the server's order.
  const batch = [
    createJSONRPCRequest(++nextId, "echo", ["x"]),
    createJSONRPCRequest(++nextId, "echo", ["y"]),
    createJSONRPCNotification("update", [4]),
  ];
  try {
    const responses = await timed.requestAdvanced(batch);
    ["batch-x", "batch-y"].forEach((step, i) => {
      const r = responses[i];
      if (r && r.error) report({ step, ...outcome(new JSONRPCErrorException(r.error.message, r.error.code, r.error.data)) });
      else if (r && r.result !== undefined) report({ step, result: r.result });
      else report({ step, failed: "no response: " + JSON.stringify(r) });
    });
  } catch (e) {
    for (const step of ["batch-x", "batch-y"]) report({ step, failed: String(e.message || e) });
  }
  await call("after", "subtract", [5, 3]);

  // Close the server's stdin and wait for it (at most 2 s, then kill it).
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
