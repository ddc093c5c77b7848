// NDJSON decoder under test: Node's readline (crlfDelay: Infinity) with
// JSON.parse per line, the usual way Node code reads NDJSON from a stream.
// Tested with Node 20. Contract: spec-cases/decoder/README.md.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
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
rl.on("close", () => console.log(JSON.stringify({ end: terminal ? "complete" : "interrupted" })));
