"""What every checkpoints use case takes: the store (DynamoDB), the blob store (S3 for blobs past the item budget)
and the limits that shape them. Built by `offprompt.composition.checkpoints`."""

from __future__ import annotations

import time
from collections.abc import Callable

from offprompt.limits import INLINE_RECORD_BYTES
from offprompt.ports import CheckpointBlobStore, CheckpointStore


class Checkpoints:
    def __init__(
        self,
        store: CheckpointStore,
        blobs: CheckpointBlobStore,
        *,
        big_blobs: bool = True,
        clock: Callable[[], float] = time.time,
        inline_bytes: int = INLINE_RECORD_BYTES,
    ) -> None:
        self.store = store
        self.blobs = blobs
        self.big_blobs = big_blobs  # False: no bucket, blobs past `inline_bytes` are refused
        self.clock = clock
        self.inline_bytes = inline_bytes  # an item stays under this (the run bodies' and records' 350 KB)
