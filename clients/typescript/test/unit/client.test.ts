import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  EVENT_OVERHEAD,
  OffpromptClient,
  OffpromptConnectionError,
  OffpromptError,
  retryAfterMs,
  TENANT_HEADER,
} from "../../src/index.js";
import { answer, client, scripted } from "./scripted.js";

const run = { run: { id: "r" }, seq: 1 };

describe("connection settings", () => {
  it("reads OFFPROMPT_API_URL and OFFPROMPT_API_KEY from the environment, else the local stack", async () => {
    const { calls, fetch } = scripted(() => answer(200, { threads: [] }));
    const saved = { url: process.env.OFFPROMPT_API_URL, key: process.env.OFFPROMPT_API_KEY };
    try {
      delete process.env.OFFPROMPT_API_URL;
      delete process.env.OFFPROMPT_API_KEY;
      await new OffpromptClient({ fetch }).listThreads();
      process.env.OFFPROMPT_API_URL = "https://env.example/prod/";
      process.env.OFFPROMPT_API_KEY = "op_k_secret";
      await new OffpromptClient({ fetch }).listThreads();
      await new OffpromptClient({ fetch, baseUrl: "https://given.example", apiKey: "op_given", tenant: "ada" }).listThreads();
    } finally {
      for (const [name, value] of [["OFFPROMPT_API_URL", saved.url], ["OFFPROMPT_API_KEY", saved.key]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    assert.deepEqual(calls.map((c) => c.url), [
      "http://127.0.0.1:3000/threads",
      "https://env.example/prod/threads",
      "https://given.example/threads",
    ]);
    assert.equal(calls[0]!.headers["authorization"], undefined);
    assert.equal(calls[1]!.headers["authorization"], "Bearer op_k_secret");
    assert.equal(calls[2]!.headers["authorization"], "Bearer op_given");
    assert.equal(calls[2]!.headers[TENANT_HEADER.toLowerCase()], "ada");
  });

  it("puts a path parameter in one segment and drops absent query parameters", async () => {
    const { api, calls } = client(() => answer(200, { runs: [] }));
    await api.listRuns("a/b c?", { limit: 5, order: "desc" });
    assert.equal(calls[0]!.url, "https://api.example/threads/a%2Fb%20c%3F/runs?limit=5&order=desc");
    await assert.rejects(api.getThread(""), TypeError);
    assert.equal(calls.length, 1);
  });
});

describe("errors", () => {
  it("carry the API's status and code", async () => {
    const body = { code: "record_not_found", message: "no such record" };
    const { api } = client(() => answer(404, body, { "apigw-requestid": "req-1" }));
    const error = await api.getRecord(["users"], "k").catch((e: unknown) => e);
    assert.ok(error instanceof OffpromptError);
    assert.equal(error.status, 404);
    assert.equal(error.code, "record_not_found");
    assert.equal(error.detail, "no such record");
    assert.deepEqual(error.body, body);
    assert.equal(error.requestId, "req-1");
    assert.equal(await api.findRecord(["users"], "k"), null);
  });

  it("name the status when the body is not the API's", async () => {
    const { api } = client(() => ({ status: 502, text: "<html>Bad Gateway</html>" }));
    const error = await api.getThread("t").catch((e: unknown) => e);
    assert.ok(error instanceof OffpromptError && !(error instanceof OffpromptConnectionError));
    assert.equal(error.code, "http_502");
  });

  it("a connection failure is status 0", async () => {
    const { api, calls } = client(() => new TypeError("fetch failed"), { retry: { attempts: 1 } });
    const error = await api.getThread("t").catch((e: unknown) => e);
    assert.ok(error instanceof OffpromptConnectionError);
    assert.equal(error.status, 0);
    assert.equal(error.code, "connection_error");
    assert.equal(calls.length, 1);
  });

  it("a timeout is a connection error", async () => {
    // A request the server never answers. A real one holds its socket open, which keeps Node's event loop alive until
    // the client's timeout (AbortSignal.timeout, an unref'd timer) fires; this stand-in holds a timer instead. Without
    // it the loop empties first and node:test cancels the rest of the file ("Promise resolution is still pending").
    const fetch = (_: string, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        const socket = setInterval(() => {}, 1_000);
        init!.signal!.addEventListener("abort", () => {
          clearInterval(socket);
          reject(init!.signal!.reason);
        });
      });
    const api = new OffpromptClient({ baseUrl: "https://api.example", fetch, timeoutMs: 20, retry: { attempts: 1 } });
    await assert.rejects(api.getThread("t"), OffpromptConnectionError);
  });
});

describe("retries", () => {
  it("repeat 503 and 429 with backoff, honouring Retry-After", async () => {
    const replies = [answer(503, { code: "unavailable", message: "" }), answer(429, { code: "rate_limited", message: "" }, { "Retry-After": "3" }), answer(200, { threads: [] })];
    const { api, calls, pauses } = client((_, i) => replies[i]!);
    await api.listThreads();
    assert.equal(calls.length, 3);
    assert.deepEqual(pauses, [200, 3000]);
  });

  it("give up after the attempts, and at once when Retry-After asks more than maxDelayMs", async () => {
    const busy = client(() => answer(503, { code: "unavailable", message: "busy" }));
    await assert.rejects(busy.api.listThreads(), (e: unknown) => e instanceof OffpromptError && e.status === 503);
    assert.equal(busy.calls.length, 4);
    assert.deepEqual(busy.pauses, [200, 400, 800]);

    const quota = client(() => answer(429, { code: "quota_exceeded", message: "" }, { "Retry-After": "86400" }));
    await assert.rejects(quota.api.listThreads(), (e: unknown) => e instanceof OffpromptError && e.code === "quota_exceeded");
    assert.equal(quota.calls.length, 1);
  });

  it("never repeat other errors", async () => {
    const { api, calls } = client(() => answer(400, { code: "invalid_input", message: "" }));
    await assert.rejects(api.listThreads(), OffpromptError);
    assert.equal(calls.length, 1);
  });

  it("repeat a creation after a lost answer with the same request id, so it is stored once", async () => {
    const { api, calls } = client((_, i) => (i === 0 ? new TypeError("socket hang up") : answer(201, run)));
    await api.addRun("t", { input: "hi", output: "hello" });
    assert.equal(calls.length, 2);
    assert.match(calls[0]!.json.id, /^[0-9a-f]{32}$/);
    assert.equal(calls[1]!.json.id, calls[0]!.json.id);
    assert.deepEqual(calls[0]!.json.input, { type: "TextArtifact", value: "hi" });

    const items = client((_, i) => (i === 0 ? new TypeError("reset") : answer(201, { seqs: [1], replayed: 0 })));
    await items.api.addItems("s", [{ role: "user", content: "x" }]);
    assert.equal(items.calls[1]!.json.request_id, items.calls[0]!.json.request_id);

    const outputs = client((_, i) => (i === 0 ? new TypeError("reset") : answer(200, { type: "InfoArtifact" })));
    await outputs.api.processOutput("TaskMemory", "Web", "get", "page");
    assert.equal(outputs.calls[1]!.json.idempotency_key, outputs.calls[0]!.json.idempotency_key);
  });

  it("never repeat after a lost answer what a repeat would change (pop, copy, key creation)", async () => {
    for (const call of [
      (api: OffpromptClient) => api.popItem("s"),
      (api: OffpromptClient) => api.copyCheckpointThread("a", "b"),
      (api: OffpromptClient) => api.createKey({ name: "ci" }),
    ]) {
      const { api, calls } = client(() => new TypeError("reset"));
      await assert.rejects(call(api), OffpromptConnectionError);
      assert.equal(calls.length, 1);
    }
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    assert.equal(retryAfterMs("2"), 2000);
    assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000);
    assert.equal(retryAfterMs(null), undefined);
    assert.equal(retryAfterMs("soon"), undefined);
  });
});

describe("big values and S3", () => {
  it("sends an output too large for a Lambda request through the upload route, credentials never to S3", async () => {
    const ticket = { upload_id: "up-1", url: "https://s3.example/b/k?X-Amz-Signature=s", expires_in: 900, headers: { "x-amz-meta-a": "1" }, s3_uri: "s3://b/k" };
    const { api, calls } = client(
      (call) =>
        call.path.endsWith("/uploads") ? answer(201, ticket) : call.url.startsWith("https://s3.example") ? answer(200) : answer(200, { type: "InfoArtifact" }),
      { apiKey: "op_secret", maxRequestBytes: EVENT_OVERHEAD + 1000 },
    );
    const big = "é".repeat(800);
    await api.processOutput("TaskMemory", "Web", "get", { type: "TextArtifact", value: big, name: "page" });
    assert.deepEqual(calls.map((c) => `${c.method} ${c.url.split("?")[0]}`), [
      "POST https://api.example/memories/TaskMemory/uploads",
      "PUT https://s3.example/b/k",
      "POST https://api.example/memories/TaskMemory/outputs",
    ]);
    const [, put, output] = calls;
    assert.equal(put!.headers["authorization"], undefined);
    assert.equal(put!.headers["x-amz-meta-a"], "1");
    assert.equal(put!.headers["content-type"], "application/octet-stream");
    assert.equal(put!.body, big);
    assert.deepEqual(output!.json.artifact, { type: "TextArtifact", name: "page" });
    assert.deepEqual(output!.json.value_from, { upload_id: "up-1" });

    const small = client(() => answer(200, { type: "InfoArtifact" }));
    await small.api.processOutput("TaskMemory", "Web", "get", "short");
    assert.equal(small.calls.length, 1);
  });

  it("follows the load route's 303 without credentials and rebuilds BlobDownloads", async () => {
    const listing = { type: "ListArtifact", value: [{ type: "TextArtifact", value: "x" }] };
    const redirected = client(
      (call) => (call.url.startsWith("https://s3.example") ? answer(200, listing) : answer(303, undefined, { Location: "https://s3.example/o?sig=1" })),
      { apiKey: "op_secret" },
    );
    assert.deepEqual(await redirected.api.loadArtifacts("M", "ns"), listing);
    assert.equal(redirected.calls[1]!.headers["authorization"], undefined);

    const blobs = {
      type: "BlobDownloads",
      artifacts: [{ artifact: { type: "BlobArtifact", name: "a" }, download_url: "https://s3.example/a" }],
    };
    const downloads = client((call) =>
      call.url.startsWith("https://s3.example") ? { status: 200, text: "\u0001\u0002hi" } : answer(200, blobs),
    );
    const rebuilt = (await downloads.api.loadArtifacts("M", "ns")) as { type: string; value: unknown[] };
    assert.equal(rebuilt.type, "ListArtifact");
    assert.deepEqual(rebuilt.value, [{ type: "BlobArtifact", name: "a", value: btoa("\u0001\u0002hi") }]);
  });
});

describe("records", () => {
  it("refuse a namespace the path cannot carry before sending", async () => {
    const { api, calls } = client(() => answer(200, {}));
    await assert.rejects(api.putRecord(["a.b"], "k", {}), TypeError);
    await assert.rejects(api.putRecord([], "k", {}), TypeError);
    await assert.rejects(api.putRecord("users" as unknown as string[], "k", {}), TypeError);
    assert.equal(calls.length, 0);
    await api.putRecord(["users", "ada"], "prefs", { text: "lentils" }, { ttlMinutes: 5 });
    assert.equal(calls[0]!.url, "https://api.example/records/users.ada/prefs");
    assert.deepEqual(calls[0]!.json, { value: { text: "lentils" }, ttl_minutes: 5 });
  });
});

describe("pages", () => {
  it("follow the cursors", async () => {
    const { api, calls } = client((call) =>
      answer(200, call.url.includes("cursor=c2") ? { runs: [{ seq: 3 }] } : { runs: [{ seq: 1 }, { seq: 2 }], next_cursor: "c2" }),
    );
    const seqs: unknown[] = [];
    for await (const r of api.iterRuns("t", { pageSize: 2 })) seqs.push((r as { seq: number }).seq);
    assert.deepEqual(seqs, [1, 2, 3]);
    assert.equal(calls.length, 2);
  });
});

describe("export and erase", () => {
  it("ask again after retry_after until the answer is final", async () => {
    const replies = [answer(202, { tenant: "t", status: "indexing", complete: false, retry_after: 2, indexing: {} }), answer(200, { tenant: "t", export_id: "e", manifest_url: "u", expires_in: 1, counts: {}, complete: true })];
    const { api, pauses } = client((_, i) => replies[i]!);
    const done = await api.exportTenant();
    assert.equal((done as { export_id: string }).export_id, "e");
    assert.deepEqual(pauses, [2000]);

    const erase = client(() => answer(200, { tenant: "t", deleted: {}, remaining: {}, verified: true }));
    await erase.api.eraseTenant("t");
    assert.deepEqual(erase.calls[0]!.json, { confirm: "t" });
    assert.equal(erase.calls[0]!.method, "DELETE");
  });
});

describe("request ids", () => {
  it("are 32 hex digits, with or without crypto.randomUUID", async () => {
    const { newRequestId } = await import("../../src/index.js");
    assert.match(newRequestId(), /^[0-9a-f]{32}$/);
    const saved = globalThis.crypto.randomUUID;
    try {
      (globalThis.crypto as { randomUUID?: unknown }).randomUUID = undefined;
      const ids = new Set(Array.from({ length: 50 }, () => newRequestId()));
      assert.equal(ids.size, 50);
      for (const id of ids) assert.match(id, /^[0-9a-f]{32}$/);
    } finally {
      globalThis.crypto.randomUUID = saved;
    }
  });
});
