/** LangGraph.js on offprompt against the local stack: a graph interrupted in one process resumes in another; the
 * store's operations. (LangGraph.js's checkpointer validation suite: checkpoint.validation.ts, run by Vitest.) */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

import { OffpromptSaver, OffpromptStore } from "../../src/langgraph.js";

const baseUrl = process.env.OFFPROMPT_API_URL;
if (!baseUrl) throw new Error("OFFPROMPT_API_URL: the local stack these tests run against");
const tenant = `lg-${randomUUID().slice(0, 8)}`;
const GRAPH = fileURLToPath(new URL("./refund-graph.ts", import.meta.url));

function step(...args: string[]): { pid: number; interrupts: string[]; approved: boolean | null; log: string[] } {
  const out = execFileSync(process.execPath, ["--import", "tsx", GRAPH, ...args], {
    env: { ...process.env, LG_TENANT: tenant },
    encoding: "utf-8",
  });
  return JSON.parse(out.trim().split("\n").pop()!);
}

describe("a graph", () => {
  it("interrupted in one process resumes in another", async () => {
    const thread = `refund-${randomUUID().slice(0, 8)}`;
    const asked = step("start", thread);
    assert.deepEqual(asked.interrupts, ["Approve the refund? (order-7)"]);
    assert.equal(asked.approved, null);
    const done = step("resume", thread, "approve");
    assert.deepEqual(done.interrupts, []);
    assert.equal(done.approved, true);
    assert.notEqual(done.pid, asked.pid);
    assert.deepEqual(done.log, [`asked in ${done.pid}`, `acted in ${done.pid}`], "resumed in the second process");

    const saver = new OffpromptSaver({ baseUrl, tenant });
    const history = [];
    for await (const t of saver.list({ configurable: { thread_id: thread } })) history.push(t.metadata?.source);
    assert.ok(history.length >= 4 && history[history.length - 1] === "input", String(history));
    const store = new OffpromptStore({ baseUrl, tenant });
    assert.deepEqual((await store.get(["refunds"], "order-7"))?.value, { approved: true });
    // every thread the saver wrote, without naming one (the registry)
    const threads = new Set<string>();
    for await (const t of saver.list({ configurable: {} }, { limit: 100 })) threads.add(String(t.config.configurable?.thread_id));
    assert.ok(threads.has(thread));
    await saver.deleteThread(thread);
    assert.equal(await saver.getTuple({ configurable: { thread_id: thread } }), undefined);
  });
});

describe("OffpromptStore", () => {
  it("puts, gets, searches, lists namespaces, deletes", async () => {
    const store = new OffpromptStore({ baseUrl, tenant });
    const root = `st${randomUUID().slice(0, 8)}`;
    await store.put([root, "ada"], "prefs", { text: "Ada likes lentils", kind: "pref", stars: 5 });
    await store.put([root, "ada"], "job", { text: "Ada writes programs", kind: "fact", stars: 3 });
    const got = await store.get([root, "ada"], "prefs");
    assert.deepEqual(got?.value, { text: "Ada likes lentils", kind: "pref", stars: 5 });
    assert.ok(got?.createdAt instanceof Date);
    assert.deepEqual((await store.search([root], { filter: { stars: { $gt: 4 } } })).map((i) => i.key), ["prefs"]);
    let hits: { key: string; score?: number }[] = [];
    for (let i = 0; i < 50 && hits.length === 0; i++) {
      hits = await store.search([root], { query: "programs" });
      if (hits.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(hits[0]?.key, "job");
    assert.equal(typeof hits[0]?.score, "number");
    assert.deepEqual(await store.listNamespaces({ prefix: [root] }), [[root, "ada"]]);
    await store.delete([root, "ada"], "prefs");
    assert.equal(await store.get([root, "ada"], "prefs"), null);
  });
});
