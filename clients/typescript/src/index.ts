export {
  type ArtifactInput,
  type ClientOptions,
  clientOf,
  type DoorOptions,
  EVENT_OVERHEAD,
  fromBase64,
  type ListArtifactJSON,
  LOCAL_URL,
  MAX_REQUEST_BYTES,
  type Namespace,
  namespacePath,
  newRequestId,
  OffpromptClient,
  TENANT_HEADER,
  toBase64,
} from "./client.js";
export { OffpromptConnectionError, OffpromptError } from "./errors.js";
export { type FetchLike, type Received, retryAfterMs, type RetryOptions } from "./transport.js";
export type { Body, components, JsonObject, JsonValue, paths, Query, Reply, Schemas } from "./types.js";
