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
