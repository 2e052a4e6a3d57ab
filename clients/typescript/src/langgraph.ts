/**
 * LangGraph.js on offprompt (`@offprompt/client/langgraph`; needs `@langchain/langgraph`):
 *
 *     import { OffpromptSaver, OffpromptStore } from "@offprompt/client/langgraph";
 *     const graph = builder.compile({ checkpointer: new OffpromptSaver(), store: new OffpromptStore() });
 *
 * `OffpromptSaver` is a `BaseCheckpointSaver` over the checkpoint routes (ADR 0039): each checkpoint travels as
 * its serializer's `dumpsTyped` pair (base64 on the wire) with JSON metadata, `filter` and `before` are applied by
 * the service, a checkpoint written before LangGraph's v4 format gets its parent's pending sends back as Python's
 * and LangGraph.js's own savers do. A listing without a thread (every thread, as LangGraph's MemorySaver lists)
 * reads a registry of the tenant's checkpoint threads kept in the records namespace `threadRegistry` (one record
 * per thread, written at its first put through this saver instance; `threadRegistry: false` turns it off, and a
 * listing without a thread then raises). `OffpromptStore` is a `BaseStore` over the records routes (ADR 0034):
 * namespaces are label arrays, values JSON objects, search is BM25 with `query` and newest first without, `filter`
 * is LangGraph's. Both reach the API through `OffpromptClient` (retries on 429/503 and lost answers).
 */
