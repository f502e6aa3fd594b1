// Drives `parley --demo mcp` over stdio with the official TypeScript SDK:
// lists the tools and runs one magi call with a progress token, then prints
// what it saw as one JSON object for the Go test to check.
// Usage: node client.mjs PARLEY_BINARY DB_FILE
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, db] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: bin,
  args: ["--demo", "--db", db, "mcp"],
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: "parley-interop", version: "1.0.0" });
await client.connect(transport);

const server = client.getServerVersion();
const { tools } = await client.listTools();
const progress = [];
// listTools cached the output schemas: the SDK checks the result against them.
const result = await client.callTool(
  { name: "magi", arguments: { question: "Adopt a four-day week?" } },
  undefined,
  { onprogress: (p) => progress.push(p.message ?? "") },
);
await client.close();

const magi = result.structuredContent ?? {};
console.log(JSON.stringify({
  server: server?.name,
  tools: tools.map((t) => ({ name: t.name, hasOutputSchema: Boolean(t.outputSchema) })),
  isError: Boolean(result.isError),
  verdict: magi.verdict,
  rounds: (magi.rounds ?? []).length,
  sessionId: magi.session_id,
  text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
  progress,
}));
