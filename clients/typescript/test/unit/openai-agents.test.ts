/** The Agents door's appends: at most 32 items per request, and no request past the Lambda payload limit. */
import assert from "node:assert/strict";
import { it } from "node:test";

import { EVENT_OVERHEAD } from "../../src/index.js";
import { OffpromptSession } from "../../src/openai-agents.js";
import { answer, client } from "./scripted.js";

it("cuts appends by count and by size, each with its own request id, in order", async () => {
  const { api, calls } = client(() => answer(201, { seqs: [], replayed: 0 }), { maxRequestBytes: EVENT_OVERHEAD + 2000 });
  const session = new OffpromptSession("s", { client: api });
  const small = Array.from({ length: 40 }, (_, i) => ({ role: "user" as const, content: `m${i}` }));
  const big = Array.from({ length: 3 }, (_, i) => ({ role: "user" as const, content: `${i}`.repeat(900) }));
  await session.addItems([...small, ...big]);
  const sent = calls.map((c) => c.json.items as { content: string }[]);
  assert.deepEqual(sent.flat().map((i) => i.content), [...small, ...big].map((i) => i.content));
  assert.ok(sent.every((items) => items.length <= 32));
  assert.ok(calls.every((c) => api.requestTooLarge(c.body!) === false), "a request past the limit");
  assert.ok(sent.length >= 4, String(sent.length));
  assert.equal(new Set(calls.map((c) => c.json.request_id)).size, calls.length);
});