import {
  BaseCheckpointSaver,
  BaseStore,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PendingWrite,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";

import { clientOf, type DoorOptions, fromBase64, type OffpromptClient, toBase64 } from "./client.js";
import { OffpromptError } from "./errors.js";
import type { Schemas } from "./types.js";

/** The records namespace of the checkpoint threads' registry (see the module's note). */
export const THREAD_REGISTRY = ["offprompt_checkpoint_threads"];
/** At most this many writes go in one request (the route takes 1..1000). */
const WRITES_PER_REQUEST = 500;
const REGISTRY_PAGE = 100;

type Stored = Schemas["CheckpointTupleView"];

function isNotFound(error: unknown, code: string): boolean {
  return error instanceof OffpromptError && error.status === 404 && error.code === code;
}

/** The checkpoint 413: the put or writes would make the checkpoint tuple larger than one answer carries. */
export class CheckpointTooLarge extends OffpromptError {}

function rethrow(error: unknown): never {
  if (error instanceof OffpromptError && error.code === "checkpoint_too_large") {
    throw new CheckpointTooLarge(error.status, error.code, error.detail, error.body, error.requestId);
  }
  throw error;
}

export class OffpromptSaver extends BaseCheckpointSaver {
  readonly client: OffpromptClient;
  readonly threadRegistry: string[] | false;
  private readonly registered = new Set<string>();

  constructor(options: DoorOptions & { serde?: SerializerProtocol; threadRegistry?: string[] | false } = {}) {
    super(options.serde);
    this.client = clientOf(options);
    this.threadRegistry = options.threadRegistry === undefined ? THREAD_REGISTRY : options.threadRegistry;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const given = config.configurable?.["thread_id"];
    if (given === undefined || given === null || given === "") return undefined; // LangGraph's savers: nothing
    const threadId = String(given);
    const checkpointNs = String(config.configurable?.["checkpoint_ns"] ?? "");
    const checkpointId = getCheckpointId(config) || undefined;
    let found: Stored;
    try {
      found = await this.client.getCheckpoint(threadId, { checkpointNs, ...(checkpointId ? { checkpointId } : {}) });
    } catch (error) {
      if (isNotFound(error, "checkpoint_not_found")) return undefined;
      throw error;
    }
    return this.tuple(threadId, found);
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { filter, before } = options;
    let left = options.limit;
    if (left !== undefined && left <= 0) return;
    const threadId = config.configurable?.["thread_id"];
    const threads = threadId !== undefined && threadId !== null ? [String(threadId)] : this.everyThread();
    const checkpointNs = config.configurable?.["checkpoint_ns"];
    const named = getCheckpointId(config);
    const beforeId = before ? getCheckpointId(before) || undefined : undefined;
    for await (const thread of threads) {
      if (named) {
        // A config naming one checkpoint lists at most that one.
        const one = await this.getTuple({ configurable: { ...config.configurable, thread_id: thread } });
        if (one && matches(one.metadata, filter) && (!beforeId || one.checkpoint.id < beforeId)) {
          yield one;
          if (left !== undefined && --left <= 0) return;
        }
        continue;
      }
      let cursor: string | undefined;
      do {
        const page = await this.client.listCheckpoints(thread, {
          ...(checkpointNs !== undefined && checkpointNs !== null ? { checkpointNs: String(checkpointNs) } : {}),
          ...(beforeId ? { before: beforeId } : {}),
          ...(filter && Object.keys(filter).length ? { filter } : {}),
          ...(left !== undefined ? { limit: left } : {}),
          ...(cursor ? { cursor } : {}),
        });
        for (const found of page.checkpoints) {
          yield await this.tuple(thread, found);
          if (left !== undefined && --left <= 0) return;
        }
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    _newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = threadOf(config);
    const checkpointNs = String(config.configurable?.["checkpoint_ns"] ?? "");
    const versions = checkpoint.channel_versions ?? {};
    const values = Object.fromEntries(Object.entries(checkpoint.channel_values ?? {}).filter(([k]) => k in versions));
    const [type, data] = await this.serde.dumpsTyped({ ...checkpoint, channel_values: values });
    const parent = config.configurable?.["checkpoint_id"];
    await this.register(threadId);
    await this.client
      .putCheckpoint(threadId, checkpoint.id, {
        checkpoint: { type, data: toBase64(data) },
        metadata: jsonMetadata(metadata),
        checkpointNs,
        parentCheckpointId: parent ? String(parent) : null,
      })
      .catch(rethrow);
    return { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ""): Promise<void> {
    const threadId = threadOf(config);
    const checkpointNs = String(config.configurable?.["checkpoint_ns"] ?? "");
    const checkpointId = config.configurable?.["checkpoint_id"];
    if (!checkpointId) throw new Error("OffpromptSaver.putWrites needs a config with a checkpoint_id");
    const entries = await Promise.all(
      writes.map(async ([channel, value], idx) => {
        const [type, data] = await this.serde.dumpsTyped(value);
        return { idx: WRITES_IDX_MAP[channel] ?? idx, channel, value: { type, data: toBase64(data) } };
      }),
    );
    for (let start = 0; start < entries.length; start += WRITES_PER_REQUEST) {
      await this.client
        .putCheckpointWrites(threadId, String(checkpointId), {
          taskId,
          taskPath,
          checkpointNs,
          writes: entries.slice(start, start + WRITES_PER_REQUEST),
        })
        .catch(rethrow);
    }
  }

  /** Delete the thread's checkpoints and writes (what a copy of it still reads stays for the copy). */
  async deleteThread(threadId: string): Promise<void> {
    await this.client.deleteCheckpointThread(String(threadId));
    if (this.threadRegistry) await this.client.deleteRecord(this.threadRegistry, String(threadId));
    this.registered.delete(String(threadId));
  }

  /** The target becomes a fork of the source (nothing is copied); a source without checkpoints copies nothing. */
  async copyThread(sourceThreadId: string, targetThreadId: string): Promise<void> {
    try {
      await this.register(targetThreadId);
      await this.client.copyCheckpointThread(sourceThreadId, targetThreadId);
    } catch (error) {
      if (isNotFound(error, "checkpoint_thread_not_found")) return;
      throw error;
    }
  }

  /** `keep_latest`: only each namespace's newest checkpoint stays; `delete`: everything. */
  async prune(threadIds: string[], strategy: "keep_latest" | "delete" = "keep_latest"): Promise<void> {
    for (const threadId of threadIds) await this.client.pruneCheckpointThread(threadId, strategy);
  }

  private async register(threadId: string): Promise<void> {
    if (!this.threadRegistry || this.registered.has(threadId)) return;
    await this.client.putRecord(this.threadRegistry, threadId, { thread_id: threadId }, { index: false });
    this.registered.add(threadId);
  }

  private async *everyThread(): AsyncGenerator<string> {
    if (!this.threadRegistry) {
      throw new Error("OffpromptSaver.list needs a thread_id when the thread registry is off (threadRegistry: false)");
    }
    const seen = new Set<string>();
    for (let offset = 0; ; offset += REGISTRY_PAGE) {
      const page = await this.client.searchRecords(this.threadRegistry, { limit: REGISTRY_PAGE, offset, refreshTtl: false });
      for (const record of page.items) {
        const key = String(record.key);
        if (!seen.has(key)) {
          seen.add(key);
          yield key;
        }
      }
      if (page.items.length < REGISTRY_PAGE) return;
    }
  }

  private async tuple(threadId: string, found: Stored): Promise<CheckpointTuple> {
    const checkpointNs = found.checkpoint_ns;
    const parent = found.parent_checkpoint_id;
    const checkpoint = (await this.serde.loadsTyped(found.checkpoint.type, fromBase64(found.checkpoint.data))) as Checkpoint;
    if (checkpoint.v < 4 && parent) await this.migratePendingSends(checkpoint, threadId, checkpointNs, parent);
    const writes = [...found.pending_writes].sort((a, b) =>
      compareWritesSortKeys(writesSortKey(a.task_path, a.task_id, a.idx), writesSortKey(b.task_path, b.task_id, b.idx)),
    );
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      writes.map(async (w) => [w.task_id, w.channel, await this.serde.loadsTyped(w.value.type, fromBase64(w.value.data))] as CheckpointPendingWrite),
    );
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: found.checkpoint_id } },
      checkpoint,
      metadata: found.metadata as CheckpointMetadata,
      pendingWrites,
    };
    if (parent) tuple.parentConfig = { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: parent } };
    return tuple;
  }

  /** A checkpoint older than format v4 holds its pending sends as its parent's TASKS writes (LangGraph's rule). */
  private async migratePendingSends(checkpoint: Checkpoint, threadId: string, checkpointNs: string, parentId: string): Promise<void> {
    let parent: Stored | undefined;
    try {
      parent = await this.client.getCheckpoint(threadId, { checkpointNs, checkpointId: parentId });
    } catch (error) {
      if (!isNotFound(error, "checkpoint_not_found")) throw error;
    }
    const sends = (parent?.pending_writes ?? [])
      .filter((w) => w.channel === TASKS)
      .sort((a, b) => compareWritesSortKeys(writesSortKey(a.task_path, a.task_id, a.idx), writesSortKey(b.task_path, b.task_id, b.idx)));
    const values = await Promise.all(sends.map((w) => this.serde.loadsTyped(w.value.type, fromBase64(w.value.data))));
    checkpoint.channel_values ??= {};
    checkpoint.channel_values[TASKS] = values;
    checkpoint.channel_versions ??= {};
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }
}

