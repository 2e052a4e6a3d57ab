"""Conversation memory's own errors (each an OffpromptError with its API code)."""

from __future__ import annotations

from offprompt.errors import Conflict, NotFound


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


class SettingNotForItems(Conflict):
    """A setting only runs honour (max_runs, summary memory, its offset) on a thread of a framework session's items:
    refused, nothing changed (issue 33: it used to be accepted and do nothing)."""

    code = "setting_not_for_items"

    def __init__(self, thread_id: str, settings: list[str]) -> None:
        super().__init__(
            f'thread "{thread_id[:100]}" holds a framework session\'s items, which are never pruned by count nor '
            f"summarized: {', '.join(settings)} would do nothing; nothing was changed (limit a session's reads "
            "with GET .../items?limit= or max_tokens=, and expire it with retention_days)",
            details={"thread_id": thread_id, "settings": settings},
        )


class ThreadForked(Conflict):
    """A delete of a thread whose runs live forks still read (docs/adr/0037): refused, nothing changed."""

    code = "thread_has_forks"

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f'thread "{thread_id[:100]}" has live forks that read its runs: delete its forks first; nothing was '
            "deleted",
            details={"thread_id": thread_id},
        )


class ForkTooDeep(Conflict):
    """A fork would read through more ancestors than MAX_FORK_DEPTH (docs/adr/0037): nothing was written."""

    code = "fork_too_deep"

    def __init__(self, thread_id: str, depth: int) -> None:
        super().__init__(
            f'a fork of thread "{thread_id[:100]}" would read through more than {depth} threads: fork an older '
            "point, or start a new thread with the runs you need; nothing was written",
            details={"thread_id": thread_id, "max_depth": depth},
        )


class ThreadExistsConflict(Conflict):
    """The fork's target thread id is taken (by another thread, or another fork): nothing was written."""

    code = "thread_exists"

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f'thread "{thread_id[:100]}" already exists: fork into a new thread id; nothing was written',
            details={"thread_id": thread_id},
        )


class ItemShared(Conflict):
    """A pop whose newest item is shared with a fork (docs/adr/0037): refused, nothing removed."""

    code = "item_shared"

    def __init__(self, thread_id: str, seq: int) -> None:
        super().__init__(
            f'the newest item of thread "{thread_id[:100]}" (seq {seq}) is shared with a fork (or, on a fork, '
            "belongs to the thread it was forked from): it cannot be popped; nothing was removed",
            details={"thread_id": thread_id, "seq": seq},
        )


class RunNotFound(NotFound):
    """`as_of_run` (or a fork's `after_run_id`) names no run this thread can read (docs/adr/0037)."""

    code = "run_not_found"

    def __init__(self, thread_id: str, run_id: str) -> None:
        super().__init__(
            f'run "{run_id[:100]}" is not a run of thread "{thread_id[:100]}" (nor one it shares with what it was '
            "forked from)",
            details={"thread_id": thread_id, "run_id": run_id},
        )


def require_run(seq: int | None, thread_id: str, run_id: str) -> int:
    """The seq `RunStore.run_seq` found for `run_id`, or RunNotFound."""
    if seq is None:
        raise RunNotFound(thread_id, run_id)
    return seq
