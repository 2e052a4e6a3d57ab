"""Checkpoints' own errors (each an OffpromptError with its API code; docs/adr/0039)."""

from __future__ import annotations

from offprompt.errors import Conflict, NotFound, PayloadTooLarge
from offprompt.limits import MAX_CHECKPOINT_TUPLE_BYTES, MAX_FORK_DEPTH


class CheckpointNotFound(NotFound):
    code = "checkpoint_not_found"

    def __init__(self, thread_id: str, namespace: str, checkpoint_id: str | None) -> None:
        what = f'checkpoint "{checkpoint_id}"' if checkpoint_id else "no checkpoint"
        super().__init__(
            f'{what} not found in namespace "{namespace[:100]}" of checkpoint thread "{thread_id[:100]}"'
            if checkpoint_id
            else f'no checkpoint in namespace "{namespace[:100]}" of checkpoint thread "{thread_id[:100]}"',
            details={"thread_id": thread_id, "checkpoint_ns": namespace, "checkpoint_id": checkpoint_id},
        )


class CheckpointThreadNotFound(NotFound):
    code = "checkpoint_thread_not_found"

    def __init__(self, thread_id: str) -> None:
        super().__init__(f'checkpoint thread "{thread_id[:100]}" has no checkpoints', details={"thread_id": thread_id})


class CheckpointThreadExists(Conflict):
    code = "checkpoint_thread_exists"

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f'checkpoint thread "{thread_id[:100]}" already exists (it has checkpoints or is a copy)',
            details={"thread_id": thread_id},
        )


class CopyTooDeep(Conflict):
    """A copy would read through more threads than MAX_FORK_DEPTH (ADR 0037's limit): nothing was written."""

    code = "fork_too_deep"

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f'a copy of checkpoint thread "{thread_id[:100]}" would read through more than {MAX_FORK_DEPTH} threads',
            details={"thread_id": thread_id, "max_depth": MAX_FORK_DEPTH},
        )


class CheckpointShared(Conflict):
    """A put would replace a checkpoint that a live copy reads, or one a prune or delete hid while copies read it."""

    code = "checkpoint_shared"

    def __init__(self, thread_id: str, namespace: str, checkpoint_id: str) -> None:
        super().__init__(
            f'checkpoint "{checkpoint_id}" of checkpoint thread "{thread_id[:100]}" is read by a copy (or was deleted '
            "while copies read it): it cannot be replaced; nothing was stored",
            details={"thread_id": thread_id, "checkpoint_ns": namespace, "checkpoint_id": checkpoint_id},
        )


class CheckpointTooLarge(PayloadTooLarge):
    """A put or pending writes would take a checkpoint tuple past what one answer can carry (docs/adr/0042)."""

    code = "checkpoint_too_large"

    def __init__(self, thread_id: str, namespace: str, checkpoint_id: str, size: int) -> None:
        super().__init__(
            f'checkpoint "{checkpoint_id}" of checkpoint thread "{thread_id[:100]}" with its pending writes would hold '
            f"{size} blob bytes, more than the {MAX_CHECKPOINT_TUPLE_BYTES} a checkpoint tuple may carry (every "
            "tuple must fit one answer); nothing was stored",
            details={
                "thread_id": thread_id,
                "checkpoint_ns": namespace,
                "checkpoint_id": checkpoint_id,
                "size": size,
                "limit": MAX_CHECKPOINT_TUPLE_BYTES,
            },
        )
