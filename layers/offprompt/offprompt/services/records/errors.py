"""Records' own errors (each an OffpromptError with its API code)."""

from __future__ import annotations

from offprompt.errors import Conflict, NotFound


class RecordNotFound(NotFound):
    """No live record under that namespace and key (never put, deleted, expired, or not yet valid at `as_of`)."""

    code = "record_not_found"

    def __init__(self, namespace: tuple[str, ...], key: str) -> None:
        path = ".".join(namespace)
        super().__init__(
            f'no record "{key[:100]}" in namespace "{path[:200]}"', details={"namespace": list(namespace), "key": key}
        )


class RecordConflicted(Conflict):
    """Other writers kept replacing the record while this write retried: nothing was stored; retry."""

    code = "record_conflict"

    def __init__(self, namespace: tuple[str, ...], key: str) -> None:
        super().__init__(
            f'record "{key[:100]}" was replaced by other writers while this request wrote it; nothing was stored, '
            "retry",
            details={"namespace": list(namespace), "key": key},
        )
