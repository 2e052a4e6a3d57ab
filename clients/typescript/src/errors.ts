/** The errors the client raises: the API's (status 4xx/5xx, its stable `code`) and the network's (status 0). */

export class OffpromptError extends Error {
  /** The HTTP status (0: the API could not be reached). */
  readonly status: number;
  /** The API's stable error code (`not_found`, `invalid_input`, `rate_limited`, ...; `http_<status>` without one). */
  readonly code: string;
  /** The parsed error body (`{code, message, details?}`), or its text when it is not JSON. */
  readonly body: unknown;
  /** The `X-Request-Id`-like id of the failed attempt, when the API sent one. */
  readonly requestId: string | undefined;

  constructor(status: number, code: string, message: string, body?: unknown, requestId?: string) {
    super(`${status} ${code}: ${message}`);
    this.name = "OffpromptError";
    this.status = status;
    this.code = code;
    this.body = body;
    this.requestId = requestId;
  }

  /** The API's message alone (without status and code). */
  get detail(): string {
    const body = this.body as { message?: unknown } | undefined;
    return typeof body === "object" && body !== null && typeof body.message === "string"
      ? body.message
      : this.message;
  }
}

/** The API could not be reached (connection refused, DNS, timeout): status 0, code `connection_error`. */
export class OffpromptConnectionError extends OffpromptError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(0, "connection_error", message);
    this.name = "OffpromptConnectionError";
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** The error the API's answer stands for. */
export function errorFrom(status: number, text: string, requestId?: string): OffpromptError {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const fields = body as { code?: unknown; message?: unknown; Message?: unknown };
    const code = typeof fields.code === "string" && fields.code ? fields.code : `http_${status}`;
    const message = String(fields.message ?? fields.Message ?? "");
    return new OffpromptError(status, code, message, body, requestId);
  }
  return new OffpromptError(status, `http_${status}`, String(text).slice(0, 500), body, requestId);
}
