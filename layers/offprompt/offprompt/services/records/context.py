"""What every records use case takes: the ports (the record store in DynamoDB, big values in S3, the record index)
and the limits that shape them. Built by `offprompt.composition.records`."""

from __future__ import annotations

import time
from collections.abc import Callable

from offprompt.limits import INLINE_RECORD_BYTES
from offprompt.ports import RecordBodyStore, RecordIndex, RecordStore


class Records:
    def __init__(
        self,
        store: RecordStore,
        bodies: RecordBodyStore,
        index: RecordIndex,
        *,
        big_values: bool = True,
        clock: Callable[[], float] = time.time,
        inline_bytes: int = INLINE_RECORD_BYTES,
    ) -> None:
        self.store = store
        self.bodies = bodies  # values: inline in their items, or S3 bodies
        self.big_values = big_values  # False: no bucket, values over `inline_bytes` are refused
        self.index = index  # built on first use: routes that never search or index never connect
        self.clock = clock
        self.inline_bytes = inline_bytes
