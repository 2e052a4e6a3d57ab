"""Conversation memory's own errors (each an OffpromptError with its API code)."""

from __future__ import annotations

from offprompt.errors import Conflict


class ThreadDeleted(Conflict):
    """A delete of the thread ran while this write was in flight: the delete won, nothing was stored."""

    code = "thread_deleted"

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f'thread "{thread_id[:100]}" was deleted while this request was in flight (or its delete has not '
            "finished); nothing was stored. Retry to write into the thread anew.",
            details={"thread_id": thread_id},
        )


class ThreadKindMismatch(Conflict):
    """The thread holds the other kind of entries: Griptape runs, or a framework session's items. A thread's kind
    is fixed when it is created (docs/adr/0033); nothing was stored."""

    code = "thread_kind_mismatch"

    def __init__(self, thread_id: str, held: str) -> None:
        wanted = "items" if held == "runs" else "runs"
        routes = "/runs, /prompt-stack" if held == "runs" else "/items"
        super().__init__(
            f'thread "{thread_id[:100]}" holds {held}, not {wanted}: a thread\'s kind is fixed when it is created '
            f"(use its {routes} routes, or another thread id); nothing was stored",
            details={"thread_id": thread_id, "kind": held},
        )
