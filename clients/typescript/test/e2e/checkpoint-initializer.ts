/** LangGraph.js's checkpointer validation suite (`validate-checkpointer`) against the local stack: each saver it
 * makes is a fresh tenant's (the local stack's tenant header), so no instance sees another's threads. */
import { randomUUID } from "node:crypto";

import { OffpromptSaver } from "../../src/langgraph.js";

const baseUrl = process.env.OFFPROMPT_API_URL;
if (!baseUrl) throw new Error("OFFPROMPT_API_URL: the local stack the suite runs against");

export default {
  checkpointerName: "OffpromptSaver",
  createCheckpointer: () => new OffpromptSaver({ baseUrl, tenant: `lgjs-${randomUUID().slice(0, 12)}`, timeoutMs: 120_000 }),
};
