"""Off-prompt task memory as a service: Griptape's `TaskMemory.process_output` / `load_artifacts` over ports.

- `limits`: size, time and search limits;
- `errors`: task memory's own errors (storage-kind conflict, bad upload, not a text namespace, schema);
- `results`: what the service returns (process result, upload slot, loaded artifacts);
- `artifact_json`: artifact JSON as stored and returned (Griptape byte-compatible);
- `requests` / `responses`: the API's request bodies and response objects;
- one module per use case (ports in, plain data out): `process_output`, `load`, `uploads`, `namespaces`,
  `search`, `idempotent_output`, over `context.TaskMemory` (the ports); the storage registry by
  kind and the batch manifests are ports (adapters built in `offprompt.composition`); `keys`, `cleanup`;
- `service`: `TaskMemoryService`, a facade with one method per use case;

The service built from settings (`default_service`, with a lazily built OpenSearch text store and the local
stack's `set_embedder_override`) lives in the composition root, `offprompt.composition.task_memory`.
"""

from typing import TYPE_CHECKING

from offprompt.errors import SchemaInvalid
from offprompt.lazy import lazy_exports
from offprompt.limits import (
    DOWNLOAD_EXPIRES_IN,
    MAX_INLINE_ENTRIES_BYTES,
    MAX_INLINE_RESPONSE_BYTES,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    MAX_UPLOAD_BYTES,
    SEARCH_MODES,
    UPLOAD_EXPIRES_IN,
)

if TYPE_CHECKING:
    from offprompt.services.task_memory.artifact_json import envelope_json, list_artifact_json
    from offprompt.services.task_memory.errors import NotTextNamespace, StorageKindConflict, UploadError
    from offprompt.services.task_memory.idempotent_output import OnceResult, process_once
    from offprompt.services.task_memory.requests import ActionIn, OutputRequest, PageQuery, SearchRequest, parse_request
    from offprompt.services.task_memory.responses import hit_to_dict, record_to_dict
    from offprompt.services.task_memory.results import (
        BLOB_DOWNLOADS,
        BlobDownload,
        LoadedArtifacts,
        ProcessResult,
        Upload,
    )
    from offprompt.services.task_memory.service import TaskMemoryService

# Imported on first use (offprompt.lazy): a module that needs `requests` (the MCP tool table) runs no other submodule.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "artifact_json": "envelope_json list_artifact_json",
        "errors": "NotTextNamespace StorageKindConflict UploadError",
        "idempotent_output": "OnceResult process_once",
        "requests": "ActionIn OutputRequest PageQuery SearchRequest parse_request",
        "responses": "hit_to_dict record_to_dict",
        "results": "BLOB_DOWNLOADS BlobDownload LoadedArtifacts ProcessResult Upload",
        "service": "TaskMemoryService",
    },
)

__all__ = [
    "BLOB_DOWNLOADS",
    "DOWNLOAD_EXPIRES_IN",
    "MAX_INLINE_ENTRIES_BYTES",
    "MAX_INLINE_RESPONSE_BYTES",
    "MAX_QUERY_CHARS",
    "MAX_TOP_K",
    "MAX_UPLOAD_BYTES",
    "SEARCH_MODES",
    "UPLOAD_EXPIRES_IN",
    "ActionIn",
    "BlobDownload",
    "LoadedArtifacts",
    "NotTextNamespace",
    "OnceResult",
    "OutputRequest",
    "PageQuery",
    "ProcessResult",
    "SchemaInvalid",
    "SearchRequest",
    "StorageKindConflict",
    "TaskMemoryService",
    "Upload",
    "UploadError",
    "envelope_json",
    "hit_to_dict",
    "list_artifact_json",
    "parse_request",
    "process_once",
    "record_to_dict",
]
