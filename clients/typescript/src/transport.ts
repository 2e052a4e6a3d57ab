/** One request to the API: headers, query, timeout, typed errors, and the retry rule (see `Transport.send`). */
import { errorFrom, OffpromptConnectionError, OffpromptError } from "./errors.js";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  attempts?: number;
  /** The first pause in ms, doubled after each attempt (default 200). */
  baseDelayMs?: number;
  /** The longest pause the client waits, `Retry-After` included (default 20 000): an answer asking for a longer
   * wait (a daily quota, say) is raised at once instead. */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: FetchLike;
  retry: Required<RetryOptions>;
  sleep: (ms: number) => Promise<void>;
}

export interface Sent {
  /** JSON body (serialized here). */
  json?: unknown;
  /** Raw body and its content type (for presigned uploads). */
  body?: Uint8Array | string;
  query?: Record<string, string | number | boolean | null | undefined>;
  headers?: Record<string, string>;
  /** The request may be sent again after a lost answer (GET/PUT/DELETE, or a POST carrying a request id). */
  resend?: boolean;
  /** Absolute URL (a presigned S3 URL): no API headers are sent. */
  external?: boolean;
  signal?: AbortSignal;
}

export interface Received {
  status: number;
  headers: Headers;
  text: string;
  bytes: Uint8Array;
  json<T = unknown>(): T;
}

export const USER_AGENT = "offprompt-client-ts/0.1";
const RESENDABLE = new Set(["GET", "PUT", "DELETE", "HEAD"]);

/** A non-empty path segment, percent-encoded (a `/` inside an id stays inside its segment). */
export function segment(value: string): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`path parameters must be non-empty strings, not ${JSON.stringify(value)}`);
  }
  return encodeURIComponent(value);
}

/** Seconds or an HTTP date, as ms from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export class Transport {
  constructor(readonly options: TransportOptions) {}

  /**
   * Sends one request and returns its answer, raising `OffpromptError` on 4xx/5xx. Repeats it (up to
   * `retry.attempts`, pausing `baseDelayMs` doubled each time, or what `Retry-After` asks) when the service
   * says it stored nothing (429, 503), and after a lost answer (a connection error or timeout) only when the
   * request is safe to send again (`resend`: GET/PUT/DELETE by default, POSTs carrying a request id).
   */
  async send(method: string, path: string, sent: Sent = {}): Promise<Received> {
    const { retry } = this.options;
    const resend = sent.resend ?? RESENDABLE.has(method);
    for (let attempt = 1; ; attempt++) {
      let pause = retry.baseDelayMs * 2 ** (attempt - 1);
      try {
        return await this.once(method, path, sent);
      } catch (error) {
        if (!(error instanceof OffpromptError) || attempt >= retry.attempts) throw error;
        if (error instanceof OffpromptConnectionError) {
          if (!resend || sent.signal?.aborted) throw error;
        } else if (error.status === 429 || error.status === 503) {
          const asked = (error as RetryableError).retryAfterMs;
          if (asked !== undefined) pause = asked;
        } else {
          throw error;
        }
        if (pause > retry.maxDelayMs) throw error;
      }
      await this.options.sleep(pause);
    }
  }

  private async once(method: string, path: string, sent: Sent): Promise<Received> {
    const url = sent.external ? path : this.options.baseUrl + path + queryString(sent.query);
    const headers: Record<string, string> = sent.external
      ? { ...(sent.headers ?? {}) }
      : { ...this.options.headers, ...(sent.headers ?? {}) };
    let body: BodyInit | undefined;
    if (sent.json !== undefined) {
      body = JSON.stringify(sent.json);
      headers["Content-Type"] ??= "application/json";
    } else if (sent.body !== undefined) {
      body = sent.body as BodyInit;
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = sent.signal ? anySignal([sent.signal, timeout]) : timeout;
    let response: Response;
    let bytes: Uint8Array;
    try {
      response = await this.options.fetch(url, { method, headers, body, redirect: "manual", signal });
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const where = sent.external ? url.split("?")[0] : url;
      throw new OffpromptConnectionError(`${method} ${where}: ${reason}`, { cause: error });
    }
    const text = new TextDecoder().decode(bytes);
    if (response.status >= 400) {
      const requestId = response.headers.get("apigw-requestid") ?? response.headers.get("x-amzn-requestid");
      const error = errorFrom(response.status, text, requestId ?? undefined) as RetryableError;
      error.retryAfterMs = retryAfterMs(response.headers.get("retry-after"));
      throw error;
    }
    return {
      status: response.status,
      headers: response.headers,
      text,
      bytes,
      json<T>(): T {
        return (text ? JSON.parse(text) : null) as T;
      },
    };
  }
}

type RetryableError = OffpromptError & { retryAfterMs?: number | undefined };

function queryString(query: Sent["query"]): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (any) return any(signals);
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) controller.abort(signal.reason);
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}
