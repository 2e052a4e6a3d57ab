/** The OpenAI Agents SDK door against the local stack: the SDK's runner keeps its history in an OffpromptSession,
 * and a second run (a new session object, as another process would make) sees the first's items. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { it } from "node:test";

import { Agent, type Model, type ModelRequest, type ModelResponse, run, setTracingDisabled, Usage } from "@openai/agents";

import { OffpromptError } from "../../src/index.js";
import { OffpromptSession } from "../../src/openai-agents.js";

const baseUrl = process.env.OFFPROMPT_API_URL;
if (!baseUrl) throw new Error("OFFPROMPT_API_URL: the local stack these tests run against");
const tenant = `oa-${randomUUID().slice(0, 8)}`;
setTracingDisabled(true);

/** A model that answers how many input items it was given and what the user said last. */
class CountingModel implements Model {
  readonly requests: ModelRequest[] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const input = Array.isArray(request.input) ? request.input : [{ role: "user", content: request.input }];
    const users = input.filter((i) => "role" in i && i.role === "user").map((i) => JSON.stringify((i as { content: unknown }).content));
    const text = `${input.length} items; last user: ${users[users.length - 1]}`;
    return {
      usage: new Usage(),
      output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] }],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not scripted");
  }
}

it("the runner's history lives in offprompt and the next run reads it", async () => {
  const id = `agents-${randomUUID().slice(0, 8)}`;
  const model = new CountingModel();
  const agent = new Agent({ name: "helper", instructions: "Be brief.", model });
  const first = await run(agent, "I am Ada", { session: new OffpromptSession(id, { baseUrl, tenant }) });
  assert.match(String(first.finalOutput), /^1 items/);
  const second = await run(agent, "What is my name?", { session: new OffpromptSession(id, { baseUrl, tenant }) });
  assert.match(String(second.finalOutput), /^3 items; last user: "What is my name\?"/);
  const stored = await new OffpromptSession(id, { baseUrl, tenant }).getItems();
  assert.equal(stored.length, 4);
  assert.deepEqual(stored.map((i) => ("role" in i ? i.role : i.type)), ["user", "assistant", "user", "assistant"]);
});

it("items: appends in chunks, limits, pops, clears", async () => {
  const session = new OffpromptSession(`items-${randomUUID().slice(0, 8)}`, { baseUrl, tenant });
  assert.equal(await session.getSessionId(), session.sessionId);
  const items = Array.from({ length: 70 }, (_, i) => ({ role: "user" as const, content: `m${i}` }));
  await session.addItems(items);
  assert.deepEqual(await session.getItems(), items);
  assert.deepEqual(await session.getItems(3), items.slice(-3));
  assert.deepEqual(await session.getItems(0), []);
  assert.deepEqual(await session.popItem(), items[69]);
  assert.equal((await session.getItems()).length, 69);
  await session.clearSession();
  assert.deepEqual(await session.getItems(), []);
  assert.equal(await session.popItem(), undefined);
  await session.clearSession(); // again: nothing to clear

  const budget = new OffpromptSession(session.sessionId, { baseUrl, tenant, maxTokens: 12 });
  await budget.addItems(items.slice(0, 10));
  const fitted = await budget.getItems();
  assert.ok(fitted.length > 0 && fitted.length < 10);
  assert.deepEqual(fitted, items.slice(10 - fitted.length, 10));
});

it("a thread of Griptape runs is refused as a session", async () => {
  const session = new OffpromptSession(`runs-${randomUUID().slice(0, 8)}`, { baseUrl, tenant });
  await session.client.addRun(session.sessionId, { input: "a", output: "b" });
  await assert.rejects(session.addItems([{ role: "user", content: "x" }]), (e: unknown) => e instanceof OffpromptError && e.code === "thread_kind_mismatch");
});
