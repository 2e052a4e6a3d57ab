/**
 * The Vercel AI SDK on offprompt (`@offprompt/client/ai`; needs `ai` 6):
 *
 *     import { generateText, stepCountIs } from "ai";
 *     import { memoryTools, promptStackMessages } from "@offprompt/client/ai";
 *
 *     const tools = memoryTools({ namespace: ["users", "ada"], threadId: "support-42" });
 *     const messages = await promptStackMessages("support-42", { input: "What do I like?", maxTokens: 4000 });
 *     const { text } = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
 *
 * `memoryTools` are four tools the model calls: `remember` (a fact becomes a record of `namespace`), `recall` (the
 * newest records, or the one under a key), `search` (the records matching a query, BM25; a record is searchable
 * within the index's refresh interval, about 1 s) and, with a `threadId`, `append` (a turn becomes a run of the
 * thread). `promptStackMessages` turns the thread's prompt stack (system, summary, runs pruned to a token budget,
 * the new input) into the SDK's `ModelMessage`s; `toModelMessages` does it for a prompt stack already fetched.
 */
import { jsonSchema, type ModelMessage, type Tool, tool, type ToolSet } from "ai";

import { type ArtifactInput, clientOf, type DoorOptions, newRequestId } from "./client.js";
import type { JsonObject, Reply } from "./types.js";

export interface MemoryToolsOptions extends DoorOptions {
  /** The records namespace the facts live in (one or more labels without "."), e.g. `["users", userId]`. */
  namespace: string[];
  /** The conversation thread `append` adds runs to (without one there is no `append` tool). */
  threadId?: string;
  /** How many records `recall` and `search` answer at most (default 10). */
  limit?: number;
}

/** What `recall` and `search` answer: the facts, newest (or best match) first. */
export interface Facts {
  facts: Fact[];
}

/** The tools `memoryTools` makes (a `ToolSet`). */
export type MemoryTools = {
  remember: Tool<{ text: string; key?: string }, { remembered: string; version: number }>;
  recall: Tool<{ key?: string }, Facts>;
  search: Tool<{ query: string }, Facts>;
  append?: Tool<{ input: string; output: string }, { appended: number }>;
} & ToolSet;

export interface Fact {
  key: string;
  text: string;
  score?: number;
}

function fact(record: { key: string; value: Record<string, unknown> | null }, score?: number | null): Fact {
  const value = record.value ?? {};
  const text = typeof value["text"] === "string" ? value["text"] : JSON.stringify(value);
  return { key: record.key, text, ...(typeof score === "number" ? { score } : {}) };
}

/** The memory tools (see the module's note); `append` only with a `threadId`. */
export function memoryTools(options: MemoryToolsOptions): MemoryTools {
  const client = clientOf(options);
  const { namespace, threadId } = options;
  const limit = options.limit ?? 10;
  const tools = {
    remember: tool({
      description: "Remember a fact for later conversations (it stays until replaced or forgotten).",
      inputSchema: jsonSchema<{ text: string; key?: string }>({
        type: "object",
        properties: {
          text: { type: "string", description: "The fact, as one self-contained sentence." },
          key: { type: "string", description: "A short name for the fact; the same name replaces it." },
        },
        required: ["text"],
        additionalProperties: false,
      }),
      execute: async ({ text, key }) => {
        const record = await client.putRecord(namespace, key || newRequestId(), { text });
        return { remembered: record.key, version: record.version };
      },
    }),
    recall: tool({
      description: "Recall remembered facts: the newest ones, or the one under a key.",
      inputSchema: jsonSchema<{ key?: string }>({
        type: "object",
        properties: { key: { type: "string", description: "The fact's name, if known." } },
        additionalProperties: false,
      }),
      execute: async ({ key }) => {
        if (key) {
          const record = await client.findRecord(namespace, key);
          return { facts: record ? [fact(record)] : [] };
        }
        const found = await client.searchRecords(namespace, { limit });
        return { facts: found.items.map((r) => fact(r)) } as Facts;
      },
    }),
    search: tool({
      description: "Search remembered facts by words (best match first).",
      inputSchema: jsonSchema<{ query: string }>({
        type: "object",
        properties: { query: { type: "string", description: "Words the facts contain." } },
        required: ["query"],
        additionalProperties: false,
      }),
      execute: async ({ query }) => {
        const found = await client.searchRecords(namespace, { query, limit });
        return { facts: found.items.map((r) => fact(r, (r as { score?: number | null }).score)) };
      },
    }),
  };
  if (threadId === undefined) return tools;
  return {
    ...tools,
    append: tool({
      description: "Append a finished exchange (what the user said, what you answered) to the conversation.",
      inputSchema: jsonSchema<{ input: string; output: string }>({
        type: "object",
        properties: { input: { type: "string" }, output: { type: "string" } },
        required: ["input", "output"],
        additionalProperties: false,
      }),
      execute: async ({ input, output }) => {
        const added = await client.addRun(threadId, { input, output });
        return { appended: added.seq };
      },
    }),
  };
}

type PromptStack = Reply<"/threads/{thread_id}/prompt-stack", "post">;
type Content = { type?: string; artifact?: { type?: string; value?: unknown; format?: string } } & JsonObject;

function contentText(content: Content): string {
  const artifact = content.artifact ?? {};
  if (typeof artifact.value === "string" && artifact.type === "TextArtifact") return artifact.value;
  if (content.type === "ActionCallMessageContent" || content.type === "ActionResultMessageContent") {
    return JSON.stringify(artifact.value ?? null);
  }
  return typeof artifact.value === "string" ? artifact.value : JSON.stringify(artifact.value ?? content);
}

/** A Griptape prompt stack (the API's JSON) as the SDK's messages: text stays text, an image the user sent stays an
 * image, a tool call or result of the stack becomes its JSON text (the SDK's tool parts need ids it never saw). */
export function toModelMessages(stack: PromptStack): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const message of stack.messages) {
    const role = message["role"];
    const contents = (message["content"] as Content[] | undefined) ?? [];
    if (role === "system") {
      messages.push({ role: "system", content: contents.map(contentText).join("\n\n") });
    } else if (role === "user") {
      messages.push({
        role: "user",
        content: contents.map((c) =>
          c.artifact?.type === "ImageArtifact" && typeof c.artifact.value === "string"
            ? { type: "image" as const, image: c.artifact.value, mediaType: `image/${c.artifact.format ?? "png"}` }
            : { type: "text" as const, text: contentText(c) },
        ),
      });
    } else {
      messages.push({ role: "assistant", content: contents.map((c) => ({ type: "text" as const, text: contentText(c) })) });
    }
  }
  return messages;
}

/** The thread's prompt stack (`OffpromptClient.promptStack`) as the SDK's messages. */
export async function promptStackMessages(
  threadId: string,
  options: DoorOptions & {
    system?: ArtifactInput;
    input?: ArtifactInput;
    maxTokens?: number;
    lastN?: number;
    model?: string;
    tokenizer?: string;
  } = {},
): Promise<ModelMessage[]> {
  const client = clientOf(options);
  const { system, input, maxTokens, lastN, model, tokenizer } = options;
  const fields = { system, input, maxTokens, lastN, model, tokenizer };
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return toModelMessages(await client.promptStack(threadId, defined));
}
