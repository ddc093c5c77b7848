// A minimal ACP agent on the official TypeScript SDK
// (`@agentclientprotocol/sdk` on npm): version 1, no login, an echo for a
// model. What rpcspec tests is the SDK's handling of the protocol
// (framing, pairing, errors, unknown methods, cancellation); the agent
// only gives it sessions and turns. ES imports ignore NODE_PATH, so the
// SDK is resolved with require.resolve (which honours NODE_PATH, as the
// manifest sets it) and imported by path.
//
//     node acp_ts_agent.mjs
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Readable, Writable } from "node:stream";
import { randomUUID } from "node:crypto";

const require = createRequire(import.meta.url);
const { agent, methods, ndJsonStream, RequestError } = await import(
  pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href
);

const sessions = new Set();

const app = agent({ name: "rpcspec-ts-echo-agent" })
  .onRequest(methods.agent.initialize, () => ({ protocolVersion: 1, agentCapabilities: {} }))
  .onRequest(methods.agent.session.new, () => {
    const sessionId = randomUUID();
    sessions.add(sessionId);
    return { sessionId };
  })
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    if (!sessions.has(params.sessionId)) {
      throw RequestError.invalidParams({ sessionId: params.sessionId });
    }
    for (const block of params.prompt) {
      const text = block.type === "text" ? block.text : (block.uri ?? "");
      await client.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
      });
    }
    return { stopReason: "end_turn" };
  })
  .onNotification(methods.agent.session.cancel, () => {});

const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
app.connect(stream);
