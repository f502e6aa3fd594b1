// Drives `parley mcp` over stdio with the official TypeScript SDK through a
// MAGI run with checkpoints: "elicit" declares the elicitation capability
// and answers each elicitation/create (a note after round 1, stop after
// round 2); "paused" declares none and answers the paused results with the
// checkpoint tool, the same answers. Prints what it saw as one JSON object.
// Usage: node checkpoint.mjs PARLEY_BINARY DB_FILE elicit|paused
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [bin, db, how] = process.argv.slice(2);
const elicit = how === "elicit";
const transport = new StdioClientTransport({
  command: bin,
  args: ["--db", db, "mcp"],
  env: process.env,
  stderr: "inherit",
});
const client = new Client(
  { name: "parley-checkpoint", version: "1.0.0" },
  elicit ? { capabilities: { elicitation: {} } } : {},
);
const answers = [{ action: "note", text: "The budget was cut by half." }, { action: "stop" }];
const asked = [];
if (elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    const a = answers.shift();
    return a ? { action: "accept", content: a } : { action: "cancel" };
  });
}
await client.connect(transport);
await client.listTools(); // caches the output schemas: the SDK checks each result against them

const summary = (r) => {
  const sc = r.structuredContent ?? {};
  return {
    isError: Boolean(r.isError),
    status: sc.status ?? sc.paused?.status ?? "",
    sessionId: sc.session_id ?? "",
    round: sc.paused?.point?.round ?? 0,
    choices: sc.paused?.point?.choices ?? [],
    answered: sc.answered ?? "",
    text: (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
  };
};
const results = [];
let result = await client.callTool({ name: "magi", arguments: { question: "Should we ship on Friday?", checkpoint: "each_round" } });
results.push(summary(result));
while (!elicit && result.structuredContent?.paused && results.length < 5) {
  const { session_id } = result.structuredContent.paused;
  result = await client.callTool({ name: "checkpoint", arguments: { session_id, ...(answers.shift() ?? { action: "stop" }) } });
  results.push(summary(result));
}
await client.close();
console.log(JSON.stringify({ asked, results }));
