/**
 * An OpenAI Agents SDK session stored in offprompt (`@offprompt/client/openai-agents`; `@openai/agents` >= 0.20):
 *
 *     import { Agent, run } from "@openai/agents";
 *     import { OffpromptSession } from "@offprompt/client/openai-agents";
 *
 *     const session = new OffpromptSession("support-42");
 *     await run(new Agent({ name: "helper" }), "Hello", { session });
 *
 * It implements the SDK's `Session` (`getSessionId`, `getItems(limit?)`, `addItems`, `popItem`, `clearSession`)
 * over `/threads/{sessionId}/items` (ADR 0033), as the Python client's `OffpromptSession` does: one thread per
 * session, one entry per item, appends in requests of at most 32 items that each carry a request id (a repeat after
 * a lost answer is stored once), pops atomic, `maxTokens` trims every read server-side to the newest items that fit
 * (never a tool result without its call). The SDK is imported for its types only: nothing of it loads at run time.
 * A thread holding Griptape runs answers 409 `thread_kind_mismatch`.
 */
import type { AgentInputItem, Session } from "@openai/agents";

import { clientOf, type DoorOptions, EVENT_OVERHEAD, newRequestId, type OffpromptClient } from "./client.js";
import { OffpromptError } from "./errors.js";
import type { JsonObject } from "./types.js";

/** Items per read page, and per append (the route's limit). */
const PAGE = 100;
const APPEND = 32;

export class OffpromptSession implements Session {
  readonly sessionId: string;
  readonly client: OffpromptClient;
  /** The token budget of every read (the newest items that fit), or undefined for every item. */
  readonly maxTokens: number | undefined;

  constructor(sessionId: string, options: DoorOptions & { maxTokens?: number } = {}) {
    this.sessionId = sessionId;
    this.client = clientOf(options);
    this.maxTokens = options.maxTokens;
  }

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** The latest `limit` items in chronological order (every item without a limit). */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && limit <= 0) return [];
    if (this.maxTokens !== undefined) {
      const page = await this.client.getItems(this.sessionId, { maxTokens: this.maxTokens, ...(limit !== undefined ? { limit } : {}) });
      return page.items as AgentInputItem[];
    }
    const found: unknown[] = [];
    let before: number | undefined;
    while (limit === undefined || found.length < limit) {
      const size = limit === undefined ? PAGE : Math.min(PAGE, limit - found.length);
      const page = await this.client.getItems(this.sessionId, { limit: size, ...(before !== undefined ? { before } : {}) });
      found.unshift(...page.items); // older pages go in front
      if (page.next_before === null || page.next_before === undefined) break;
      before = page.next_before;
    }
    return found as AgentInputItem[];
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    for (const chunk of chunks(this.client, items as unknown as JsonObject[])) {
      await this.client.addItems(this.sessionId, chunk, { requestId: newRequestId() });
    }
  }

  /** Remove and return the newest item (undefined when there is none); atomic. */
  async popItem(): Promise<AgentInputItem | undefined> {
    const popped = await this.client.popItem(this.sessionId);
    return (popped.item ?? undefined) as AgentInputItem | undefined;
  }

  async clearSession(): Promise<void> {
    try {
      await this.client.deleteThread(this.sessionId);
    } catch (error) {
      if (!(error instanceof OffpromptError && error.status === 404)) throw error;
    }
  }
}

/** `items` in order, cut into appends of at most APPEND items whose request fits the Lambda payload limit (an item
 * too large alone is sent alone: the API answers 413). */
export function chunks(client: OffpromptClient, items: JsonObject[]): JsonObject[][] {
  const budget = client.maxRequestBytes - EVENT_OVERHEAD - 128; // the envelope and its request id
  const out: JsonObject[][] = [];
  let size = 0;
  for (const item of items) {
    const encoded = JSON.stringify(item);
    let length = new TextEncoder().encode(encoded).length + 1;
    for (const ch of encoded) if (ch === '"' || ch === "\\") length++;
    const last = out[out.length - 1];
    if (!last || last.length >= APPEND || size + length > budget) {
      out.push([item]);
      size = length;
    } else {
      last.push(item);
      size += length;
    }
  }
  return out;
}
