"""Task memory's own errors (each an OffpromptError with its API code)."""

from __future__ import annotations

from typing import Any

from offprompt.artifacts import ErrorArtifact
from offprompt.errors import Conflict, InvalidInput
from offprompt.memory import task


class StorageKindConflict(Conflict):
    """The namespace already holds the other storage kind (Griptape answers with an ErrorArtifact)."""

    code = "storage_kind_conflict"

    def __init__(self, namespace: str, held: str | None, wanted: str) -> None:
        super().__init__(
            f'namespace "{namespace[:100]}" already holds {held or "other"} artifacts; '
            f"{wanted} artifacts cannot be stored in it",
            details={"namespace": namespace, "held": held, "wanted": wanted},
        )
        self.artifact: ErrorArtifact = task.conflict_answer()

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "artifact": self.artifact.to_dict()}


class UploadError(InvalidInput):
    code = "invalid_upload"


class NotTextNamespace(Conflict):
    code = "not_text_namespace"


class NamespaceDeleted(Conflict):
    """A delete of the namespace ran while this output was being stored: the delete won, nothing was stored."""

    code = "namespace_deleted"

    def __init__(self, namespace: str) -> None:
        super().__init__(
            f'namespace "{namespace[:100]}" was deleted while this output was being stored; nothing was stored. '
            "Retry to store it into the namespace anew.",
            details={"namespace": namespace},
        )
