// Drives parley serve's /v1 with the official openai npm package, as any
// application would: node client.mjs BASE_URL API_KEY [MODE]. It prints
// one JSON object of what it saw. MODE "measure" runs only a streamed
// council and reports the times to the first reasoning and content bytes;
// MODE "failed" asks chatgpt questions its provider fails (FAIL, CUT) and
// reports whether the SDK threw. MODE "tools" (one more argument, a URL)
// asks claude to read that page, once whole and once streamed, and reports
// the reasoning, the answer and the parley extension of each.
import OpenAI from "openai";

const [baseURL, apiKey, mode] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 120_000 });
const question = [{ role: "system", content: "Be brief." }, { role: "user", content: "Should we adopt Go for the CLI?" }];

async function stream(model, includeUsage) {
  const start = performance.now();
  const out = { model, reasoning: "", content: "", firstReasoningMs: null, firstContentMs: null, usage: null, finish: null, id: null, parley: null };
  const s = await client.chat.completions.create({
    model, messages: question, stream: true, stream_options: includeUsage ? { include_usage: true } : undefined,
  });
  for await (const chunk of s) {
    out.id = chunk.id;
    if (chunk.usage) out.usage = chunk.usage;
    if (chunk.parley) out.parley = chunk.parley;
    for (const c of chunk.choices) {
      if (c.delta.reasoning_content) {
        out.firstReasoningMs ??= performance.now() - start;
        out.reasoning += c.delta.reasoning_content;
      }
      if (c.delta.content) {
        out.firstContentMs ??= performance.now() - start;
        out.content += c.delta.content;
      }
      if (c.finish_reason) out.finish = c.finish_reason;
    }
  }
  out.totalMs = performance.now() - start;
  return out;
}

async function abortMidStream() {
  const s = await client.chat.completions.create({
    model: "council", messages: [{ role: "user", content: "STALL: Go or Rust?" }], stream: true,
  });
  let id = null;
  let aborted = false;
  try {
    for await (const chunk of s) {
      id = chunk.id;
      if (chunk.choices[0]?.delta?.reasoning_content) {
        s.controller.abort();
      }
    }
  } catch (err) {
    aborted = err instanceof OpenAI.APIUserAbortError || err.name === "AbortError" || String(err).includes("abort");
  }
  return { id, aborted: aborted || s.controller.signal.aborted };
}

// failed asks a question the agent cannot answer, streaming or not, and
// reports whether the SDK threw (as it must for a run with no answer).
async function failed(question, stream) {
  const out = { question, stream, threw: false, status: null, code: null, content: "", finish: null };
  try {
    const r = await client.chat.completions.create({ model: "chatgpt", messages: [{ role: "user", content: question }], stream });
    if (!stream) {
      out.content = r.choices[0].message.content;
      out.finish = r.choices[0].finish_reason;
      return out;
    }
    for await (const chunk of r) {
      for (const c of chunk.choices) {
        out.content += c.delta.content ?? "";
        if (c.finish_reason) out.finish = c.finish_reason;
      }
    }
  } catch (err) {
    out.threw = err instanceof OpenAI.APIError;
    out.status = err.status ?? null;
    out.code = err.code ?? err.error?.code ?? null;
  }
  return out;
}

async function tools(url) {
  const messages = [{ role: "user", content: `Summarise ${url} please.` }];
  const done = await client.chat.completions.create({ model: "claude", messages });
  const out = { completion: { reasoning: done.choices[0].message.reasoning_content ?? "", content: done.choices[0].message.content, parley: done.parley } };
  const s = await client.chat.completions.create({ model: "claude", messages, stream: true });
  out.stream = { reasoning: "", content: "", parley: null };
  for await (const chunk of s) {
    if (chunk.parley) out.stream.parley = chunk.parley;
    for (const c of chunk.choices) {
      out.stream.reasoning += c.delta.reasoning_content ?? "";
      out.stream.content += c.delta.content ?? "";
    }
  }
  return out;
}

async function main() {
  if (mode === "tools") {
    console.log(JSON.stringify(await tools(process.argv[5])));
    return;
  }
  if (mode === "failed") {
    const runs = [];
    for (const q of ["FAIL: hello?", "CUT: hello?"]) {
      for (const stream of [false, true]) runs.push(await failed(q, stream));
    }
    console.log(JSON.stringify(runs));
    return;
  }
  if (mode === "measure") {
    console.log(JSON.stringify(await stream("council", true)));
    return;
  }
  const result = {};
  const models = await client.models.list();
  result.models = models.data.map((m) => ({ id: m.id, owned_by: m.owned_by }));
  const done = await client.chat.completions.create({ model: "council", messages: question });
  result.completion = { id: done.id, content: done.choices[0].message.content, reasoning: done.choices[0].message.reasoning_content,
    finish: done.choices[0].finish_reason, usage: done.usage, parley: done.parley };
  result.streams = [];
  for (const model of ["council", "magi", "all", "claude"]) {
    result.streams.push(await stream(model, model !== "claude"));
  }
  try {
    await client.chat.completions.create({ model: "gpt-nothing", messages: question });
    result.error = null;
  } catch (err) {
    result.error = { isAPIError: err instanceof OpenAI.APIError, status: err.status, type: err.type, code: err.code, message: err.message };
  }
  result.abort = await abortMidStream();
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
