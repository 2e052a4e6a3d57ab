"""What every extraction use case takes: the ports. Built by `offprompt.composition.extraction`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from offprompt.ports import (
    AccountStore,
    Deferrer,
    EventPublisher,
    ExtractionModel,
    ExtractionStore,
    StoredRun,
)
from offprompt.ports.threads import ThreadHistory
from offprompt.services.records.context import Records


class RunBodies(Protocol):
    def run_json(self, stored: StoredRun) -> str: ...


class Extractions:
    def __init__(
        self,
        store: ExtractionStore,
        runs: ThreadHistory,
        bodies: RunBodies,
        records: Records,
        *,
        model: Callable[[], ExtractionModel] | None = None,
        account: AccountStore | None = None,
        deferrer: Deferrer | None = None,
        publisher: EventPublisher | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.runs = runs
        self.bodies = bodies
        self.records = records
        self._model = model  # built on first use: the routes never configure a model
        self._built: ExtractionModel | None = None
        self.account = account  # the plan's extraction tokens and the usage counter (None: unmetered)
        self.deferrer = deferrer  # asks again when a trigger's idle time or a retry's backoff is not over
        self.publisher = publisher  # extraction.completed / extraction.failed on the memory-event bus
        self.clock = clock

    @property
    def model(self) -> ExtractionModel:
        if self._built is None:
            if self._model is None:
                raise RuntimeError("no extraction model is configured")
            self._built = self._model()
        return self._built
