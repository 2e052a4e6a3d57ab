/** The prompt stack → AI SDK messages conversion, on a stack written here. */
import assert from "node:assert/strict";
import { it } from "node:test";

import { toModelMessages } from "../../src/ai.js";

it("a prompt stack's system text, images and tool contents become messages", () => {
  const text = (value: string) => ({ type: "TextMessageContent", artifact: { type: "TextArtifact", value } });
  const messages = toModelMessages({
    type: "PromptStack",
    messages: [
      { type: "Message", role: "system", content: [text("Be brief."), text("Summary: Ada.")] },
      { type: "Message", role: "user", content: [text("Look"), { type: "ImageMessageContent", artifact: { type: "ImageArtifact", value: "aGk=", format: "jpeg" } }] },
      { type: "Message", role: "assistant", content: [{ type: "ActionCallMessageContent", artifact: { type: "ActionArtifact", value: { tag: "t", name: "Calc" } } }] },
    ],
  });
  assert.deepEqual(messages, [
    { role: "system", content: "Be brief.\n\nSummary: Ada." },
    { role: "user", content: [{ type: "text", text: "Look" }, { type: "image", image: "aGk=", mediaType: "image/jpeg" }] },
    { role: "assistant", content: [{ type: "text", text: '{"tag":"t","name":"Calc"}' }] },
  ]);
});
