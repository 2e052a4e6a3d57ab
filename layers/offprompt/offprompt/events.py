"""The memory events (docs/adr/0036-memory-events.md): their names and source, a leaf module (no I/O).

Every change of a tenant's memory that an extractor may want is one event `{id, type, time, tenant, detail}`
(`offprompt.ports.MemoryEvent`); the detail holds identifiers and sizes only, never a value, a secret or a hash.
"""

from __future__ import annotations

#: EventBridge `Source` of every memory event.
SOURCE = "offprompt"

RUN_ADDED = "run.added"
ITEMS_APPENDED = "items.appended"
RUN_EXPIRED = "run.expired"
THREAD_DELETED = "thread.deleted"
OUTPUT_STORED = "output.stored"
NAMESPACE_DELETED = "namespace.deleted"
RECORD_PUT = "record.put"
RECORD_DELETED = "record.deleted"
RECORD_EXPIRED = "record.expired"

#: Every event type, in the order the ADR lists them.
EVENT_TYPES = (
    RUN_ADDED,
    ITEMS_APPENDED,
    RUN_EXPIRED,
    THREAD_DELETED,
    OUTPUT_STORED,
    NAMESPACE_DELETED,
    RECORD_PUT,
    RECORD_DELETED,
    RECORD_EXPIRED,
)

#: What the extraction runner says on the same bus (docs/adr/0051): a (thread, strategy) range extracted, or an
#: attempt that wrote nothing (the model down, a malformed answer). Not changes of the table: not in EVENT_TYPES.
EXTRACTION_COMPLETED = "extraction.completed"
EXTRACTION_FAILED = "extraction.failed"
