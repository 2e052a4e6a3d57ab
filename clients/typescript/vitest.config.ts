// Only LangGraph.js's checkpointer validation suite runs on Vitest (it is written for it); the rest is node:test.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { globals: true, include: ["test/e2e/*.validation.ts"], testTimeout: 120_000, hookTimeout: 120_000 },
});
