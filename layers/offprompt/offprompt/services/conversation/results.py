"""What the conversation service's add-run, prompt-stack and summarize return."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from offprompt.memory.conversation import HistoryPlan
from offprompt.prompt import PromptStack
from offprompt.prompt.prompt_stack import prompt_stack_json


@dataclass(frozen=True)
class AddRunResult:
    run: dict[str, Any]
    seq: int
    replayed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "seq": self.seq}


@dataclass(frozen=True)
class SummarizeResult:
    status: Literal["committed", "nothing_to_do", "not_summary_memory", "stale"]
    through_seq: int = 0
    summarized_runs: int = 0


@dataclass(frozen=True)
class PromptStackResult:
    """The stack, its token count (as the request's tokenizer counts the rendered stack) and its JSON."""

    stack: PromptStack
    tokens: int
    plan: HistoryPlan | None  # the memory messages, at stack.messages[index : index + len(plan.messages)]
    index: int

    def to_json(self) -> str:
        """`json.dumps(self.stack.to_dict())`, with the memory messages' JSON taken from their runs' cache."""
        messages = self.stack.messages
        if self.plan is None:
            return prompt_stack_json(json.dumps(m.to_dict()) for m in messages)
        end = self.index + len(self.plan.messages)
        before = [json.dumps(m.to_dict()) for m in messages[: self.index]]
        after = [json.dumps(m.to_dict()) for m in messages[end:]]
        return prompt_stack_json([*before, *self.plan.messages_json(), *after])
