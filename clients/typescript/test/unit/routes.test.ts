/** Every route of docs/openapi.json has a method of the client (the console's pages and /mcp excepted: a browser
 * and an MCP client speak to those). */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";

import type { OffpromptClient } from "../../src/index.js";
import { answer, client } from "./scripted.js";

const document = JSON.parse(readFileSync(new URL("../../../../docs/openapi.json", import.meta.url), "utf-8"));
const NOT_CLIENT_ROUTES = /^\/(console|mcp)\b/;

/** Each client method, called once. */
export const EVERY_METHOD: ((api: OffpromptClient) => Promise<unknown>)[] = [
  (api) => api.addRun("t", { input: "i", output: "o" }),
  (api) => api.promptStack("t", { input: "q", maxTokens: 100 }),
  (api) => api.getThread("t"),
  (api) => api.configureThread("t", { max_runs: 5 }),
  (api) => api.deleteThread("t"),
  (api) => api.searchThreads({ query: "tokyo" }),
  (api) => api.threadExtraction("t"),
  (api) => api.putStrategy("facts", { type: "facts", namespace: "users/{actor_id}/facts", trigger: { after_runs: 1 } }),
  (api) => api.getStrategy("facts"),
  (api) => api.listStrategies(),
  (api) => api.deleteStrategy("facts"),
  (api) => api.listThreads({ prefix: "p" }),
  (api) => api.listRuns("t"),
  (api) => api.forkThread("t"),
  (api) => api.addItems("t", [{ role: "user", content: "x" }]),
  (api) => api.getItems("t", { limit: 3 }),
  (api) => api.popItem("t"),
  (api) => api.putRecord(["n"], "k", { a: 1 }),
  (api) => api.getRecord(["n"], "k"),
  (api) => api.deleteRecord(["n"], "k"),
  (api) => api.recordHistory(["n"], "k"),
  (api) => api.searchRecords(["n"], { query: "q" }),
  (api) => api.listRecordNamespaces(),
  (api) => api.configureRecordNamespace(["n"], 60),
  (api) => api.putCheckpoint("t", "c", { checkpoint: { type: "json", data: "" }, metadata: {} }),
  (api) => api.putCheckpointWrites("t", "c", { taskId: "x", writes: [] }),
  (api) => api.getCheckpoint("t"),
  (api) => api.listCheckpoints("t"),
  (api) => api.deleteCheckpointThread("t"),
  (api) => api.copyCheckpointThread("t", "u"),
  (api) => api.pruneCheckpointThread("t"),
  (api) => api.processOutput("M", "tool", "act", "v"),
  (api) => api.createUpload("M"),
  (api) => api.loadArtifacts("M", "ns"),
  (api) => api.listNamespaces("M"),
  (api) => api.getNamespace("M", "ns"),
  (api) => api.deleteNamespace("M", "ns"),
  (api) => api.meta("M"),
  (api) => api.search("M", "ns", "q"),
  (api) => api.listKeys(),
  (api) => api.createKey(),
  (api) => api.deleteKey("k"),
  (api) => api.mintToken("k", { ttlSeconds: 60 }),
  (api) => api.usage({ from: "2026-01-01" }),
  (api) => api.audit({ limit: 5 }),
  (api) => api.exportTenant(),
  (api) => api.eraseTenant("t"),
  (api) => api.findCloudThreads("a"),
  (api) => api.createCloudThread({ name: "n" }),
  (api) => api.getCloudThread("t"),
  (api) => api.patchCloudThread("t", { messages: [] }),
  (api) => api.deleteCloudThread("t"),
  (api) => api.cloudMessages("t"),
];

function template(method: string, path: string): string | undefined {
  for (const [route, operations] of Object.entries(document.paths as Record<string, object>)) {
    const pattern = new RegExp(`^${route.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    if (pattern.test(path) && method.toLowerCase() in operations) return `${method} ${route}`;
  }
  return undefined;
}

it("every route of the API has a client method", async () => {
  const { api, calls } = client(() => answer(200, { type: "ListArtifact", value: [] }));
  for (const call of EVERY_METHOD) await call(api);
  const reached = new Set(calls.map((c) => template(c.method, c.path)));
  assert.ok(!reached.has(undefined), "a method called a route the document does not have");
  const routes = Object.entries(document.paths as Record<string, object>).flatMap(([path, operations]) =>
    NOT_CLIENT_ROUTES.test(path) ? [] : Object.keys(operations).map((m) => `${m.toUpperCase()} ${path}`),
  );
  assert.deepEqual([...routes].filter((r) => !reached.has(r)), []);
});
