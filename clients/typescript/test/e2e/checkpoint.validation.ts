// LangGraph.js's checkpointer validation suite, as a Vitest file (its CLI, validate-checkpointer 1.1.1, cannot
// import an initializer: its runner imports a function its import_utils does not export); run by
// `npm run test:validation` (vitest --globals, the suite's own runner settings).
import { validate } from "@langchain/langgraph-checkpoint-validation";

import initializer from "./checkpoint-initializer.js";

validate(initializer);
