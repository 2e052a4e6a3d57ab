/**
 * The offprompt HTTP API from TypeScript, on `fetch` alone (Node >= 20, browsers, edge runtimes).
 *
 *     import { OffpromptClient } from "@offprompt/client";
 *     const api = new OffpromptClient();            // OFFPROMPT_API_URL / OFFPROMPT_API_KEY, else the local stack
 *     await api.addRun("t1", { input: "Hi, I am Ada.", output: "Hello Ada!" });
 *     const stack = await api.promptStack("t1", { input: "What is my name?", maxTokens: 2000 });
 *
 * The same behaviour as the Python client (`clients/python`): every route, `OffpromptError` carrying the API's
 * `status` and `code` (`OffpromptConnectionError`, status 0, when it cannot be reached), the load route's 303 to
 * S3 followed without credentials, `BlobDownloads` rebuilt into the ListArtifact they stand for, and task-memory
 * values too large for a Lambda request sent through the upload route. Besides: requests the service refused
 * before storing anything (429, 503) are repeated with backoff, honouring `Retry-After`, and requests that create
 * something carry a request id (`id`, `request_id`, `idempotency_key`) made here when none is given, so a request
 * repeated after a lost answer is stored once.
 */
import { OffpromptError } from "./errors.js";
import { type FetchLike, type Received, type RetryOptions, segment, Transport, USER_AGENT } from "./transport.js";
import type { Body, JsonObject, Query, Reply, Schemas } from "./types.js";

export const TENANT_HEADER = "X-Offprompt-Tenant";
/** The local stack (`make dev`), used when neither `baseUrl` nor `OFFPROMPT_API_URL` is given. */
export const LOCAL_URL = "http://127.0.0.1:3000";
/** Lambda's synchronous payload limit; the body travels in the event as a JSON string, next to EVENT_OVERHEAD. */
export const MAX_REQUEST_BYTES = 6 * 1024 * 1024;
export const EVENT_OVERHEAD = 64 * 1024;
const BY_REFERENCE = new Set(["TextArtifact", "BlobArtifact", "ImageArtifact", "AudioArtifact"]);

export interface ClientOptions {
  /** The API's base URL (default `OFFPROMPT_API_URL`, else the local stack). */
  baseUrl?: string;
  /** An API key, sent as `Authorization: Bearer` (default `OFFPROMPT_API_KEY`). */
  apiKey?: string;
  /** The local stack's tenant header (ignored by a deployed stack). */
  tenant?: string;
  /** More headers on every API request (a JWT's `Authorization`, say). */
  headers?: Record<string, string>;
  /** Per attempt, in ms (default 30 000). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Another `fetch` (a test's, an instrumented one); default the global one. */
  fetch?: FetchLike;
  /** Requests whose Lambda event would exceed this go through the upload route (default 6 MiB). */
  maxRequestBytes?: number;
  /** How the client waits between attempts (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
}

/** How a framework door reaches the API: a client, or the options to make one. */
export interface DoorOptions extends ClientOptions {
  /** A client to use instead of one made from the other options. */
  client?: OffpromptClient;
}

/** The door's client: the one given, else one made from the options (environment and local stack defaults). */
export function clientOf(options: DoorOptions): OffpromptClient {
  return options.client ?? new OffpromptClient(options);
}

/** A Griptape artifact's JSON, or a string (sent as a TextArtifact). */
export type ArtifactInput = string | JsonObject;
/** A ListArtifact's JSON, as a load answers it: its artifacts' JSON in `value`. */
export type ListArtifactJSON = Schemas["ArtifactJSON"] & { value: (Schemas["ArtifactJSON"] & { value?: unknown })[] };
/** A record namespace: one or more labels without ".". */
export type Namespace = readonly string[];

type Opt<T> = T | undefined;

/** The environment's variables where there is one (Node, Deno, Bun); none in a browser. */
function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value ? value : undefined;
}

