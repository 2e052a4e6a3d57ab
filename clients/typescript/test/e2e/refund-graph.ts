/** A graph that asks a human before refunding: `start <thread>` runs it to its interrupt, `resume <thread> <answer>`
 * resumes it, each in its own process (the test runs them as two subprocesses); the state lives in offprompt. */
import { Annotation, Command, END, interrupt, START, StateGraph } from "@langchain/langgraph";

import { OffpromptSaver, OffpromptStore } from "../../src/langgraph.js";

const State = Annotation.Root({
  request: Annotation<string>(),
  approved: Annotation<boolean>(),
  log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

export function refundGraph(saver: OffpromptSaver, store: OffpromptStore) {
  return new StateGraph(State)
    .addNode("ask", (state) => {
      const answer = interrupt(`Approve the refund? (${state.request})`) as string;
      return { approved: answer === "approve", log: [`asked in ${process.pid}`] };
    })
    .addNode("act", async (state, config) => {
      await config.store?.put(["refunds"], state.request, { approved: state.approved });
      return { log: [`acted in ${process.pid}`] };
    })
    .addEdge(START, "ask")
    .addEdge("ask", "act")
    .addEdge("act", END)
    .compile({ checkpointer: saver, store });
}

if (process.argv[1]?.endsWith("refund-graph.ts")) {
  const [step, thread, answer] = process.argv.slice(2);
  const options = { tenant: process.env.LG_TENANT ?? "local" };
  const graph = refundGraph(new OffpromptSaver(options), new OffpromptStore(options));
  const config = { configurable: { thread_id: thread } };
  const result =
    step === "start"
      ? await graph.invoke({ request: "order-7" }, config)
      : await graph.invoke(new Command({ resume: answer }), config);
  const interrupts = (result as { __interrupt__?: { value: unknown }[] }).__interrupt__ ?? [];
  console.log(JSON.stringify({ pid: process.pid, interrupts: interrupts.map((i) => i.value), approved: result.approved ?? null, log: result.log }));
}
