"""Ports: what the services need from the outside world, as Protocols, one module per domain. Adapters implement
them.

Services take ports in their constructors; tests may pass in-memory fakes for pure logic, but every adapter
is also tested against the real thing (moto for DynamoDB/S3, the local OpenSearch node, tiktoken's BPE).

`from offprompt.ports import X` keeps working for every port: the name is looked up in `_HOME` and its domain
module imported on first use, so importing the package costs nothing and a handler loads only the domains it
names (their ~80 dataclasses and Protocols took ~20 ms of every cold start as one module). New code may import
from the domain module itself (`offprompt.ports.threads`). `tests/unit/test_ports_package.py` keeps `_HOME`, the
imports below and the modules' definitions the same.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from offprompt.ports.account import (
        AccountStore,
        AuditStore,
        KeyLimitReached,
        KeyRecord,
        StoredBytesLimit,
        TenantExists,
        TenantRecord,
    )
    from offprompt.ports.blobs import (
        BlobStore,
    )
    from offprompt.ports.checkpoints import (
        CheckpointBlobStore,
        CheckpointGroup,
        CheckpointRace,
        CheckpointShared,
        CheckpointStore,
        CheckpointThreadChanged,
        CheckpointThreadState,
        IdBound,
        NewestRead,
        StoredCheckpoint,
        StoredCheckpointWrite,
        TypedBlob,
    )
    from offprompt.ports.conversation_index import (
        ConversationCandidate,
        ConversationDoc,
        ConversationIndex,
        RunChange,
        RunChangeDecoder,
        ThreadCut,
    )
    from offprompt.ports.events import (
        ChangeDecoder,
        EventPublisher,
        ExtractedFact,
        FactExtractor,
        MemoryEvent,
    )
    from offprompt.ports.extraction import (
        Deferrer,
        ExtractionLeaseTaken,
        ExtractionModel,
        ExtractionStatus,
        ExtractionStore,
        ModelAnswer,
        ModelRequest,
        ModelUnavailable,
    )
    from offprompt.ports.models import (
        Embedder,
        Reranker,
        Summarizer,
        Tokenizer,
    )
    from offprompt.ports.records import (
        RecordBodyStore,
        RecordConflict,
        RecordDoc,
        RecordHit,
        RecordIndex,
        RecordStore,
        StoredRecord,
    )
    from offprompt.ports.task_memory import (
        ArtifactStorage,
        BatchManifests,
        Entries,
        NamespaceCommit,
        NamespaceDeleting,
        NamespaceRecord,
        NamespaceStore,
        Receipt,
        ReceiptStore,
        Reservation,
        Resolved,
        SearchHit,
        SearchMode,
        StorageKindTaken,
        StoredBatch,
        TaskMemoryKeys,
        TextScope,
        TextStore,
        UploadTaken,
    )
    from offprompt.ports.threads import (
        ExpiredRuns,
        ForkRaced,
        ForkSpec,
        RunBodyStore,
        RunIdTaken,
        RunLog,
        RunReads,
        RunStore,
        StoredRun,
        ThreadAliases,
        ThreadChanged,
        ThreadDeletes,
        ThreadDeleting,
        ThreadExists,
        ThreadForks,
        ThreadHasForks,
        ThreadHistory,
        ThreadListing,
        ThreadReads,
        ThreadSettings,
        ThreadState,
        ThreadSummaries,
        WrongThreadKind,
    )

#: Each domain module and the ports it defines.
_DOMAINS: dict[str, str] = {
    "models": "Embedder Reranker Summarizer Tokenizer",
    "events": "ChangeDecoder EventPublisher ExtractedFact FactExtractor MemoryEvent",
    "extraction": (
        "Deferrer ExtractionLeaseTaken ExtractionModel ExtractionStatus ExtractionStore "
        "ModelAnswer ModelRequest ModelUnavailable"
    ),
    "blobs": "BlobStore",
    "task_memory": (
        "ArtifactStorage BatchManifests Entries NamespaceCommit NamespaceDeleting NamespaceRecord "
        "NamespaceStore Receipt ReceiptStore Reservation Resolved SearchHit SearchMode "
        "StorageKindTaken StoredBatch TaskMemoryKeys TextScope TextStore UploadTaken"
    ),
    "threads": (
        "ExpiredRuns ForkRaced ForkSpec RunBodyStore RunIdTaken RunLog RunReads RunStore "
        "StoredRun ThreadAliases ThreadChanged ThreadDeletes ThreadDeleting ThreadExists "
        "ThreadForks ThreadHasForks ThreadHistory ThreadListing ThreadReads ThreadSettings "
        "ThreadState ThreadSummaries WrongThreadKind"
    ),
    "account": "AccountStore AuditStore KeyLimitReached KeyRecord StoredBytesLimit TenantExists TenantRecord",
    "records": "RecordBodyStore RecordConflict RecordDoc RecordHit RecordIndex RecordStore StoredRecord",
    "checkpoints": (
        "CheckpointBlobStore CheckpointGroup CheckpointRace CheckpointShared CheckpointStore "
        "CheckpointThreadChanged CheckpointThreadState IdBound NewestRead StoredCheckpoint "
        "StoredCheckpointWrite TypedBlob"
    ),
    "conversation_index": (
        "ConversationCandidate ConversationDoc ConversationIndex RunChange RunChangeDecoder ThreadCut"
    ),
}
#: A port's name → its domain module (what `__getattr__` reads).
_HOME = {name: module for module, names in _DOMAINS.items() for name in names.split()}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> object:
    """Import a port's domain module on first use (PEP 562) and keep the name here for the next lookup."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return [*globals(), *_HOME]
