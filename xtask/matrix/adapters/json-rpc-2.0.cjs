// json-rpc-2.0 (npm) behind a stdio NDJSON loop, for the rpcspec matrix
// (found through NODE_PATH, which the manifest sets).
//
// Registers the methods of the JSON-RPC 2.0 specification's examples as
// `rpcspec serve` has them. stdin is split on "\n" only (bytes, so a UTF-8
// character split across reads stays whole); each line goes to
// `receiveJSON` unchanged, and its answer, when it is not null, is written
// with "\n". Lines are answered in order.
const { JSONRPCServer, JSONRPCErrorException, JSONRPCErrorCode } = require("json-rpc-2.0");

const invalidParams = () =>
  new JSONRPCErrorException("Invalid params", JSONRPCErrorCode.InvalidParams);
const isNumber = (x) => typeof x === "number";

const server = new JSONRPCServer();
server.addMethod("subtract", (params) => {
  let minuend, subtrahend;
  if (Array.isArray(params) && params.length === 2) {
    [minuend, subtrahend] = params;
  } else if (params && typeof params === "object" && !Array.isArray(params)
    && Object.keys(params).length === 2 && "minuend" in params && "subtrahend" in params) {
    ({ minuend, subtrahend } = params);
  } else {
    throw invalidParams();
  }
  if (!isNumber(minuend) || !isNumber(subtrahend)) throw invalidParams();
  return minuend - subtrahend;
});
server.addMethod("sum", (params) => {
  if (!Array.isArray(params) || !params.every(isNumber)) throw invalidParams();
  return params.reduce((a, b) => a + b, 0);
});
server.addMethod("get_data", () => ["hello", 5]);
for (const name of ["update", "notify_hello", "notify_sum"]) {
  server.addMethod(name, () => null);
}

let pending = Buffer.alloc(0);
let queue = Promise.resolve();
const answer = (line) => {
  queue = queue.then(async () => {
    const response = await server.receiveJSON(line.toString("utf8"));
    if (response !== null) process.stdout.write(JSON.stringify(response) + "\n");
  });
};
process.stdin.on("data", (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  let nl;
  while ((nl = pending.indexOf(0x0a)) !== -1) {
    answer(pending.subarray(0, nl));
    pending = pending.subarray(nl + 1);
  }
});
process.stdin.on("end", () => {
  if (pending.length > 0) answer(pending);
});
