/** The Vercel AI SDK door against the local stack, with the SDK's own mock model scripted: a first run stores a fact
 * and the turn through the memory tools, the next run (a new client, as another process would make) recalls it. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { it } from "node:test";

import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";

import { OffpromptClient } from "../../src/index.js";
import { type Facts, memoryTools, promptStackMessages } from "../../src/ai.js";

const baseUrl = process.env.OFFPROMPT_API_URL;
if (!baseUrl) throw new Error("OFFPROMPT_API_URL: the local stack these tests run against");
const tenant = `ai-${randomUUID().slice(0, 8)}`;
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

type Prompt = Parameters<MockLanguageModelV3["doGenerate"]>[0]["prompt"];

/** A model that calls `calls` in turn (one tool per step), then answers with what the tools returned. */
function scriptedModel(calls: { tool: string; input: object }[]) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }: { prompt: Prompt }) => {
      const call = calls[step++];
      if (call) {
        return {
          content: [{ type: "tool-call", toolCallId: `call-${step}`, toolName: call.tool, input: JSON.stringify(call.input) }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      const results = prompt
        .filter((m) => m.role === "tool")
        .flatMap((m) => m.content)
        .map((part) => JSON.stringify((part as { output?: unknown }).output));
      return { content: [{ type: "text", text: results.join(" | ") }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
  });
}

it("a generateText run stores through the memory tools and the next run recalls it", async () => {
  const user = `u${randomUUID().slice(0, 8)}`;
  const thread = `chat-${user}`;
  const first = await generateText({
    model: scriptedModel([
      { tool: "remember", input: { text: "Ada likes lentils", key: "food" } },
      { tool: "append", input: { input: "I like lentils", output: "Noted: you like lentils." } },
    ]),
    tools: memoryTools({ baseUrl, tenant, namespace: ["users", user], threadId: thread }),
    prompt: "I like lentils",
    stopWhen: stepCountIs(5),
  });
  assert.deepEqual(first.steps.flatMap((s) => s.toolCalls.map((c) => c.toolName)), ["remember", "append"]);
  assert.match(first.text, /"remembered":"food"/);

  // The next run: a new client (as another process), the history as messages, the model recalls.
  const client = new OffpromptClient({ baseUrl, tenant });
  const messages = await promptStackMessages(thread, { client, input: "What do I like?" });
  assert.deepEqual(messages, [
    { role: "user", content: [{ type: "text", text: "I like lentils" }] },
    { role: "assistant", content: [{ type: "text", text: "Noted: you like lentils." }] },
    { role: "user", content: [{ type: "text", text: "What do I like?" }] },
  ]);
  const model = scriptedModel([{ tool: "recall", input: {} }, { tool: "recall", input: { key: "food" } }]);
  const next = await generateText({ model, tools: memoryTools({ client, namespace: ["users", user] }), messages, stopWhen: stepCountIs(5) });
  assert.equal(next.steps.length, 3);
  assert.match(next.text, /Ada likes lentils.*\|.*Ada likes lentils/);
  // the model saw the history it was given
  const firstPrompt = model.doGenerateCalls[0]!.prompt;
  assert.equal(firstPrompt.length, 3);

  // search finds it by its words (BM25, searchable within the index's refresh interval)
  const tools = memoryTools({ client, namespace: ["users", user] });
  let found: Facts = { facts: [] };
  for (let i = 0; i < 50 && found.facts.length === 0; i++) {
    found = (await tools.search.execute!({ query: "lentils" }, { toolCallId: "s", messages: [] })) as Facts;
    if (found.facts.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.deepEqual(found.facts.map((f) => f.key), ["food"]);
  assert.equal(tools["append"], undefined, "no thread, no append tool");
});
