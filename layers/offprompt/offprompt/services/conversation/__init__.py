"""Conversation memory as a service: append runs, build token-budgeted prompt stacks, configure, summarize.

HTTP-free; takes ports (RunStore, BlobStore, Tokenizer, Summarizer). See docs/adr/0004-conversation-storage.md.

- `requests`: the request bodies (pydantic) and `parse_model`;
- `results`: what add-run and summarize return;
- `cursor`: the opaque list-runs cursor;
- one module per use case (ports in, plain data out): `add_run`, `prompt_stack`, `thread_admin`, `fork`, `summarize`,
  `expiry`, over `context.Conversation` (the ports); shared helpers: `run_bodies` (blob layout, decoding), `cursor`;
- `service`: `ConversationService`, a facade with one method per use case;
- `cloud_threads`: Griptape Cloud's Threads API (`/api/threads`) mapped onto threads and runs;

The service built from settings (`default_service`) lives in the composition root, `offprompt.composition.conversation`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from offprompt.lazy import lazy_exports
from offprompt.limits import MAX_LIST_LIMIT

if TYPE_CHECKING:
    from offprompt.services.conversation.add_run import DAY, PRUNE_BATCH, PRUNE_SLACK
    from offprompt.services.conversation.cloud_threads import CloudThreadIn, CloudThreadPatch, CloudThreadsService
    from offprompt.services.conversation.context import INLINE_RUN_BYTES, Conversation
    from offprompt.services.conversation.requests import (
        PromptStackRequest,
        RunIn,
        RunsQuery,
        ThreadConfigRequest,
        ThreadsQuery,
        parse_model,
    )
    from offprompt.services.conversation.results import AddRunResult, PromptStackResult, SummarizeResult
    from offprompt.services.conversation.service import ConversationService

# Imported on first use (offprompt.lazy): a handler that needs `requests` and `thread_admin` runs neither `add_run`
# nor `prompt_stack` nor `cloud_threads` through this package.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "add_run": "DAY PRUNE_BATCH PRUNE_SLACK",
        "cloud_threads": "CloudThreadIn CloudThreadPatch CloudThreadsService",
        "context": "INLINE_RUN_BYTES Conversation",
        "requests": "PromptStackRequest RunIn RunsQuery ThreadConfigRequest ThreadsQuery parse_model",
        "results": "AddRunResult PromptStackResult SummarizeResult",
        "service": "ConversationService",
    },
)

__all__ = [
    "DAY",
    "INLINE_RUN_BYTES",
    "MAX_LIST_LIMIT",
    "PRUNE_BATCH",
    "PRUNE_SLACK",
    "AddRunResult",
    "CloudThreadIn",
    "CloudThreadPatch",
    "CloudThreadsService",
    "Conversation",
    "ConversationService",
    "PromptStackRequest",
    "PromptStackResult",
    "RunIn",
    "RunsQuery",
    "SummarizeResult",
    "ThreadConfigRequest",
    "ThreadsQuery",
    "parse_model",
]
