"""`ConversationService`: the conversation ports (`Conversation`) with one method per use case, for callers that
hold one object (the local stack, `cloud_threads`, tests, benchmarks). The logic lives in the use-case modules:

- `add_run` (append, prune, inline summaries) · `prompt_stack` · `thread_admin` (get, configure, delete, list
  runs) · `summarize`

and their shared pure helpers: `run_bodies` (where big bodies go, decoding), `run_cache`, `cursor` (the
list-runs cursor). Reading bodies (`bodies.run_json`) and run paging (`runs.iter_keys` / `iter_full`) are ports.
HTTP-free; see docs/adr/0004-conversation-storage.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from offprompt.services.conversation.context import Conversation

# Functions, not modules, are imported: each method reaches only its own use case (tests/infrastructure's
# least-privilege analysis follows imports by name). Each is imported by its method's first call, so a function
# that serves one use case loads only that one's modules (threads never loads `prompt_stack`, prompt-stack never
# `add_run`; issue 34, docs/adr/0063).
from offprompt.services.conversation.thread_admin import configure as _configure
from offprompt.services.conversation.thread_admin import delete_thread as _delete_thread
from offprompt.services.conversation.thread_admin import get_thread as _get_thread
from offprompt.services.conversation.thread_admin import list_runs as _list_runs
from offprompt.services.conversation.thread_admin import list_threads as _list_threads

if TYPE_CHECKING:
    from offprompt.ports import ThreadState
    from offprompt.prompt import PromptStack
    from offprompt.services.conversation.requests import PromptStackRequest, ThreadConfigRequest
    from offprompt.services.conversation.results import AddRunResult, PromptStackResult, SummarizeResult


class ConversationService(Conversation):
    def add_run(self, tenant: str, thread_id: str, payload: Any) -> AddRunResult:
        from offprompt.services.conversation.add_run import add_run as _add_run

        return _add_run(self, tenant, thread_id, payload)

    def prune(self, state: ThreadState, seq: int) -> int:
        from offprompt.services.conversation.add_run import prune as _prune

        return _prune(self, state, seq)

    def prompt_stack(self, tenant: str, thread_id: str, request: PromptStackRequest) -> PromptStack:
        from offprompt.services.conversation.prompt_stack import prompt_stack as _prompt_stack

        return _prompt_stack(self, tenant, thread_id, request)

    def build_prompt_stack(self, tenant: str, thread_id: str, request: PromptStackRequest) -> PromptStackResult:
        from offprompt.services.conversation.prompt_stack import build_prompt_stack as _build_prompt_stack

        return _build_prompt_stack(self, tenant, thread_id, request)

    def prompt_tokens(self, stack: PromptStack, request: PromptStackRequest) -> int:
        from offprompt.services.conversation.prompt_stack import prompt_tokens as _prompt_tokens

        return _prompt_tokens(self, stack, request)

    def get_thread(self, tenant: str, thread_id: str) -> dict[str, Any]:
        return _get_thread(self, tenant, thread_id)

    def configure(self, tenant: str, thread_id: str, request: ThreadConfigRequest) -> dict[str, Any]:
        return _configure(self, tenant, thread_id, request)

    def delete_thread(self, tenant: str, thread_id: str) -> int:
        return _delete_thread(self, tenant, thread_id)

    def list_runs(
        self, tenant: str, thread_id: str, *, limit: int = 20, cursor: str | None = None, order: str = "asc"
    ) -> dict[str, Any]:
        return _list_runs(self, tenant, thread_id, limit=limit, cursor=cursor, order=order)

    def list_threads(
        self, tenant: str, *, limit: int = 20, cursor: str | None = None, prefix: str | None = None
    ) -> dict[str, Any]:
        return _list_threads(self, tenant, limit=limit, cursor=cursor, prefix=prefix)

    def summarize(self, tenant: str, thread_id: str) -> SummarizeResult:
        from offprompt.services.conversation.summarize import summarize as _summarize

        return _summarize(self, tenant, thread_id)
