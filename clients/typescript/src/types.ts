/** The API's request and answer types, derived from `docs/openapi.json` (generated into ./generated/openapi.ts by
 * openapi-typescript; `npm run generate` rewrites it and a unit test fails when it drifts from the document). */
import type { components, paths } from "./generated/openapi.js";

export type { components, paths };
/** Every named schema of the API (`Schemas["RunIn"]`, `Schemas["ErrorBody"]`, ...). */
export type Schemas = components["schemas"];

export type Method = "get" | "put" | "post" | "delete" | "patch";
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<T> = T extends { content: { "application/json": infer J } } ? J : never;

/** The JSON a route answers on success (200, 201 or 202). */
export type Reply<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? { [K in keyof R]: K extends 200 | 201 | 202 ? Json<R[K]> : never }[keyof R]
    : never;

/** The JSON body a route takes. */
export type Body<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

/** The query parameters a route takes. */
export type Query<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object (an artifact, an item, a record's value, ...). */
export type JsonObject = { [key: string]: unknown };
