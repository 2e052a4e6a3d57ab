/** The client against a running local stack (OFFPROMPT_API_URL; tests/e2e/test_typescript_client.py starts one). */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";

import { EVENT_OVERHEAD, OffpromptClient, OffpromptError } from "../../src/index.js";

const baseUrl = process.env.OFFPROMPT_API_URL;
if (!baseUrl) throw new Error("OFFPROMPT_API_URL: the local stack these tests run against");
const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const tenant = uid("ts");
const api = new OffpromptClient({ baseUrl, tenant, timeoutMs: 120_000 });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, seconds = 15): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("conversation memory", () => {
  it("stores runs, answers a prompt stack, lists, forks and deletes", async () => {
    const thread = uid("conv");
    const first = await api.addRun(thread, { input: "Hi, I am Ada.", output: "Hello Ada!" });
    assert.equal(first.seq, 1);
    const again = await api.addRun(thread, { input: "Hi, I am Ada.", output: "Hello Ada!", id: String(first.run["id"]) });
    assert.equal(again.seq, 1, "the same id again is the same run");
    await api.addRun(thread, { input: "I like lentils.", output: "Noted." });
    const stack = await api.promptStack(thread, { system: "Be brief.", input: "What is my name?", maxTokens: 2000 });
    const texts = stack.messages.map((m) => ((m["content"] as { artifact: { value: string } }[])[0]!.artifact.value));
    assert.deepEqual(texts, ["Be brief.", "Hi, I am Ada.", "Hello Ada!", "I like lentils.", "Noted.", "What is my name?"]);

    const runs: unknown[] = [];
    for await (const run of api.iterRuns(thread, { pageSize: 1 })) runs.push(run);
    assert.equal(runs.length, 2);
    const fork = await api.forkThread(thread, { afterRunId: String(first.run["id"]), newThreadId: uid("fork") });
    assert.equal(fork.through_seq, 1);
    assert.equal((await api.listRuns(fork.thread_id)).runs.length, 1);
    const threads: string[] = [];
    for await (const t of api.iterThreads({ prefix: "conv-" })) threads.push(String(t["thread_id"]));
    assert.ok(threads.includes(thread));
    await api.configureThread(thread, { max_runs: 10 });
    assert.equal((await api.getThread(thread))["max_runs"], 10);
    await assert.rejects(api.deleteThread(thread), (e: unknown) => e instanceof OffpromptError && e.code === "thread_has_forks");
    await api.deleteThread(fork.thread_id);
    await api.deleteThread(thread);
    await assert.rejects(api.getThread(thread), (e: unknown) => e instanceof OffpromptError && e.status === 404 && e.code === "not_found");
  });

  it("raises the API's errors with their code", async () => {
    const error = await api.addRun(uid("bad"), { input: { type: "NoSuchArtifact" }, output: "x" }).catch((e: unknown) => e);
    assert.ok(error instanceof OffpromptError);
    assert.equal(error.status, 400);
    assert.equal(error.code, "invalid_artifact");
  });
});

describe("sessions", () => {
  it("appends items once per request id, reads and pops them", async () => {
    const thread = uid("sess");
    const items = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }];
    await api.addItems(thread, items, { requestId: "req-1" });
    const replay = await api.addItems(thread, items, { requestId: "req-1" });
    assert.equal(replay.replayed, 2);
    assert.deepEqual((await api.getItems(thread)).items, items);
    assert.deepEqual((await api.popItem(thread)).item, items[1]);
    assert.deepEqual((await api.getItems(thread)).items, [items[0]]);
  });
});

describe("records", () => {
  it("put, get, search, history, namespaces, delete", async () => {
    const root = uid("rec").replace("-", "");
    await api.putRecord([root, "ada"], "food", { text: "Ada likes lentils" });
    await api.putRecord([root, "ada"], "food", { text: "Ada likes lentils and rice" });
    assert.equal((await api.getRecord([root, "ada"], "food")).value?.["text"], "Ada likes lentils and rice");
    assert.equal((await api.recordHistory([root, "ada"], "food")).versions.length, 2);
    const found = await until(() => api.searchRecords([root], { query: "rice" }), (r) => r.items.length > 0);
    assert.equal(found.items[0]!.key, "food");
    assert.deepEqual((await api.listRecordNamespaces({ prefix: [root] })).namespaces, [[root, "ada"]]);
    await api.configureRecordNamespace([root, "ada"], 60);
    await api.deleteRecord([root, "ada"], "food");
    assert.equal(await api.findRecord([root, "ada"], "food"), null);
  });
});

