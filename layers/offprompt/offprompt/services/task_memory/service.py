"""`TaskMemoryService`: the task-memory ports (`TaskMemory`) with one method per use case, for callers that hold
one object (the local stack, tests, benchmarks). The logic lives in the use-case modules, one per use case:

- `process_output` (Griptape's `TaskMemory.process_output`) · `load` (`load_artifacts`) · `uploads`
- `namespaces` (records, meta entries, delete) · `search`

over the ports in `context.TaskMemory`: the storage registry by kind (`storages`, adapters built in
`offprompt.composition.task_memory`), the batch manifests, `keys` (the S3 layout), `cleanup` (best-effort steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from offprompt.artifacts import BaseArtifact
from offprompt.artifacts.action import ToolAction
from offprompt.ports import NamespaceRecord, SearchHit
from offprompt.services.task_memory.context import TaskMemory

# Functions, not modules, are imported: each method reaches only its own use case (tests/infrastructure's
# least-privilege analysis follows imports by name).
from offprompt.services.task_memory.load import load_artifacts as _load_artifacts
from offprompt.services.task_memory.load import load_items_json as _load_items_json
from offprompt.services.task_memory.namespaces import delete_namespace as _delete_namespace
from offprompt.services.task_memory.namespaces import get_namespace as _get_namespace
from offprompt.services.task_memory.namespaces import list_namespaces as _list_namespaces
from offprompt.services.task_memory.namespaces import meta_entries as _meta_entries
from offprompt.services.task_memory.process_output import process_output as _process_output
from offprompt.services.task_memory.results import LoadedArtifacts, ProcessResult, Upload
from offprompt.services.task_memory.search import search as _search
from offprompt.services.task_memory.uploads import create_upload as _create_upload


class TaskMemoryService(TaskMemory):
    def create_upload(self, tenant: str, memory: str) -> Upload:
        return _create_upload(self, tenant, memory)

    def process_output(
        self,
        tenant: str,
        memory: str,
        *,
        tool: str,
        activity: str,
        artifact: BaseArtifact | dict[str, Any],
        actions: Sequence[ToolAction] = (),
        thought: str | None = None,
        value_from: Any = None,
    ) -> ProcessResult:
        return _process_output(
            self,
            tenant,
            memory,
            tool=tool,
            activity=activity,
            artifact=artifact,
            actions=actions,
            thought=thought,
            value_from=value_from,
        )

    def load_items_json(self, tenant: str, memory: str, namespace: str) -> list[str]:
        return _load_items_json(self, tenant, memory, namespace)

    def load_artifacts(
        self, tenant: str, memory: str, namespace: str, *, max_inline_bytes: int | None = None, ref: str | None = None
    ) -> LoadedArtifacts:
        return _load_artifacts(self, tenant, memory, namespace, max_inline_bytes=max_inline_bytes, ref=ref)

    def get_namespace(self, tenant: str, memory: str, namespace: str) -> NamespaceRecord:
        return _get_namespace(self, tenant, memory, namespace)

    def list_namespaces(
        self, tenant: str, memory: str, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[NamespaceRecord], str | None]:
        return _list_namespaces(self, tenant, memory, limit, cursor)

    def delete_namespace(self, tenant: str, memory: str, namespace: str) -> bool:
        return _delete_namespace(self, tenant, memory, namespace)

    def meta_entries(
        self, tenant: str, memory: str, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[dict[str, object]], str | None]:
        return _meta_entries(self, tenant, memory, limit, cursor)

    def search(
        self, tenant: str, memory: str, namespace: str, query: str, top_k: int = 5, mode: str = "bm25"
    ) -> list[SearchHit]:
        return _search(self, tenant, memory, namespace, query, top_k, mode)
