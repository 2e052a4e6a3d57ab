/** A scripted `fetch`: records each request, answers what the script says. */
import { OffpromptClient, type ClientOptions } from "../../src/index.js";

export interface Call {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  json: any;
}

export type Answer = { status?: number; json?: unknown; text?: string; headers?: Record<string, string> } | Error;

export function answer(status: number, json?: unknown, headers: Record<string, string> = {}): Answer {
  return { status, json, headers };
}

export function scripted(script: (call: Call, index: number) => Answer) {
  const calls: Call[] = [];
  const fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const headers = Object.fromEntries(new Headers(init.headers as HeadersInit).entries());
    const body =
      init.body === undefined || init.body === null
        ? undefined
        : typeof init.body === "string"
          ? init.body
          : new TextDecoder().decode(init.body as Uint8Array);
    let json: unknown;
    try {
      json = body === undefined ? undefined : JSON.parse(body);
    } catch {
      json = undefined;
    }
    const url = new URL(input);
    const call: Call = { method: init.method ?? "GET", url: input, path: url.pathname, headers, body, json };
    calls.push(call);
    const reply = script(call, calls.length - 1);
    if (reply instanceof Error) throw reply;
    const text = reply.text ?? (reply.json === undefined ? "" : JSON.stringify(reply.json));
    const status = reply.status ?? 200;
    return new Response(status === 204 || status === 303 ? null : text, { status, headers: reply.headers ?? {} });
  };
  return { calls, fetch };
}

/** A client on a scripted fetch whose pauses are recorded, not waited. */
export function client(script: (call: Call, index: number) => Answer, options: ClientOptions = {}) {
  const { calls, fetch } = scripted(script);
  const pauses: number[] = [];
  const api = new OffpromptClient({
    baseUrl: "https://api.example",
    fetch,
    sleep: async (ms) => {
      pauses.push(ms);
    },
    ...options,
  });
  return { api, calls, pauses };
}
