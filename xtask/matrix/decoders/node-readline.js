// NDJSON decoder under test: Node's readline (crlfDelay: Infinity) with
// JSON.parse per line, the usual way Node code reads NDJSON from a stream.
// Tested with Node 20. Contract: spec-cases/decoder/README.md, including
// "Many streams in one process": offered RPCSPEC_STREAMS=pipes, it decodes
// stream after stream from named pipes (fs.createReadStream).
const fs = require("fs");
const readline = require("readline");

function decode(input, done) {
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let terminal = false;
  rl.on("line", (line) => {
    if (line.trim() === "") return;
    try {
      const v = JSON.parse(line);
      terminal = v !== null && typeof v === "object" && ["done", "error"].includes(v.type);
      console.log(JSON.stringify({ value: v }));
    } catch (e) {
      console.log(JSON.stringify({ error: String(e.message) }));
    }
  });
  rl.on("close", () => {
    console.log(JSON.stringify({ end: terminal ? "complete" : "interrupted" }));
    done();
  });
}

if (process.env.RPCSPEC_STREAMS === "pipes") {
  console.log(JSON.stringify({ streams: "pipes" }));
  const paths = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  const queue = [];
  let busy = false;
  const next = () => {
    if (busy || queue.length === 0) return;
    busy = true;
    decode(fs.createReadStream(queue.shift()), () => {
      busy = false;
      next();
    });
  };
  paths.on("line", (path) => {
    queue.push(path);
    next();
  });
} else {
  decode(process.stdin, () => {});
}