describe("checkpoints", () => {
  it("put, writes, get, list, copy, prune, delete", async () => {
    const thread = uid("cp");
    const blob = (text: string) => ({ type: "json", data: btoa(JSON.stringify(text)) });
    await api.putCheckpoint(thread, "c1", { checkpoint: blob("one"), metadata: { step: 1 } });
    await api.putCheckpoint(thread, "c2", { checkpoint: blob("two"), metadata: { step: 2 }, parentCheckpointId: "c1" });
    await api.putCheckpointWrites(thread, "c2", { taskId: "t", writes: [{ idx: 0, channel: "x", value: blob("w") }] });
    const newest = await api.getCheckpoint(thread);
    assert.equal(newest.checkpoint_id, "c2");
    assert.equal(newest.pending_writes.length, 1);
    assert.deepEqual((await api.listCheckpoints(thread, { filter: { step: 1 } })).checkpoints.map((c) => c.checkpoint_id), ["c1"]);
    const copy = uid("cp");
    await api.copyCheckpointThread(thread, copy);
    assert.equal((await api.getCheckpoint(copy)).checkpoint_id, "c2");
    await api.pruneCheckpointThread(thread, "keep_latest");
    const left: string[] = [];
    for await (const c of api.iterCheckpoints(thread)) left.push(c.checkpoint_id);
    assert.deepEqual(left, ["c2"]);
    await api.deleteCheckpointThread(thread);
    await assert.rejects(api.getCheckpoint(thread), (e: unknown) => e instanceof OffpromptError && e.code === "checkpoint_not_found");
  });
});

describe("task memory", () => {
  it("stores an output, loads it byte-exact, searches, lists and deletes", async () => {
    const memory = uid("TaskMemory");
    const ref = await api.processOutput(memory, "WebScraper", "get_content", { type: "TextArtifact", value: "A very long page about Paris", name: "page-1" }, { consistency: "search" });
    assert.equal(ref["type"], "InfoArtifact");
    const loaded = await api.loadArtifacts(memory, "page-1");
    assert.equal(loaded.value[0]!.value, "A very long page about Paris");
    const hits = await api.search(memory, "page-1", "Paris");
    assert.ok(hits.hits.length > 0);
    assert.equal((await api.listNamespaces(memory)).namespaces.length, 1);
    assert.equal((await api.getNamespace(memory, "page-1"))["namespace"], "page-1");
    assert.equal((await api.meta(memory)).entries.length, 1);
    // the same idempotency key again (a retry after a lost answer) stores nothing new
    const key = uid("idem");
    const once = await api.processOutput(memory, "WebScraper", "get_content", { type: "TextArtifact", value: "Lyon", name: "page-2" }, { idempotencyKey: key });
    const twice = await api.processOutput(memory, "WebScraper", "get_content", { type: "TextArtifact", value: "Lyon", name: "page-2" }, { idempotencyKey: key });
    assert.deepEqual(twice, once);
    assert.equal((await api.meta(memory)).entries.length, 2);
    assert.equal((await api.loadArtifacts(memory, "page-2")).value.length, 1);
    await api.deleteNamespace(memory, "page-1");
    assert.deepEqual((await api.loadArtifacts(memory, "page-1")).value, []);
  });

  it("sends a value too large for a request through the upload route, and a blob by processUpload", async () => {
    const memory = uid("TaskMemory");
    const small = new OffpromptClient({ baseUrl, tenant, maxRequestBytes: EVENT_OVERHEAD + 4096, timeoutMs: 120_000 });
    const text = "ü".repeat(10_000);
    await small.processOutput(memory, "Tool", "act", { type: "TextArtifact", value: text, name: "big" });
    assert.equal((await api.loadArtifacts(memory, "big")).value[0]!.value, text);

    const bytes = new Uint8Array(4096).map((_, i) => (i * 7) % 256);
    await api.processUpload(memory, "Tool", "act", bytes, { artifact: { type: "BlobArtifact", name: "blob" } });
    const blob = await api.loadArtifacts(memory, "blob");
    assert.deepEqual(Uint8Array.from(atob(String(blob.value[0]!.value)), (c) => c.charCodeAt(0)), bytes);
  });
});

describe("hosted mode and tenant data", () => {
  it("keys, usage, export, erase", async () => {
    const own = uid("tenant");
    const local = new OffpromptClient({ baseUrl, tenant: own, timeoutMs: 120_000 });
    await local.addRun("t", { input: "a", output: "b" });
    const made = await local.createKey({ name: "ci" });
    const keyed = new OffpromptClient({ baseUrl, apiKey: made.key, timeoutMs: 120_000 });
    assert.equal((await keyed.listRuns("t")).runs.length, 1, "the key is the tenant");
    assert.deepEqual((await keyed.listKeys()).keys.map((k) => k.key_id), [made.key_id]);
    assert.equal((await keyed.usage()).tenant, own);
    const exported = await keyed.exportTenant();
    assert.equal(exported.complete, true);
    await keyed.deleteKey(made.key_id);
    await assert.rejects(keyed.listRuns("t"), (e: unknown) => e instanceof OffpromptError && e.status === 401);
    const erased = await local.eraseTenant(own);
    assert.equal((erased as { verified: boolean }).verified, true);
    assert.deepEqual((await local.listRuns("t")).runs, []);
  });

  it("Griptape Cloud's threads API", async () => {
    const alias = uid("alias");
    const made = await api.createCloudThread({ name: "support", alias });
    assert.equal((await api.findCloudThreads(alias)).threads?.[0]?.thread_id ?? made.thread_id, made.thread_id);
    await api.patchCloudThread(made.thread_id, { messages: [{ input: "hi", output: "hello", metadata: {} }] });
    assert.equal((await api.getCloudThread(made.thread_id)).name, "support");
    assert.ok((await api.cloudMessages(made.thread_id)).messages.length >= 1);
    await api.deleteCloudThread(made.thread_id);
  });
});
