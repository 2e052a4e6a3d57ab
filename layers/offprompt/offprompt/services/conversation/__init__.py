"""Conversation memory as a service: append runs, build token-budgeted prompt stacks, configure, summarize.

HTTP-free; takes ports (RunStore, BlobStore, Tokenizer, Summarizer). See docs/adr/0004-conversation-storage.md.

- `requests`: the request bodies (pydantic) and `parse_model`;
- `results`: what add-run and summarize return;
- `cursor`: the opaque list-runs cursor;
- `service`: `ConversationService` itself (ports in, plain data out);
- `cloud_threads`: Griptape Cloud's Threads API (`/api/threads`) mapped onto threads and runs;
- `wiring`: the service built from settings (`default_service`) and the local stack's summarizer hook.
"""

from offprompt.services.conversation.cloud_threads import CloudThreadIn, CloudThreadPatch, CloudThreadsService
from offprompt.services.conversation.requests import (
    PromptStackRequest,
    RunIn,
    RunsQuery,
    ThreadConfigRequest,
    parse_model,
)
from offprompt.services.conversation.results import AddRunResult, SummarizeResult
from offprompt.services.conversation.service import (
    DAY,
    INLINE_RUN_BYTES,
    MAX_LIST_LIMIT,
    PRUNE_BATCH,
    PRUNE_SLACK,
    ConversationService,
    thread_prefix,
)
from offprompt.services.conversation.wiring import (
    default_cloud_threads,
    default_service,
    service_from_settings,
    set_summarizer_override,
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
    "ConversationService",
    "PromptStackRequest",
    "RunIn",
    "RunsQuery",
    "SummarizeResult",
    "ThreadConfigRequest",
    "default_cloud_threads",
    "default_service",
    "parse_model",
    "service_from_settings",
    "set_summarizer_override",
    "thread_prefix",
]