/** A fresh request id (32 hex digits); `crypto.randomUUID` is missing from a browser page served over plain http. */
export function newRequestId(): string {
  if (typeof globalThis.crypto.randomUUID === "function") return globalThis.crypto.randomUUID().replace(/-/g, "");
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function textArtifact(value: ArtifactInput): JsonObject {
  return typeof value === "string" ? { type: "TextArtifact", value } : value;
}

function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A record namespace's path form: its labels joined by "." (one URL segment). */
export function namespacePath(namespace: Namespace): string {
  if (typeof namespace === "string" || !Array.isArray(namespace)) {
    throw new TypeError(`a namespace is an array of labels, not ${JSON.stringify(namespace)}`);
  }
  if (namespace.length === 0 || namespace.some((l) => typeof l !== "string" || l === "" || l.includes("."))) {
    throw new TypeError(`a namespace is 1 or more non-empty labels without ".", not ${JSON.stringify(namespace)}`);
  }
  return namespace.join(".");
}

function recordPath(namespace: Namespace, key: string): string {
  return `/records/${segment(namespacePath(namespace))}/${segment(key)}`;
}

function checkpointThread(threadId: string): string {
  return `/checkpoint-threads/${segment(threadId)}`;
}

/** A ListArtifact's JSON around artifact dicts, as the API answers a load inline. */
function listArtifact(items: JsonObject[]): ListArtifactJSON {
  const id = newRequestId();
  return {
    type: "ListArtifact",
    id,
    reference: null,
    meta: {},
    name: id,
    value: items,
    item_separator: "\n\n",
    validate_uniform_types: false,
  } as unknown as ListArtifactJSON;
}

async function* pages<T>(fetchPage: (cursor: Opt<string>) => Promise<unknown>, key: string): AsyncGenerator<T> {
  let cursor: Opt<string>;
  for (;;) {
    const page = (await fetchPage(cursor)) as Record<string, unknown>;
    for (const item of (page[key] as T[] | undefined) ?? []) yield item;
    const next = page["next_cursor"];
    if (typeof next !== "string" || !next) return;
    cursor = next;
  }
}

export class OffpromptClient {
  readonly baseUrl: string;
  readonly maxRequestBytes: number;
  private readonly transport: Transport;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? environment("OFFPROMPT_API_URL") ?? LOCAL_URL).replace(/\/+$/, "");
    this.maxRequestBytes = options.maxRequestBytes ?? MAX_REQUEST_BYTES;
    const headers: Record<string, string> = { Accept: "application/json" };
    // Browsers refuse to set User-Agent (a forbidden header): only where the runtime allows it.
    if (typeof (globalThis as { window?: unknown }).window === "undefined") headers["User-Agent"] = USER_AGENT;
    const apiKey = options.apiKey ?? environment("OFFPROMPT_API_KEY");
    if (apiKey) headers["Authorization"] = `Bearer ${apiKey}`;
    if (options.tenant !== undefined) headers[TENANT_HEADER] = options.tenant;
    Object.assign(headers, options.headers ?? {});
    const fetchImpl = options.fetch ?? ((input: string, init?: RequestInit) => globalThis.fetch(input, init));
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      headers,
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: fetchImpl,
      retry: { attempts: 4, baseDelayMs: 200, maxDelayMs: 20_000, ...options.retry },
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    });
  }

  /** One request to the API (`path` already encoded); the parsed JSON answer. */
  async request<T = unknown>(
    method: string,
    path: string,
    options: { json?: unknown; query?: Record<string, string | number | boolean | null | undefined>; resend?: boolean } = {},
  ): Promise<T> {
    return (await this.transport.send(method, path, options)).json<T>();
  }

  /** The raw answer (status, headers, text), for routes whose headers matter. */
  async send(
    method: string,
    path: string,
    options: { json?: unknown; query?: Record<string, string | number | boolean | null | undefined>; resend?: boolean } = {},
  ): Promise<Received> {
    return this.transport.send(method, path, options);
  }

  // ------------------------------------------------------------------------------------ conversation memory

  /** Append a Run: `input`/`output` (strings become TextArtifacts) or a Griptape Run's JSON. `id` makes a retry
   * converge (one is made when none is given). */
  async addRun(
    threadId: string,
    run: { input: ArtifactInput; output: ArtifactInput; id?: string; meta?: JsonObject } | Body<"/threads/{thread_id}/runs", "post">,
  ): Promise<Reply<"/threads/{thread_id}/runs", "post">> {
    const body = { ...run, input: textArtifact(run.input as ArtifactInput), output: textArtifact(run.output as ArtifactInput) };
    body.id ??= newRequestId();
    return this.request("POST", `/threads/${segment(threadId)}/runs`, { json: body, resend: true });
  }

  /** The thread's history as a Griptape PromptStack (system, summary, runs, input) pruned to `maxTokens`. */
  async promptStack(
    threadId: string,
    options: {
      system?: ArtifactInput;
      input?: ArtifactInput;
      maxTokens?: number;
      lastN?: number;
      memoryIndex?: number;
      model?: string;
      tokenizer?: string;
      asOfRun?: string;
    } = {},
  ): Promise<Reply<"/threads/{thread_id}/prompt-stack", "post">> {
    const body: Body<"/threads/{thread_id}/prompt-stack", "post"> = defined({
      system: options.system,
      input: options.input,
      max_tokens: options.maxTokens,
      last_n: options.lastN,
      memory_index: options.memoryIndex,
      model: options.model,
      tokenizer: options.tokenizer,
      as_of_run: options.asOfRun,
    });
    return this.request("POST", `/threads/${segment(threadId)}/prompt-stack`, { json: body, resend: true });
  }

  async getThread(threadId: string): Promise<Reply<"/threads/{thread_id}", "get">> {
    return this.request("GET", `/threads/${segment(threadId)}`);
  }

  /** PUT the thread's settings (max_runs, summary memory, offset, retention, ...). */
  async configureThread(
    threadId: string,
    settings: Body<"/threads/{thread_id}", "put">,
  ): Promise<Reply<"/threads/{thread_id}", "put">> {
    return this.request("PUT", `/threads/${segment(threadId)}`, { json: settings });
  }

  async deleteThread(threadId: string): Promise<Reply<"/threads/{thread_id}", "delete">> {
    return this.request("DELETE", `/threads/${segment(threadId)}`);
  }

  /** One page of the tenant's threads by id: `{threads, next_cursor}`. */
  async listThreads(
    options: { limit?: number; cursor?: string; prefix?: string; order?: "activity" | "id" } = {},
  ): Promise<Reply<"/threads", "get">> {
    return this.request("GET", "/threads", { query: options });
  }

  /** Every thread of the tenant (with `prefix`), the most recently written first (or `order: "id"`). */
  iterThreads(
    options: { pageSize?: number; prefix?: string; order?: "activity" | "id" } = {},
  ): AsyncGenerator<Schemas["ThreadsPage"]["threads"][number]> {
    const { pageSize, prefix, order } = options;
    return pages((cursor) => this.listThreads(defined({ limit: pageSize, cursor, prefix, order })), "threads");
  }

  /** POST /threads/search: runs and session items of past conversations by meaning (ADR 0049). */
  async searchThreads(request: Body<"/threads/search", "post">): Promise<Reply<"/threads/search", "post">> {
    return this.request("POST", "/threads/search", { json: request });
  }

  /** The thread's extraction status per strategy (ADR 0051). */
  async threadExtraction(threadId: string): Promise<Reply<"/threads/{thread_id}/extraction", "get">> {
    return this.request("GET", `/threads/${segment(threadId)}/extraction`);
  }

  /** PUT an extraction strategy (ADR 0051): its type, namespace template, trigger, instructions. */
  async putStrategy(
    name: string,
    strategy: Body<"/extraction/strategies/{name}", "put">,
  ): Promise<Reply<"/extraction/strategies/{name}", "put">> {
    return this.request("PUT", `/extraction/strategies/${segment(name)}`, { json: strategy });
  }

  async getStrategy(name: string): Promise<Reply<"/extraction/strategies/{name}", "get">> {
    return this.request("GET", `/extraction/strategies/${segment(name)}`);
  }

  async listStrategies(): Promise<Reply<"/extraction/strategies", "get">> {
    return this.request("GET", "/extraction/strategies");
  }

  /** DELETE a strategy (idempotent; the records it wrote stay). */
  async deleteStrategy(name: string): Promise<void> {
    await this.request("DELETE", `/extraction/strategies/${segment(name)}`);
  }

  /** One page of runs: `{runs, next_cursor}`; `asOfRun`: the thread as it was right after that run. */
  async listRuns(
    threadId: string,
    options: { limit?: number; cursor?: string; order?: "asc" | "desc"; asOfRun?: string } = {},
  ): Promise<Reply<"/threads/{thread_id}/runs", "get">> {
    const query: Query<"/threads/{thread_id}/runs", "get"> = defined({
      limit: options.limit,
      cursor: options.cursor,
      order: options.order,
      as_of_run: options.asOfRun,
    });
    return this.request("GET", `/threads/${segment(threadId)}/runs`, { query });
  }

  /** Every run of the thread, following the cursors. */
  iterRuns(
    threadId: string,
    options: { pageSize?: number; order?: "asc" | "desc" } = {},
  ): AsyncGenerator<Schemas["RunsPage"]["runs"][number]> {
    return pages((cursor) => this.listRuns(threadId, defined({ limit: options.pageSize, cursor, order: options.order })), "runs");
  }

  /** Fork the thread after `afterRunId` (default its newest run) into `newThreadId`; a retry with the same
   * `requestId` (one is made when none is given) answers the same fork. */
  async forkThread(
    threadId: string,
    options: { afterRunId?: string; newThreadId?: string; requestId?: string } = {},
  ): Promise<Reply<"/threads/{thread_id}/fork", "post">> {
    const body: Body<"/threads/{thread_id}/fork", "post"> = defined({
      after_run_id: options.afterRunId,
      thread_id: options.newThreadId,
      request_id: options.requestId ?? newRequestId(),
    });
    return this.request("POST", `/threads/${segment(threadId)}/fork`, { json: body, resend: true });
  }

  // ---------------------------------------------------------------------- framework session items (ADR 0033)

  /** Append session items (JSON objects, at most 32) in order; the same `requestId` again is stored once. */
  async addItems(
    threadId: string,
    items: JsonObject[],
    options: { requestId?: string } = {},
  ): Promise<Reply<"/threads/{thread_id}/items", "post">> {
    const body: Body<"/threads/{thread_id}/items", "post"> = { items, request_id: options.requestId ?? newRequestId() };
    return this.request("POST", `/threads/${segment(threadId)}/items`, { json: body, resend: true });
  }

  /** The newest `limit` items (before seq `before`), or the newest that fit `maxTokens`, oldest first. */
  async getItems(
    threadId: string,
    options: { limit?: number; before?: number; maxTokens?: number } = {},
  ): Promise<Reply<"/threads/{thread_id}/items", "get">> {
    const query = defined({ limit: options.limit, before: options.before, max_tokens: options.maxTokens });
    return this.request("GET", `/threads/${segment(threadId)}/items`, { query });
  }

  /** Remove the newest item: `{item, seq}` (`item` null when there is none). Not repeated after a lost answer. */
  async popItem(threadId: string): Promise<Reply<"/threads/{thread_id}/items/pop", "post">> {
    return this.request("POST", `/threads/${segment(threadId)}/items/pop`);
  }

  // ---------------------------------------------------------------------------- long-term records (ADR 0034)

  /** Create or replace the record `(namespace, key)`; `index`: false, or the field paths indexed for search. */
  async putRecord(
    namespace: Namespace,
    key: string,
    value: JsonObject,
    options: { index?: false | string[]; ttlMinutes?: number } = {},
  ): Promise<Reply<"/records/{namespace}/{key}", "put">> {
    const body = defined({ value, index: options.index, ttl_minutes: options.ttlMinutes }) as Body<"/records/{namespace}/{key}", "put">;
    return this.request("PUT", recordPath(namespace, key), { json: body });
  }

  /** The current record (or the version valid at `asOf`); raises 404 `record_not_found` otherwise. */
  async getRecord(
    namespace: Namespace,
    key: string,
    options: { asOf?: string; refreshTtl?: boolean } = {},
  ): Promise<Reply<"/records/{namespace}/{key}", "get">> {
    return this.request("GET", recordPath(namespace, key), { query: { as_of: options.asOf, refresh_ttl: options.refreshTtl } });
  }

  /** The record, or null when there is none. */
  async findRecord(namespace: Namespace, key: string, options: { refreshTtl?: boolean } = {}): Promise<Reply<"/records/{namespace}/{key}", "get"> | null> {
    try {
      return await this.getRecord(namespace, key, options);
    } catch (error) {
      if (error instanceof OffpromptError && error.status === 404 && error.code === "record_not_found") return null;
      throw error;
    }
  }

  async deleteRecord(namespace: Namespace, key: string): Promise<void> {
    await this.transport.send("DELETE", recordPath(namespace, key));
  }

  /** Every stored version of the record, newest first. */
  async recordHistory(namespace: Namespace, key: string): Promise<Reply<"/records/{namespace}/{key}/history", "get">> {
    return this.request("GET", `${recordPath(namespace, key)}/history`);
  }

  /** Records under a namespace prefix: BM25 with `query`, newest first without; `filter` on value fields. */
  async searchRecords(
    namespacePrefix: Namespace = [],
    options: { query?: string; filter?: JsonObject; limit?: number; offset?: number; asOf?: string; refreshTtl?: boolean } = {},
  ): Promise<Reply<"/records/search", "post">> {
    const body = {
      namespace_prefix: [...namespacePrefix],
      ...defined({
        query: options.query,
        filter: options.filter,
        limit: options.limit,
        offset: options.offset,
        as_of: options.asOf,
        refresh_ttl: options.refreshTtl,
      }),
    } as Body<"/records/search", "post">;
    return this.request("POST", "/records/search", { json: body, resend: true });
  }

  /** The namespaces holding records (prefix/suffix labels may be "*"), cut at `maxDepth`. */
  async listRecordNamespaces(
    options: { prefix?: string[]; suffix?: string[]; maxDepth?: number; limit?: number; offset?: number } = {},
  ): Promise<Reply<"/records/namespaces", "post">> {
    const body = defined({
      prefix: options.prefix,
      suffix: options.suffix,
      max_depth: options.maxDepth,
      limit: options.limit,
      offset: options.offset,
    }) as Body<"/records/namespaces", "post">;
    return this.request("POST", "/records/namespaces", { json: body, resend: true });
  }

  /** The namespace's default TTL for puts that give none (null: no default). */
  async configureRecordNamespace(
    namespace: Namespace,
    defaultTtlMinutes: number | null,
  ): Promise<Reply<"/record-namespaces/{namespace}", "put">> {
    const body: Body<"/record-namespaces/{namespace}", "put"> = { default_ttl_minutes: defaultTtlMinutes };
    return this.request("PUT", `/record-namespaces/${segment(namespacePath(namespace))}`, { json: body });
  }

  // ------------------------------------------------------------------------- LangGraph checkpoints (ADR 0039)

  /** Store (or replace) a checkpoint `{type, data}` (data base64) with its JSON metadata. */
  async putCheckpoint(
    threadId: string,
    checkpointId: string,
    options: {
      checkpoint: { type: string; data: string };
      metadata: JsonObject;
      checkpointNs?: string;
      parentCheckpointId?: string | null;
    },
  ): Promise<Reply<"/checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}", "put">> {
    const body: Body<"/checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}", "put"> = {
      checkpoint_ns: options.checkpointNs ?? "",
      parent_checkpoint_id: options.parentCheckpointId ?? null,
      checkpoint: options.checkpoint,
      metadata: options.metadata,
    };
    return this.request("PUT", `${checkpointThread(threadId)}/checkpoints/${segment(checkpointId)}`, { json: body });
  }

  /** Store a task's pending writes `[{idx, channel, value: {type, data}}]` on a checkpoint. */
  async putCheckpointWrites(
    threadId: string,
    checkpointId: string,
    options: {
      taskId: string;
      writes: { idx: number; channel: string; value: { type: string; data: string } }[];
      checkpointNs?: string;
      taskPath?: string;
    },
  ): Promise<Reply<"/checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes", "put">> {
    const body: Body<"/checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes", "put"> = {
      checkpoint_ns: options.checkpointNs ?? "",
      task_id: options.taskId,
      task_path: options.taskPath ?? "",
      writes: options.writes,
    };
    return this.request("PUT", `${checkpointThread(threadId)}/checkpoints/${segment(checkpointId)}/writes`, { json: body });
  }

  /** The checkpoint (the newest of the namespace without `checkpointId`) with its pending writes; raises 404
   * `checkpoint_not_found` when there is none. */
  async getCheckpoint(
    threadId: string,
    options: { checkpointNs?: string; checkpointId?: string } = {},
  ): Promise<Reply<"/checkpoint-threads/{thread_id}/checkpoint", "get">> {
    const query = { checkpoint_ns: options.checkpointNs || undefined, checkpoint_id: options.checkpointId };
    return this.request("GET", `${checkpointThread(threadId)}/checkpoint`, { query });
  }

  /** One page of the thread's checkpoints, newest first (every namespace when `checkpointNs` is undefined). */
  async listCheckpoints(
    threadId: string,
    options: { checkpointNs?: string; before?: string; filter?: JsonObject; limit?: number; cursor?: string } = {},
  ): Promise<Reply<"/checkpoint-threads/{thread_id}/checkpoints/list", "post">> {
    const body = {
      checkpoint_ns: options.checkpointNs ?? null,
      before: options.before ?? null,
      filter: options.filter ?? null,
      limit: options.limit ?? null,
      cursor: options.cursor ?? null,
    } as Body<"/checkpoint-threads/{thread_id}/checkpoints/list", "post">;
    return this.request("POST", `${checkpointThread(threadId)}/checkpoints/list`, { json: body, resend: true });
  }

  /** Every matching checkpoint, newest first, following the cursors. */
  iterCheckpoints(
    threadId: string,
    options: { checkpointNs?: string; before?: string; filter?: JsonObject } = {},
  ): AsyncGenerator<Schemas["CheckpointsPage"]["checkpoints"][number]> {
    return pages((cursor) => this.listCheckpoints(threadId, { ...options, ...defined({ cursor }) }), "checkpoints");
  }

  /** Delete the thread's checkpoints and writes (idempotent). */
  async deleteCheckpointThread(threadId: string): Promise<void> {
    await this.transport.send("DELETE", checkpointThread(threadId));
  }

  /** Copy the thread into `targetThreadId` as a fork: 404 `checkpoint_thread_not_found`, 409
   * `checkpoint_thread_exists`. Not repeated after a lost answer (a repeat would find the target taken). */
  async copyCheckpointThread(threadId: string, targetThreadId: string): Promise<Reply<"/checkpoint-threads/{thread_id}/copy", "post">> {
    const body: Body<"/checkpoint-threads/{thread_id}/copy", "post"> = { target_thread_id: targetThreadId };
    return this.request("POST", `${checkpointThread(threadId)}/copy`, { json: body });
  }

  /** `keep_latest`: only each namespace's newest checkpoint stays; `delete`: everything goes. */
  async pruneCheckpointThread(
    threadId: string,
    strategy: "keep_latest" | "delete" = "keep_latest",
  ): Promise<Reply<"/checkpoint-threads/{thread_id}/prune", "post">> {
    const body: Body<"/checkpoint-threads/{thread_id}/prune", "post"> = { strategy };
    return this.request("POST", `${checkpointThread(threadId)}/prune`, { json: body, resend: true });
  }

  // ------------------------------------------------------------------------------------------- task memory

  /**
   * Store a tool's output off-prompt; answers the InfoArtifact reference. A request too large for Lambda goes
   * through the upload route: a Text/Blob/Image/Audio artifact's value is PUT to S3 (presigned) and the request
   * carries its envelope and `value_from`. `idempotencyKey` (made here when none is given) makes a retry converge.
   */
  async processOutput(
    memoryName: string,
    tool: string,
    activity: string,
    artifact: ArtifactInput,
    options: {
      actions?: Body<"/memories/{memory_name}/outputs", "post">["actions"];
      thought?: string;
      valueFrom?: { upload_id: string };
      consistency?: "load" | "search";
      idempotencyKey?: string;
    } = {},
  ): Promise<Reply<"/memories/{memory_name}/outputs", "post">> {
    const body: Body<"/memories/{memory_name}/outputs", "post"> = {
      tool,
      activity,
      artifact: textArtifact(artifact),
      ...defined({
        actions: options.actions,
        thought: options.thought,
        value_from: options.valueFrom,
        consistency: options.consistency,
      }),
      idempotency_key: options.idempotencyKey ?? newRequestId(),
    };
    if (options.valueFrom === undefined && this.requestTooLarge(JSON.stringify(body))) {
      const split = splitValue(body.artifact);
      if (split) {
        const ticket = await this.upload(memoryName, split.payload);
        body.artifact = split.envelope;
        body.value_from = { upload_id: ticket.upload_id };
      }
    }
    return this.request("POST", `/memories/${segment(memoryName)}/outputs`, { json: body, resend: true });
  }

  /** Whether a JSON body would push the Lambda event past `maxRequestBytes` (the event escapes `"` and `\`). */
  requestTooLarge(json: string): boolean {
    const bytes = new TextEncoder().encode(json);
    let escaped = bytes.length;
    for (const byte of bytes) if (byte === 0x22 || byte === 0x5c) escaped++;
    return escaped + EVENT_OVERHEAD > this.maxRequestBytes;
  }

  /** A presigned S3 PUT for a value too large for a request: `{upload_id, url, expires_in, headers, s3_uri}`. */
  async createUpload(memoryName: string): Promise<Reply<"/memories/{memory_name}/uploads", "post">> {
    return this.request("POST", `/memories/${segment(memoryName)}/uploads`, { json: {}, resend: true });
  }

  /** PUT bytes to a presigned URL (no API credentials are sent); the HTTP status. */
  async uploadBytes(url: string, data: Uint8Array | string, headers: Record<string, string> = {}): Promise<number> {
    const sent = { ...headers, "Content-Type": "application/octet-stream" };
    return (await this.transport.send("PUT", url, { body: data, headers: sent, external: true })).status;
  }

  /** createUpload + uploadBytes: the ticket once the bytes are in S3. */
  async upload(memoryName: string, data: Uint8Array | string): Promise<Reply<"/memories/{memory_name}/uploads", "post">> {
    const ticket = await this.createUpload(memoryName);
    await this.uploadBytes(ticket.url, data, ticket.headers);
    return ticket;
  }

  /** processOutput for a value of any size: the bytes go to S3, the request carries the envelope (`artifact`,
   * default a BlobArtifact) and a reference. */
  async processUpload(
    memoryName: string,
    tool: string,
    activity: string,
    data: Uint8Array | string,
    options: { artifact?: JsonObject; thought?: string; idempotencyKey?: string } = {},
  ): Promise<Reply<"/memories/{memory_name}/outputs", "post">> {
    const payload = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const ticket = await this.upload(memoryName, payload);
    return this.processOutput(memoryName, tool, activity, options.artifact ?? { type: "BlobArtifact" }, {
      ...defined({ thought: options.thought, idempotencyKey: options.idempotencyKey }),
      valueFrom: { upload_id: ticket.upload_id },
    });
  }

  /** Everything the namespace holds, as a ListArtifact's JSON, byte-exact: a large text namespace through the
   * 303's presigned GET, a large blob namespace's `BlobDownloads` rebuilt into the ListArtifact it stands for. */
  async loadArtifacts(memoryName: string, namespace: string): Promise<ListArtifactJSON> {
    const path = `/memories/${segment(memoryName)}/namespaces/${segment(namespace)}/artifacts`;
    const answer = await this.transport.send("GET", path);
    const location = answer.status >= 300 && answer.status < 400 ? answer.headers.get("location") : null;
    if (answer.status === 0) {
      // A browser hides a manual redirect (an opaque answer): ask again and let it follow (the Fetch standard
      // drops Authorization on a cross-origin redirect).
      const followed = await this.options().fetch(this.baseUrl + path, { headers: this.options().headers, redirect: "follow" });
      if (!followed.ok) throw new OffpromptError(followed.status, `http_${followed.status}`, await followed.text());
      return (await followed.json()) as ListArtifactJSON;
    }
    if (location) return (await this.download(location)).json();
    const data = answer.json<Record<string, unknown>>();
    if (data && data["type"] === "BlobDownloads") {
      const entries = (data["artifacts"] as { artifact: JsonObject; download_url: string }[] | undefined) ?? [];
      const items: JsonObject[] = [];
      for (const entry of entries) {
        const bytes = (await this.download(entry.download_url)).bytes;
        items.push({ ...entry.artifact, value: toBase64(bytes) });
      }
      return listArtifact(items);
    }
    if (data && data["type"] !== "ListArtifact" && typeof data["download_url"] === "string") {
      return (await this.download(data["download_url"])).json();
    }
    return data as ListArtifactJSON;
  }

  private options() {
    return this.transport.options;
  }

  private async download(url: string): Promise<Received> {
    return this.transport.send("GET", url, { external: true });
  }

  /** One page of the memory's namespaces with their metadata: `{namespaces, next_cursor}`. */
  async listNamespaces(
    memoryName: string,
    options: { limit?: number; cursor?: string } = {},
  ): Promise<Reply<"/memories/{memory_name}/namespaces", "get">> {
    return this.request("GET", `/memories/${segment(memoryName)}/namespaces`, { query: options });
  }

  iterNamespaces(memoryName: string, options: { pageSize?: number } = {}): AsyncGenerator<Schemas["NamespacesPage"]["namespaces"][number]> {
    return pages((cursor) => this.listNamespaces(memoryName, defined({ limit: options.pageSize, cursor })), "namespaces");
  }

  async getNamespace(memoryName: string, namespace: string): Promise<Reply<"/memories/{memory_name}/namespaces/{namespace}", "get">> {
    return this.request("GET", `/memories/${segment(memoryName)}/namespaces/${segment(namespace)}`);
  }

  async deleteNamespace(memoryName: string, namespace: string): Promise<Reply<"/memories/{memory_name}/namespaces/{namespace}", "delete">> {
    return this.request("DELETE", `/memories/${segment(memoryName)}/namespaces/${segment(namespace)}`);
  }

  /** One page of the memory's meta entries ({thought, actions, answer} per stored output). */
  async meta(memoryName: string, options: { limit?: number; cursor?: string } = {}): Promise<Reply<"/memories/{memory_name}/meta", "get">> {
    return this.request("GET", `/memories/${segment(memoryName)}/meta`, { query: options });
  }

  iterMeta(memoryName: string, options: { pageSize?: number } = {}): AsyncGenerator<Schemas["MetaPage"]["entries"][number]> {
    return pages((cursor) => this.meta(memoryName, defined({ limit: options.pageSize, cursor })), "entries");
  }

  /** Search the namespace's text (mode bm25, knn or hybrid): `{hits}`. */
  async search(
    memoryName: string,
    namespace: string,
    query: string,
    options: { topK?: number; mode?: "bm25" | "knn" | "hybrid" } = {},
  ): Promise<Reply<"/memories/{memory_name}/namespaces/{namespace}/search", "post">> {
    const body = { query, ...defined({ top_k: options.topK, mode: options.mode }) } as Body<"/memories/{memory_name}/namespaces/{namespace}/search", "post">;
    const path = `/memories/${segment(memoryName)}/namespaces/${segment(namespace)}/search`;
    return this.request("POST", path, { json: body, resend: true });
  }

  // ------------------------------------------------------------------- hosted mode: keys, usage (ADR 0022/0023)

  /** The tenant's API keys (without secrets). */
  async listKeys(): Promise<Reply<"/keys", "get">> {
    return this.request("GET", "/keys");
  }

  /** A new API key of the caller's tenant; its secret is in this answer only. Not repeated after a lost answer.
   * `scopes`: what the key may reach (docs/keys.md); `expiresAt`: ISO 8601 with a time zone. */
  async createKey(
    options: { name?: string; scopes?: Record<string, unknown>; expiresAt?: string } = {},
  ): Promise<Reply<"/keys", "post">> {
    const body = { name: options.name, scopes: options.scopes, expires_at: options.expiresAt };
    return this.request("POST", "/keys", { json: defined(body) });
  }

  /** A short-lived signed token of a key (at most 3600 s; its scope or a narrower one), for a browser or a device. */
  async mintToken(
    keyId: string,
    options: { ttlSeconds: number; scopes?: Record<string, unknown> },
  ): Promise<Reply<"/keys/{key_id}/tokens", "post">> {
    const body = { ttl_seconds: options.ttlSeconds, scopes: options.scopes };
    return this.request("POST", `/keys/${segment(keyId)}/tokens`, { json: defined(body) });
  }

  async deleteKey(keyId: string): Promise<Reply<"/keys/{key_id}", "delete">> {
    return this.request("DELETE", `/keys/${segment(keyId)}`);
  }

  /** The tenant's metered usage per day and in total (`from`/`to`: YYYY-MM-DD). */
  async usage(options: { from?: string; to?: string } = {}): Promise<Reply<"/usage", "get">> {
    return this.request("GET", "/usage", { query: options });
  }

  /** The tenant's audit log, newest first (`since`/`until`: ISO times; `keyId`: one key's entries; ADR 0056). */
  async audit(
    options: { since?: string; until?: string; keyId?: string; limit?: number; cursor?: string } = {},
  ): Promise<Reply<"/audit", "get">> {
    const query = {
      since: options.since,
      until: options.until,
      key_id: options.keyId,
      limit: options.limit === undefined ? undefined : String(options.limit),
      cursor: options.cursor,
    };
    return this.request("GET", "/audit", { query: defined(query) });
  }

  // ---------------------------------------------------------------------------- export and erase (ADR 0024)

  /** Export the tenant's data: its manifest. An export not ready yet (202, still indexing) is asked again after
   * its `retry_after` while `waitMs` lasts (default 60 s; 0 answers the pending state at once). */
  async exportTenant(options: { waitMs?: number } = {}): Promise<Schemas["ExportResult"] | Schemas["ExportPending"]> {
    return this.untilDone(() => this.request("POST", "/export", { json: {}, resend: true }), options.waitMs);
  }

  /** Erase every item of the tenant; `confirm` repeats the caller's tenant id. A fenced erase not verified yet
   * (202) is repeated after its `retry_after` while `waitMs` lasts (default 60 s). */
  async eraseTenant(confirm: string, options: { waitMs?: number } = {}): Promise<Schemas["EraseReport"] | Schemas["ErasePending"]> {
    return this.untilDone(() => this.request("DELETE", "/tenant", { json: { confirm } }), options.waitMs);
  }

  private async untilDone<T>(call: () => Promise<T>, waitMs = 60_000): Promise<T> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const answer = await call();
      const retryAfter = (answer as { retry_after?: unknown }).retry_after;
      if (typeof retryAfter !== "number") return answer;
      const pause = retryAfter * 1000;
      if (Date.now() + pause > deadline) return answer;
      await this.options().sleep(pause);
    }
  }

  // ----------------------------------------------------------------- Griptape Cloud's Threads API (/api/threads)

  /** The Griptape Cloud thread with `alias`. */
  async findCloudThreads(alias: string): Promise<Reply<"/api/threads", "get">> {
    return this.request("GET", "/api/threads", { query: { alias } });
  }

  async createCloudThread(thread: Body<"/api/threads", "post">): Promise<Reply<"/api/threads", "post">> {
    return this.request("POST", "/api/threads", { json: thread });
  }

  async getCloudThread(threadId: string): Promise<Reply<"/api/threads/{thread_id}", "get">> {
    return this.request("GET", `/api/threads/${segment(threadId)}`);
  }

  /** Replace the thread's messages (a diff is derived), name, alias, metadata. */
  async patchCloudThread(threadId: string, patch: Body<"/api/threads/{thread_id}", "patch">): Promise<Reply<"/api/threads/{thread_id}", "patch">> {
    return this.request("PATCH", `/api/threads/${segment(threadId)}`, { json: patch, resend: true });
  }

  async deleteCloudThread(threadId: string): Promise<Reply<"/api/threads/{thread_id}", "delete">> {
    return this.request("DELETE", `/api/threads/${segment(threadId)}`);
  }

  async cloudMessages(
    threadId: string,
    options: { page?: number; pageSize?: number } = {},
  ): Promise<Reply<"/api/threads/{thread_id}/messages", "get">> {
    const query = defined({ page: options.page, page_size: options.pageSize });
    return this.request("GET", `/api/threads/${segment(threadId)}/messages`, { query });
  }
}

/** An artifact as (envelope without its value, the value's bytes) when the API takes it by reference. */
function splitValue(artifact: JsonObject): { envelope: JsonObject; payload: Uint8Array } | null {
  const type = artifact["type"];
  const value = artifact["value"];
  if (typeof type !== "string" || !BY_REFERENCE.has(type) || typeof value !== "string") return null;
  let payload: Uint8Array;
  try {
    payload = type === "TextArtifact" ? new TextEncoder().encode(value) : fromBase64(value);
  } catch {
    return null;
  }
  const { value: _dropped, ...envelope } = artifact;
  return { envelope, payload };
}
