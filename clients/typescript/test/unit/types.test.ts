/** src/generated/openapi.ts is what docs/openapi.json generates now (`npm run generate` rewrites it). */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";

// @ts-expect-error: a plain ESM script without declarations
import { generate, OUTPUT } from "../../scripts/generate.mjs";

it("the committed types are what docs/openapi.json generates (run npm run generate)", async () => {
  const committed = readFileSync(OUTPUT, "utf-8");
  assert.ok(committed === (await generate()), "src/generated/openapi.ts drifted from docs/openapi.json: npm run generate");
});