function threadOf(config: RunnableConfig): string {
  const threadId = config.configurable?.["thread_id"];
  if (threadId === undefined || threadId === null || threadId === "") {
    throw new Error('OffpromptSaver needs a config with a "thread_id" in its "configurable"');
  }
  return String(threadId);
}

/** The metadata as the JSON object the service stores; a value JSON cannot hold is refused before sending. */
function jsonMetadata(metadata: CheckpointMetadata): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(metadata ?? {}, (_key, value: unknown) => {
      if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
        throw new TypeError(`OffpromptSaver stores checkpoint metadata as JSON: ${typeof value} is not JSON`);
      }
      if (typeof value === "number" && !Number.isFinite(value)) {
        throw new TypeError(`OffpromptSaver stores checkpoint metadata as JSON: ${value} is not JSON`);
      }
      return value;
    }),
  ) as Record<string, unknown>;
}

function matches(metadata: unknown, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  const fields = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([k, v]) => k in fields && JSON.stringify(fields[k]) === JSON.stringify(v));
}

// ------------------------------------------------------------------------------------------------- the store

type RecordView = Schemas["RecordView"];

function item(record: RecordView): Item {
  return {
    namespace: [...record.namespace],
    key: record.key,
    value: record.value as Record<string, unknown>,
    createdAt: new Date(record.created_at),
    updatedAt: new Date(record.updated_at),
  };
}

export class OffpromptStore extends BaseStore {
  readonly client: OffpromptClient;
  /** Read a record and move its TTL (LangGraph's `refresh_on_read`), default true. */
  readonly refreshOnRead: boolean;

  constructor(options: DoorOptions & { refreshOnRead?: boolean } = {}) {
    super();
    this.client = clientOf(options);
    this.refreshOnRead = options.refreshOnRead ?? true;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) results.push(await this.one(op));
    return results as OperationResults<Op>;
  }

  private async one(op: Operation): Promise<unknown> {
    if ("namespacePrefix" in op) return this.searchOp(op);
    if ("value" in op) return this.putOp(op);
    if ("key" in op) {
      const found = await this.client.findRecord(op.namespace, op.key, { refreshTtl: this.refreshOnRead });
      return found ? item(found) : null;
    }
    return this.listOp(op);
  }

  private async putOp(op: PutOperation): Promise<void> {
    if (op.value === null) {
      await this.client.deleteRecord(op.namespace, op.key);
      return;
    }
    await this.client.putRecord(op.namespace, op.key, op.value, op.index === undefined ? {} : { index: op.index });
  }

  private async searchOp(op: SearchOperation): Promise<SearchItem[]> {
    const found = await this.client.searchRecords(op.namespacePrefix, {
      ...(op.query ? { query: op.query } : {}),
      ...(op.filter && Object.keys(op.filter).length ? { filter: op.filter } : {}),
      ...(op.limit !== undefined ? { limit: op.limit } : {}),
      ...(op.offset !== undefined ? { offset: op.offset } : {}),
      refreshTtl: this.refreshOnRead,
    });
    return found.items.map((record) => {
      const score = (record as { score?: number | null }).score;
      return score === null || score === undefined ? item(record) : { ...item(record), score };
    });
  }

  private async listOp(op: ListNamespacesOperation): Promise<string[][]> {
    const prefix = op.matchConditions?.find((c) => c.matchType === "prefix")?.path;
    const suffix = op.matchConditions?.find((c) => c.matchType === "suffix")?.path;
    const found = await this.client.listRecordNamespaces({
      ...(prefix ? { prefix } : {}),
      ...(suffix ? { suffix } : {}),
      ...(op.maxDepth !== undefined ? { maxDepth: op.maxDepth } : {}),
      limit: op.limit,
      offset: op.offset,
    });
    return found.namespaces.map((ns) => [...ns]);
  }
}
